"""POST /reshaper (1.30; mappings 1.34; consumer_type 1.38)."""

import math
import uuid

import pytest

from tests.helpers import factories
from tests.helpers.api import assert_error

SERVICE = {"X-Roles": "admin,service"}


def reshape(api, body, version="1.38", headers=SERVICE):
    return api.post("/reshaper", version=version, json=body, headers=headers)


@pytest.fixture
def host(db):
    """A root holding VGPU inventory that a consumer uses."""
    return factories.provider(db, "host", inventory={"VCPU": 8, "VGPU": 4})


def allocate(api, consumer, allocations):
    body = {"allocations": allocations, "project_id": "p", "user_id": "u",
            "consumer_generation": None, "consumer_type": "INSTANCE"}
    assert api.put(f"/allocations/{consumer}", version="1.38", json=body).status_code == 204


def test_move_inventory_in_use_to_a_new_child(api, db, host):
    consumer = str(uuid.uuid4())
    allocate(api, consumer, {host: {"resources": {"VCPU": 2, "VGPU": 1}}})
    child = factories.provider(db, "gpu0", parent=host)
    body = {
        "inventories": {
            host: {"resource_provider_generation": 1, "inventories": {"VCPU": {"total": 8}}},
            child: {"resource_provider_generation": 0, "inventories": {"VGPU": {"total": 4}}},
        },
        "allocations": {consumer: {
            "allocations": {host: {"resources": {"VCPU": 2}}, child: {"resources": {"VGPU": 1}}},
            "project_id": "p", "user_id": "u", "consumer_generation": 1,
            "consumer_type": "INSTANCE"}},
    }
    assert reshape(api, body).status_code == 204
    r = api.get(f"/resource_providers/{host}/inventories", version="1.38")
    assert list(r.json["inventories"]) == ["VCPU"]
    r = api.get(f"/resource_providers/{child}/inventories", version="1.38")
    assert r.json["inventories"]["VGPU"]["total"] == 4
    r = api.get(f"/allocations/{consumer}", version="1.38").json
    assert r["allocations"][child]["resources"] == {"VGPU": 1}
    assert r["allocations"][host]["resources"] == {"VCPU": 2}
    assert r["consumer_generation"] == 2


def test_not_before_1_30_and_service_only(api, host):
    body = {"inventories": {host: {"resource_provider_generation": 0, "inventories": {}}},
            "allocations": {}}
    assert api.post("/reshaper", version="1.29", json=body, headers=SERVICE).status_code == 404
    assert_error(reshape(api, body, headers={}), 403,
                 "Policy does not allow placement:reshaper:reshape to be performed.")
    assert reshape(api, body, version="1.30").status_code == 204


def test_stale_generation_is_409(api, host):
    body = {"inventories": {host: {"resource_provider_generation": 5,
                                   "inventories": {"VCPU": {"total": 8}}}},
            "allocations": {}}
    error = assert_error(reshape(api, body), 409,
                         f"resource provider generation conflict for provider {host}: "
                         "actual: 0, given: 5")
    assert error["code"] == "placement.concurrent_update"


def test_unknown_provider_is_400(api):
    missing = str(uuid.uuid4())
    body = {"inventories": {missing: {"resource_provider_generation": 0, "inventories": {}}},
            "allocations": {}}
    error = assert_error(reshape(api, body), 400,
                         f"Resource provider {missing} in inventories not found")
    assert error["code"] == "placement.resource_provider.not_found"


def test_removing_inventory_still_in_use_rolls_everything_back(api, db, host):
    consumer = str(uuid.uuid4())
    allocate(api, consumer, {host: {"resources": {"VGPU": 1}}})
    child = factories.provider(db, "gpu0", parent=host)
    body = {
        "inventories": {
            host: {"resource_provider_generation": 1, "inventories": {"VCPU": {"total": 8}}},
            child: {"resource_provider_generation": 0, "inventories": {"VGPU": {"total": 4}}},
        },
        "allocations": {},  # the VGPU allocation is not moved
    }
    error = assert_error(reshape(api, body), 409, "in use")
    assert error["code"] == "placement.inventory.inuse"
    r = api.get(f"/resource_providers/{child}/inventories", version="1.38")
    assert r.json["inventories"] == {}
    assert factories.generation(db, host) == 1


def test_allocations_that_do_not_fit_are_409(api, db, host):
    consumer = str(uuid.uuid4())
    body = {
        "inventories": {host: {"resource_provider_generation": 0,
                               "inventories": {"VCPU": {"total": 2}}}},
        "allocations": {consumer: {
            "allocations": {host: {"resources": {"VCPU": 3}}},
            "project_id": "p", "user_id": "u", "consumer_generation": None,
            "consumer_type": "INSTANCE"}},
    }
    assert_error(reshape(api, body), 409, "Unable to allocate inventory")
    assert api.get(f"/allocations/{consumer}", version="1.38").json == {"allocations": {}}


@pytest.mark.parametrize("body", [
    {},
    {"inventories": {}, "allocations": {}},
    {"inventories": {"x": {}}, "allocations": {}},
    {"inventories": {str(uuid.uuid4()): {"inventories": {}}}, "allocations": {}},
    {"inventories": {str(uuid.uuid4()): {"resource_provider_generation": 0,
                                         "inventories": {"VCPU": {"total": 0}}}},
     "allocations": {}},
])
def test_bad_bodies(api, body):
    assert_error(reshape(api, body), 400, "JSON does not validate")


def test_consumer_type_needed_from_1_38_and_mappings_from_1_34(api, host):
    consumer = str(uuid.uuid4())
    alloc = {"allocations": {host: {"resources": {"VCPU": 1}}}, "project_id": "p",
             "user_id": "u", "consumer_generation": None}
    inv = {host: {"resource_provider_generation": 0,
                  "inventories": {"VCPU": {"total": 8}, "VGPU": {"total": 4}}}}
    assert_error(reshape(api, {"inventories": inv, "allocations": {consumer: alloc}}), 400,
                 "'consumer_type' is a required property")
    with_map = {**alloc, "mappings": {"_A": [host]}}
    assert_error(reshape(api, {"inventories": inv, "allocations": {consumer: with_map}},
                         version="1.33"), 400, "Additional properties are not allowed")
    assert reshape(api, {"inventories": inv, "allocations": {consumer: with_map}},
                   version="1.34").status_code == 204


@pytest.mark.parametrize("ratio,shown", [(math.nan, "nan"), (-math.inf, "-inf")])
def test_non_finite_allocation_ratio_is_400_as_on_inventories(api, db, host, ratio, shown):
    """The reshaper checks inventories with the same rules as PUT .../inventories
    (json.dumps writes NaN and -Infinity, which JSON parsing accepts)."""
    inventories = {"VCPU": {"total": 8, "allocation_ratio": ratio}}
    body = {"inventories": {host: {"resource_provider_generation": 0,
                                   "inventories": inventories}},
            "allocations": {}}
    error = assert_error(reshape(api, body), 400,
                         f"JSON does not validate: {shown} is not a finite number",
                         code="placement.undefined_code")
    r = api.get(f"/resource_providers/{host}/inventories", version="1.38")
    assert r.json["inventories"]["VCPU"]["allocation_ratio"] == 1.0
    via_put = api.put(f"/resource_providers/{host}/inventories", version="1.38",
                      json={"resource_provider_generation": 0, "inventories": inventories})
    assert assert_error(via_put, 400)["detail"] == error["detail"]

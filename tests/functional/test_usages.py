"""GET /resource_providers/{uuid}/usages (1.0; headers from 1.15; codes from 1.23)."""

import email.utils

from tests.helpers import factories
from tests.helpers.api import assert_error

RP = "11111111-2222-3333-4444-555555555555"

USAGES = f"/resource_providers/{RP}/usages"


def test_no_inventory_no_usages(api, db):
    factories.provider(db, uuid=RP, generation=3)
    r = api.get(USAGES, version="1.0")
    assert r.status_code == 200
    assert r.json == {"resource_provider_generation": 3, "usages": {}}


def test_every_inventory_class_is_listed_with_its_sum(api, db):
    factories.provider(db, uuid=RP, generation=1,
                  inventory={"DISK_GB": 100, "VCPU": 8, "MEMORY_MB": 512, "IPV4_ADDRESS": 4})
    factories.allocation(db, RP, "VCPU", 2, consumer="c1")
    factories.allocation(db, RP, "VCPU", 3, consumer="c2")
    factories.allocation(db, RP, "MEMORY_MB", 256, consumer="c1")
    r = api.get(USAGES, version="1.39")
    assert r.json == {"resource_provider_generation": 1,
                      "usages": {"VCPU": 5, "MEMORY_MB": 256, "DISK_GB": 0, "IPV4_ADDRESS": 0}}
    assert list(r.json["usages"]) == ["VCPU", "MEMORY_MB", "DISK_GB", "IPV4_ADDRESS"]  # class id
    assert all(isinstance(v, int) for v in r.json["usages"].values())


def test_allocations_without_inventory_are_not_listed(api, db):
    factories.provider(db, uuid=RP, inventory={"VCPU": 8})
    factories.allocation(db, RP, "DISK_GB", 10)
    assert api.get(USAGES, version="1.0").json["usages"] == {"VCPU": 0}


def test_other_providers_allocations_do_not_count(api, db):
    factories.provider(db, uuid=RP, inventory={"VCPU": 8})
    other = factories.provider(db, uuid="22222222-2222-3333-4444-555555555555",
                               inventory={"VCPU": 8})
    factories.allocation(db, other, "VCPU", 4)
    factories.allocation(db, RP, "VCPU", 1)
    assert api.get(USAGES, version="1.0").json["usages"] == {"VCPU": 1}
    assert api.get(f"/resource_providers/{other}/usages", version="1.0").json["usages"] == {
        "VCPU": 4}


def test_usages_follow_inventory_writes(api, db):
    factories.provider(db, uuid=RP)
    assert api.post(f"/resource_providers/{RP}/inventories", version="1.0",
                    json={"resource_class": "VGPU", "total": 2}).status_code == 201
    assert api.get(USAGES, version="1.0").json == {"resource_provider_generation": 1,
                                                   "usages": {"VGPU": 0}}


def test_headers_by_version(api, db):
    factories.provider(db, uuid=RP, inventory={"VCPU": 8})
    r = api.get(USAGES, version="1.14")
    assert "Last-Modified" not in r.headers and "Cache-Control" not in r.headers
    r = api.get(USAGES, version="1.15")
    assert r.headers["Cache-Control"] == "no-cache"
    assert email.utils.parsedate_to_datetime(r.headers["Last-Modified"])
    assert r.headers["Content-Type"] == "application/json"


def test_unknown_provider(api, db):
    for uuid in ("99999999-2222-3333-4444-555555555555", "not-a-uuid"):
        for version, code in (("1.22", None), ("1.23", "placement.undefined_code")):
            err = assert_error(api.get(f"/resource_providers/{uuid}/usages", version=version),
                               404, f"No resource provider with uuid {uuid} found: "
                                    f"No resource provider with uuid {uuid} found", code)
            assert ("code" in err) == (code is not None)


def test_accept_and_policy(api, db):
    factories.provider(db, uuid=RP)
    r = api.get(USAGES, version="1.0", headers={"Accept": "text/html"})
    assert r.status_code == 406
    assert_error(api.get(USAGES, version="1.0", token="user:proj"), 403,
                 "Policy does not allow placement:resource_providers:usages to be performed.")


def test_only_get_is_allowed(api, db):
    factories.provider(db, uuid=RP)
    r = api.post(USAGES, version="1.0", json={})
    assert_error(r, 405)
    assert r.headers["Allow"] == "GET"

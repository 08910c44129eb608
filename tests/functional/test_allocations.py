"""/allocations across its microversion windows (1.0, 1.8, 1.12, 1.13, 1.28,
1.34, 1.38) and GET /resource_providers/{uuid}/allocations."""

import uuid

import pytest

from tests.helpers import factories
from tests.helpers.api import assert_error

PROJECT = {"project_id": "proj", "user_id": "user"}


def new_uuid() -> str:
    return str(uuid.uuid4())


@pytest.fixture
def rp(db):
    return factories.provider(db, "host", inventory={
        "VCPU": 8, "MEMORY_MB": {"total": 4096, "step_size": 256, "max_unit": 2048},
        "DISK_GB": {"total": 100, "reserved": 10, "allocation_ratio": 2.0, "max_unit": 180}})


def put(api, consumer, allocations, version="1.38", **extra):
    body = {"allocations": allocations, **PROJECT}
    if version >= "1.28" and len(version) == 4:
        body["consumer_generation"] = extra.pop("consumer_generation", None)
    if version >= "1.38" and len(version) == 4:
        body["consumer_type"] = extra.pop("consumer_type", "INSTANCE")
    body.update(extra)
    return api.put(f"/allocations/{consumer}", version=version, json=body)


def test_list_form_before_1_12(api, rp, db):
    consumer = new_uuid()
    body = {"allocations": [{"resource_provider": {"uuid": rp}, "resources": {"VCPU": 2}}]}
    assert api.put(f"/allocations/{consumer}", version="1.0", json=body).status_code == 204
    r = api.get(f"/allocations/{consumer}", version="1.0")
    assert r.json == {"allocations": {rp: {"resources": {"VCPU": 2}, "generation": 1}}}
    # an old write is recorded against the incomplete-consumer project and user
    r = api.get(f"/allocations/{consumer}", version="1.12")
    assert r.json["project_id"] == "00000000-0000-0000-0000-000000000000"
    assert factories.generation(db, rp) == 1


def test_project_and_user_required_from_1_8(api, rp):
    body = {"allocations": [{"resource_provider": {"uuid": rp}, "resources": {"VCPU": 1}}]}
    assert_error(api.put(f"/allocations/{new_uuid()}", version="1.8", json=body), 400,
                 "'project_id' is a required property")
    body.update(PROJECT)
    assert api.put(f"/allocations/{new_uuid()}", version="1.8", json=body).status_code == 204
    assert api.put(f"/allocations/{new_uuid()}", version="1.7", json=body).status_code == 400


def test_dict_form_from_1_12(api, rp):
    consumer = new_uuid()
    allocs = {rp: {"resources": {"VCPU": 1, "MEMORY_MB": 512}}}
    assert put(api, consumer, allocs, version="1.11").status_code == 400
    assert put(api, consumer, allocs, version="1.12").status_code == 204
    r = api.get(f"/allocations/{consumer}", version="1.12")
    assert r.json == {"allocations": {rp: {"resources": {"VCPU": 1, "MEMORY_MB": 512},
                                           "generation": 1}}, **PROJECT}
    r = api.get(f"/allocations/{consumer}", version="1.11")
    assert "project_id" not in r.json


def test_unknown_consumer_has_empty_allocations(api):
    r = api.get(f"/allocations/{new_uuid()}", version="latest")
    assert r.status_code == 200 and r.json == {"allocations": {}}


def test_consumer_generation_from_1_28(api, rp):
    consumer = new_uuid()
    allocs = {rp: {"resources": {"VCPU": 1}}}
    assert put(api, consumer, allocs, version="1.28").status_code == 204
    r = api.get(f"/allocations/{consumer}", version="1.28")
    assert r.json["consumer_generation"] == 1
    assert "consumer_generation" not in api.get(f"/allocations/{consumer}",
                                                version="1.27").json
    # stale, missing and new-consumer generations are 409 concurrent_update
    error = assert_error(put(api, consumer, allocs, version="1.28", consumer_generation=7),
                         409, "consumer generation conflict - expected 1 but got 7")
    assert error["code"] == "placement.concurrent_update"
    assert_error(put(api, consumer, allocs, version="1.28"), 409,
                 "consumer generation conflict - expected 1 but got None")
    assert_error(put(api, new_uuid(), allocs, version="1.28", consumer_generation=3), 409,
                 "consumer generation conflict - expected null but got 3")
    assert put(api, consumer, allocs, version="1.28", consumer_generation=1).status_code == 204
    assert api.get(f"/allocations/{consumer}", version="1.28").json["consumer_generation"] == 2
    body = {"allocations": allocs, **PROJECT}
    assert_error(api.put(f"/allocations/{consumer}", version="1.28", json=body), 400,
                 "'consumer_generation' is a required property")


def test_empty_allocations_delete_from_1_28(api, rp, db):
    consumer = new_uuid()
    put(api, consumer, {rp: {"resources": {"VCPU": 1}}}, version="1.28")
    assert put(api, consumer, {}, version="1.27").status_code == 400
    assert put(api, consumer, {}, version="1.28", consumer_generation=1).status_code == 204
    assert api.get(f"/allocations/{consumer}", version="1.28").json == {"allocations": {}}
    assert factories.generation(db, rp) == 2  # the emptying write bumps it too
    # the consumer is gone: writing again needs a null generation
    assert put(api, consumer, {rp: {"resources": {"VCPU": 1}}}, version="1.28").status_code == 204


def test_mappings_accepted_from_1_34(api, rp):
    consumer = new_uuid()
    allocs = {rp: {"resources": {"VCPU": 1}}}
    assert_error(put(api, consumer, allocs, version="1.33", mappings={"_A": [rp]}), 400,
                 "Additional properties are not allowed")
    assert put(api, consumer, allocs, version="1.34", mappings={"_A": [rp]}).status_code == 204
    assert "mappings" not in api.get(f"/allocations/{consumer}", version="1.34").json


def test_consumer_type_from_1_38(api, rp):
    consumer = new_uuid()
    allocs = {rp: {"resources": {"VCPU": 1}}}
    assert put(api, consumer, allocs, version="1.37").status_code == 204
    assert api.get(f"/allocations/{consumer}", version="1.38").json["consumer_type"] == "unknown"
    assert "consumer_type" not in api.get(f"/allocations/{consumer}", version="1.37").json
    other = new_uuid()
    body = {"allocations": allocs, **PROJECT, "consumer_generation": None}
    assert_error(api.put(f"/allocations/{other}", version="1.38", json=body), 400,
                 "'consumer_type' is a required property")
    assert_error(put(api, other, allocs, consumer_type="lower"), 400, "does not match")
    assert put(api, other, allocs, consumer_type="MIGRATION").status_code == 204
    assert api.get(f"/allocations/{other}", version="1.38").json["consumer_type"] == "MIGRATION"
    assert put(api, consumer, allocs, consumer_generation=1).status_code == 204
    assert api.get(f"/allocations/{consumer}", version="1.38").json["consumer_type"] == "INSTANCE"


def test_capacity_and_constraints(api, rp, db):
    c1, c2 = new_uuid(), new_uuid()
    assert put(api, c1, {rp: {"resources": {"VCPU": 6}}}).status_code == 204
    error = assert_error(put(api, c2, {rp: {"resources": {"VCPU": 3}}}), 409,
                         f"Unable to allocate inventory: Unable to create allocation for 'VCPU' "
                         f"on resource provider '{rp}'. The requested amount would exceed the "
                         "capacity.")
    assert error["code"] == "placement.undefined_code"
    # (100 - 10) * 2.0 = 180 DISK_GB
    assert put(api, c2, {rp: {"resources": {"DISK_GB": 180}}}).status_code == 204
    assert_error(put(api, new_uuid(), {rp: {"resources": {"DISK_GB": 1}}}), 409,
                 "would exceed the capacity")
    for amount in (100, 4096, 300):  # step 256, max_unit 2048
        assert_error(put(api, new_uuid(), {rp: {"resources": {"MEMORY_MB": amount}}}), 409,
                     "The requested amount would violate inventory constraints.")
    assert_error(put(api, new_uuid(), {rp: {"resources": {"SRIOV_NET_VF": 1}}}), 409,
                 f"Unable to allocate inventory: Inventory for 'SRIOV_NET_VF' on resource "
                 f"provider '{rp}' invalid.")
    assert factories.generation(db, rp) == 2


def test_replacing_own_allocation_counts_only_the_new_amount(api, rp):
    consumer = new_uuid()
    assert put(api, consumer, {rp: {"resources": {"VCPU": 8}}}).status_code == 204
    assert put(api, consumer, {rp: {"resources": {"VCPU": 8}}},
               consumer_generation=1).status_code == 204


def test_bad_bodies_leave_nothing_written(api, rp, db):
    consumer = new_uuid()
    bad = [
        {rp: {"resources": {"VCPU": 0}}},
        {rp: {"resources": {"VCPU": -1}}},
        {rp: {"resources": {"VCPU": "1"}}},
        {rp: {"resources": {"VCPU": 1.5}}},
        {rp: {"resources": {}}},
        {rp: {}},
        {rp: {"resources": {"vcpu": 1}}},
        {"not-a-uuid": {"resources": {"VCPU": 1}}},
        [],
    ]
    for allocs in bad:
        assert_error(put(api, consumer, allocs), 400, "JSON does not validate")
    assert_error(put(api, consumer, {rp: {"resources": {"VCPU": 2 ** 31}}}), 409)
    assert_error(put(api, consumer, {rp: {"resources": {"CUSTOM_NOPE": 1}}}), 400,
                 f"Unable to allocate inventory for consumer {consumer}: "
                 "No such resource class CUSTOM_NOPE.")
    missing = new_uuid()
    assert_error(put(api, consumer, {missing: {"resources": {"VCPU": 1}}}), 400,
                 f"Allocation for resource provider '{missing}' that does not exist.")
    assert_error(api.put("/allocations/not-a-uuid", version="1.38", json={}), 400,
                 "Malformed consumer_uuid: not-a-uuid")
    assert_error(api.put(f"/allocations/{consumer}", version="1.38", body="{",
                         headers={"Content-Type": "application/json"}), 400, "Malformed JSON")
    assert_error(api.put(f"/allocations/{consumer}", version="1.38", body="{}",
                         headers={"Content-Type": "text/plain"}), 415)
    assert api.get(f"/allocations/{consumer}", version="latest").json == {"allocations": {}}
    assert factories.generation(db, rp) == 0
    assert api.get(f"/resource_providers/{rp}/allocations",
                   version="latest").json["allocations"] == {}


def test_delete(api, rp, db):
    consumer = new_uuid()
    put(api, consumer, {rp: {"resources": {"VCPU": 1}}})
    assert api.delete(f"/allocations/{consumer}", version="1.0").status_code == 204
    assert api.get(f"/allocations/{consumer}", version="latest").json == {"allocations": {}}
    assert_error(api.delete(f"/allocations/{consumer}", version="1.0"), 404,
                 f"No allocations for consumer '{consumer}'")
    # the consumer record went with its last allocation
    assert put(api, consumer, {rp: {"resources": {"VCPU": 1}}}).status_code == 204


def test_post_many_from_1_13(api, rp, db):
    other = factories.provider(db, "other", inventory={"VCPU": 2})
    c1, c2 = new_uuid(), new_uuid()
    body = {
        c1: {"allocations": {rp: {"resources": {"VCPU": 2}}}, **PROJECT,
             "consumer_generation": None, "consumer_type": "INSTANCE"},
        c2: {"allocations": {other: {"resources": {"VCPU": 2}}}, **PROJECT,
             "consumer_generation": None, "consumer_type": "MIGRATION"},
    }
    assert api.post("/allocations", version="1.12", json=body).status_code == 404
    assert api.post("/allocations", version="1.38", json=body).status_code == 204
    assert api.get(f"/allocations/{c2}", version="1.38").json["consumer_type"] == "MIGRATION"
    # all or nothing: the second consumer does not fit, so the first is not moved
    move = {
        c1: {"allocations": {rp: {"resources": {"VCPU": 1}}}, **PROJECT,
             "consumer_generation": 1, "consumer_type": "INSTANCE"},
        c2: {"allocations": {other: {"resources": {"VCPU": 3}}}, **PROJECT,
             "consumer_generation": 1, "consumer_type": "MIGRATION"},
    }
    assert_error(api.post("/allocations", version="1.38", json=move), 409,
                 f"Unable to create allocation for 'VCPU' on resource provider '{other}'")
    assert api.get(f"/allocations/{c1}", version="1.38").json["allocations"][rp][
        "resources"] == {"VCPU": 2}
    # an empty allocations object removes that consumer's allocations
    release = {c2: {"allocations": {}, **PROJECT, "consumer_generation": 1,
                    "consumer_type": "MIGRATION"}}
    assert api.post("/allocations", version="1.38", json=release).status_code == 204
    assert api.get(f"/allocations/{c2}", version="1.38").json == {"allocations": {}}


def test_post_sums_amounts_of_several_consumers(api, db):
    rp = factories.provider(db, "small", inventory={"VCPU": 3})
    body = {c: {"allocations": {rp: {"resources": {"VCPU": 2}}}, **PROJECT,
                "consumer_generation": None}
            for c in (new_uuid(), new_uuid())}
    assert_error(api.post("/allocations", version="1.28", json=body), 409,
                 "would exceed the capacity")


def test_post_unknown_class_message(api, rp):
    c = new_uuid()
    body = {c: {"allocations": {rp: {"resources": {"CUSTOM_NOPE": 1}}}, **PROJECT}}
    assert_error(api.post("/allocations", version="1.13", json=body), 400,
                 "Unable to allocate inventory No such resource class CUSTOM_NOPE.")
    assert_error(api.post("/allocations", version="1.13", json={}), 400,
                 "JSON does not validate")


def test_provider_allocations(api, rp):
    c1 = new_uuid()
    put(api, c1, {rp: {"resources": {"VCPU": 1, "DISK_GB": 5}}})
    r = api.get(f"/resource_providers/{rp}/allocations", version="1.28")
    assert r.json == {"allocations": {c1: {"resources": {"VCPU": 1, "DISK_GB": 5},
                                           "consumer_generation": 1}},
                      "resource_provider_generation": 1}
    r = api.get(f"/resource_providers/{rp}/allocations", version="1.27")
    assert r.json["allocations"][c1] == {"resources": {"VCPU": 1, "DISK_GB": 5}}
    missing = new_uuid()
    assert_error(api.get(f"/resource_providers/{missing}/allocations", version="1.0"), 404,
                 f"Resource provider '{missing}' not found: "
                 f"No resource provider with uuid {missing} found")


def test_last_modified_from_1_15(api, rp):
    consumer = new_uuid()
    put(api, consumer, {rp: {"resources": {"VCPU": 1}}})
    assert "Last-Modified" not in api.get(f"/allocations/{consumer}", version="1.14").headers
    r = api.get(f"/allocations/{consumer}", version="1.15")
    assert r.headers["Cache-Control"] == "no-cache" and "Last-Modified" in r.headers

"""GET /usages (1.9; grouped by consumer type from 1.38)."""

import uuid

import pytest

from tests.helpers import factories
from tests.helpers.api import assert_error


@pytest.fixture
def rp(db):
    return factories.provider(db, "host", inventory={"VCPU": 16, "MEMORY_MB": 8192})


def put(api, rp, resources, project="p1", user="u1", consumer_type=None, version="1.38"):
    body = {"allocations": {rp: {"resources": resources}}, "project_id": project,
            "user_id": user, "consumer_generation": None}
    if consumer_type:
        body["consumer_type"] = consumer_type
    r = api.put(f"/allocations/{uuid.uuid4()}", version=version, json=body)
    assert r.status_code == 204, r.text


def test_usages_appear_at_1_9(api, rp):
    put(api, rp, {"VCPU": 2, "MEMORY_MB": 512}, version="1.37")
    put(api, rp, {"VCPU": 1}, user="u2", version="1.37")
    put(api, rp, {"VCPU": 4}, project="p2", version="1.37")
    assert api.get("/usages?project_id=p1", version="1.8").status_code == 404
    r = api.get("/usages?project_id=p1", version="1.9")
    assert r.json == {"usages": {"VCPU": 3, "MEMORY_MB": 512}}
    r = api.get("/usages?project_id=p1&user_id=u2", version="1.37")
    assert r.json == {"usages": {"VCPU": 1}}
    assert api.get("/usages?project_id=nobody", version="1.9").json == {"usages": {}}


def test_grouped_by_consumer_type_from_1_38(api, rp):
    put(api, rp, {"VCPU": 2}, consumer_type="INSTANCE")
    put(api, rp, {"VCPU": 1, "MEMORY_MB": 256}, consumer_type="INSTANCE")
    put(api, rp, {"VCPU": 4}, consumer_type="MIGRATION")
    put(api, rp, {"VCPU": 3}, version="1.37")  # no type: "unknown"
    r = api.get("/usages?project_id=p1", version="1.38")
    assert r.json == {"usages": {
        "INSTANCE": {"VCPU": 3, "MEMORY_MB": 256, "consumer_count": 2},
        "MIGRATION": {"VCPU": 4, "consumer_count": 1},
        "unknown": {"VCPU": 3, "consumer_count": 1}}}
    r = api.get("/usages?project_id=p1&consumer_type=all", version="1.38")
    assert r.json == {"usages": {"all": {"VCPU": 10, "MEMORY_MB": 256, "consumer_count": 4}}}
    r = api.get("/usages?project_id=p1&consumer_type=unknown", version="1.38")
    assert r.json == {"usages": {"unknown": {"VCPU": 3, "consumer_count": 1}}}
    r = api.get("/usages?project_id=p1&consumer_type=MIGRATION", version="1.38")
    assert r.json == {"usages": {"MIGRATION": {"VCPU": 4, "consumer_count": 1}}}
    r = api.get("/usages?project_id=nobody&consumer_type=all", version="1.38")
    assert r.json == {"usages": {}}
    assert_error(api.get("/usages?project_id=p1&consumer_type=MIGRATION", version="1.37"),
                 400, "Invalid query string parameters: Additional properties are not allowed")


@pytest.mark.parametrize("qs,text", [
    ("", "'project_id' is a required property"),
    ("project_id=", "'' should be non-empty"),
    ("project_id=p&bogus=1", "Additional properties are not allowed"),
    ("project_id=p&consumer_type=lower", "'lower' does not match"),
    ("project_id=%ff", "codec can't decode"),
])
def test_bad_queries(api, qs, text):
    assert_error(api.get(f"/usages?{qs}", version="1.38"), 400,
                 f"Invalid query string parameters: {text}" if "codec" not in text else text)


def test_project_reader_sees_only_own_project(api, rp):
    put(api, rp, {"VCPU": 2}, version="1.37")
    r = api.get("/usages?project_id=p1", version="1.38", token="reader:p1",
                headers={"X-Roles": "reader"})
    assert r.status_code == 200 and r.json["usages"]["unknown"]["VCPU"] == 2
    assert_error(api.get("/usages?project_id=p2", version="1.38", token="reader:p1",
                         headers={"X-Roles": "reader"}), 403,
                 "Policy does not allow placement:usages to be performed.")

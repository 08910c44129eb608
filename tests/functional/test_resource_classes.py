"""/resource_classes across its microversions (1.2, 1.7, 1.15, 1.23)."""

import os_resource_classes as orc

from tests.helpers.api import assert_error


def test_list_has_every_standard_class_in_library_order(api):
    r = api.get("/resource_classes", version="1.2")
    names = [rc["name"] for rc in r.json["resource_classes"]]
    assert names == list(orc.STANDARDS)
    assert r.json["resource_classes"][0]["links"] == [
        {"rel": "self", "href": "/resource_classes/VCPU"}]


def test_create_show_and_list_custom(api):
    r = api.post("/resource_classes", version="1.2", json={"name": "CUSTOM_GOLD"})
    assert r.status_code == 201
    assert r.headers["Location"].endswith("/resource_classes/CUSTOM_GOLD")
    assert "Content-Type" not in r.headers
    r = api.get("/resource_classes/CUSTOM_GOLD", version="1.2")
    assert r.json == {"name": "CUSTOM_GOLD",
                      "links": [{"rel": "self", "href": "/resource_classes/CUSTOM_GOLD"}]}
    names = [rc["name"] for rc in api.get("/resource_classes", version="1.2")
             .json["resource_classes"]]
    assert names[-1] == "CUSTOM_GOLD"


def test_create_duplicate_is_409(api):
    assert api.post("/resource_classes", version="1.2",
                    json={"name": "CUSTOM_GOLD"}).status_code == 201
    assert_error(api.post("/resource_classes", version="1.2", json={"name": "CUSTOM_GOLD"}),
                 409, "Conflicting resource class already exists: CUSTOM_GOLD")


def test_create_standard_name_is_rejected(api):
    assert_error(api.post("/resource_classes", version="1.2", json={"name": "VCPU"}), 400,
                 "JSON does not validate: 'VCPU' does not match")


def test_create_bad_bodies(api):
    for body in ({}, {"name": 5}, {"name": "CUSTOM_A", "x": 1}, {"name": "CUSTOM_" + "A" * 300},
                 {"name": "CUSTOM_lower"}, [], "CUSTOM_A"):
        assert_error(api.post("/resource_classes", version="1.2", json=body), 400,
                     "JSON does not validate")
    assert api.get("/resource_classes/CUSTOM_A", version="1.2").status_code == 404


def test_show_unknown_is_404(api):
    assert_error(api.get("/resource_classes/CUSTOM_NOPE", version="1.2"), 404,
                 "No such resource class CUSTOM_NOPE.")


def test_put_renames_before_1_7(api):
    api.post("/resource_classes", version="1.2", json={"name": "CUSTOM_OLD"})
    r = api.put("/resource_classes/CUSTOM_OLD", version="1.6", json={"name": "CUSTOM_NEW"})
    assert r.status_code == 200
    assert r.json["name"] == "CUSTOM_NEW"
    assert api.get("/resource_classes/CUSTOM_OLD", version="1.6").status_code == 404
    assert_error(api.put("/resource_classes/VCPU", version="1.6", json={"name": "CUSTOM_X"}),
                 400, "Cannot update standard resource class VCPU")
    api.post("/resource_classes", version="1.2", json={"name": "CUSTOM_OTHER"})
    assert_error(api.put("/resource_classes/CUSTOM_NEW", version="1.6",
                         json={"name": "CUSTOM_OTHER"}), 409,
                 "Resource class already exists: CUSTOM_OTHER")


def test_put_creates_or_verifies_from_1_7(api):
    r = api.put("/resource_classes/CUSTOM_NICE", version="1.7")
    assert r.status_code == 201
    assert r.headers["Location"].endswith("/resource_classes/CUSTOM_NICE")
    assert api.put("/resource_classes/CUSTOM_NICE", version="1.7").status_code == 204
    assert_error(api.put("/resource_classes/VCPU", version="1.7"), 400,
                 "JSON does not validate: 'VCPU' does not match")
    assert_error(api.put("/resource_classes/CUSTOM_bad", version="1.7"), 400)


def test_delete(api):
    api.post("/resource_classes", version="1.2", json={"name": "CUSTOM_GONE"})
    assert api.delete("/resource_classes/CUSTOM_GONE", version="1.2").status_code == 204
    assert api.get("/resource_classes/CUSTOM_GONE", version="1.2").status_code == 404
    assert_error(api.delete("/resource_classes/CUSTOM_GONE", version="1.2"), 404)
    assert_error(api.delete("/resource_classes/VCPU", version="1.2"), 400,
                 "Cannot delete standard resource class VCPU.")


def test_custom_ids_start_at_10000(api, db):
    from placer.db import resource_classes as rcs

    api.put("/resource_classes/CUSTOM_ONE", version="1.7")
    api.put("/resource_classes/CUSTOM_TWO", version="1.7")
    assert db.read(rcs.get, "CUSTOM_ONE").id == 10000
    assert db.read(rcs.get, "CUSTOM_TWO").id == 10001


def test_last_modified_of_custom_class_is_its_creation(api):
    api.put("/resource_classes/CUSTOM_TS", version="1.7")
    r = api.get("/resource_classes/CUSTOM_TS", version="1.15")
    assert r.headers["Cache-Control"] == "no-cache"
    assert "Last-Modified" in r.headers

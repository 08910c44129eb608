"""/resource_providers: create, show, update (name), delete and the representation
across microversions 1.0-1.39. Trees are in test_resource_providers_tree.py,
list filters in test_resource_providers_list.py; the row helpers below (direct
inserts through placer.db.tables) serve all three."""

import email.utils
import uuid as uuidlib

import pytest

from placer.db import tables as t
from tests.helpers import factories
from tests.helpers.api import assert_error
from tests.helpers.providers import (
    MISSING,
    RPS,
    U1,
    U2,
    count_rows,
    links,
    make,
)

# -- create -------------------------------------------------------------------

def test_create_before_1_20_is_201_with_location_and_no_body(api):
    for version in ("1.0", "1.19"):
        r = api.post(RPS, version=version, json={"name": f"rp-{version}"})
        assert r.status_code == 201
        assert r.body == b""
        assert "Content-Type" not in r.headers
        uuid = r.headers["Location"].rsplit("/", 1)[1]
        assert r.headers["Location"].endswith(f"{RPS}/{uuid}")
        assert uuidlib.UUID(uuid)
        assert api.get(f"{RPS}/{uuid}", version="1.0").json["name"] == f"rp-{version}"


def test_create_from_1_20_returns_the_provider(api):
    r = api.post(RPS, version="1.20", json={"name": "one", "uuid": U1})
    assert r.status_code == 200
    assert r.headers["Location"].endswith(f"{RPS}/{U1}")
    assert r.headers["Cache-Control"] == "no-cache"
    assert email.utils.parsedate_to_datetime(r.headers["Last-Modified"])
    assert r.json == {
        "uuid": U1, "name": "one", "generation": 0,
        "links": links(U1, "inventories", "usages", "aggregates", "traits", "allocations"),
        "parent_provider_uuid": None, "root_provider_uuid": U1}


def test_create_normalises_the_uuid(api):
    r = api.post(RPS, version="1.39", json={"name": "n", "uuid": U1.replace("-", "").upper()})
    assert r.json["uuid"] == U1
    assert api.get(f"{RPS}/{U1}", version="1.0").status_code == 200


def test_create_duplicates_are_409(api):
    make(api, "taken", U1)
    error = assert_error(api.post(RPS, version="1.23", json={"name": "taken"}), 409,
                         "Conflicting resource provider name: taken already exists.",
                         "placement.duplicate_name")
    assert error["title"] == "Conflict"
    assert_error(api.post(RPS, version="1.23", json={"name": "other", "uuid": U1}), 409,
                 f"Conflicting resource provider uuid: {U1} already exists.",
                 "placement.duplicate_name")
    # both taken: the uuid is reported
    assert_error(api.post(RPS, version="1.23", json={"name": "taken", "uuid": U1}), 409,
                 f"Conflicting resource provider uuid: {U1} already exists.")
    # the same uuid written another way is still the same uuid
    assert_error(api.post(RPS, version="1.0", json={"name": "x", "uuid": U1.upper()}), 409,
                 f"Conflicting resource provider uuid: {U1} already exists.")
    error = assert_error(api.post(RPS, version="1.22", json={"name": "taken"}), 409)
    assert "code" not in error


def test_create_empty_name_is_400(api):
    error = assert_error(api.post(RPS, version="1.39", json={"name": "", "uuid": U1}), 400,
                         f'Unable to create resource provider "", {U1}: Object action create '
                         "failed because: name is required")
    assert error["code"] == "placement.undefined_code"


@pytest.mark.parametrize("body,message", [
    ({}, "'name' is a required property"),
    ({"name": 5}, "5 is not of type 'string'"),
    ({"name": None}, "None is not of type 'string'"),
    ({"name": "x" * 201}, "is too long"),
    ({"name": "x", "uuid": "abc"}, "'abc' is not a 'uuid'"),
    ({"name": "x", "uuid": None}, "None is not of type 'string'"),
    ({"name": "x", "uuid": 7}, "7 is not of type 'string'"),
    ({"name": "x", "foo": 1}, "Additional properties are not allowed ('foo' was unexpected)"),
    ({"name": "x", "parent_provider_uuid": None},
     "Additional properties are not allowed ('parent_provider_uuid' was unexpected)"),
    ([], "[] is not of type 'object'"),
    ("x", "'x' is not of type 'object'"),
])
def test_create_bad_bodies_are_400(api, body, message):
    error = assert_error(api.post(RPS, version="1.13", json=body), 400,
                         "JSON does not validate: ")
    assert message in error["detail"]
    assert api.get(RPS, version="1.0").json == {"resource_providers": []}


def test_create_name_of_200_characters_is_fine(api):
    name = "\u00e9" * 200
    r = api.post(RPS, version="1.20", json={"name": name})
    assert r.status_code == 200 and r.json["name"] == name


def test_create_malformed_json_and_media_type(api):
    assert_error(api.request("POST", RPS, version="1.0", body="{x",
                             headers={"Content-Type": "application/json"}),
                 400, "Malformed JSON: Expecting property name enclosed in double quotes")
    assert_error(api.request("POST", RPS, version="1.0", body='{"name": "x"}',
                             headers={"Content-Type": "text/plain"}),
                 415, "The media type text/plain is not supported, use application/json")


# -- show -----------------------------------------------------------------------

@pytest.mark.parametrize("version,rels", [
    ("1.0", ("inventories", "usages")),
    ("1.1", ("inventories", "usages", "aggregates")),
    ("1.5", ("inventories", "usages", "aggregates")),
    ("1.6", ("inventories", "usages", "aggregates", "traits")),
    ("1.10", ("inventories", "usages", "aggregates", "traits")),
    ("1.11", ("inventories", "usages", "aggregates", "traits", "allocations")),
    ("1.39", ("inventories", "usages", "aggregates", "traits", "allocations")),
])
def test_show_links_by_microversion(api, version, rels):
    make(api, "shown", U1)
    r = api.get(f"{RPS}/{U1}", version=version)
    assert r.status_code == 200
    assert r.json["links"] == links(U1, *rels)
    assert list(r.json)[:4] == ["uuid", "name", "generation", "links"]


def test_show_tree_fields_and_cache_headers_by_microversion(api):
    make(api, "shown", U1)
    r = api.get(f"{RPS}/{U1}", version="1.13")
    assert set(r.json) == {"uuid", "name", "generation", "links"}
    assert "Last-Modified" not in r.headers and "Cache-Control" not in r.headers
    r = api.get(f"{RPS}/{U1}", version="1.14")
    assert r.json["parent_provider_uuid"] is None and r.json["root_provider_uuid"] == U1
    assert list(r.json)[-2:] == ["parent_provider_uuid", "root_provider_uuid"]
    assert "Last-Modified" not in r.headers
    r = api.get(f"{RPS}/{U1}", version="1.15")
    assert r.headers["Cache-Control"] == "no-cache"
    assert email.utils.parsedate_to_datetime(r.headers["Last-Modified"])


def test_show_unknown_is_404(api):
    assert_error(api.get(f"{RPS}/{MISSING}", version="1.0"), 404,
                 f"No resource provider with uuid {MISSING} found")
    assert_error(api.get(f"{RPS}/not-a-uuid", version="1.39"), 404,
                 "No resource provider with uuid not-a-uuid found", "placement.undefined_code")


def test_show_refuses_non_json_accept(api):
    make(api, "shown", U1)
    r = api.get(f"{RPS}/{U1}", version="1.0", headers={"Accept": "text/plain"})
    assert r.status_code == 406
    assert "Only application/json is provided" in r.text


# -- update (name) ----------------------------------------------------------------

def test_rename_keeps_the_generation(api, db):
    make(api, "old", U1)
    factories.inventory(db, U1, "VCPU", 4)
    db.write(lambda conn: conn.execute(t.resource_providers.update().values(generation=3)))
    r = api.put(f"{RPS}/{U1}", version="1.0", json={"name": "new"})
    assert r.status_code == 200
    assert r.json == {"uuid": U1, "name": "new", "generation": 3,
                      "links": links(U1, "inventories", "usages")}
    assert api.get(f"{RPS}/{U1}", version="1.0").json["name"] == "new"


def test_rename_to_a_taken_name_is_409(api):
    make(api, "one", U1)
    make(api, "two", U2)
    assert_error(api.put(f"{RPS}/{U1}", version="1.23", json={"name": "two"}), 409,
                 "Conflicting resource provider two already exists.", "placement.duplicate_name")
    assert api.put(f"{RPS}/{U1}", version="1.23", json={"name": "one"}).status_code == 200


def test_rename_to_empty_name_is_allowed_like_the_reference(api):
    make(api, "one", U1)
    r = api.put(f"{RPS}/{U1}", version="1.39", json={"name": ""})
    assert r.status_code == 200 and r.json["name"] == ""


@pytest.mark.parametrize("version,body,message", [
    ("1.0", {}, "'name' is a required property"),
    ("1.0", {"name": 5}, "5 is not of type 'string'"),
    ("1.0", {"name": "x" * 201}, "is too long"),
    ("1.0", {"name": "x", "uuid": U1}, "('uuid' was unexpected)"),
    ("1.13", {"name": "x", "parent_provider_uuid": None},
     "('parent_provider_uuid' was unexpected)"),
    ("1.14", {"name": "x", "parent_provider_uuid": "nope"}, "'nope' is not a 'uuid'"),
    ("1.14", {"name": "x", "parent_provider_uuid": 3},
     "3 is not valid under any of the given schemas"),
    ("1.39", {"name": "x", "generation": 1}, "('generation' was unexpected)"),
])
def test_update_bad_bodies_are_400(api, version, body, message):
    make(api, "one", U1)
    error = assert_error(api.put(f"{RPS}/{U1}", version=version, json=body), 400,
                         "JSON does not validate: ")
    assert message in error["detail"]
    assert api.get(f"{RPS}/{U1}", version="1.0").json["name"] == "one"


def test_update_unknown_provider_is_404_before_body_checks(api):
    assert_error(api.put(f"{RPS}/{MISSING}", version="1.39", json={"name": 5}), 404,
                 f"No resource provider with uuid {MISSING} found")


def test_update_needs_json(api):
    make(api, "one", U1)
    assert_error(api.request("PUT", f"{RPS}/{U1}", version="1.0", body='{"name": "x"}',
                             headers={"Content-Type": "text/plain"}), 415)


def test_update_last_modified_is_the_previous_update_time(api):
    make(api, "root", U1)  # a root is written twice on creation: it has an updated_at
    child = make(api, "child", parent=U1)  # a child has none
    r = api.put(f"{RPS}/{U1}", version="1.15", json={"name": "root2"})
    assert r.headers["Cache-Control"] == "no-cache"
    assert email.utils.parsedate_to_datetime(r.headers["Last-Modified"])
    r = api.put(f"{RPS}/{child}", version="1.15", json={"name": "child2"})
    assert r.status_code == 200
    assert r.headers["Cache-Control"] == "no-cache"
    assert "Last-Modified" not in r.headers
    r = api.put(f"{RPS}/{child}", version="1.14", json={"name": "child3"})
    assert "Cache-Control" not in r.headers and "Last-Modified" not in r.headers


# -- delete -----------------------------------------------------------------------

def test_delete_removes_provider_and_its_associations(api, db):
    make(api, "gone", U1)
    keep = make(api, "kept")
    factories.inventory(db, U1, "VCPU", 4)
    factories.inventory(db, keep, "VCPU", 4)
    factories.traits(db, U1, "CUSTOM_GONE", "HW_CPU_X86_AVX")
    factories.traits(db, keep, "CUSTOM_GONE")
    agg = str(uuidlib.uuid4())
    factories.aggregates(db, U1, agg)
    factories.aggregates(db, keep, agg)
    rp_id = db.read(factories.rp_id, U1)
    r = api.delete(f"{RPS}/{U1}", version="1.0")
    assert r.status_code == 204 and r.body == b""
    assert_error(api.get(f"{RPS}/{U1}", version="1.0"), 404)
    for table in (t.inventories, t.resource_provider_traits, t.resource_provider_aggregates):
        assert count_rows(db, table, rp_id) == 0
        assert count_rows(db, table, keep) == 1
    # the name and uuid are free again
    assert api.post(RPS, version="1.0", json={"name": "gone", "uuid": U1}).status_code == 201


def test_delete_unknown_is_404(api):
    assert_error(api.delete(f"{RPS}/{MISSING}", version="1.39"), 404,
                 f"No resource provider with uuid {MISSING} found for delete",
                 "placement.undefined_code")
    assert_error(api.delete(f"{RPS}/bogus", version="1.0"), 404,
                 "No resource provider with uuid bogus found for delete")


def test_delete_with_allocations_is_409(api, db):
    make(api, "busy", U1)
    factories.inventory(db, U1, "VCPU", 4)
    factories.allocation(db, U1, "VCPU", 1)
    message = f"Unable to delete resource provider {U1}: Resource provider has allocations."
    error = assert_error(api.delete(f"{RPS}/{U1}", version="1.22"), 409, message)
    assert "code" not in error
    assert_error(api.delete(f"{RPS}/{U1}", version="1.23"), 409, message,
                 "placement.resource_provider.inuse")
    assert api.get(f"{RPS}/{U1}", version="1.0").status_code == 200
    assert count_rows(db, t.inventories, U1) == 1


def test_delete_parent_is_409_and_child_can_go(api):
    make(api, "parent", U1)
    child = make(api, "child", parent=U1)
    message = f"Unable to delete parent resource provider {U1}: It has child resource providers."
    assert_error(api.delete(f"{RPS}/{U1}", version="1.14"), 409, message)
    assert_error(api.delete(f"{RPS}/{U1}", version="1.39"), 409, message,
                 "placement.resource_provider.cannot_delete_parent")
    assert api.delete(f"{RPS}/{child}", version="1.14").status_code == 204
    assert api.delete(f"{RPS}/{U1}", version="1.14").status_code == 204


# -- policy -------------------------------------------------------------------------

@pytest.mark.parametrize("method,path", [
    ("GET", RPS), ("POST", RPS), ("GET", f"{RPS}/{U1}"), ("PUT", f"{RPS}/{U1}"),
    ("DELETE", f"{RPS}/{U1}")])
def test_non_admin_is_forbidden(api, method, path):
    make(api, "one", U1)
    r = api.request(method, path, version="1.39", json={"name": "x"}, token="user:project")
    assert r.status_code == 403, r.text
    assert api.get(f"{RPS}/{U1}", version="1.0").json["name"] == "one"

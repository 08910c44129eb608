"""GET /openapi.json: one OpenAPI 3.1 document per microversion, written from
the route table and the schema table, served without authentication.

The live answers are checked against it by tests/functional/test_schemathesis.py.
"""

import pytest
from keystonemiddleware import fixture as ks_fixture
from openapi_spec_validator import validate

from placer import microversions as mv
from placer import wsgi
from placer.http import openapi
from placer.route_table import ROUTES
from tests.helpers.api import Api, assert_error, make_conf

ALL_VERSIONS = list(mv.ALL)


def document(version):
    return openapi.document(ROUTES, version)


def _operations(document: dict) -> set[tuple[str, str]]:
    return {(path, method.upper()) for path, ops in document["paths"].items() for method in ops}


def test_schema_windows_of_every_route_cover_its_versions():
    for route in ROUTES:
        windows = route.windows
        assert windows[0].first == route.since and windows[-1].last == route.until, route
        for before, after in zip(windows, windows[1:], strict=False):
            assert (before.last[0], before.last[1] + 1) == after.first, route


@pytest.mark.parametrize("version", ALL_VERSIONS, ids=mv.text)
def test_document_has_every_route_and_method_of_its_version(version):
    doc = document(version)
    expected = {(route.path, route.method) for route in ROUTES
                if route.enabled is None and route.since <= version <= route.until}
    assert _operations(doc) == expected
    assert doc["info"]["version"] == mv.text(version)
    assert "/metrics" not in doc["paths"]  # served only if enabled: not described


@pytest.mark.parametrize("version", [(1, 0), (1, 12), (1, 23), (1, 29), (1, 39)], ids=mv.text)
def test_document_is_valid_openapi_3_1(version):
    validate(document(version))


def test_operations_carry_the_schemas_the_handlers_validate_with():
    """The body of PUT /allocations/{c} at each version is the validator's schema."""
    for version in ALL_VERSIONS:
        doc = document(version)
        for route in ROUTES:
            if route.enabled is not None or not route.serves(version):
                continue
            described = doc["paths"][route.path][route.method.lower()]
            window = route.at(version)
            if window.body is None:
                assert "requestBody" not in described
            else:
                assert described["requestBody"]["content"]["application/json"]["schema"] == (
                    window.body.schema)
            window_text = {"first": mv.text(window.first), "last": mv.text(window.last)}
            assert described["x-microversions"] == window_text
            assert "500" not in described["responses"]


def test_microversion_windows_show_in_the_documents():
    old, new = document((1, 13)), document((1, 14))
    before = old["paths"]["/resource_providers"]["post"]
    after = new["paths"]["/resource_providers"]["post"]
    body = after["requestBody"]["content"]["application/json"]["schema"]
    assert "parent_provider_uuid" in body["properties"]
    assert "parent_provider_uuid" not in (
        before["requestBody"]["content"]["application/json"]["schema"]["properties"])
    assert set(before["responses"]) >= {"201", "4XX"}
    assert "/reshaper" not in old["paths"]
    header = new["components"]["parameters"]["microversion"]
    assert header["name"] == "OpenStack-API-Version"
    assert header["schema"]["const"] == "placement 1.14"


def _error_fields(version) -> list[str]:
    error = document(version)["components"]["schemas"]["Error"]
    return error["properties"]["errors"]["items"]["required"]


def test_error_code_is_required_from_1_23():
    assert "code" not in _error_fields((1, 22))
    assert "code" in _error_fields((1, 23))


def test_candidate_groups_are_named_with_their_pattern():
    operation = document(mv.MAX)["paths"]["/allocation_candidates"]["get"]
    params = {p.get("name"): p for p in operation["parameters"] if "name" in p}
    assert params["resources"]["x-name-pattern"] == "^resources([a-zA-Z0-9_-]{1,64})?$"
    assert {"limit", "group_policy", "root_required", "same_subtree", "in_tree"} <= set(params)


def test_served_without_a_token(api):
    r = api.get("/openapi.json", token=None)
    assert r.status_code == 200, r.text
    assert r.content_type == "application/json"
    assert r.json == document(mv.MAX)
    validate(r.json)


def test_served_per_version(api):
    r = api.get("/openapi.json?version=1.7", token=None)
    assert r.status_code == 200, r.text
    assert r.json["info"]["version"] == "1.7"
    assert "/allocation_candidates" not in r.json["paths"]
    assert api.get("/openapi.json?version=latest", token=None).json["info"]["version"] == "1.39"


@pytest.mark.parametrize("query", ["version=1.40", "version=2.0", "version=x", "other=1",
                                   # the schema's pattern lets a trailing newline through
                                   "version=latest%0A", "version=1.1%0A"])
def test_unknown_version_or_parameter_is_a_400(api, query):
    assert_error(api.get(f"/openapi.json?{query}", token=None), 400)


def test_other_paths_still_need_a_token(api):
    assert api.get("/resource_providers", token=None).status_code == 401
    assert api.get("/openapi.jsonx", token=None).status_code == 401


def test_served_without_a_token_under_keystone(db, tmp_path):
    tokens = ks_fixture.AuthTokenFixture()
    tokens.setUp()
    try:
        conf = make_conf(tmp_path, api={"auth_strategy": "keystone"},
                         keystone_authtoken={"www_authenticate_uri": "http://keystone.test/v3"})
        client = Api(wsgi.create_app(conf, db))
        r = client.get("/openapi.json", token=None)
        assert r.status_code == 200, r.text
        assert r.json["openapi"] == "3.1.0"
        assert client.get("/resource_providers", token=None).status_code == 401
    finally:
        tokens.cleanUp()

"""Behaviour every route shares: versions, errors, auth, negotiation."""

import pytest

from placer import wsgi
from placer.http import app as http_app
from placer.http import util
from placer.http.routing import Route, Table
from tests.helpers.api import Api, assert_error, make_conf


def test_root_is_the_version_document_without_auth(api):
    r = api.get("/", token=None)
    assert r.status_code == 200
    assert r.json == {"versions": [{
        "id": "v1.0", "max_version": "1.39", "min_version": "1.0", "status": "CURRENT",
        "links": [{"rel": "self", "href": ""}]}]}
    assert r.headers["OpenStack-API-Version"] == "placement 1.0"
    assert r.headers["Vary"] == "openstack-api-version"
    assert r.headers["x-openstack-request-id"].startswith("req-")


@pytest.mark.parametrize("asked,answered", [("1.0", "1.0"), ("1.17", "1.17"),
                                            ("latest", "1.39"), ("placement 1.5", None)])
def test_version_header_negotiation(api, asked, answered):
    if answered is None:
        r = api.get("/", headers={"OpenStack-API-Version": "placement placement 1.5"})
        assert r.status_code == 400
        return
    r = api.get("/", version=asked)
    assert r.status_code == 200
    assert r.headers["OpenStack-API-Version"] == f"placement {answered}"


def test_malformed_version_is_400(api):
    error = assert_error(api.get("/resource_providers", version="abc"), 400,
                         "Invalid microversion: invalid version string: abc")
    assert "code" not in error


@pytest.mark.parametrize("version", ["1.40", "2.0", "0.9"])
def test_version_out_of_range_is_406_with_range(api, version):
    error = assert_error(api.get("/resource_providers", version=version), 406,
                         f"Unacceptable version header: {version}")
    assert error["max_version"] == "1.39" and error["min_version"] == "1.0"


def test_missing_token_is_401(api):
    r = api.get("/resource_providers", token=None)
    assert r.status_code == 401
    assert r.json["title"] == "Unauthorized"


def test_unknown_route_is_404(api):
    assert_error(api.get("/nowhere", version="latest"), 404, code="placement.undefined_code")


def test_route_before_its_version_is_404(api):
    assert_error(api.get("/resource_classes", version="1.1"), 404)
    assert api.get("/resource_classes", version="1.2").status_code == 200


def test_unknown_method_is_405_with_allow(api):
    r = api.request("PATCH", "/resource_classes", version="latest")
    assert_error(r, 405, "The method PATCH is not allowed for this resource.")
    assert r.headers["Allow"] == "GET, POST"


def test_unknown_method_is_405_even_before_the_path_exists(api):
    # as the reference: the method is checked before the microversion
    r = api.request("PATCH", "/resource_classes", version="1.1")
    assert_error(r, 405, "The method PATCH is not allowed for this resource.")
    assert r.headers["Allow"] == "GET, POST"


def test_method_before_its_version_is_404_and_a_method_never_there_405(api):
    # /allocations has only POST, from 1.13
    assert_error(api.post("/allocations", version="1.12", json={}), 404)
    r = api.get("/allocations", version="1.12")
    assert_error(r, 405, "The method GET is not allowed for this resource.")
    assert r.headers["Allow"] == "POST"


def _hello(req, resp):
    util.send_json(req, resp, {"hello": req.context.route.path})


def test_the_app_serves_the_table_it_is_given(db, conf):
    """Router, open paths and versions come from the table handed to the app."""
    table = Table([Route("GET", "/hello", _hello, open=True, until=(1, 5), answers={200: None}),
                   Route("GET", "/private", _hello, since=(1, 2))])
    api = Api(http_app.make(db, conf, table))
    r = api.get("/hello", version="1.5", token=None)
    assert r.status_code == 200 and r.json == {"hello": "/hello"}
    assert_error(api.get("/hello", version="1.6", token=None), 404)
    assert api.request("PUT", "/hello", token=None).headers["Allow"] == "GET"
    assert api.get("/private", version="1.2", token=None).status_code == 401
    assert_error(api.get("/private", version="1.1"), 404)
    assert api.get("/private", version="1.2").json == {"hello": "/private"}
    assert_error(api.get("/resource_providers", version="1.2"), 404)  # not in this table


def test_error_code_appears_from_1_23(api):
    assert "code" not in assert_error(api.get("/resource_classes/CUSTOM_X", version="1.22"),
                                      404)
    error = assert_error(api.get("/resource_classes/CUSTOM_X", version="1.23"), 404)
    assert error["code"] == "placement.undefined_code"


def test_accept_without_json_is_406(api):
    r = api.get("/resource_classes", version="1.2", headers={"Accept": "text/plain"})
    assert r.status_code == 406
    assert "Only application/json is provided" in r.text


def test_accept_json_variants_are_fine(api):
    for accept in ("application/json", "*/*", "application/*", "text/html, application/json"):
        assert api.get("/resource_classes", version="1.2",
                       headers={"Accept": accept}).status_code == 200


def test_body_needs_json_content_type(api):
    r = api.post("/resource_classes", version="1.2", body='{"name": "CUSTOM_A"}',
                 headers={"Content-Type": "text/plain"})
    assert_error(r, 415, "The media type text/plain is not supported, use application/json")
    r = api.post("/resource_classes", version="1.2", body="")
    assert_error(r, 415, "The media type None is not supported")


def test_body_without_content_type_is_400(api):
    r = api.post("/resource_classes", version="1.2", body='{"name": "CUSTOM_A"}')
    assert_error(r, 400, "content-type header required when content-length > 0")


def test_malformed_json_is_400(api):
    r = api.post("/resource_classes", version="1.2", body="{bad",
                 headers={"Content-Type": "application/json"})
    assert_error(r, 400, "Malformed JSON: Expecting property name enclosed in double quotes")


def test_last_modified_from_1_15(api):
    r = api.get("/resource_classes", version="1.14")
    assert "Last-Modified" not in r.headers and "Cache-Control" not in r.headers
    r = api.get("/resource_classes", version="1.15")
    assert r.headers["Cache-Control"] == "no-cache"
    assert r.headers["Last-Modified"].endswith(" GMT")


def test_errors_in_plain_text_when_json_not_accepted(api):
    r = api.get("/nowhere", headers={"Accept": "text/plain"})
    assert r.status_code == 404
    assert r.content_type == "text/plain"
    assert r.text.startswith("404 Not Found")


# -- what WebOb did to every answer (tests/unit/http/test_layers.py: the same
#    answers as oslo.middleware's HTTPProxyToWSGI, which Placer leaves out
#    unless it is to parse proxy headers)

NEW_RP = "7d1d9a3c-0f4e-4a6b-9d5e-2f3c4b5a6d7e"


def test_location_is_absolute_on_the_request_host(api):
    r = api.post("/resource_providers", version="1.19",
                 json={"name": "located", "uuid": NEW_RP})
    assert r.status_code == 201
    assert r.headers["Location"] == f"http://localhost/resource_providers/{NEW_RP}"
    r = api.put("/traits/CUSTOM_LOCATED", version="1.6",
                headers={"Host": "placement.example:8778"})
    assert r.status_code == 201
    assert r.headers["Location"] == "http://placement.example:8778/traits/CUSTOM_LOCATED"


def test_location_follows_proxy_headers_where_they_are_parsed(db, tmp_path):
    conf = make_conf(tmp_path, oslo_middleware={"enable_proxy_headers_parsing": True})
    proxied = Api(wsgi.create_app(conf, db))
    r = proxied.post("/resource_providers", version="1.19",
                     json={"name": "proxied", "uuid": NEW_RP},
                     headers={"X-Forwarded-Proto": "https",
                              "X-Forwarded-Host": "cloud.example"})
    assert r.status_code == 201
    assert r.headers["Location"] == f"https://cloud.example/resource_providers/{NEW_RP}"
    # off (the default), the same headers change nothing
    r = Api(wsgi.create_app(make_conf(tmp_path), db)).put(
        "/traits/CUSTOM_PROXIED", version="1.6", headers={"X-Forwarded-Proto": "https"})
    assert r.headers["Location"] == "http://localhost/traits/CUSTOM_PROXIED"


def test_head_answers_without_a_body(api):
    got = api.get("/resource_providers", version="1.39")
    head = api.request("HEAD", "/resource_providers", version="1.39")
    assert got.status_code == 200 and got.body
    assert head.status_code == 405 and head.body == b""
    assert head.headers["OpenStack-API-Version"] == "placement 1.39"

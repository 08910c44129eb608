"""CORS with only ``[cors] allowed_origin`` set answers as the reference does:
its allowed and exposed headers are oslo.middleware's defaults."""

import pytest

from placer import wsgi
from tests.helpers.api import Api, make_conf

ORIGIN = "http://dashboard.test"
EXPOSED = ("X-Auth-Token,X-Openstack-Request-Id,X-Subject-Token,X-Service-Token,"
           "OpenStack-API-Version")


@pytest.fixture
def cors_api(db, tmp_path):
    conf = make_conf(tmp_path, cors={"allowed_origin": ORIGIN})
    return Api(wsgi.create_app(conf, db))


def _preflight(api, method, headers):
    return api.request("OPTIONS", "/resource_providers", token=None, headers={
        "Origin": ORIGIN, "Access-Control-Request-Method": method,
        "Access-Control-Request-Headers": headers})


def test_preflight_for_the_apis_headers_is_allowed(cors_api):
    r = _preflight(cors_api, "PUT", "X-Auth-Token,OpenStack-API-Version,Content-Type")
    assert r.status_code == 200
    cors = {k: v for k, v in r.headers.items() if k.startswith("Access-Control-")}
    assert cors == {
        "Access-Control-Allow-Origin": ORIGIN,
        "Access-Control-Allow-Credentials": "true",
        "Access-Control-Max-Age": "3600",
        "Access-Control-Allow-Methods": "PUT",
        "Access-Control-Allow-Headers": "X-Auth-Token,OpenStack-API-Version,Content-Type",
    }


def test_preflight_for_an_unknown_header_gets_no_cors_headers(cors_api):
    r = _preflight(cors_api, "GET", "X-Auth-Token,X-Bogus")
    assert r.status_code == 200
    assert not [k for k in r.headers if k.startswith("Access-Control-")]


def test_answers_expose_the_request_id_and_version(cors_api):
    r = cors_api.get("/resource_providers", headers={"Origin": ORIGIN})
    assert r.status_code == 200
    assert r.headers["Access-Control-Allow-Origin"] == ORIGIN
    assert r.headers["Access-Control-Expose-Headers"] == EXPOSED
    other = cors_api.get("/resource_providers", headers={"Origin": "http://elsewhere.test"})
    assert "Access-Control-Allow-Origin" not in other.headers

"""Hostile or broken input gets a 4xx with the placement error body, and
costs the server little: deep nesting, lone surrogates, oversized and chunked
bodies, huge values echoed by schema errors, LIKE wildcards."""

import io
import json
import uuid

import pytest
import webob

from placer import wsgi
from tests.helpers.api import Api, assert_error, make_conf

LATEST = "latest"
JSON_HEADERS = {"Content-Type": "application/json"}


def _post_rp(api, body: str):
    return api.post("/resource_providers", version=LATEST, body=body, headers=JSON_HEADERS)


# -- nesting and surrogates ----------------------------------------------------

@pytest.mark.parametrize("depth", [600, 5_000, 200_000])
def test_deeply_nested_json_is_400(api, depth):
    body = '{"name": ' + "[" * depth + "]" * depth + "}"
    assert_error(_post_rp(api, body), 400, "JSON")


def test_moderately_nested_json_is_still_a_schema_error(api):
    body = '{"name": ' + "[" * 30 + "]" * 30 + "}"
    assert_error(_post_rp(api, body), 400, "JSON does not validate: ")


def test_lone_surrogate_in_a_name_is_400(api):
    assert_error(_post_rp(api, '{"name": "x\\ud800y"}'), 400, "surrogate")
    assert_error(_post_rp(api, '{"name": "x\\uDFFFy"}'), 400, "surrogate")
    assert api.get("/resource_providers", version=LATEST).json == {"resource_providers": []}


def test_lone_surrogate_as_raw_bytes_is_400(api):
    # json.loads decodes bytes with surrogatepass: an encoded surrogate gets in too
    body = b'{"name": "x\xed\xa0\x80y"}'
    assert_error(api.post("/resource_providers", version=LATEST, body=body,
                          headers=JSON_HEADERS), 400, "surrogate")


def test_lone_surrogate_in_a_key_or_project_is_400(api):
    rp = str(uuid.uuid4())
    assert _post_rp(api, json.dumps({"name": "rp", "uuid": rp})).status_code == 200
    inventory = {"resource_provider_generation": 0, "inventories": {"VCPU": {"total": 8}}}
    assert api.put(f"/resource_providers/{rp}/inventories", version=LATEST,
                   json=inventory).status_code == 200
    body = json.dumps({"allocations": {rp: {"resources": {"VCPU": 1}}},
                       "project_id": "PROJECT", "user_id": "u", "consumer_generation": None,
                       "consumer_type": "INSTANCE"}).replace("PROJECT", "p\\ud800")
    r = api.put(f"/allocations/{uuid.uuid4()}", version=LATEST, body=body,
                headers=JSON_HEADERS)
    assert_error(r, 400, "surrogate")
    body = json.dumps({"name": "rp2", "KEY": 1}).replace("KEY", "x\\udc00")
    assert_error(_post_rp(api, body), 400, "surrogate")


def test_surrogate_pairs_are_fine(api):
    r = _post_rp(api, '{"name": "x\\ud83d\\ude00y"}')
    assert r.status_code == 200, r.text
    assert r.json["name"] == "x\N{GRINNING FACE}y"


# -- body size -----------------------------------------------------------------

class _Unreadable(io.RawIOBase):
    """A request body the server must not read."""

    def readable(self):
        return True

    def readinto(self, buffer):
        raise AssertionError("the body was read")


class _Counting(io.RawIOBase):
    """A long stream of blanks (4 MB, so an uncapped read ends) that counts
    what was read."""

    def __init__(self, size=4 * 1024 * 1024):
        self.read_bytes, self.size = 0, size

    def readable(self):
        return True

    def readinto(self, buffer):
        n = min(len(buffer), self.size - self.read_bytes)
        buffer[:n] = b" " * n
        self.read_bytes += n
        return n


@pytest.fixture
def small_limit_api(db, tmp_path):
    conf = make_conf(tmp_path, oslo_middleware={"max_request_body_size": 1000})
    return Api(wsgi.create_app(conf, db))


def _request(method, path, headers=None):
    req = webob.Request.blank(path, method=method)
    req.headers.update({"X-Auth-Token": "admin", "OpenStack-API-Version": "placement latest",
                        "Content-Type": "application/json", **(headers or {})})
    return req


def test_body_over_the_limit_is_413_before_it_is_read(small_limit_api):
    req = _request("POST", "/resource_providers")
    req.environ["wsgi.input"] = _Unreadable()
    req.environ["CONTENT_LENGTH"] = str(100 * 1024 * 1024)
    error = assert_error(req.get_response(small_limit_api.app), 413,
                         "Request is too large. Larger than max_request_body_size (1000).")
    assert error["title"] == "Request Entity Too Large"


def test_default_limit_is_one_mebibyte(api):
    req = _request("POST", "/resource_providers")
    req.environ["wsgi.input"] = _Unreadable()
    req.environ["CONTENT_LENGTH"] = str(1024 * 1024 + 1)
    assert_error(req.get_response(api.app), 413, "(1048576)")


def test_body_at_the_limit_is_served(small_limit_api):
    body = json.dumps({"name": "rp"}).ljust(1000).encode()
    r = small_limit_api.post("/resource_providers", version=LATEST, body=body,
                             headers=JSON_HEADERS)
    assert r.status_code == 200, r.text


def test_chunked_body_is_read_and_capped(small_limit_api):
    # A chunked body has no Content-Length; the server says the input ends.
    req = _request("POST", "/resource_providers")
    req.environ["wsgi.input"] = io.BytesIO(b'{"name": "chunky"}')
    req.environ.pop("CONTENT_LENGTH", None)
    req.environ["wsgi.input_terminated"] = True
    r = req.get_response(small_limit_api.app)
    assert r.status_code == 200, r.text
    assert r.json["name"] == "chunky"

    endless = _Counting()
    req = _request("POST", "/resource_providers")
    req.environ["wsgi.input"] = endless
    req.environ.pop("CONTENT_LENGTH", None)
    req.environ["wsgi.input_terminated"] = True
    assert_error(req.get_response(small_limit_api.app), 413,
                 "Request is too large. Larger than max_request_body_size (1000).")
    assert endless.read_bytes <= 64 * 1024


# -- schema errors echo bounded values -----------------------------------------

def test_schema_error_for_a_normal_value_keeps_jsonschemas_text(api):
    name = "a" * 201
    error = assert_error(_post_rp(api, json.dumps({"name": name})), 400)
    # WebOb's body turns each newline of jsonschema's text into a space
    assert error["detail"].endswith(
        f"JSON does not validate: {name!r} is too long  "
        "Failed validating 'maxLength' in schema['properties']['name']: "
        "    {'type': 'string', 'maxLength': 200}  "
        f"On instance['name']:     {name!r}  ")


def test_schema_error_for_a_huge_value_is_small(db, tmp_path):
    conf = make_conf(tmp_path, oslo_middleware={"max_request_body_size": 20 * 1024 * 1024})
    api = Api(wsgi.create_app(conf, db))
    name = "a" * (10 * 1024 * 1024)
    r = _post_rp(api, json.dumps({"name": name}))
    error = assert_error(r, 400, "JSON does not validate: 'aaaa")
    assert len(r.body) < 8 * 1024
    assert "is too long" in error["detail"]
    assert "On instance['name']:" in error["detail"]


def test_schema_error_for_a_huge_key_is_small(db, tmp_path):
    conf = make_conf(tmp_path, oslo_middleware={"max_request_body_size": 20 * 1024 * 1024})
    api = Api(wsgi.create_app(conf, db))
    key = "k" * (5 * 1024 * 1024)
    r = _post_rp(api, json.dumps({"name": "rp", key: 1}))
    assert_error(r, 400, "Additional properties are not allowed")
    assert len(r.body) < 8 * 1024


def test_inventory_record_error_under_an_odd_key_is_small(db, tmp_path):
    conf = make_conf(tmp_path, oslo_middleware={"max_request_body_size": 20 * 1024 * 1024})
    api = Api(wsgi.create_app(conf, db))
    uuid = "7c5f5e38-4c3b-4b6f-9d1a-0d1c2a1f0b01"
    assert api.post("/resource_providers", version=LATEST,
                    json={"name": "rp", "uuid": uuid}).status_code == 200
    body = {"resource_provider_generation": 0,
            "inventories": {"not a class": {"total": "t" * (5 * 1024 * 1024)}}}
    r = api.put(f"/resource_providers/{uuid}/inventories", version=LATEST, json=body)
    assert_error(r, 400, "JSON does not validate: 'tttt")
    assert len(r.body) < 8 * 1024


def test_query_schema_error_is_small(api):
    r = api.get("/resource_providers?uuid=" + "x" * 20_000, version=LATEST)
    assert_error(r, 400, "Invalid query string parameters: 'xxxx")
    assert len(r.body) < 8 * 1024


# -- LIKE wildcards ------------------------------------------------------------

@pytest.fixture
def customs(api):
    for name in ("CUSTOM_ZED", "CUSTOM_ALPHA", "CUSTOM_A_B"):
        assert api.put(f"/traits/{name}", version="1.6").status_code == 201
    return ["CUSTOM_ZED", "CUSTOM_ALPHA", "CUSTOM_A_B"]


@pytest.mark.parametrize("prefix", ["%25", "_", "%25CUSTOM", "CUSTOM%25", "CUSTOM_%25B",
                                    "___", "CUSTOM_A%25B"])
def test_traits_startswith_treats_wildcards_literally(api, customs, prefix):
    assert api.get(f"/traits?name=startswith:{prefix}", version="1.6").json == {"traits": []}


def test_traits_startswith_still_matches_underscores_literally(api, customs):
    r = api.get("/traits?name=startswith:CUSTOM_A", version="1.6")
    assert r.json == {"traits": ["CUSTOM_ALPHA", "CUSTOM_A_B"]}
    r = api.get("/traits?name=startswith:custom_a_", version="1.6")
    assert r.json == {"traits": ["CUSTOM_A_B"]}

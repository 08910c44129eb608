"""Logs tell the truth: each line carries its own request's ids and identity
(as oslo.log's context formatter prints them), the reference's request log
lines, and the debug lines operators get with ``debug = True``."""

import logging

import pytest
from keystonemiddleware.auth_token import _exceptions as ksm_exceptions
from oslo_log import formatters

from placer import wsgi
from placer.http import auth
from tests.helpers.api import KEYSTONE, Api, make_conf

LATEST = "latest"
GLOBAL_ID = "req-11111111-2222-3333-4444-555555555555"


class _Lines(logging.Handler):
    """Every record as oslo.log writes it to a log file."""

    def __init__(self, conf):
        super().__init__(logging.DEBUG)
        self.setFormatter(formatters.ContextFormatter(project="placement", config=conf))
        self.lines: list[str] = []

    def emit(self, record):
        self.lines.append(self.format(record))

    def matching(self, *parts: str) -> list[str]:
        return [line for line in self.lines if all(p in line for p in parts)]


@pytest.fixture
def lines(conf):
    handler = _Lines(conf)
    root = logging.getLogger()
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)
    yield handler
    root.removeHandler(handler)
    root.setLevel(level)


def _request_line(lines, status: int) -> str:
    found = lines.matching("placement.requestlog", f"status: {status} ")
    assert len(found) == 1, lines.lines
    return found[0]


def test_refused_request_is_logged_with_its_own_id_and_no_identity(api, lines):
    first = api.get("/resource_providers", version=LATEST, token="alice:proj1",
                    headers={"X-Roles": "admin"})
    assert first.status_code == 200
    assert "alice proj1" in _request_line(lines, 200)
    lines.lines.clear()
    refused = api.get("/resource_providers", version=LATEST, token=None)
    assert refused.status_code == 401
    line = _request_line(lines, 401)
    assert f"[None {refused.headers['x-openstack-request-id']} - " in line
    assert first.headers["x-openstack-request-id"] not in line
    assert "alice" not in line and "proj1" not in line


class _RefusingKeystone:
    """Stands in for Keystone: every token is invalid."""

    def verify_token(self, token, allow_expired=False):
        raise ksm_exceptions.InvalidToken("no such token")

    def invalidate(self):
        pass


def test_keystone_refusal_is_logged_with_its_own_id(api, db, tmp_path, conf, lines):
    assert api.get("/resource_providers", version=LATEST, token="alice:proj1",
                   headers={"X-Roles": "admin"}).status_code == 200
    ks_conf = make_conf(tmp_path, api={"auth_strategy": "keystone"},
                        keystone_authtoken={"www_authenticate_uri": KEYSTONE})
    ks_api = Api(wsgi.create_app(ks_conf, db))
    layer = ks_api.app
    while not isinstance(layer, auth.Keystone):
        layer = layer.application
    layer._identity_server = _RefusingKeystone()
    lines.lines.clear()
    refused = ks_api.get("/resource_providers", version=LATEST, token="forged")
    assert refused.status_code == 401
    warned = lines.matching("keystonemiddleware", "Authorization failed")
    assert warned, lines.lines
    for line in warned + [_request_line(lines, 401)]:
        assert f" {refused.headers['x-openstack-request-id']} " in line
        assert "alice" not in line and "proj1" not in line


def test_inbound_request_id_is_logged_as_the_global_id(api, lines):
    r = api.get("/resource_providers", version=LATEST,
                headers={"X-OpenStack-Request-ID": GLOBAL_ID})
    local = r.headers["x-openstack-request-id"]
    assert local.startswith("req-") and local != GLOBAL_ID
    assert f"[{GLOBAL_ID} {local} admin admin " in _request_line(lines, 200)
    assert f"[{GLOBAL_ID} {local} " in lines.matching("Starting request")[0]


def test_malformed_inbound_request_id_is_ignored(api, lines):
    r = api.get("/resource_providers", version=LATEST,
                headers={"X-OpenStack-Request-ID": "not-a-request-id"})
    assert f"[None {r.headers['x-openstack-request-id']} " in _request_line(lines, 200)
    assert "not-a-request-id" not in "".join(lines.lines)


def test_request_log_lines_are_the_references(api, caplog):
    caplog.set_level(logging.DEBUG)
    size = api.get("/resource_providers", version=LATEST).headers["Content-Length"]
    api.put("/traits/CUSTOM_LOGGED", version=LATEST)
    api.delete("/traits/CUSTOM_LOGGED", version=LATEST)
    api.get("/resource_providers?name=x", version=LATEST, token=None)
    logged = [(r.levelname, r.getMessage()) for r in caplog.records
              if r.name == "placement.requestlog"]
    assert logged == [
        ("DEBUG", 'Starting request: None "GET /resource_providers"'),
        ("INFO", f'- "GET /resource_providers" status: 200 len: {size} microversion: 1.39'),
        ("DEBUG", 'Starting request: None "PUT /traits/CUSTOM_LOGGED"'),
        ("INFO", '- "PUT /traits/CUSTOM_LOGGED" status: 201 len: 0 microversion: 1.39'),
        ("DEBUG", 'Starting request: None "DELETE /traits/CUSTOM_LOGGED"'),
        ("INFO", '- "DELETE /traits/CUSTOM_LOGGED" status: 204 len: 0 microversion: 1.39'),
        ("DEBUG", 'Starting request: None "GET /resource_providers?name=x"'),
        ("INFO", '- "GET /resource_providers?name=x" status: 401 len: 316 microversion: -'),
    ]


def test_the_reason_for_a_4xx_is_logged_at_debug(api, caplog):
    caplog.set_level(logging.DEBUG)
    r = api.post("/resource_providers", version=LATEST, json={"name": 5})
    assert r.status_code == 400
    reasons = [r.getMessage() for r in caplog.records if r.name == "placement.wsgi_wrapper"]
    assert len(reasons) == 1
    assert reasons[0].startswith(
        "Placement API returning an error response: JSON does not validate: 5 is not of "
        "type 'string'")
    assert caplog.records[-1].name == "placement.requestlog"  # then the request line


def test_configuration_is_logged_at_start_with_debug(db, tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    conf = make_conf(tmp_path, placement={"max_allocation_candidates": 7})
    Api(wsgi.create_app(conf, db))
    logged = [" ".join(r.getMessage().split()) for r in caplog.records
              if r.name == "placement.wsgi"]
    assert "Configuration options gathered from:" in logged
    assert "placement.max_allocation_candidates = 7" in logged
    assert "placement_database.connection = ****" in logged


def test_no_configuration_dump_with_log_options_off(db, tmp_path, caplog):
    caplog.set_level(logging.DEBUG)
    conf = make_conf(tmp_path, DEFAULT={"log_options": "false"})
    Api(wsgi.create_app(conf, db))
    assert not [r for r in caplog.records if r.name == "placement.wsgi"]

"""An HTTP client for the WSGI app, its configuration, and error checks."""

import uuid

import webob

from benchmarks.harness.client import call_app, placer_config

KEYSTONE = "http://keystone.test/v3"  # the identity URI keystonemiddleware tests name


def make_conf(tmp_path, url: str = "sqlite://", **sections):
    """A ConfigOpts read from a generated placement.conf."""
    return placer_config(tmp_path / f"placement-{uuid.uuid4().hex[:6]}.conf", url, **sections)


class Api:
    """Drives the WSGI app over HTTP semantics with placement's headers
    (the benchmarks harness's ``call_app``)."""

    def __init__(self, app):
        self.app = app

    def request(self, method: str, path: str, version: str | None = None, json=None,
                token: str | None = "admin", headers: dict | None = None,
                body: bytes | str | None = None) -> webob.Response:
        return call_app(self.app, method, path, version, json, token, headers, body)

    def get(self, path, **kw):
        return self.request("GET", path, **kw)

    def post(self, path, **kw):
        return self.request("POST", path, **kw)

    def put(self, path, **kw):
        return self.request("PUT", path, **kw)

    def delete(self, path, **kw):
        return self.request("DELETE", path, **kw)


def assert_error(result, status: int, detail_part: str | None = None,
                 code: str | None = None) -> dict:
    """Check an API-SIG error response and return its single error."""
    assert result.status_code == status, result.text
    body = result.json
    assert list(body) == ["errors"] and len(body["errors"]) == 1, body
    error = body["errors"][0]
    assert error["status"] == status
    assert error["request_id"].startswith("req-")
    if detail_part is not None:
        assert detail_part in error["detail"], error["detail"]
    if code is not None:
        assert error.get("code") == code, error
    return error

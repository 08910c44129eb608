"""An HTTP client for the WSGI app, its configuration, and error checks."""

import json as jsonlib
import uuid

import webob

from placer import conf as placer_conf

KEYSTONE = "http://keystone.test/v3"  # the identity URI keystonemiddleware tests name


def make_conf(tmp_path, url: str = "sqlite://", **sections):
    """A ConfigOpts read from a generated placement.conf."""
    options = {"api": {"auth_strategy": "noauth2"},
               "placement_database": {"connection": url}}
    for group, values in sections.items():
        options.setdefault(group, {}).update(values)
    path = tmp_path / f"placement-{uuid.uuid4().hex[:6]}.conf"
    path.write_text("".join(
        f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in values.items())
        for group, values in options.items()))
    return placer_conf.new_config(["--config-file", str(path)])


class Api:
    """Drives the WSGI app over HTTP semantics with placement's headers.

    WebOb's blank requests are used rather than a linting client because the
    reference answers 201/204 without a Content-Type, which lint rejects.
    """

    def __init__(self, app):
        self.app = app

    def request(self, method: str, path: str, version: str | None = None, json=None,
                token: str | None = "admin", headers: dict | None = None,
                body: bytes | str | None = None) -> webob.Response:
        req = webob.Request.blank(path, method=method)
        if token is not None:
            req.headers["X-Auth-Token"] = token
        if version is not None:
            req.headers["OpenStack-API-Version"] = f"placement {version}"
        if json is not None:
            req.headers["Content-Type"] = "application/json"
            req.body = jsonlib.dumps(json).encode()
        if body is not None:
            req.body = body.encode() if isinstance(body, str) else body
        for name, value in (headers or {}).items():
            req.headers[name] = value
        return req.get_response(self.app)

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

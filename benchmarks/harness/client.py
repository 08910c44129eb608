"""Clients of the Placement API: over HTTP (``Client``) or in process, on
the WSGI application (``InProcessClient``, ``call_app``), with Placer's
application built on a throw-away configuration (``placer_app``)."""

import http.client
import json
import threading
import time
import urllib.parse
from pathlib import Path

from benchmarks.harness.servers import conf_text

VERSION = "1.39"
HEADERS = {"X-Auth-Token": "admin", "Accept": "application/json"}


class HTTPError(Exception):
    pass


class Client:
    """One keep-alive connection (reopened when the server closes it) per
    thread; a request over ``timeout`` seconds raises TimeoutError."""

    def __init__(self, url: str, version: str = VERSION, timeout: float = 600):
        self.version, self.timeout, self._local = version, timeout, threading.local()
        self._netloc = urllib.parse.urlsplit(url).netloc

    def request(self, method: str, path: str, body=None, version: str | None = None):
        """(status, raw body bytes, seconds from sending to the last byte)."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._local.conn = http.client.HTTPConnection(self._netloc, timeout=self.timeout)
        headers = {**HEADERS, "OpenStack-API-Version": f"placement {version or self.version}"}
        data = None if body is None else json.dumps(body).encode()
        if data:
            headers["Content-Type"] = "application/json"
        start = time.perf_counter()
        try:
            conn.request(method, path, body=data, headers=headers)
            resp = conn.getresponse()
            payload = resp.read()
        except (http.client.HTTPException, OSError):
            conn.close()
            raise
        return resp.status, payload, time.perf_counter() - start

    def call(self, method: str, path: str, body=None, version: str | None = None):
        """The decoded JSON answer (None when empty); HTTPError unless 2xx."""
        status, payload, _ = self.request(method, path, body, version)
        if not 200 <= status < 300:
            raise HTTPError(f"{method} {path}: {status} {payload[:500].decode(errors='replace')}")
        return json.loads(payload) if payload else None


def call_app(app, method: str, path: str, version: str | None = None, json_body=None,
             token: str | None = "admin", headers: dict | None = None,
             body: bytes | str | None = None):
    """A request to the WSGI app with placement's headers: a webob.Response.
    (WebOb's blank requests, not a linting client: the reference answers
    201/204 without a Content-Type, which lint rejects.)"""
    import webob

    req = webob.Request.blank(path, method=method)
    if token is not None:
        req.headers["X-Auth-Token"] = token
    if version is not None:
        req.headers["OpenStack-API-Version"] = f"placement {version}"
    if json_body is not None:
        req.headers["Content-Type"] = "application/json"
        req.body = json.dumps(json_body).encode()
    if body is not None:
        req.body = body.encode() if isinstance(body, str) else body
    for name, value in (headers or {}).items():
        req.headers[name] = value
    resp = req.get_response(app)
    resp.body  # noqa: B018 read and closed now, as a WSGI server does once it has sent it
    return resp


class InProcessClient(Client):
    """``Client`` answered by a WSGI app instead of an HTTP server."""

    def __init__(self, app, version: str = VERSION):
        self.app, self.version = app, version

    def request(self, method: str, path: str, body=None, version: str | None = None):
        start = time.perf_counter()
        resp = call_app(self.app, method, path, version or self.version, body,
                        headers={"Accept": "application/json"})
        return resp.status_code, resp.body, time.perf_counter() - start


def placer_config(path: Path, url: str = "sqlite://", **sections):
    """A ConfigOpts read from a placement.conf written at ``path`` (noauth2,
    the database at ``url``, and ``sections``: {group: {option: value}})."""
    from placer import conf as placer_conf

    options = {"api": {"auth_strategy": "noauth2"}, "placement_database": {"connection": url}}
    for group, values in sections.items():
        options.setdefault(group, {}).update(values)
    path.write_text(conf_text(options))
    return placer_conf.new_config(["--config-file", str(path)])


def placer_app(directory: Path, url: str, serving: bool = False):
    """Placer's whole WSGI app over the database at ``url`` (schema synced
    at start-up); ``serving``: the garbage collector tuned as in a server."""
    from placer import collector, wsgi

    app = wsgi.create_app(placer_config(Path(directory) / "placement.conf", url,
                                        placement_database={"sync_on_startup": True}))
    if serving:
        collector.tune()
    return app

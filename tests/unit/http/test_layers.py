"""Placer's plain-WSGI layers answer exactly as the WebOb-based middleware
they stand in for: ``proxy.AbsoluteLocation`` as oslo.middleware's
``HTTPProxyToWSGI`` with proxy headers not parsed, and
``version_header.Negotiate`` as microversion_parse's middleware."""

import io

import pytest
from microversion_parse import middleware as mp_middleware
from oslo_config import cfg
from oslo_middleware import http_proxy_to_wsgi

from placer.http import errors, proxy, version_header


def _environ(method="GET", host="localhost:80", scheme="http", script="", path="/x",
             **headers):
    env = {"REQUEST_METHOD": method, "SCRIPT_NAME": script, "PATH_INFO": path,
           "QUERY_STRING": "", "SERVER_NAME": "localhost", "SERVER_PORT": "80",
           "SERVER_PROTOCOL": "HTTP/1.1", "wsgi.url_scheme": scheme,
           "wsgi.input": io.BytesIO(b""), "wsgi.errors": io.StringIO(),
           "wsgi.version": (1, 0), "wsgi.multithread": False, "wsgi.multiprocess": True,
           "wsgi.run_once": False}
    if host is not None:
        env["HTTP_HOST"] = host
    env.update({f"HTTP_{k.upper()}": v for k, v in headers.items()})
    return env


def _answer(app, environ):
    seen = {}

    def start_response(status, headers, exc_info=None):
        seen["status"], seen["headers"] = status, list(headers)

    body = b"".join(app(environ, start_response))
    return seen["status"], seen["headers"], body


def _inner(location, status="201 Created"):
    def app(environ, start_response):
        headers = [("Content-Type", "application/json"), ("Content-Length", "2")]
        if location is not None:
            headers.append(("Location", location))
        start_response(status, headers)
        return [b"{}"]
    return app


@pytest.mark.parametrize("location", [
    None, "/resource_providers/abc", "resource_providers/abc", "http://other/x",
    "https://other:8443/y", "//evil.example/z", "/tr\tait\n", "/a b"])
@pytest.mark.parametrize("environ", [
    _environ(), _environ(host="placement.example:8778"), _environ(host=None),
    _environ(scheme="https", host="cloud.example:443"), _environ(script="/placement"),
    _environ(method="HEAD"), _environ(path="/with space/é".encode().decode("latin-1"))],
    ids=["plain", "host", "no-host", "https", "script", "head", "quoted"])
def test_absolute_location_as_oslo_proxy_middleware_without_parsing(location, environ):
    conf = cfg.ConfigOpts()
    conf([])
    oslo = http_proxy_to_wsgi.HTTPProxyToWSGI(_inner(location), conf)
    assert conf.oslo_middleware.enable_proxy_headers_parsing is False
    ours = proxy.AbsoluteLocation(_inner(location))
    assert _answer(ours, dict(environ)) == _answer(oslo, dict(environ))


@pytest.mark.parametrize("header", [
    None, "placement 1.5", "placement latest", "placement 1.39", "placement 1.40",
    "placement 0.9", "placement 2.0", "placement abc", "compute 2.1", "compute 2.1, placement 1.7",
    "placement 1.7,placement 1.9", "placement", "placement 1.2.3", " placement   1.10 ", ""])
@pytest.mark.parametrize("accept", ["application/json", "text/plain"])
def test_negotiate_as_microversion_parse_middleware(header, accept):
    def inner(environ, start_response):
        start_response("200 OK", [("Content-Type", "application/json")])
        return [str(environ[errors.MICROVERSION_ENVIRON]).encode()]

    reference = mp_middleware.MicroversionMiddleware(
        inner, version_header.SERVICE_TYPE, version_header.VERSIONS,
        json_error_formatter=errors.json_error_formatter)
    extra = {} if header is None else {"OPENSTACK_API_VERSION": header}
    ours = _answer(version_header.Negotiate(inner), _environ(accept=accept, **extra))
    assert ours == _answer(reference, _environ(accept=accept, **extra))

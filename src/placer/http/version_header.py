"""The OpenStack-API-Version header: the supported range, and the middleware
that negotiates it (the versions themselves are named in placer.microversions)."""

import functools

import microversion_parse
import webob.exc

from placer import microversions
from placer.http import errors

SERVICE_TYPE = "placement"
VERSIONS = [microversions.text(v) for v in microversions.ALL]  # 1.0 .. 1.39
assert VERSIONS[0] == errors.MIN_VERSION and VERSIONS[-1] == errors.MAX_VERSION
ENVIRON_HEADER = "HTTP_OPENSTACK_API_VERSION"
VARY = ("vary", microversion_parse.STANDARD_HEADER)


def parse(value: str) -> microversion_parse.Version:
    return microversion_parse.parse_version_string(value)


class Negotiate:
    """microversion_parse's middleware without WebOb around each request:
    the version (or 400 malformed, 406 out of range, with the same bodies)
    in ``placement.microversion``, stamped with ``Vary`` on every answer."""

    def __init__(self, app):
        self.application = app

    def __call__(self, environ, start_response):
        try:
            version, stamp = _negotiated(environ.get(ENVIRON_HEADER))
        except ValueError as exc:
            return self._refuse(webob.exc.HTTPNotAcceptable, exc, environ, start_response)
        except TypeError as exc:
            return self._refuse(webob.exc.HTTPBadRequest, exc, environ, start_response)
        environ[errors.MICROVERSION_ENVIRON] = version

        def start(status, headers, exc_info=None):
            return start_response(status, [*headers, *stamp], exc_info)

        return self.application(environ, start)

    @staticmethod
    def _refuse(error, exc, environ, start_response):
        return error(f"Invalid microversion: {exc}",
                     json_formatter=errors.json_error_formatter)(environ, start_response)


@functools.lru_cache(maxsize=256)
def _negotiated(value: str | None) -> tuple[microversion_parse.Version,
                                            tuple[tuple[str, str], ...]]:
    """The version a header value asks for, and the headers stamped on its
    answer: a header's few distinct values are each parsed once (a refused
    one raises, and is not kept)."""
    version = microversion_parse.extract_version(
        {} if value is None else {ENVIRON_HEADER: value}, SERVICE_TYPE, VERSIONS)
    return version, ((microversion_parse.STANDARD_HEADER, f"{SERVICE_TYPE} {version}"), VARY)


def middleware(app):
    """Negotiates ``OpenStack-API-Version`` (400 malformed, 406 out of range)
    and stamps the version and ``Vary`` on every response."""
    return Negotiate(app)

"""The OpenStack-API-Version header: the supported range, and the middleware
that negotiates it (the versions themselves are named in placer.microversions)."""

import microversion_parse
from microversion_parse import middleware as mp_middleware

from placer import microversions
from placer.http import errors

SERVICE_TYPE = "placement"
VERSIONS = [microversions.text(v) for v in microversions.ALL]  # 1.0 .. 1.39
assert VERSIONS[0] == errors.MIN_VERSION and VERSIONS[-1] == errors.MAX_VERSION


def parse(value: str) -> microversion_parse.Version:
    return microversion_parse.parse_version_string(value)


def middleware(app):
    """Negotiates ``OpenStack-API-Version`` (400 malformed, 406 out of range)
    and stamps the version and ``Vary`` on every response."""
    return mp_middleware.MicroversionMiddleware(
        app, SERVICE_TYPE, VERSIONS, json_error_formatter=errors.json_error_formatter)

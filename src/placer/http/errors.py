"""Error responses in the API-SIG format the reference produces.

Bodies are rendered by WebOb's HTTP exceptions with our JSON formatter, so the
``detail`` text (WebOb's explanation, then ours) and the content negotiation
(JSON, or plain text when the client does not accept JSON) match the
reference byte for byte.
"""

import logging

import webob
import webob.exc

from placer import exceptions, microversions

# The reference's logger and text for "why this request got a 4xx/5xx".
LOG = logging.getLogger("placement.wsgi_wrapper")

MICROVERSION_ENVIRON = "placement.microversion"
ERROR_CODE_ENVIRON = "placement.error_code"
REQUEST_ID_ENVIRON = "openstack.request_id"
ERROR_CODE_MICROVERSION = microversions.ERROR_CODES

MIN_VERSION = microversions.text(microversions.MIN)
MAX_VERSION = microversions.text(microversions.MAX)


def json_error_formatter(body, status, title, environ):
    """WebOb ``json_formatter``: the ``{"errors": [...]}`` document."""
    status_code = int(status.split(None, 1)[0])
    error = {"status": status_code, "title": title, "detail": webob.exc.strip_tags(body)}
    version = environ.get(MICROVERSION_ENVIRON)
    if version and version.matches(ERROR_CODE_MICROVERSION):
        error["code"] = environ.get(ERROR_CODE_ENVIRON, exceptions.DEFAULT_CODE)
    if REQUEST_ID_ENVIRON in environ:
        error["request_id"] = environ[REQUEST_ID_ENVIRON]
    if status_code == 406 and MICROVERSION_ENVIRON not in environ:
        error["max_version"] = MAX_VERSION
        error["min_version"] = MIN_VERSION
    return {"errors": [error]}


def http_exception(status: int, detail: str | None = None, code: str | None = None,
                   environ: dict | None = None, headers=None) -> webob.exc.HTTPException:
    """A WebOb exception ready to be served as the error response."""
    if code and environ is not None:
        environ[ERROR_CODE_ENVIRON] = code
    exc = webob.exc.status_map[status](detail=detail, headers=headers,
                                       json_formatter=json_error_formatter)
    return exc


def render(environ: dict, status: int, detail: str | None = None, code: str | None = None,
           headers=None) -> webob.Response:
    """The full error response for ``environ``'s request."""
    exc = http_exception(status, detail, code, environ, headers)
    LOG.debug("Placement API returning an error response: %s", exc)
    return webob.Request(environ).get_response(exc)

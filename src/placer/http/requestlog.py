"""Outermost middleware: request ids, a fresh logging context, default Accept,
and the reference's request log lines (logger ``placement.requestlog``)."""

import logging
import re
from collections.abc import Callable

from oslo_context import context
from oslo_middleware import request_id

LOG = logging.getLogger("placement.requestlog")


def _uri(environ) -> str:
    uri = environ.get("SCRIPT_NAME", "") + environ.get("PATH_INFO", "")
    if environ.get("QUERY_STRING"):
        uri += "?" + environ["QUERY_STRING"]
    return uri


class RequestLog(request_id.RequestId):
    """oslo.middleware's RequestId (a local ``req-`` id answered in
    ``x-openstack-request-id``; a well-formed inbound ``X-OpenStack-Request-ID``
    kept as the global id), plus one DEBUG line when a request starts and one
    INFO line when it is answered."""

    application: Callable  # the app it wraps (oslo's base allows None)

    def __init__(self, app):
        super().__init__(app)

    def __call__(self, environ, start_response):
        # oslo's set_global_req_id, without a WebOb request
        inbound = environ.get("HTTP_X_OPENSTACK_REQUEST_ID", "")
        if re.match(request_id.ID_FORMAT, inbound):
            environ[request_id.GLOBAL_REQ_ID] = inbound
        # A new logging context (oslo.context's thread-local store) before
        # anything logs: a request refused before auth must not be logged
        # under the previous request's id, user and project. Identity comes
        # later, from the auth layer; headers the client sent are not trusted.
        ctx = context.RequestContext(
            global_request_id=environ.get(request_id.GLOBAL_REQ_ID))
        environ[request_id.ENV_REQUEST_ID] = ctx.request_id
        uri = _uri(environ)
        LOG.debug('Starting request: %s "%s %s"', environ.get("REMOTE_ADDR"),
                  environ.get("REQUEST_METHOD"), uri)
        # Errors are JSON unless the client explicitly asked for something else.
        if environ.get("HTTP_ACCEPT", "") in ("", "*/*"):
            environ["HTTP_ACCEPT"] = "application/json"

        def replace_start_response(status, headers, exc_info=None):
            names = {name.lower() for name, _ in headers}
            for name in (request_id.HTTP_RESP_HEADER_REQUEST_ID, *self.compat_headers):
                if name.lower() not in names:
                    headers.append((name, ctx.request_id))
            if LOG.isEnabledFor(logging.INFO):
                self._write_log(environ, uri, status, headers)
            return start_response(status, headers, exc_info)

        return self.application(environ, replace_start_response)

    @staticmethod
    def _write_log(environ, uri, status, headers) -> None:
        code = status.split(None, 1)[0]
        size = next((v for k, v in headers if k.lower() == "content-length"), None)
        if size is None and code == "204":
            size = "0"  # falcon leaves Content-Length off a 204; WebOb (the reference) says 0
        elif size is None:
            size = "-"
        version = environ.get("placement.microversion")
        LOG.info('%s "%s %s" status: %s len: %s microversion: %s',
                 environ.get("REMOTE_ADDR", "-"), environ.get("REQUEST_METHOD"), uri,
                 code, size, version or "-")


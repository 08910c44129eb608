"""Outermost middleware: request id, default Accept, one log line per request."""

import logging
import uuid

LOG = logging.getLogger("placer.requestlog")

REQUEST_ID_HEADER = "x-openstack-request-id"


class RequestLog:
    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        request_id = f"req-{uuid.uuid4()}"
        environ["openstack.request_id"] = request_id
        # Errors are JSON unless the client explicitly asked for something else.
        if environ.get("HTTP_ACCEPT", "") in ("", "*/*"):
            environ["HTTP_ACCEPT"] = "application/json"
        seen = {}

        def replace_start_response(status, headers, exc_info=None):
            headers = [h for h in headers if h[0].lower() != REQUEST_ID_HEADER]
            headers.append((REQUEST_ID_HEADER, request_id))
            seen["status"] = status
            seen["length"] = next((v for k, v in headers if k.lower() == "content-length"),
                                  "-")
            return start_response(status, headers, exc_info)

        result = self.app(environ, replace_start_response)
        if LOG.isEnabledFor(logging.INFO):
            version = environ.get("placement.microversion")
            path = environ.get("SCRIPT_NAME", "") + environ.get("PATH_INFO", "")
            if environ.get("QUERY_STRING"):
                path += "?" + environ["QUERY_STRING"]
            LOG.info('%s "%s %s" status: %s len: %s microversion: %s',
                     environ.get("REMOTE_ADDR", "-"), environ.get("REQUEST_METHOD"), path,
                     seen.get("status", "-").split(" ")[0], seen.get("length", "-"),
                     version or "-")
        return result

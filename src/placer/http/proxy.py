"""The outermost layer: oslo.middleware's ``HTTPProxyToWSGI`` where
``[oslo_middleware] enable_proxy_headers_parsing`` is on, else only what it
does to every answer besides (through WebOb), without its cost."""

import webob
import webob.response
from oslo_config import cfg
from oslo_middleware import http_proxy_to_wsgi


class AbsoluteLocation:
    """WebOb's touch on an answer, as ``HTTPProxyToWSGI`` leaves it when it
    parses no proxy headers: a relative ``Location`` made absolute against
    the request's URL, and no body for ``HEAD``."""

    def __init__(self, app):
        self.application = app

    def __call__(self, environ, start_response):
        def start(status, headers, exc_info=None):
            headers = [(name, webob.Response._make_location_absolute(environ, value))
                       if name.lower() == "location" else (name, value)
                       for name, value in headers]
            return start_response(status, headers, exc_info)

        body = self.application(environ, start)
        if environ["REQUEST_METHOD"] == "HEAD":
            return webob.response.EmptyResponse(body)
        return body


def middleware(app, conf: cfg.ConfigOpts):
    if conf.oslo_middleware.enable_proxy_headers_parsing:
        return http_proxy_to_wsgi.HTTPProxyToWSGI(app, conf)
    return AbsoluteLocation(app)

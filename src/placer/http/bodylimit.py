"""Request body size limit: oslo.middleware's sizelimit, answering with the
placement error body.

The option is oslo.middleware's ``[oslo_middleware] max_request_body_size``.
A body announced larger by Content-Length is refused before a byte of it is
read; a chunked body (no Content-Length) is wrapped in oslo.middleware's
limiting reader, so reading stops once it passes the limit.
"""

from collections.abc import Callable

import webob.exc
from oslo_middleware import sizelimit

from placer import exceptions
from placer.http import errors

# oslo.middleware's default (112 KiB) would refuse big reshaper or bulk
# allocation bodies the reference (which sets no limit) accepts.
DEFAULT_MAX_BODY = 1024 * 1024
TOO_LARGE = "Request is too large. Larger than max_request_body_size (%d)."


class BodyTooLarge(exceptions.PlacerError):
    status = 413

    def __init__(self, limit: int):
        super().__init__(TOO_LARGE % limit)


class _LimitingReader(sizelimit.LimitingReader):
    """Raises the API's 413 (rendered by the app) rather than WebOb's."""

    def read(self, i=None):
        try:
            return super().read(i)
        except webob.exc.HTTPRequestEntityTooLarge:
            raise BodyTooLarge(self.limit) from None


class BodySizeLimit(sizelimit.RequestBodySizeLimiter):
    application: Callable  # the app it wraps (oslo's base allows None)

    def __call__(self, environ, start_response):
        limit = self._conf_get("max_request_body_size")
        length = environ.get("CONTENT_LENGTH")
        if length:
            # an invalid Content-Length is the app's 400, not ours to judge
            if length.isdigit() and int(length) > limit:
                response = errors.render(environ, 413, TOO_LARGE % limit)
                return response(environ, start_response)
        elif environ.get("wsgi.input_terminated"):
            environ["wsgi.input"] = _LimitingReader(environ["wsgi.input"], limit)
        return self.application(environ, start_response)

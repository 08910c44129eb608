"""Authentication middleware (noauth2 or keystone) and the request context."""

import logging

import webob.exc
from keystonemiddleware import auth_token

from placer.context import RequestContext
from placer.http import errors

CONTEXT_ENVIRON = "placement.context"

LOG = logging.getLogger("placement.auth")


def _open_or_empty(open_paths: frozenset[str]) -> frozenset[str]:
    # as keystonemiddleware sees requests, an empty path is the version document's too
    return open_paths | {""}


class NoAuth:
    """Trusts the token: ``admin`` is an administrator, ``user:project``
    otherwise; ``X-Roles`` and ``OpenStack-System-Scope`` are honoured.
    ``open_paths`` (the route table's open routes) need no token."""

    def __init__(self, app, open_paths: frozenset[str]):
        self.app = app
        self.open_paths = open_paths

    def __call__(self, environ, start_response):
        if environ.get("PATH_INFO") in self.open_paths:
            return self.app(environ, start_response)
        token = environ.get("HTTP_X_AUTH_TOKEN")
        if token is None:
            # WebOb's own JSON body, not the API-SIG one: as the reference answers
            return webob.exc.HTTPUnauthorized()(environ, start_response)
        user_id, _, project_id = token.partition(":")
        project_id = project_id or user_id
        if "HTTP_X_ROLES" in environ:
            roles = environ["HTTP_X_ROLES"].split(",")
        else:
            roles = ["admin"] if user_id == "admin" else []
        environ["HTTP_X_USER_ID"] = user_id
        if not environ.get("HTTP_OPENSTACK_SYSTEM_SCOPE"):
            environ["HTTP_X_TENANT_ID"] = project_id
        environ["HTTP_X_ROLES"] = ",".join(roles)
        return self.app(environ, start_response)


class Keystone(auth_token.AuthProtocol):
    """keystonemiddleware's auth_token, except for ``open_paths`` (the
    version document's and the API description's)."""

    def __init__(self, app, conf, open_paths: frozenset[str]):
        self._unauthenticated_app = app
        self._open_or_empty = _open_or_empty(open_paths)
        super().__init__(app, {"oslo_config_config": conf})

    def __call__(self, environ, start_response):
        if environ.get("PATH_INFO", "") in self._open_or_empty:
            return self._unauthenticated_app(environ, start_response)
        return super().__call__(environ, start_response)


class ContextMiddleware:
    """Builds the RequestContext from the identity headers auth left behind
    (none needed on ``open_paths``)."""

    def __init__(self, app, open_paths: frozenset[str]):
        self.app = app
        self._open_or_empty = _open_or_empty(open_paths)

    def __call__(self, environ, start_response):
        ctx = RequestContext.from_environ(
            environ, request_id=environ.get(errors.REQUEST_ID_ENVIRON))
        if ctx.user_id is None and environ.get("PATH_INFO", "") not in self._open_or_empty:
            LOG.debug("Neither X_USER_ID nor X_USER found in request")
            return webob.exc.HTTPUnauthorized()(environ, start_response)
        environ[CONTEXT_ENVIRON] = ctx
        return self.app(environ, start_response)

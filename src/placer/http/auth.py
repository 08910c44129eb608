"""Authentication middleware (noauth2 or keystone) and the request context."""

import logging

import webob.exc
from keystonemiddleware import auth_token

from placer.context import RequestContext
from placer.http import errors

CONTEXT_ENVIRON = "placement.context"

LOG = logging.getLogger("placement.auth")


# Served without authentication: the version document and the API
# description (the latter is not the reference's).
OPEN_PATHS = frozenset({"/", "/openapi.json"})
# as keystonemiddleware sees requests, an empty path is the version document's too
_OPEN_OR_EMPTY = OPEN_PATHS | {""}


def _is_open(environ) -> bool:
    return environ.get("PATH_INFO", "") in _OPEN_OR_EMPTY


class NoAuth:
    """Trusts the token: ``admin`` is an administrator, ``user:project``
    otherwise; ``X-Roles`` and ``OpenStack-System-Scope`` are honoured."""

    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        if environ.get("PATH_INFO") in OPEN_PATHS:
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
    """keystonemiddleware's auth_token, except for the version document."""

    def __init__(self, app, conf):
        self._unauthenticated_app = app
        super().__init__(app, {"oslo_config_config": conf})

    def __call__(self, environ, start_response):
        if _is_open(environ):
            return self._unauthenticated_app(environ, start_response)
        return super().__call__(environ, start_response)


class ContextMiddleware:
    """Builds the RequestContext from the identity headers auth left behind."""

    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        ctx = RequestContext.from_environ(
            environ, request_id=environ.get(errors.REQUEST_ID_ENVIRON))
        if ctx.user_id is None and not _is_open(environ):
            LOG.debug("Neither X_USER_ID nor X_USER found in request")
            return webob.exc.HTTPUnauthorized()(environ, start_response)
        environ[CONTEXT_ENVIRON] = ctx
        return self.app(environ, start_response)

"""The request type handlers receive: falcon's ``Request`` with a typed context.

Falcon's documented way to type ``req.context``: a ``Request`` subclass whose
``context_type`` is our own class, given to ``falcon.App(request_type=...)``.
"""

from typing import TYPE_CHECKING

import falcon
import microversion_parse
from oslo_config import cfg

from placer.context import RequestContext
from placer.db.engine import Database

if TYPE_CHECKING:  # routing imports this module
    from placer.http.routing import Route, Table


class Context:
    """Per-request state, set by ``app._Bind`` before any handler runs."""

    __slots__ = ("version", "auth", "db", "conf", "routes", "route")

    version: microversion_parse.Version  # the negotiated microversion
    auth: RequestContext  # who is asking (``auth.ContextMiddleware``)
    db: Database  # the store: one transaction per request
    conf: cfg.ConfigOpts
    routes: "Table"  # the route table the app serves
    route: "Route"  # the route the request matched (set by the router)


class Request(falcon.Request):
    """What every handler and the routing layer receive as ``req``."""

    context_type = Context
    context: Context  # type: ignore[assignment]  # falcon declares its own Context

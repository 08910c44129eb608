"""Route table plumbing: each path has methods, each method a first microversion.

As the reference: a request for a path, or a method of a path, that did not
exist yet at the asked microversion is a 404; a method the path never has is
a 405 with ``Allow`` listing the path's methods. (One handler answers 405
below its microversion itself, where the reference does: DELETE of all
inventories before 1.5.)
"""

import importlib
from collections.abc import Callable
from dataclasses import dataclass

import falcon
import falcon.constants

from placer import exceptions, microversions
from placer.http import negotiation
from placer.http.request import Request


@dataclass(frozen=True)
class Method:
    """``target`` is "module:function" under placer.handlers, imported when
    the app is built so that handler modules load once."""

    target: str
    since: microversions.Version = microversions.BASE

    def resolve(self) -> Callable:
        module, _, name = self.target.partition(":")
        return getattr(importlib.import_module(f"placer.handlers.{module}"), name)


class Resource:
    """A falcon resource for one path, dispatching by method and microversion."""

    def __init__(self, methods: dict[str, Method]):
        self.methods = methods
        self.since = min(m.since for m in methods.values())
        allow = ", ".join(methods)
        for verb in falcon.constants.COMBINED_METHODS:
            responder = self._responder(verb) if verb in methods else self._not_allowed(allow)
            setattr(self, f"on_{verb.lower()}", responder)

    def _responder(self, verb: str):
        method = self.methods[verb]
        handler = method.resolve()

        def respond(req: Request, resp: falcon.Response, **params):
            version = req.context.version
            if not version.matches(self.since):
                raise exceptions.NotFound()
            if not version.matches(method.since):
                raise exceptions.NotFound()
            negotiation.check(req, handler)
            handler(req, resp, **params)

        return respond

    @staticmethod
    def _not_allowed(allow: str):
        def respond(req, resp, **params):
            raise _Status(405, "The method specified is not allowed for this resource.",
                          headers={"allow": allow})

        return respond


class _Status(exceptions.PlacerError):
    """An error whose status is decided by the routing table."""

    def __init__(self, status: int, detail: str = "", headers: dict | None = None):
        super().__init__(detail)
        self.status = status
        self.headers = headers


def add_routes(app: falcon.App, table: dict[str, dict[str, Method]]) -> None:
    for path, methods in table.items():
        app.add_route(path, Resource(methods))

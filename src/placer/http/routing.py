"""Route tables and the router built from one.

A route table (``Table``) holds one ``Route`` per path and method: the
handler function, the microversions it is served at (``since`` to
``until``), its body, query and answer schemas per microversion window,
whether it is served without a token, and the policy rule it checks. The
API's table is ``placer.route_table.ROUTES``; ``placer.http.app.make`` takes
a table and builds everything from it: this router, the paths auth lets
through without a token, the metrics' route labels, and (``http.openapi``)
the OpenAPI document. Nothing under ``placer.http`` imports the API's table.

What routing answers, as the reference (placement 16.0.0) does:

- a path that is not in the table: 404;
- a method the path does not have: 405 with ``Allow`` listing the path's
  methods, at every microversion (even one before the path's first);
- a method of the path at a microversion outside its ``since``..``until``:
  404;
- a microversion window whose only answer is an error status: that status
  (DELETE of all inventories answers 405, without ``Allow``, before 1.5).

The checks run in one order, decided here: the microversion, then the
request's Content-Type and then its Accept header (``negotiation.check``),
then the route's policy rule, then the handler. A route marked
``content_before_version`` checks Content-Type and Accept before the
microversion: the reference does so on its aggregates routes alone (there
its ``check_accept``/``require_content`` decorators wrap
``version_handler``, elsewhere the other way round), so GET .../aggregates
at 1.0 with an Accept header without JSON is a 406 and PUT with a
Content-Type other than JSON a 415, where the same requests elsewhere
(GET /traits at 1.5) are a 404.
"""

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import falcon
import falcon.constants
from oslo_config import cfg

from placer import exceptions
from placer import microversions as mv
from placer.http import negotiation
from placer.http.request import Request
from placer.microversions import Version
from placer.schemas.versioned import Since

Answers = Mapping[int, dict | None]  # status -> body schema (None: no body)


@dataclass(frozen=True)
class Window:
    """What one route takes and answers from ``first`` to ``last`` (included)."""

    first: Version
    last: Version
    body: Any = None  # a jsonschema validator, or None: no body is read
    query: Any = None  # a jsonschema validator of the query as a dict, or None
    answers: Answers | None = None

    @property
    def refusal(self) -> int | None:
        """The status of a window that answers nothing but one error."""
        if self.answers and len(self.answers) == 1:
            status, schema = next(iter(self.answers.items()))
            if status >= 400 and schema is None:
                return status
        return None


def _steps(value, since: Version) -> Since | None:
    """``value`` as a ``Since``: a plain value holds from ``since`` on."""
    if value is None or isinstance(value, Since):
        return value
    return Since({since: value})


class Route:
    """One method of one path.

    ``body``, ``query`` and ``answers`` are each a plain value (from
    ``since`` on) or a ``Since`` (a value per microversion step): body and
    query are validators (their ``.schema`` is the JSON Schema), None when
    none is read; answers are status -> JSON Schema of the body (None: no
    body), None when not described (``/metrics``: Prometheus text).
    ``open``: served without a token. ``policy``: the rule the router checks
    before the handler, unless ``handler_checks_policy`` (the handler checks
    it itself, with a target it reads from the request).
    ``content_before_version``: Content-Type and Accept are checked before
    the microversion (see the module's docstring). ``enabled``: a
    route served only when ``enabled(conf)`` is true; such a route is left
    out of the OpenAPI document, which describes what every deployment
    serves.
    """

    def __init__(self, method: str, path: str, handler: Callable, *,
                 since: Version = mv.BASE, until: Version = mv.MAX,
                 body: Any = None, query: Any = None, answers: Answers | Since | None = None,
                 open: bool = False, policy: str | None = None,
                 handler_checks_policy: bool = False, content_before_version: bool = False,
                 enabled: Callable[[cfg.ConfigOpts], bool] | None = None):
        self.method, self.path, self.handler = method, path, handler
        self.since, self.until = since, until
        self.open, self.policy, self.enabled = open, policy, enabled
        self.handler_checks_policy = handler_checks_policy
        self.content_before_version = content_before_version
        steps = [_steps(value, since) for value in (body, query, answers)]
        if any(p.first < since or p.steps[-1][0] > until for p in steps if p is not None):
            raise ValueError(f"{self}: a schema outside its versions")
        if steps[2] is not None and steps[2].first != since:
            raise ValueError(f"{self}: no answers at its first version")
        cuts = sorted({since} | {step for p in steps if p is not None for step, _ in p.steps})
        self.windows = tuple(
            Window(first, mv.previous(cuts[i + 1]) if i + 1 < len(cuts) else until,
                   *(self._at(p, first) for p in steps))
            for i, first in enumerate(cuts))

    @staticmethod
    def _at(steps: Since | None, version: Version):
        if steps is None or version < steps.first:
            return None
        return steps.at(version)

    def serves(self, version: Version) -> bool:
        return self.since <= (version[0], version[1]) <= self.until

    def at(self, version: Version) -> Window:
        """The window ``version`` falls in (LookupError outside the route's versions)."""
        version = (version[0], version[1])  # a microversion_parse.Version compares alike
        if self.serves(version):
            for window in reversed(self.windows):
                if version >= window.first:
                    return window
        raise LookupError(f"{self} is not served at {mv.text(version)}")

    def __repr__(self) -> str:
        return f"Route({self.method} {self.path})"


class Table:
    """Routes in order: the OpenAPI document lists paths in the order of
    their first route, and ``Allow`` a path's methods in table order."""

    def __init__(self, routes: Iterable[Route]):
        self.routes = tuple(routes)
        self._by_key: dict[tuple[str, str], Route] = {}
        self.paths: dict[str, list[Route]] = {}
        for route in self.routes:
            if (route.path, route.method) in self._by_key:
                raise ValueError(f"{route} is in the table twice")
            self._by_key[(route.path, route.method)] = route
            self.paths.setdefault(route.path, []).append(route)
        for path, routes_of_path in self.paths.items():
            # auth lets a path through without a token, whatever the method
            if len({r.open for r in routes_of_path}) > 1:
                raise ValueError(f"{path}: open for some methods, not for others")

    def __iter__(self) -> Iterator[Route]:
        return iter(self.routes)

    def route(self, path: str, method: str) -> Route:
        return self._by_key[(path, method)]

    def open_paths(self) -> frozenset[str]:
        """The paths served without a token."""
        return frozenset(r.path for r in self.routes if r.open)

    def operations(self) -> dict[str, list[tuple[str, str]]]:
        """Policy rule -> the (method, path) of each route checking it, in order."""
        found: dict[str, list[tuple[str, str]]] = {}
        for route in self.routes:
            if route.policy is not None:
                found.setdefault(route.policy, []).append((route.method, route.path))
        return found


class Resource:
    """A falcon resource for one path, dispatching by method and microversion."""

    def __init__(self, routes: list[Route]):
        methods = {route.method: route for route in routes}
        allow = ", ".join(methods)
        for verb in falcon.constants.COMBINED_METHODS:
            responder = (_responder(methods[verb]) if verb in methods
                         else _not_allowed(allow))
            setattr(self, f"on_{verb.lower()}", responder)


def _responder(route: Route):
    handler = route.handler

    def respond(req: Request, resp: falcon.Response, **params):
        req.context.route = route
        if route.content_before_version:
            negotiation.check(req, handler)
            _check_version(req, route)
        else:
            _check_version(req, route)
            negotiation.check(req, handler)
        if route.policy is not None and not route.handler_checks_policy:
            req.context.auth.can(route.policy)
        handler(req, resp, **params)

    return respond


def _check_version(req: Request, route: Route) -> None:
    version = req.context.version
    if not route.serves(version):
        raise exceptions.NotFound()
    refusal = route.at(version).refusal
    if refusal is not None:
        raise _Status(refusal)


def _not_allowed(allow: str):
    def respond(req, resp, **params):
        raise _Status(405, "The method specified is not allowed for this resource.",
                      headers={"allow": allow})

    return respond


class _Status(exceptions.PlacerError):
    """An error whose status the router decides (405, or a refusal of the table)."""

    def __init__(self, status: int, detail: str = "", headers: dict | None = None):
        super().__init__(detail)
        self.status = status
        self.headers = headers


def add_routes(app: falcon.App, table: Table, conf: cfg.ConfigOpts) -> None:
    """A resource per path of ``table``, with the routes ``conf`` enables."""
    for path, routes in table.paths.items():
        served = [r for r in routes if r.enabled is None or r.enabled(conf)]
        if served:
            app.add_route(path, Resource(served))

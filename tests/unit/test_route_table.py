"""The route table (placer.route_table): one entry per path and method, from
which the router, auth's open paths, the metrics labels and the OpenAPI
document are built; placer.policy documents the same operations per rule."""

import ast
import pathlib

import pytest
from oslo_policy import policy as oslo_policy

import placer.http
from placer import microversions as mv
from placer.http.routing import Route, Table
from placer.route_table import ROUTES, policy_defaults
from placer.schemas.versioned import Since


def _handler(req, resp):
    pass


def test_every_route_names_a_handler_function_in_placer_handlers():
    for route in ROUTES:
        assert callable(route.handler), route
        assert route.handler.__module__.startswith("placer.handlers."), route


def test_one_entry_per_path_and_method():
    keys = [(route.path, route.method) for route in ROUTES]
    assert len(keys) == len(set(keys))
    with pytest.raises(ValueError, match="twice"):
        Table([Route("GET", "/x", _handler), Route("GET", "/x", _handler)])


def test_open_paths_are_the_version_document_and_the_api_description():
    assert ROUTES.open_paths() == {"/", "/openapi.json"}
    for route in ROUTES:
        assert (route.policy is None) == route.open, route
    with pytest.raises(ValueError, match="open for some methods"):
        Table([Route("GET", "/x", _handler, open=True), Route("PUT", "/x", _handler)])


def test_every_api_rule_is_checked_by_some_route_and_every_route_rule_exists():
    documented = {rule.name: rule.operations for rule in policy_defaults()
                  if isinstance(rule, oslo_policy.DocumentedRuleDefault)}
    assert set(documented) == {r.policy for r in ROUTES if r.policy is not None}
    assert documented["placement:resource_providers:inventories:delete"] == [
        {"method": "DELETE", "path": "/resource_providers/{uuid}/inventories"},
        {"method": "DELETE", "path": "/resource_providers/{uuid}/inventories/{resource_class}"}]


def test_handlers_that_check_their_rule():
    # /usages: its target is the project the query names; /metrics: [placer]
    # metrics_open serves it without the rule
    assert [(r.method, r.path) for r in ROUTES if r.handler_checks_policy] == [
        ("GET", "/usages"), ("GET", "/metrics")]


def test_schemas_must_fall_within_the_route_versions():
    with pytest.raises(ValueError, match="no answers at its first version"):
        Route("GET", "/x", _handler, answers=Since({mv.TRAITS: {200: None}}))
    with pytest.raises(ValueError, match="outside its versions"):
        Route("GET", "/x", _handler, since=mv.TRAITS, query=Since({mv.BASE: object()}))
    with pytest.raises(ValueError, match="outside its versions"):
        Route("GET", "/x", _handler, until=mv.TRAITS, query=Since({mv.TOTAL_USAGES: object()}))


def test_windows_end_at_until():
    route = Route("GET", "/x", _handler, until=mv.TRAITS, answers={200: None})
    assert [(w.first, w.last) for w in route.windows] == [(mv.BASE, mv.TRAITS)]
    assert route.serves(mv.TRAITS) and not route.serves(mv.TOTAL_USAGES)
    with pytest.raises(LookupError):
        route.at(mv.TOTAL_USAGES)


def test_no_http_module_imports_the_route_table():
    """placer.http builds the app from the table it is given (http.app.make):
    the table imports the handlers, which import placer.http, never the reverse."""
    for source in pathlib.Path(placer.http.__file__).parent.glob("*.py"):
        tree = ast.parse(source.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                names = [node.module or ""] + [f"{node.module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            assert not any(n.startswith("placer.route_table") for n in names), source.name

"""The OpenAPI 3.1 document of the API, one per microversion.

Written from the route table the app serves (``routing.Table``: paths,
methods, handlers, the versions each is served at and, per microversion
window, the body and query schemas the handlers validate with and the
answers' schemas), so it describes what is served. Routes served only when
the configuration enables them (``/metrics``) are left out.

OpenAPI has no notion of microversions, so there is one document per
version: ``document((1, 20))`` holds the operations that exist at 1.20 with
their 1.20 parameters, bodies and answers, and requires the header
``OpenStack-API-Version: placement 1.20``. Each operation says since when it
exists (``x-since``) and the window its schemas hold for (``x-microversions``).
"""

import copy
import functools
import re

from placer import microversions as mv
from placer.http.routing import Answers, Route, Table, Window
from placer.microversions import Version
from placer.schemas import responses as r

OPENAPI_VERSION = "3.1.0"
HEADER = "OpenStack-API-Version"
_ERROR = {"$ref": "#/components/responses/Error"}
_UUID_PARAMS = {"uuid", "consumer_uuid"}
# Example values of query parameters (what a client typically sends)
_EXAMPLES = {"resources": "VCPU:1,MEMORY_MB:512", "limit": "5", "group_policy": "none",
             "required": "HW_CPU_X86_AVX2", "project_id": "demo", "associated": "true",
             "version": mv.text(mv.MAX)}


@functools.cache
def document(routes: Table, version: Version) -> dict:
    """The whole document of ``routes`` for ``version`` (a dict; cached, do not modify)."""
    paths: dict[str, dict] = {}
    for path, routes_of_path in routes.paths.items():
        operations = {route.method.lower(): _operation(route, route.at(version))
                      for route in routes_of_path
                      if route.enabled is None and route.serves(version)}
        if operations:
            paths[path] = operations
    return {
        "openapi": OPENAPI_VERSION,
        "info": {
            "title": "Placement API (Placer)",
            "version": mv.text(version),
            "description": (
                f"The OpenStack Placement API at microversion {mv.text(version)}. "
                "One document per microversion: GET /openapi.json?version=1.N "
                f"({mv.text(mv.MIN)} to {mv.text(mv.MAX)}; default the latest)."),
        },
        "x-microversion": mv.text(version),
        "paths": paths,
        "components": {
            "securitySchemes": {"token": {
                "type": "apiKey", "in": "header", "name": "X-Auth-Token",
                "description": "A Keystone token (with noauth2: 'admin', or 'user:project')"}},
            "parameters": {"microversion": {
                "name": HEADER, "in": "header", "required": True,
                "description": "The microversion this document describes",
                "schema": {"type": "string", "const": f"placement {mv.text(version)}"}}},
            "schemas": {"Error": r.error(version >= mv.ERROR_CODES)},
            "responses": {
                "Error": {"description": "An error (API-SIG format)",
                          "content": {"application/json": {
                              "schema": {"$ref": "#/components/schemas/Error"}}}},
                "Unauthorized": {"description": "No or an invalid token"},
            },
        },
        "security": [{"token": []}],
    }


def _operation(route: Route, window: Window) -> dict:
    # the handler's module under placer.handlers names its tag
    tag = route.handler.__module__.rpartition(".")[2]
    operation: dict = {
        "operationId": f"{tag}.{route.handler.__name__}",
        "tags": [tag],
        "x-since": mv.text(route.since),
        "x-microversions": {"first": mv.text(window.first), "last": mv.text(window.last)},
        "parameters": ([{"$ref": "#/components/parameters/microversion"}]
                       + _path_parameters(route.path)
                       + (_query_parameters(window.query.schema) if window.query else [])),
        "responses": _responses(window.answers or {}),
    }
    if route.open:
        operation["security"] = []
    else:
        operation["responses"]["401"] = {"$ref": "#/components/responses/Unauthorized"}
    if window.body is not None:
        operation["requestBody"] = {"required": True, "content": {
            "application/json": {"schema": _plain(window.body.schema)}}}
    return operation


def _path_parameters(path: str) -> list[dict]:
    return [{"name": name, "in": "path", "required": True,
             "schema": {"type": "string", "format": "uuid"} if name in _UUID_PARAMS
             else {"type": "string"}}
            for name in re.findall(r"{(\w+)}", path)]


def _query_parameters(schema: dict) -> list[dict]:
    """One parameter per property of the query schema; a patternProperties
    key such as ``^resources([1-9][0-9]*)?$`` (granular request groups) is
    given as its unsuffixed name, with the pattern in ``x-name-pattern``."""
    required = set(schema.get("required", ()))
    params = [_example({"name": name, "in": "query", "required": name in required,
                        "schema": _plain(prop)})
              for name, prop in schema.get("properties", {}).items()]
    for pattern, prop in schema.get("patternProperties", {}).items():
        name = re.match(r"\^(\w+)\(", pattern)
        if name is None:
            raise ValueError(f"cannot name the query parameters {pattern!r}")
        params.append(_example({"name": name.group(1), "in": "query", "required": False,
                                "schema": _plain(prop), "x-name-pattern": pattern,
                                "description": f"Also any parameter matching {pattern} "
                                               "(a suffixed request group)"}))
    return params


def _example(param: dict) -> dict:
    if param["name"] in _EXAMPLES:
        param["example"] = _EXAMPLES[param["name"]]
    return param


def _responses(answers: Answers) -> dict:
    result: dict = {}
    for status, schema in answers.items():
        if status >= 400:
            result[str(status)] = _ERROR
        elif schema is None:
            result[str(status)] = {"description": "No content"}
        else:
            result[str(status)] = {"description": "Success", "content": {
                "application/json": {"schema": _plain(schema)}}}
    # any client error, and the database outage answer; never a 500
    result["4XX"] = _ERROR
    result["503"] = _ERROR
    return result


def _plain(schema: dict) -> dict:
    """A deep copy, so that the cached document shares nothing with the validators."""
    return copy.deepcopy(schema)

"""The schemas of every route and method, per microversion window.

``TABLE[(path, method)]`` is an ``Operation``: the request body schema, the
query string schema and the answers (status -> JSON Schema of the body, None
for no body), each as a ``Since`` (the value from a microversion on). Its
``windows`` cut the versions where any of them changes. Handlers pick their
validators here (through ``placer.http.util.body_schema`` and
``query_schema``), and the OpenAPI document (``placer.http.openapi``) is
written from the same table, so the two cannot disagree.
``tests/functional/test_openapi.py`` checks that the table and the route
table (``placer.route_table``) name the same routes, methods and versions.

Body and query entries are validators (their ``.schema`` is the JSON
Schema): jsonschema's messages quote them, so they are kept as the reference
has them. Validation that is not a schema (trait names, uuids in paths, the
values inside query strings) stays in the handlers and query parsers.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from placer import microversions as mv
from placer.microversions import Version
from placer.schemas import (
    aggregates,
    allocation_candidates,
    allocations,
    inventories,
    reshaper,
    resource_classes,
    resource_providers,
    traits,
    usages,
    validation,
)
from placer.schemas import responses as r
from placer.schemas.validation import validator
from placer.schemas.versioned import Since

Answers = Mapping[int, dict | None]  # status -> body schema (None: no body)


@dataclass(frozen=True)
class Window:
    """What one operation takes and answers from ``first`` to ``last`` (included)."""

    first: Version
    last: Version
    body: Any = None  # a jsonschema validator, or None: no body is read
    query: Any = None  # a jsonschema validator of the query as a dict, or None
    answers: Answers | None = None


class Operation:
    """One method of one route: body, query and answers, each by version."""

    def __init__(self, answers: Mapping[Version, Answers],
                 body: Mapping[Version, Any] | None = None,
                 query: Mapping[Version, Any] | None = None):
        self.answers = Since(answers)
        self.body = Since(body) if body else None
        self.query = Since(query) if query else None
        self.since = self.answers.first
        parts = [p for p in (self.answers, self.body, self.query) if p is not None]
        if any(p.first < self.since for p in parts):
            raise ValueError("a body or query before the operation exists")
        cuts = sorted({step for p in parts for step, _ in p.steps})
        self.windows = tuple(
            Window(first, mv.previous(cuts[i + 1]) if i + 1 < len(cuts) else mv.MAX,
                   self._at(self.body, first), self._at(self.query, first),
                   self.answers.at(first))
            for i, first in enumerate(cuts))

    @staticmethod
    def _at(since: Since | None, version: Version):
        if since is None or version < since.first:
            return None
        return since.at(version)

    def at(self, version: Version) -> Window:
        version = (version[0], version[1])  # a microversion_parse.Version compares alike
        for window in reversed(self.windows):
            if version >= window.first:
                return window
        raise LookupError(f"{mv.text(version)} is before this operation's first version")


def _steps(build, *versions: Version) -> dict[Version, Any]:
    return {version: build(version) for version in versions}


def _with_provider(query):
    """A candidate query validator that also takes explain's ``provider``."""
    schema = query.schema
    return validator({**schema, "properties": {
        **schema["properties"], "provider": {"type": "string", "format": "uuid"}}},
        validation.QUERY_FORMATS)


NO_CONTENT: Answers = {204: None}
CREATED: Answers = {201: None}
# DELETE .../inventories before 1.5: the path exists, the method not yet (an
# error status: the body is the error document, as for every error)
METHOD_NOT_ALLOWED: Answers = {405: None}

# GET /openapi.json?version=1.N (default: the latest)
OPENAPI_QUERY = validator({
    "type": "object",
    "properties": {"version": {"type": "string", "pattern": r"^(1\.(0|[1-9][0-9]?)|latest)$"}},
    "additionalProperties": False,
})

_PROVIDER = {mv.BASE: {200: r.PROVIDER}, mv.NESTED_PROVIDERS: {200: r.PROVIDER_1_14}}
_INVENTORIES = {mv.BASE: {200: r.INVENTORIES}}
_INVENTORY = {mv.BASE: {200: r.INVENTORY}}
_AGGREGATES = {mv.PROVIDER_AGGREGATES: {200: r.AGGREGATES},
               mv.AGGREGATES_GENERATION: {200: r.AGGREGATES_1_19}}
_PROVIDER_TRAITS = {mv.TRAITS: {200: r.PROVIDER_TRAITS}}

TABLE: dict[tuple[str, str], Operation] = {
    ("/", "GET"): Operation({mv.BASE: {200: r.VERSIONS}}),
    ("/openapi.json", "GET"): Operation({mv.BASE: {200: r.OPENAPI}},
                                        query={mv.BASE: OPENAPI_QUERY}),
    # resource classes
    ("/resource_classes", "GET"): Operation(
        {mv.RESOURCE_CLASSES: {200: r.RESOURCE_CLASSES}}),
    ("/resource_classes", "POST"): Operation(
        {mv.RESOURCE_CLASSES: CREATED}, body={mv.RESOURCE_CLASSES: resource_classes.CLASS}),
    ("/resource_classes/{name}", "GET"): Operation(
        {mv.RESOURCE_CLASSES: {200: r.RESOURCE_CLASS}}),
    ("/resource_classes/{name}", "PUT"): Operation(
        {mv.RESOURCE_CLASSES: {200: r.RESOURCE_CLASS},
         mv.PUT_RESOURCE_CLASS: {201: None, 204: None}},
        body={mv.RESOURCE_CLASSES: resource_classes.CLASS, mv.PUT_RESOURCE_CLASS: None}),
    ("/resource_classes/{name}", "DELETE"): Operation({mv.RESOURCE_CLASSES: NO_CONTENT}),
    # resource providers
    ("/resource_providers", "GET"): Operation(
        {mv.BASE: {200: r.PROVIDERS}, mv.NESTED_PROVIDERS: {200: r.PROVIDERS_1_14}},
        query=dict(resource_providers.QUERY.steps)),
    ("/resource_providers", "POST"): Operation(
        {mv.BASE: CREATED, mv.CREATE_PROVIDER_BODY: {200: r.PROVIDER_1_14}},
        body={mv.BASE: resource_providers.POST,
              mv.NESTED_PROVIDERS: resource_providers.POST_1_14}),
    ("/resource_providers/{uuid}", "GET"): Operation(_PROVIDER),
    ("/resource_providers/{uuid}", "PUT"): Operation(
        _PROVIDER, body={mv.BASE: resource_providers.PUT,
                         mv.NESTED_PROVIDERS: resource_providers.PUT_1_14}),
    ("/resource_providers/{uuid}", "DELETE"): Operation({mv.BASE: NO_CONTENT}),
    # inventories
    ("/resource_providers/{uuid}/inventories", "GET"): Operation(_INVENTORIES),
    ("/resource_providers/{uuid}/inventories", "POST"): Operation(
        {mv.BASE: {201: r.INVENTORY}}, body={mv.BASE: inventories.NEW}),
    ("/resource_providers/{uuid}/inventories", "PUT"): Operation(
        _INVENTORIES, body={mv.BASE: inventories.ALL}),
    ("/resource_providers/{uuid}/inventories", "DELETE"): Operation(
        {mv.BASE: METHOD_NOT_ALLOWED, mv.DELETE_ALL_INVENTORIES: NO_CONTENT}),
    ("/resource_providers/{uuid}/inventories/{resource_class}", "GET"): Operation(_INVENTORY),
    ("/resource_providers/{uuid}/inventories/{resource_class}", "PUT"): Operation(
        _INVENTORY, body={mv.BASE: inventories.ONE}),
    ("/resource_providers/{uuid}/inventories/{resource_class}", "DELETE"): Operation(
        {mv.BASE: NO_CONTENT}),
    # usages, aggregates and traits of a provider
    ("/resource_providers/{uuid}/usages", "GET"): Operation(
        {mv.BASE: {200: r.PROVIDER_USAGES}}),
    ("/resource_providers/{uuid}/aggregates", "GET"): Operation(_AGGREGATES),
    ("/resource_providers/{uuid}/aggregates", "PUT"): Operation(
        _AGGREGATES, body={mv.PROVIDER_AGGREGATES: aggregates.SET_AGGREGATES_1_1,
                           mv.AGGREGATES_GENERATION: aggregates.SET_AGGREGATES_1_19}),
    ("/resource_providers/{uuid}/traits", "GET"): Operation(_PROVIDER_TRAITS),
    ("/resource_providers/{uuid}/traits", "PUT"): Operation(
        _PROVIDER_TRAITS, body={mv.TRAITS: traits.SET_PROVIDER_TRAITS}),
    ("/resource_providers/{uuid}/traits", "DELETE"): Operation({mv.TRAITS: NO_CONTENT}),
    # allocations
    ("/resource_providers/{uuid}/allocations", "GET"): Operation(
        {mv.BASE: {200: r.provider_allocations(False)},
         mv.CONSUMER_GENERATIONS: {200: r.provider_allocations(True)}}),
    ("/allocations", "POST"): Operation(
        {mv.POST_ALLOCATIONS: NO_CONTENT},
        body=_steps(allocations.post_body, mv.POST_ALLOCATIONS, mv.CONSUMER_GENERATIONS,
                    mv.GROUP_MAPPINGS, mv.CONSUMER_TYPES)),
    ("/allocations/{consumer_uuid}", "GET"): Operation({
        mv.BASE: {200: r.consumer_allocations([])},
        mv.ALLOCATIONS_DICT: {200: r.consumer_allocations(["project_id", "user_id"])},
        mv.CONSUMER_GENERATIONS: {200: r.consumer_allocations(
            ["project_id", "user_id", "consumer_generation"])},
        mv.CONSUMER_TYPES: {200: r.consumer_allocations(
            ["project_id", "user_id", "consumer_generation", "consumer_type"])},
    }),
    ("/allocations/{consumer_uuid}", "PUT"): Operation(
        {mv.BASE: NO_CONTENT},
        body=_steps(allocations.put_body, mv.BASE, mv.CONSUMER_OWNER, mv.ALLOCATIONS_DICT,
                    mv.CONSUMER_GENERATIONS, mv.GROUP_MAPPINGS, mv.CONSUMER_TYPES)),
    ("/allocations/{consumer_uuid}", "DELETE"): Operation({mv.BASE: NO_CONTENT}),
    ("/allocation_candidates", "GET"): Operation(
        {mv.ALLOCATION_CANDIDATES: {200: r.candidates("list", False, False)},
         mv.ALLOCATIONS_DICT: {200: r.candidates("dict", False, False)},
         mv.CANDIDATES_REQUIRED: {200: r.candidates("dict", True, False)},
         mv.NESTED_CANDIDATES: {200: r.candidates("dict", True, True)},
         mv.GROUP_MAPPINGS: {200: r.candidates("mappings", True, True)}},
        query=dict(allocation_candidates.QUERY.steps)),
    # Placer's own: the same query plus provider=<uuid>
    ("/allocation_candidates/explain", "GET"): Operation(
        {mv.ALLOCATION_CANDIDATES: {200: r.EXPLAIN}},
        query={first: _with_provider(v) for first, v in allocation_candidates.QUERY.steps}),
    ("/usages", "GET"): Operation(
        {mv.TOTAL_USAGES: {200: r.TOTAL_USAGES}, mv.CONSUMER_TYPES: {200: r.TOTAL_USAGES_1_38}},
        query={mv.TOTAL_USAGES: usages.QUERY, mv.CONSUMER_TYPES: usages.QUERY_1_38}),
    ("/reshaper", "POST"): Operation(
        {mv.RESHAPER: NO_CONTENT},
        body=_steps(reshaper.body, mv.RESHAPER, mv.GROUP_MAPPINGS, mv.CONSUMER_TYPES)),
    # traits
    ("/traits", "GET"): Operation({mv.TRAITS: {200: r.TRAITS}},
                                  query={mv.TRAITS: traits.LIST_QUERY}),
    ("/traits/{name}", "GET"): Operation({mv.TRAITS: NO_CONTENT}),
    ("/traits/{name}", "PUT"): Operation({mv.TRAITS: {201: None, 204: None}}),
    ("/traits/{name}", "DELETE"): Operation({mv.TRAITS: NO_CONTENT}),
}


def body_at(path: str, method: str, version: Version):
    """The body validator of ``method path`` at ``version`` (for tests and tools)."""
    return TABLE[(path, method)].at(version).body

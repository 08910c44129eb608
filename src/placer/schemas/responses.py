"""JSON Schemas of the answers, per resource and microversion window.

Plain JSON Schema (draft 2020-12, as OpenAPI 3.1 reads it). They are not
used to serve requests: the route table (``placer.route_table``) puts them
in the OpenAPI document, and the schemathesis run
(tests/functional/test_schemathesis.py) checks live answers against them, so
a change of an answer that is not written here fails a test.

Objects are closed (``additionalProperties: false``) wherever the reference
documents a fixed set of keys, so that a key added by mistake is caught.
"""

from placer.model.names import NAME_PATTERN

UUID = {"type": "string", "format": "uuid"}
UUID_OR_NULL = {"type": ["string", "null"], "format": "uuid"}
# Aggregate uuids are echoed as the client spelled them (see handlers/aggregates.py).
AGGREGATE = {"type": "string"}
GENERATION = {"type": "integer", "minimum": 0}
COUNT = {"type": "integer", "minimum": 0}
CLASS_NAME = {"type": "string", "pattern": NAME_PATTERN}


def closed(properties: dict, required: list[str] | None = None, **extra) -> dict:
    """An object with exactly ``properties`` (all required unless ``required``)."""
    return {"type": "object", "properties": properties,
            "required": list(properties) if required is None else required,
            "additionalProperties": False, **extra}


def by_class(value: dict) -> dict:
    """An object keyed by resource class name."""
    return {"type": "object", "propertyNames": CLASS_NAME, "additionalProperties": value}


def by_uuid(value: dict) -> dict:
    """An object keyed by uuid (providers, consumers)."""
    return {"type": "object", "propertyNames": UUID, "additionalProperties": value}


LINKS = {"type": "array", "items": closed({"rel": {"type": "string"},
                                           "href": {"type": "string"}})}

# --- errors (every status >= 400 on every route) -------------------------------

_ERROR_FIELDS = {
    "status": {"type": "integer", "minimum": 400, "maximum": 599},
    "title": {"type": "string"},
    "detail": {"type": "string"},
    "code": {"type": "string", "description": "from 1.23, e.g. placement.undefined_code"},
    "request_id": {"type": "string"},
    # only on a 406 for an unsupported microversion
    "max_version": {"type": "string"},
    "min_version": {"type": "string"},
}


def error(with_code: bool) -> dict:
    """The API-SIG error document; ``code`` is always there from 1.23."""
    required = ["status", "title", "detail"] + (["code"] if with_code else [])
    return closed({"errors": {"type": "array", "minItems": 1,
                              "items": closed(_ERROR_FIELDS, required)}})


# --- / ------------------------------------------------------------------------

VERSIONS = closed({"versions": {"type": "array", "items": closed({
    "id": {"type": "string"},
    "max_version": {"type": "string"},
    "min_version": {"type": "string"},
    "status": {"type": "string"},
    "links": LINKS,
})}})

OPENAPI = {"type": "object", "required": ["openapi", "info", "paths"]}

# --- resource classes -----------------------------------------------------------

RESOURCE_CLASS = closed({"name": CLASS_NAME, "links": LINKS})
RESOURCE_CLASSES = closed({"resource_classes": {"type": "array", "items": RESOURCE_CLASS}})

# --- resource providers -----------------------------------------------------------

_PROVIDER = {"uuid": UUID, "name": {"type": "string"}, "generation": GENERATION,
             "links": LINKS}
PROVIDER = closed(_PROVIDER)
PROVIDER_1_14 = closed({**_PROVIDER, "parent_provider_uuid": UUID_OR_NULL,
                        "root_provider_uuid": UUID})
PROVIDERS = closed({"resource_providers": {"type": "array", "items": PROVIDER}})
PROVIDERS_1_14 = closed({"resource_providers": {"type": "array", "items": PROVIDER_1_14}})

# --- inventories ------------------------------------------------------------------

_INVENTORY = {
    "total": COUNT,
    "reserved": COUNT,
    "min_unit": COUNT,
    "max_unit": COUNT,
    "step_size": COUNT,
    "allocation_ratio": {"type": "number"},
}
INVENTORY_FIELDS = closed(_INVENTORY)
# one inventory: the provider generation is left out while it is zero
INVENTORY = closed({**_INVENTORY, "resource_provider_generation": GENERATION},
                   list(_INVENTORY))
INVENTORIES = closed({"resource_provider_generation": GENERATION,
                      "inventories": by_class(INVENTORY_FIELDS)})

# --- usages -----------------------------------------------------------------------

PROVIDER_USAGES = closed({"resource_provider_generation": GENERATION,
                          "usages": by_class(COUNT)})
TOTAL_USAGES = closed({"usages": by_class(COUNT)})
# 1.38: per consumer type ("all", "unknown" or a type), with its consumer count
TOTAL_USAGES_1_38 = closed({"usages": {"type": "object", "additionalProperties": {
    "type": "object",
    "properties": {"consumer_count": COUNT},
    "required": ["consumer_count"],
    "propertyNames": {"anyOf": [CLASS_NAME, {"const": "consumer_count"}]},
    "additionalProperties": COUNT,
}}})

# --- aggregates and traits -----------------------------------------------------------

AGGREGATES = closed({"aggregates": {"type": "array", "items": AGGREGATE}})
AGGREGATES_1_19 = closed({"aggregates": {"type": "array", "items": AGGREGATE},
                          "resource_provider_generation": GENERATION})
TRAITS = closed({"traits": {"type": "array", "items": {"type": "string"}}})
PROVIDER_TRAITS = closed({"traits": {"type": "array", "items": {"type": "string"}},
                          "resource_provider_generation": GENERATION})

# --- allocations ------------------------------------------------------------------------

_RESOURCES = by_class({"type": "integer", "minimum": 1})


def provider_allocations(with_consumer_generation: bool) -> dict:
    """GET /resource_providers/{uuid}/allocations: by consumer."""
    entry = {"resources": _RESOURCES}
    if with_consumer_generation:
        entry["consumer_generation"] = {"type": ["integer", "null"]}
    return closed({"allocations": by_uuid(closed(entry)),
                   "resource_provider_generation": GENERATION})


def consumer_allocations(version_fields: list[str]) -> dict:
    """GET /allocations/{consumer}: by provider; ``version_fields`` are the
    consumer fields of the version, there when the consumer holds anything."""
    fields: dict[str, dict] = {"project_id": {"type": "string"}, "user_id": {"type": "string"},
              "consumer_generation": {"type": ["integer", "null"]},
              "consumer_type": {"type": "string"}}
    properties = {"allocations": by_uuid(closed({"generation": GENERATION,
                                                 "resources": _RESOURCES}))}
    properties.update({name: fields[name] for name in version_fields})
    schema = closed(properties, ["allocations"])
    if version_fields:
        # all of them, unless the consumer holds nothing (then none)
        schema["dependentRequired"] = {"project_id": version_fields}
    return schema


# --- allocation candidates ----------------------------------------------------------------

_REQUEST_LIST = closed({"allocations": {"type": "array", "items": closed({
    "resource_provider": closed({"uuid": UUID}),
    "resources": _RESOURCES,
})}})
_REQUEST_DICT = closed({"allocations": by_uuid(closed({"resources": _RESOURCES}))})
_REQUEST_MAPPINGS = closed({"allocations": by_uuid(closed({"resources": _RESOURCES})),
                            "mappings": {"type": "object", "additionalProperties": {
                                "type": "array", "items": UUID}}})


def candidates(allocation_request_form: str, traits: bool, tree: bool) -> dict:
    """GET /allocation_candidates: ``allocation_request_form`` is 'list' (1.10),
    'dict' (1.12) or 'mappings' (1.34); traits in summaries from 1.17, parent and
    root uuids from 1.29."""
    request = {"list": _REQUEST_LIST, "dict": _REQUEST_DICT,
               "mappings": _REQUEST_MAPPINGS}[allocation_request_form]
    summary: dict = {"resources": by_class(closed({"capacity": COUNT, "used": COUNT}))}
    if traits:
        summary["traits"] = {"type": "array", "items": {"type": "string"}}
    if tree:
        summary["parent_provider_uuid"] = UUID_OR_NULL
        summary["root_provider_uuid"] = UUID
    return closed({"allocation_requests": {"type": "array", "items": request},
                   "provider_summaries": by_uuid(closed(summary))})


# --- explain (Placer's own: candidates/explanation) --------------------------------------

_TEXT = {"type": "string"}
_SUFFIX_OR_NULL = {"type": ["string", "null"], "description": "None: a request-wide step"}
_STEP = closed({"constraint": _TEXT, "value": _TEXT, "providers": COUNT, "trees": COUNT,
                "candidates": COUNT, "detail": _TEXT}, required=["constraint", "value"])
_FAILURE = closed({"group": _SUFFIX_OR_NULL, "constraint": _TEXT, "value": _TEXT,
                   "detail": _TEXT})
_NAME = {"type": ["string", "null"]}
EXPLAIN = closed({
    "candidates": COUNT,
    "roots": COUNT,
    "groups": {"type": "array", "items": closed({
        "suffix": _TEXT, "resources": by_class({"type": "integer", "minimum": 1}),
        "funnel": {"type": "array", "items": _STEP}})},
    "request": {"type": "array", "items": _STEP},
    "first_empty": {"oneOf": [{"type": "null"}, closed({
        "group": _SUFFIX_OR_NULL, "constraint": _TEXT, "value": _TEXT, "message": _TEXT})]},
    "provider": closed({
        "uuid": UUID, "name": _NAME, "root_provider_uuid": UUID,
        "failures": {"type": "array", "items": _FAILURE},
        "tree": closed({"uuid": UUID, "name": _NAME,
                        "failures": {"type": "array", "items": _FAILURE}})}),
    "order": closed({
        "name": {"enum": ["id", "random", "spread", "pack"]},
        "weights": by_class({"type": "number", "minimum": 0}),
        "pool": {"type": "number", "minimum": 1},
        "trees": {"type": "array", "items": closed({
            "root_provider_uuid": UUID, "name": _NAME, "candidates": COUNT, "rank": COUNT,
            "free": by_class({"type": "integer", "minimum": 0, "maximum": 1000})})},
    }, required=["name"]),
}, required=["candidates", "roots", "groups", "request", "first_empty", "order"])


# --- capacity (Placer's own: candidates/count.py, db/class_totals.py) --------------------

_ROOT_FIT = closed({"uuid": UUID, "name": _NAME, "fits": {"type": "integer", "minimum": 1},
                    "exact": {"const": False}}, required=["uuid", "name", "fits"])
CAPACITY_COUNT = closed({"total": COUNT, "exact": {"type": "boolean"}, "inexact": COUNT,
                         "roots": {"type": "array", "items": _ROOT_FIT}})
_CLASS_TOTALS = by_class(closed({"capacity": COUNT, "used": COUNT, "free": COUNT}))
CAPACITY = {"oneOf": [
    CAPACITY_COUNT,
    closed({"resources": _CLASS_TOTALS}),
    closed({"groups": {"type": "array", "items": {"oneOf": [
        closed({"root": UUID, "resources": _CLASS_TOTALS}),
        closed({"aggregate": AGGREGATE, "resources": _CLASS_TOTALS})]}}}),
]}
CAPACITY_SHAPES = closed({"shapes": {"type": "object", "additionalProperties": CAPACITY_COUNT}})

# --- audit (Placer's own: db/audit.py) ---------------------------------------------------

_INT = {"type": "integer"}
_STAMP = {"type": ["string", "null"], "format": "date-time",
          "description": "last written (updated_at, else created_at), UTC"}
_CONSUMER = {
    "consumer": {"type": "string"},
    # null: allocations whose consumer has no row
    "project_id": {"type": ["string", "null"]},
    "user_id": {"type": ["string", "null"]},
    "consumer_type": {"type": ["string", "null"]},
    "generation": {"type": ["integer", "null"]},
    "updated_at": _STAMP,
}
_ALLOCATION = {"consumer": {"type": "string"}, "resource_provider": UUID,
               "resource_class": CLASS_NAME, "used": _INT}


def _finding(item: dict) -> dict:
    return closed({"count": COUNT, "items": {"type": "array", "items": item}})


_AUDIT_ITEMS = {
    "over_capacity": closed({
        "resource_provider": UUID, "name": _NAME, "resource_class": CLASS_NAME,
        "total": _INT, "reserved": _INT, "allocation_ratio": {"type": "number"},
        "capacity": _INT, "used": _INT, "excess": {"type": "integer", "minimum": 1},
        "consumers": {"type": "array", "items": closed({"consumer": {"type": "string"},
                                                        "used": _INT})}}),
    "unit_violations": closed({
        **_ALLOCATION, "min_unit": _INT, "max_unit": _INT, "step_size": _INT,
        "violates": {"type": "array", "minItems": 1, "uniqueItems": True,
                     "items": {"enum": ["min_unit", "max_unit", "step_size"]}}}),
    "without_inventory": closed(_ALLOCATION),
    "split_consumers": closed({**_CONSUMER, "roots": {
        "type": "array", "minItems": 2, "items": closed({
            "uuid": UUID, "name": _NAME, "resources": by_class(_INT)})}}),
    "empty_consumers": closed(_CONSUMER),
    "idle_providers": closed({"resource_provider": UUID, "name": _NAME,
                              "generation": GENERATION, "updated_at": _STAMP}),
    "unused_projects": closed({"external_id": {"type": "string"}}),
    "unused_users": closed({"external_id": {"type": "string"}}),
}
# every kind asked for is there (kind=: some of them, in this order)
AUDIT = closed({"findings": closed({kind: _finding(item) for kind, item in _AUDIT_ITEMS.items()},
                                   required=[])})

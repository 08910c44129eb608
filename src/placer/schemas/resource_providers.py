"""Request bodies and the GET query string of /resource_providers.

Clients see jsonschema's messages verbatim (schema and instance printed), so
every schema here has the reference's content and key order. Query values
that the schema only types as strings (member_of, required, resources) are
parsed here too, with the reference's texts and in its order of checks.
"""

import copy

import jsonschema

from placer import exceptions
from placer import microversions as mv
from placer.http import query
from placer.http.negotiation import validator
from placer.microversions import Version
from placer.model.query_values import parse_member_of, parse_resources, parse_traits
from placer.schemas.versioned import Since

_NAME = {"type": "string", "maxLength": 200}
_UUID = {"type": "string", "format": "uuid"}
_PARENT = {"anyOf": [{"type": "string", "format": "uuid"}, {"type": "null"}]}


def _body(*props: tuple[str, dict]) -> dict:
    return {
        "type": "object",
        "properties": {name: copy.deepcopy(schema) for name, schema in props},
        "required": ["name"],
        "additionalProperties": False,
    }


POST = validator(_body(("name", _NAME), ("uuid", _UUID)))
POST_1_14 = validator(_body(("name", _NAME), ("uuid", _UUID), ("parent_provider_uuid", _PARENT)))
PUT = validator(_body(("name", _NAME)))
PUT_1_14 = validator(_body(("name", _NAME), ("parent_provider_uuid", _PARENT)))


# Query parameters as they appeared, with the microversion adding each.
_QUERY_PARAMS = (
    ("name", {"type": "string"}, mv.BASE),
    ("uuid", {"type": "string", "format": "uuid"}, mv.BASE),
    ("member_of", {"type": "string"}, mv.PROVIDERS_MEMBER_OF),
    ("resources", {"type": "string"}, mv.PROVIDERS_RESOURCES),
    ("in_tree", {"type": "string", "format": "uuid"}, mv.NESTED_PROVIDERS),
    ("required", {"type": "string"}, mv.PROVIDERS_REQUIRED),
)


def _query_validator(boundary: Version):
    schema = {
        "type": "object",
        "properties": {name: dict(s) for name, s, since in _QUERY_PARAMS if boundary >= since},
        "additionalProperties": False,
    }
    # The reference checks the query with jsonschema's own format checker,
    # whose 'uuid' (unlike the bodies') insists on the dashed form.
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, format_checker=jsonschema.FormatChecker())


# The query schema of each window: one more parameter at each step.
QUERY = Since({since: _query_validator(since) for _, _, since in _QUERY_PARAMS})


def parse_list_query(pairs: list[tuple[str, str]], version: Version) -> dict:
    """The filters of GET /resource_providers (``pairs`` from
    placer.http.query.pairs), as keyword arguments for
    ``placer.db.resource_providers.ProviderFilter``; BadRequest when invalid."""
    values: dict[str, list[str]] = {}
    for key, value in pairs:
        values.setdefault(key, []).append(value)
    # The reference validates a dict view of the query: first position, last value.
    last = {key: vals[-1] for key, vals in values.items()}
    query.validate(last, QUERY.at(version))

    filters: dict = {}
    if "member_of" in values:
        filters["member_of"], filters["forbidden_aggs"] = _member_of(values["member_of"],
                                                                     version)
    if "required" in values:
        filters["required"], filters["forbidden_traits"] = _required(values["required"],
                                                                     version)
    for key in ("uuid", "name", "in_tree"):
        if key in last:
            filters[key] = last[key]
    if "resources" in last:
        filters["resources"] = parse_resources(last["resources"])
    return filters


def _member_of(raw: list[str], version: Version) -> tuple[list[list[str]], list[str]]:
    if version < mv.MULTIPLE_MEMBER_OF and len(raw) > 1:
        raise exceptions.BadRequest("Multiple member_of parameters are not supported")
    any_of: list[list[str]] = []
    forbidden: list[str] = []
    for value in raw:
        required, excluded = parse_member_of(value)
        if required:
            any_of.append(required)
        if excluded:
            if version < mv.FORBIDDEN_AGGREGATES:
                raise exceptions.BadRequest(
                    "Forbidden member_of parameters are not supported in the specified "
                    "microversion")
            forbidden += [agg for agg in excluded if agg not in forbidden]
    return any_of, forbidden


def _required(raw: list[str], version: Version) -> tuple[list[list[str]], list[str]]:
    if version < mv.ANY_TRAITS:
        raw = raw[-1:]  # before 1.39 a repeated 'required' meant its last value
    clauses: list[list[str]] = []
    forbidden: list[str] = []
    for value in raw:
        more, less = parse_traits(value, version >= mv.FORBIDDEN_TRAITS, version >= mv.ANY_TRAITS)
        clauses += more
        forbidden += [t for t in less if t not in forbidden]
    return clauses, forbidden

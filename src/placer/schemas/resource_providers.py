"""Request bodies and the GET query string of /resource_providers.

Clients see jsonschema's messages verbatim (schema and instance printed), so
every schema here has the reference's content and key order. Query values
that the schema only types as strings (member_of, required, resources) are
read here too (by placer.model.query_values), in the reference's order of checks.
"""

import copy

from placer import microversions as mv
from placer.microversions import Version
from placer.model import query_values
from placer.schemas.validation import QUERY_FORMATS, check_query, validator
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
    return validator(schema, QUERY_FORMATS)


# The query schema of each window: one more parameter at each step.
QUERY = Since({since: _query_validator(since) for _, _, since in _QUERY_PARAMS})


def parse_list_query(pairs: list[tuple[str, str]], version: Version) -> dict:
    """The filters of GET /resource_providers (``pairs`` from
    placer.http.query.pairs), as keyword arguments for
    ``placer.db.resource_providers.ProviderFilter``; BadRequest when invalid."""
    values, last = query_values.group(pairs)
    check_query(last, QUERY.at(version))

    filters: dict = {}
    if "member_of" in values:
        filters["member_of"], filters["forbidden_aggs"] = query_values.read_member_of(
            values["member_of"], version)
    if "required" in values:
        filters["required"], filters["forbidden_traits"] = query_values.read_required(
            values["required"], version)
    for key in ("uuid", "name", "in_tree"):
        if key in last:
            filters[key] = last[key]
    if "resources" in last:
        filters["resources"] = query_values.parse_resources(last["resources"])
    return filters

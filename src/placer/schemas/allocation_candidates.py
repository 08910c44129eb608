"""JSON Schemas for the GET /allocation_candidates query string, per microversion.

Clients see the validator's message verbatim (schema and instance included),
so each schema has exactly the content and key order the reference prints.
"""

from placer import microversions as mv
from placer.schemas.validation import QUERY_FORMATS, check_query, validator
from placer.schemas.versioned import Since

INTEGER_SUFFIX = r"[1-9][0-9]*"
STRING_SUFFIX = r"[a-zA-Z0-9_-]{1,64}"
GROUP_PREFIXES = ("resources", "required", "member_of", "in_tree")


def _limit():
    return {
        "type": ["integer", "string"],
        "pattern": "^[1-9][0-9]*$",
        "minimum": 1,
        "minLength": 1,
    }


def _schema(version: mv.Version) -> dict:
    if version < mv.GRANULAR_GROUPS:
        props: dict = {"resources": {"type": "string"}}
        if version >= mv.CANDIDATES_LIMIT:
            props["limit"] = _limit()
        if version >= mv.CANDIDATES_REQUIRED:
            props["required"] = {"type": ["string"]}
        if version >= mv.CANDIDATES_MEMBER_OF:
            props["member_of"] = {"type": ["string"]}
        return {
            "type": "object",
            "properties": props,
            "required": ["resources"],
            "additionalProperties": False,
        }
    props = {
        "limit": _limit(),
        "group_policy": {"type": "string", "enum": ["none", "isolate"]},
    }
    if version >= mv.ROOT_REQUIRED:
        props["root_required"] = {"type": ["string"]}
    if version >= mv.SAME_SUBTREE:
        props["same_subtree"] = {"type": ["string"]}
    suffix = STRING_SUFFIX if version >= mv.STRING_SUFFIXES else INTEGER_SUFFIX
    prefixes = GROUP_PREFIXES if version >= mv.CANDIDATES_IN_TREE else GROUP_PREFIXES[:3]
    return {
        "type": "object",
        "properties": props,
        "additionalProperties": False,
        "patternProperties": {f"^{p}({suffix})?$": {"type": "string"} for p in prefixes},
    }


def _validator(boundary: mv.Version):
    return validator(_schema(boundary), QUERY_FORMATS)


# The schema only changes at these microversions: one validator each.
QUERY = Since({boundary: _validator(boundary) for boundary in (
    mv.ALLOCATION_CANDIDATES, mv.CANDIDATES_LIMIT, mv.CANDIDATES_REQUIRED,
    mv.CANDIDATES_MEMBER_OF, mv.GRANULAR_GROUPS, mv.CANDIDATES_IN_TREE, mv.STRING_SUFFIXES,
    mv.ROOT_REQUIRED, mv.SAME_SUBTREE)})


def validate(instance: dict[str, str], version: mv.Version) -> None:
    """Raise BadRequest with the reference's text if ``instance`` is invalid."""
    check_query(instance, QUERY.at(version))


def _with_provider(query):
    """A candidate query validator that also takes explain's ``provider``."""
    schema = query.schema
    return validator({**schema, "properties": {
        **schema["properties"], "provider": {"type": "string", "format": "uuid"}}},
        QUERY_FORMATS)


# GET /allocation_candidates/explain (Placer's own): the same query plus provider=<uuid>
EXPLAIN_QUERY = Since({first: _with_provider(v) for first, v in QUERY.steps})

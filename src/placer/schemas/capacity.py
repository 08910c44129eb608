"""/capacity (Placer's own): GET's query (for the OpenAPI document: the
candidates query plus group_by), POST's body, and the named candidate
queries ("shapes", such as a flavor's) of POST's body and of ``[placer]
capacity_shapes`` (NAME=QUERY each, for the capacity gauges and
``placement-manage capacity``)."""

from placer import exceptions, microversions
from placer.candidates.request import CandidateRequest
from placer.microversions import Version
from placer.schemas import allocation_candidates, query_string
from placer.schemas.validation import QUERY_FORMATS, validator
from placer.schemas.versioned import Since


def _with_group_by(query):
    schema = query.schema
    return validator({**schema, "properties": {
        **schema["properties"], "group_by": {"type": "string", "enum": ["aggregate", "root"]}}},
        QUERY_FORMATS)


QUERY = Since({first: _with_group_by(v) for first, v in allocation_candidates.QUERY.steps})

POST_BODY = validator({
    "type": "object",
    "properties": {
        "shapes": {
            "type": "object",
            "minProperties": 1,
            "maxProperties": 200,
            "propertyNames": {"minLength": 1, "maxLength": 255},
            "additionalProperties": {"type": "string", "minLength": 1, "maxLength": 8192},
        },
    },
    "required": ["shapes"],
    "additionalProperties": False,
})


def parse_shape(name: str, text: str, version: Version = microversions.MAX
                ) -> CandidateRequest:
    """A shape's query string, parsed as GET /allocation_candidates parses
    its own at ``version``; BadRequest naming the shape."""
    try:
        pairs = query_string.parse(text.lstrip("?").encode("utf-8", "surrogateescape"))
        if not allocation_candidates.asks_for_resources(pairs):
            raise exceptions.BadRequest("a shape asks for resources (resources=CLASS:N,...)",
                                        code=exceptions.QUERYPARAM_MISSING_VALUE)
        return allocation_candidates.parse_query(pairs, version)
    except exceptions.BadRequest as exc:
        raise exc.of_shape(name) from None


def split_shape(value: str) -> tuple[str, str]:
    """(name, query) of a NAME=QUERY value; ValueError if it is not one."""
    name, sep, text = value.partition("=")
    if not sep or not name.strip() or not text:
        raise ValueError(f"capacity shape {value!r} is not NAME=QUERY "
                         "(e.g. m1.large=resources=VCPU:4,MEMORY_MB:8192)")
    return name.strip(), text


def configured_shapes(values: list[str]) -> dict[str, CandidateRequest]:
    """NAME=QUERY values, parsed at the latest microversion, in order;
    ValueError for a malformed or repeated one."""
    shapes: dict[str, CandidateRequest] = {}
    for value in values:
        name, text = split_shape(value)
        if name in shapes:
            raise ValueError(f"capacity shape {name!r} is given twice")
        try:
            shapes[name] = parse_shape(name, text)
        except exceptions.BadRequest as exc:
            raise ValueError(f"capacity_shapes: {exc.detail}") from None
    return shapes

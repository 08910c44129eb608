"""JSON Schemas of /capacity (Placer's own): GET's query (for the OpenAPI
document: the candidates query plus group_by) and POST's body."""

from placer.schemas import allocation_candidates
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

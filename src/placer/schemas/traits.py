"""Request schemas for /traits and /resource_providers/{uuid}/traits.

Key order matters: jsonschema quotes the schema in its messages, and the
reference's texts are what clients see.
"""

from placer.schemas.validation import validator

TRAIT_NAME = {"type": "string", "minLength": 1, "maxLength": 255}

# PUT /resource_providers/{uuid}/traits: any name is accepted here; unknown
# ones are refused afterwards with "No such trait".
SET_PROVIDER_TRAITS = validator({
    "type": "object",
    "properties": {
        "traits": {"type": "array", "items": TRAIT_NAME},
        "resource_provider_generation": {"type": "integer"},
    },
    "required": ["traits", "resource_provider_generation"],
    "additionalProperties": False,
})

# GET /traits query string (validated as a dict: last value of a repeated key).
LIST_QUERY = validator({
    "type": "object",
    "properties": {
        "name": {"type": "string"},
        "associated": {"type": "string"},
    },
    "additionalProperties": False,
})

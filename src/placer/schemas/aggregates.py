"""Request schemas for PUT /resource_providers/{uuid}/aggregates.

Key order matters: jsonschema quotes the schema in its messages.
"""

from placer.schemas.validation import validator


def _uuid_list() -> dict:
    return {"type": "array", "items": {"type": "string", "format": "uuid"},
            "uniqueItems": True}


# 1.1-1.18: a bare list of aggregate uuids.
SET_AGGREGATES_1_1 = validator(_uuid_list())

# 1.19+: the list plus the provider generation the client saw.
SET_AGGREGATES_1_19 = validator({
    "type": "object",
    "properties": {
        "aggregates": _uuid_list(),
        "resource_provider_generation": {"type": "integer"},
    },
    "required": ["aggregates", "resource_provider_generation"],
    "additionalProperties": False,
})

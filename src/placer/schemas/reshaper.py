"""POST /reshaper (1.30): inventories per provider plus allocations per
consumer (the POST /allocations shape of the same microversion, {} allowed)."""

import functools

from placer.schemas import allocations
from placer.schemas.inventories import ALL_SCHEMA
from placer.schemas.validation import validator


@functools.cache
def body(window: tuple[int, int]):
    """The body of the window starting at ``window`` (windows: placer.schemas.api)."""
    return validator({
        "type": "object",
        "properties": {
            "inventories": {
                "type": "object",
                "patternProperties": {allocations.UUID_PATTERN: ALL_SCHEMA},
                "minProperties": 1,
                "additionalProperties": False,
            },
            "allocations": allocations.consumers_schema(window),
        },
        "required": ["inventories", "allocations"],
        "additionalProperties": False,
    })

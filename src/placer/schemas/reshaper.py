"""POST /reshaper (1.30): inventories per provider plus allocations per
consumer (the POST /allocations shape of the same microversion, {} allowed)."""

import functools

from placer.http.negotiation import validator
from placer.schemas import allocations
from placer.schemas.inventories import ALL_SCHEMA


@functools.cache
def _reshaper(window: tuple[int, int]):
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


def reshaper_validator(version: tuple[int, int]):
    return _reshaper(next(w for w in ((1, 38), (1, 34), (1, 28)) if version >= w))

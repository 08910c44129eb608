"""POST /reshaper (1.30): inventories per provider plus allocations per
consumer (the POST /allocations shape of the same microversion, {} allowed)."""

from placer import microversions as mv
from placer.schemas import allocations
from placer.schemas.inventories import ALL_SCHEMA
from placer.schemas.validation import validator
from placer.schemas.versioned import Since


def _body(window: mv.Version):
    """The body of the window starting at ``window``."""
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


BODY = Since({window: _body(window)
              for window in (mv.RESHAPER, mv.GROUP_MAPPINGS, mv.CONSUMER_TYPES)})

"""Request bodies for /resource_providers/{uuid}/inventories[/{resource_class}].

Key order matters: validation errors print the failing (sub)schema, and
clients see that text, so these dicts are laid out as the reference's are.
"""

import re

import jsonschema

from placer import exceptions
from placer.model.inventory import MAX_INT, MAX_RATIO
from placer.model.names import NAME_PATTERN
from placer.schemas.validation import schema_error_text, validator


def _bounded(minimum: int) -> dict:
    return {"type": "integer", "maximum": MAX_INT, "minimum": minimum}


def _fields() -> dict:
    return {
        "resource_provider_generation": {"type": "integer"},
        "total": _bounded(1),
        "reserved": _bounded(0),
        "min_unit": _bounded(1),
        "max_unit": _bounded(1),
        "step_size": _bounded(1),
        "allocation_ratio": {"type": "number", "maximum": MAX_RATIO},
    }


def _record(required: list[str], **extra) -> dict:
    return {"type": "object", "properties": {**_fields(), **extra},
            "required": required, "additionalProperties": False}


# PUT /inventories/{rc}: one inventory, with the generation the client saw.
ONE = validator(_record(["total", "resource_provider_generation"]))

# POST /inventories: one inventory naming its class; any generation is ignored.
NEW = validator(_record(["total", "resource_class"],
                        resource_class={"type": "string", "pattern": NAME_PATTERN}))

# One entry of PUT /inventories' "inventories" map.
RECORD_SCHEMA = _record(["total"])
RECORD = validator(RECORD_SCHEMA)

# PUT /inventories: the whole set. Keys that do not look like class names
# are not checked by this schema (the handler checks their values with
# RECORD, then refuses the unknown class).
ALL_SCHEMA = {
    "type": "object",
    "properties": {
        "resource_provider_generation": {"type": "integer"},
        "inventories": {"type": "object", "patternProperties": {NAME_PATTERN: RECORD_SCHEMA}},
    },
    "required": ["resource_provider_generation", "inventories"],
    "additionalProperties": False,
}
ALL = validator(ALL_SCHEMA)


def is_class_name(key: str) -> bool:
    """Whether ALL's patternProperties applies to ``key`` (jsonschema searches)."""
    return re.search(NAME_PATTERN, key) is not None


def check_unmatched(entries: dict) -> None:
    """Check the entries of an ``inventories`` map (PUT .../inventories, POST
    /reshaper) whose keys do not look like class names, which ALL leaves
    alone (the reference then fails with a 500): 400 as for the others."""
    for key, value in entries.items():
        if not is_class_name(key):
            error = jsonschema.exceptions.best_match(RECORD.iter_errors(value))
            if error is not None:
                raise exceptions.InvalidBody(schema_error_text(error))

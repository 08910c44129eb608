"""Request bodies for /resource_classes."""

from placer.model.names import CUSTOM_PATTERN
from placer.schemas.validation import validator

NAME = {"type": "string", "pattern": CUSTOM_PATTERN, "maxLength": 255}

CLASS = validator({
    "type": "object",
    "properties": {"name": NAME},
    "required": ["name"],
    "additionalProperties": False,
})

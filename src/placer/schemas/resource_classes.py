"""Request bodies for /resource_classes."""

from placer.http.negotiation import validator
from placer.model.names import CUSTOM_PATTERN

NAME = {"type": "string", "pattern": CUSTOM_PATTERN, "maxLength": 255}

CLASS = validator({
    "type": "object",
    "properties": {"name": NAME},
    "required": ["name"],
    "additionalProperties": False,
})

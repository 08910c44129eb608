"""The GET /openapi.json query string: ?version=1.N or latest (the default)."""

from placer.schemas.validation import validator

QUERY = validator({
    "type": "object",
    "properties": {"version": {"type": "string", "pattern": r"^(1\.(0|[1-9][0-9]?)|latest)$"}},
    "additionalProperties": False,
})

"""GET /usages query (1.9; consumer_type 1.38)."""

from placer.model.names import NAME_PATTERN
from placer.schemas.validation import validator

_EXTERNAL_ID = {"type": "string", "minLength": 1, "maxLength": 255}


def _query(with_type: bool) -> dict:
    properties = {"project_id": _EXTERNAL_ID, "user_id": _EXTERNAL_ID}
    if with_type:
        properties["consumer_type"] = {"type": "string",
                                       "pattern": f"{NAME_PATTERN}|^all|^unknown$",
                                       "minLength": 1, "maxLength": 255}
    return {"type": "object", "properties": properties, "required": ["project_id"],
            "additionalProperties": False}


QUERY = validator(_query(False))
QUERY_1_38 = validator(_query(True))

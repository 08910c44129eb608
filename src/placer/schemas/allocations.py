"""Request bodies for PUT /allocations/{consumer} and POST /allocations, per
microversion window (list form before 1.12, dict form after; project/user
from 1.8; consumer_generation 1.28; mappings 1.34; consumer_type 1.38)."""

from placer import microversions as mv
from placer.model.names import NAME_PATTERN
from placer.schemas.validation import validator
from placer.schemas.versioned import Since

UUID_PATTERN = "^[0-9a-fA-F-]{36}$"
SUFFIX_PATTERN = "[a-zA-Z0-9_-]{1,64}"  # unanchored, as the reference has it
EXTERNAL_ID = {"type": "string", "minLength": 1, "maxLength": 255}

RESOURCES = {
    "type": "object",
    "minProperties": 1,
    "patternProperties": {NAME_PATTERN: {"type": "integer", "minimum": 1}},
    "additionalProperties": False,
}


def _strict(properties: dict, required: list[str], **extra) -> dict:
    return {"type": "object", "properties": properties, "required": required,
            "additionalProperties": False, **extra}


LIST_FORM = _strict({
    "allocations": {"type": "array", "minItems": 1, "items": _strict({
        "resource_provider": _strict({"uuid": {"type": "string", "format": "uuid"}},
                                     ["uuid"]),
        "resources": RESOURCES,
    }, ["resource_provider", "resources"])},
}, ["allocations"])


def _consumer(version: mv.Version, min_providers: int) -> dict:
    """One consumer's body in the dict form (1.12+)."""
    props = {
        "allocations": {
            "type": "object",
            "minProperties": min_providers,
            "patternProperties": {UUID_PATTERN: _strict(
                {"generation": {"type": "integer"}, "resources": RESOURCES}, ["resources"])},
            "additionalProperties": False,
        },
        "project_id": EXTERNAL_ID,
        "user_id": EXTERNAL_ID,
    }
    required = ["allocations", "project_id", "user_id"]
    if version >= mv.CONSUMER_GENERATIONS:
        props["consumer_generation"] = {"type": ["integer", "null"]}
        required.append("consumer_generation")
    if version >= mv.GROUP_MAPPINGS:
        props["mappings"] = {
            "type": "object",
            "minProperties": 1,
            "patternProperties": {SUFFIX_PATTERN: {
                "type": "array", "minItems": 1,
                "items": {"type": "string", "format": "uuid"}}},
        }
    if version >= mv.CONSUMER_TYPES:
        props["consumer_type"] = {"type": "string", "pattern": NAME_PATTERN,
                                  "minLength": 1, "maxLength": 255}
        required.append("consumer_type")
    return _strict(props, required)


# The body of the window starting at ``window``; PUT_BODY and POST_BODY
# below hold one per window.


def _put_body(window: mv.Version):
    if window >= mv.ALLOCATIONS_DICT:
        # emptying a consumer with {} is allowed once generations exist (1.28)
        return validator(_consumer(window, 0 if window >= mv.CONSUMER_GENERATIONS else 1))
    if window >= mv.CONSUMER_OWNER:
        schema = dict(LIST_FORM, properties=dict(LIST_FORM["properties"],
                                                 project_id=EXTERNAL_ID, user_id=EXTERNAL_ID),
                      required=["allocations", "project_id", "user_id"])
        return validator(schema)
    return validator(LIST_FORM)


def _post_body(window: mv.Version):
    return validator({
        "type": "object",
        "minProperties": 1,
        "patternProperties": {UUID_PATTERN: _consumer(window, 0)},
        "additionalProperties": False,
    })


# PUT /allocations/{consumer_uuid} and POST /allocations (1.13)
PUT_BODY = Since({window: _put_body(window) for window in (
    mv.BASE, mv.CONSUMER_OWNER, mv.ALLOCATIONS_DICT, mv.CONSUMER_GENERATIONS,
    mv.GROUP_MAPPINGS, mv.CONSUMER_TYPES)})
POST_BODY = Since({window: _post_body(window) for window in (
    mv.POST_ALLOCATIONS, mv.CONSUMER_GENERATIONS, mv.GROUP_MAPPINGS, mv.CONSUMER_TYPES)})


def consumers_schema(version: mv.Version) -> dict:
    """The POST /allocations shape, reused by the reshaper (which allows {})."""
    return {
        "type": "object",
        "patternProperties": {UUID_PATTERN: _consumer(version, 0)},
        "additionalProperties": False,
    }

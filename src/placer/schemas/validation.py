"""The one way to build a request validator, and the texts of its errors.

Plain jsonschema (no web framework), so the pure query parsers
(``placer.candidates.request``) use it as the HTTP layer does. Clients see
jsonschema's messages, with the reference's prefixes, verbatim.
"""

from collections import deque

import jsonschema
from oslo_utils import uuidutils

from placer import exceptions

# Bodies: a 'uuid' is any form oslo.utils accepts, as in the reference's body schemas.
BODY_FORMATS = jsonschema.FormatChecker()
# Query strings: the reference checks them with jsonschema's own format
# checker, whose 'uuid' insists on the dashed form.
QUERY_FORMATS = jsonschema.FormatChecker()

# Schema errors echo the offending value; longer ones are cut to this length.
ECHO_LIMIT = 1000


@BODY_FORMATS.checks("uuid")
def _is_uuid(instance) -> bool:
    return not isinstance(instance, str) or uuidutils.is_uuid_like(instance)


def validator(schema: dict,
              formats: jsonschema.FormatChecker = BODY_FORMATS) -> jsonschema.protocols.Validator:
    """A format-checking validator for a request schema (checked first): a
    body's by default, ``QUERY_FORMATS`` for a query string's. Nothing here
    caches it: callers build it once, at import or behind ``functools.cache``."""
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, format_checker=formats)


def check_query(query: dict, query_validator) -> None:
    """400 with the reference's prefix when the query (as a dict: last value
    of a repeated key) breaks its schema."""
    error = jsonschema.exceptions.best_match(query_validator.iter_errors(query))
    if error is not None:
        raise exceptions.BadRequest(f"Invalid query string parameters: {schema_error_text(error)}")


class _Cut:
    """Stands in for a value too long to echo: its repr is cut short."""

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return self.text


def _cut(value):
    text = repr(value)
    return value if len(text) <= ECHO_LIMIT else _Cut(text[:ECHO_LIMIT] + "...")


def schema_error_text(error: jsonschema.ValidationError) -> str:
    """jsonschema's text for ``error``, with the values it echoes (instance,
    path keys, the message's copy of the instance) cut to ECHO_LIMIT characters:
    a 10 MB name must not make a 20 MB answer. Normal values read unchanged."""
    instance, path = _cut(error.instance), [_cut(key) for key in error.relative_path]
    message = error.message
    if isinstance(instance, _Cut):
        message = message.replace(repr(error.instance), instance.text)
    if len(message) > 2 * ECHO_LIMIT:
        message = message[:2 * ECHO_LIMIT] + "..."
    if (instance is error.instance and message is error.message
            and all(a is b for a, b in zip(path, error.relative_path, strict=True))):
        return str(error)
    short = type(error)(message, validator=error.validator, path=deque(path),
                        validator_value=error.validator_value, instance=instance,
                        schema=error.schema, schema_path=error.relative_schema_path)
    return str(short)

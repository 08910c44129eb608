"""Content negotiation the reference enforces: JSON in, JSON out."""

import json

import falcon
import jsonschema
import webob.acceptparse
from oslo_utils import uuidutils

from placer import exceptions

JSON = "application/json"
_FORMAT_CHECKER = jsonschema.FormatChecker()


@_FORMAT_CHECKER.checks("uuid")
def _is_uuid(instance) -> bool:
    return not isinstance(instance, str) or uuidutils.is_uuid_like(instance)


def takes_json(handler=None, *, before: tuple[int, int] | None = None):
    """Mark a handler whose request body must be application/json (else 415),
    optionally only for microversions before ``before``."""

    def mark(fn):
        fn.takes_json = before or (999, 0)
        return fn

    return mark(handler) if handler is not None else mark


def returns_json(handler):
    """Mark a handler that refuses an Accept header without JSON (406)."""
    handler.returns_json = True
    return handler


class NotAcceptable(exceptions.PlacerError):
    status = 406


class UnsupportedMediaType(exceptions.PlacerError):
    status = 415


def check(req: falcon.Request, handler) -> None:
    """Content-Type first, then Accept, as the reference's decorators order them."""
    before = getattr(handler, "takes_json", None)
    if before and not req.context.version.matches(before):
        content_type = (req.content_type or "").split(";")[0].strip().lower()
        if content_type != JSON:
            if not content_type:
                req.env["CONTENT_TYPE"] = "None"  # WebOb's 415 text quotes it
            raise UnsupportedMediaType(
                f"The media type {content_type or 'None'} is not supported, use {JSON}")
    accept = req.get_header("Accept")
    if accept and getattr(handler, "returns_json", False):
        offers = webob.acceptparse.create_accept_header(accept).acceptable_offers([JSON])
        if not offers:
            raise NotAcceptable(f"Only {JSON} is provided")


def json_body(req: falcon.Request, validator: jsonschema.protocols.Validator | None = None):
    """The request body as JSON, validated: 400 naming the problem otherwise."""
    raw = req.bounded_stream.read()
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise exceptions.BadRequest(f"Malformed JSON: {exc}") from None
    if validator is not None:
        error = jsonschema.exceptions.best_match(validator.iter_errors(data))
        if error is not None:
            raise exceptions.BadRequest(f"JSON does not validate: {error}")
    return data


def validator(schema: dict) -> jsonschema.protocols.Validator:
    """A cached, format-checking validator for a request schema."""
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, format_checker=_FORMAT_CHECKER)

"""Content negotiation the reference enforces: JSON in, JSON out."""

import json

import falcon
import jsonschema
import webob.acceptparse

from placer import exceptions
from placer.schemas.validation import schema_error_text

JSON = "application/json"

# Placement documents nest six levels at most; far deeper input is refused
# before the validator (which recurses) or a handler walks it.
MAX_DEPTH = 64
# Chunked bodies are read in slices, so the size limiter stops an endless one.
_READ_SLICE = 64 * 1024


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
    # (RequestLog makes a missing or */* Accept JSON: nothing to parse then)
    if accept and accept != JSON and getattr(handler, "returns_json", False):
        offers = webob.acceptparse.create_accept_header(accept).acceptable_offers([JSON])
        if not offers:
            raise NotAcceptable(f"Only {JSON} is provided")


def json_body(req: falcon.Request, validator: jsonschema.protocols.Validator | None = None):
    """The request body as JSON, validated: 400 naming the problem otherwise."""
    raw = _read(req)
    try:
        data = json.loads(raw)
    except ValueError as exc:
        raise exceptions.BadRequest(f"Malformed JSON: {exc}") from None
    except RecursionError:
        raise exceptions.BadRequest(_TOO_DEEP) from None
    _check_structure(data, _may_hold_surrogates(raw))
    if validator is not None:
        error = jsonschema.exceptions.best_match(validator.iter_errors(data))
        if error is not None:
            raise exceptions.InvalidBody(schema_error_text(error))
    return data


def _read(req: falcon.Request) -> bytes:
    """Content-Length bytes or, for a chunked body (no Content-Length, and the
    server says where the input ends), everything up to the end."""
    if req.content_length is None and req.env.get("wsgi.input_terminated"):
        stream, parts = req.env["wsgi.input"], []
        while chunk := stream.read(_READ_SLICE):
            parts.append(chunk)
        return b"".join(parts)
    return req.bounded_stream.read()


_TOO_DEEP = f"Malformed JSON: nested more than {MAX_DEPTH} levels deep"


def _may_hold_surrogates(raw: bytes) -> bool:
    # A \uD800-\uDFFF escape, or (json.loads decodes with surrogatepass) the
    # UTF-8-like encoding of one; cheap enough to spare most bodies the walk.
    return b"\\u" in raw or b"\xed" in raw


def _check_structure(data, strings: bool) -> None:
    """400 for nesting deeper than MAX_DEPTH, and (when ``strings``) for a
    string or key holding a lone surrogate, which no database can store."""
    stack = [(data, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, dict):
            children = list(value.values())
            if strings:
                children.extend(value)
        elif isinstance(value, list):
            children = value
        else:
            if strings and isinstance(value, str):
                _check_string(value)
            continue
        if depth >= MAX_DEPTH and any(isinstance(c, (dict, list)) for c in children):
            raise exceptions.BadRequest(_TOO_DEEP)
        stack.extend((child, depth + 1) for child in children)


def _check_string(value: str) -> None:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise exceptions.BadRequest(
            f"Malformed JSON: {exc.reason}: {value[exc.start]!a} at position {exc.start} "
            "of a string") from None


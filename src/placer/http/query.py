"""Query strings as the reference reads them (WebOb's ``GET``)."""

import urllib.parse

import jsonschema

from placer import exceptions
from placer.http import negotiation


def pairs(req) -> list[tuple[str, str]]:
    """(key, value) pairs in order: ``&`` and ``;`` separate them, ``+`` is a
    space, and bytes that are not UTF-8 are a 400."""
    raw = req.env.get("QUERY_STRING", "").encode("latin-1").replace(b"+", b" ")
    result = []
    try:
        for pair in raw.replace(b";", b"&").split(b"&"):
            if pair:
                key, _, value = pair.partition(b"=")
                result.append((urllib.parse.unquote_to_bytes(key).decode("utf-8"),
                               urllib.parse.unquote_to_bytes(value).decode("utf-8")))
    except UnicodeDecodeError as exc:
        raise exceptions.BadRequest(f"Invalid query string parameters: {exc}") from None
    return result


def as_dict(req) -> dict[str, str]:
    """The query as a dict: the last value of a repeated key wins."""
    return dict(pairs(req))


def validate(query: dict, validator) -> None:
    """400 with the reference's prefix when the query breaks its schema."""
    error = jsonschema.exceptions.best_match(validator.iter_errors(query))
    if error is not None:
        raise exceptions.BadRequest(
            f"Invalid query string parameters: {negotiation.schema_error_text(error)}")

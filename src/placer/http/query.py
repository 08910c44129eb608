"""Query strings as the reference reads them (WebOb's ``GET``)."""

import urllib.parse

from placer import exceptions


def pairs(req) -> list[tuple[str, str]]:
    """The request's query string as ``parse`` reads it."""
    return parse(req.env.get("QUERY_STRING", "").encode("latin-1"))


def parse(raw: bytes) -> list[tuple[str, str]]:
    """(key, value) pairs in order: ``&`` and ``;`` separate them, ``+`` is a
    space, and bytes that are not UTF-8 are a 400."""
    result = []
    try:
        for pair in raw.replace(b"+", b" ").replace(b";", b"&").split(b"&"):
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

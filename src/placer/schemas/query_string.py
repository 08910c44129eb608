"""Query strings as the reference reads them (WebOb's ``GET``): the pairs
that the query schemas and parsers take."""

import urllib.parse

from placer import exceptions


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

"""A request's query string as the reference reads it (WebOb's ``GET``):
schemas/query_string.py's pairs."""

from placer.schemas import query_string


def pairs(req) -> list[tuple[str, str]]:
    """The request's query string as ``query_string.parse`` reads it."""
    return query_string.parse(req.env.get("QUERY_STRING", "").encode("latin-1"))


def as_dict(req) -> dict[str, str]:
    """The query as a dict: the last value of a repeated key wins."""
    return dict(pairs(req))

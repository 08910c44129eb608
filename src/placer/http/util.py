"""Small helpers handlers share: microversion checks, JSON replies, headers."""

import datetime
import email.utils
import json
from collections.abc import Iterable

import falcon
import orjson

from placer import microversions
from placer.http.request import Request
from placer.http.routing import Window
from placer.microversions import Version


def want(req: Request, version: Version) -> bool:
    """True when the request's microversion is at least ``version``."""
    return req.context.version.matches(version)


def version(req: Request) -> Version:
    """The request's microversion as a plain ``(major, minor)`` tuple, the form
    the schemas, the candidate engine and ``placer.microversions`` use."""
    v = req.context.version
    return (v.major, v.minor)


def _window(req: Request) -> Window:
    # handlers are reached through a route: the router set it
    return req.context.route.at(version(req))


def body_schema(req: Request):
    """The validator of the request's body at its route and microversion (the
    route table's, which the OpenAPI document is written from)."""
    return _window(req).body


def query_schema(req: Request):
    """The validator of the request's query string (as a dict), likewise."""
    return _window(req).query


def send_json(req: Request, resp: falcon.Response, body, status: int = 200,
              last_modified: datetime.datetime | None = None) -> None:
    resp.status = status
    resp.content_type = "application/json"
    try:
        resp.data = orjson.dumps(body)
    except orjson.JSONEncodeError:  # an integer past 64 bits, echoed from a query
        resp.data = json.dumps(body, separators=(",", ":"), ensure_ascii=False).encode()
    set_last_modified(req, resp, last_modified)


def set_last_modified(req: Request, resp: falcon.Response,
                      when: datetime.datetime | None = None) -> None:
    """From 1.15 responses say when their content last changed (now, for
    composite answers) and that they must not be cached."""
    if not want(req, microversions.LAST_MODIFIED):
        return
    when = when or datetime.datetime.now(datetime.UTC)
    if when.tzinfo is None:
        when = when.replace(tzinfo=datetime.UTC)
    resp.set_header("Last-Modified", email.utils.format_datetime(when, usegmt=True))
    resp.set_header("Cache-Control", "no-cache")


def newest(stamps: Iterable[datetime.datetime | None]) -> datetime.datetime | None:
    """The Last-Modified of a list of rows: the newest stamp, or None ("now",
    as the reference says) for an empty list or one with an unstamped row."""
    listed = list(stamps)
    present = [s for s in listed if s is not None]
    return max(present) if present and len(present) == len(listed) else None


def no_content(resp: falcon.Response, status: int = 204, location: str | None = None) -> None:
    """A bodiless answer (204, or 201 with a Location), without Content-Type."""
    resp.status = status
    resp.data = b""
    resp.content_type = None
    if location:
        resp.location = location


def url_prefix(req: Request) -> str:
    """Links are relative to where the service is mounted (SCRIPT_NAME)."""
    return req.env.get("SCRIPT_NAME", "")


class AfterClose:
    """A WSGI body that runs ``then`` once the server has closed it (after
    sending it)."""

    def __init__(self, body, then):
        self._body, self._then = body, then

    def __iter__(self):
        return iter(self._body)

    def close(self) -> None:
        try:
            close = getattr(self._body, "close", None)
            if close is not None:
                close()
        finally:
            self._then()

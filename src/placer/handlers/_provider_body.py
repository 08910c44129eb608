"""The body of a request on one provider's sub-resource, as the reference
orders its errors: a bad body on an unknown provider is that provider's 404."""

from collections.abc import Callable
from typing import Any

from placer import exceptions
from placer.db import resource_providers as rp_db
from placer.http import util
from placer.http.negotiation import json_body
from placer.http.request import Request


def _as_is(data: Any) -> Any:
    return data


def provider_body(req: Request, uuid: str, parse: Callable[[Any], Any] = _as_is) -> Any:
    """``parse`` of the validated JSON body. Only a bad body costs a look-up
    of the provider (one read, for its 404); a good one goes on to the
    request's single write, which finds the provider itself."""
    try:
        return parse(json_body(req, util.body_schema(req)))
    except exceptions.BadRequest:
        req.context.db.read(rp_db.get, uuid)
        raise

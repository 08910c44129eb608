"""/resource_providers/{uuid}/aggregates (1.1; generations from 1.19)."""

import uuid as uuidlib

import falcon

from placer.db import aggregates as db
from placer.handlers._provider_body import provider_body
from placer.http import util
from placer.http.negotiation import returns_json, takes_json
from placer.http.request import Request
from placer.microversions import AGGREGATES_GENERATION


def _send(req: Request, resp: falcon.Response, uuids: list[str], generation: int) -> None:
    body: dict = {"aggregates": uuids}
    if util.want(req, AGGREGATES_GENERATION):
        body["resource_provider_generation"] = generation
    # associations carry no timestamps the reference trusts: always "now"
    util.send_json(req, resp, body)


def _storable(value: str) -> str:
    """Aggregate uuids are kept as the client spelled them (as the reference
    does), except the braced and urn: forms, which do not fit the 36-character
    column and are stored in canonical form instead."""
    return value if len(value) <= 36 else str(uuidlib.UUID(value))


@returns_json
def list_aggregates(req: Request, resp: falcon.Response, uuid):
    uuids, generation = req.context.db.read(db.provider_aggregates, uuid)
    _send(req, resp, uuids, generation)


@takes_json
def set_aggregates(req: Request, resp: falcon.Response, uuid):
    with_generation = util.want(req, AGGREGATES_GENERATION)
    data = provider_body(req, uuid)
    if with_generation:
        wanted, seen = data["aggregates"], int(data["resource_provider_generation"])
    else:
        wanted, seen = data, None
    wanted = list(dict.fromkeys(_storable(u) for u in wanted))
    generation = req.context.db.write(db.set_aggregates, uuid, wanted, seen)
    _send(req, resp, wanted, generation)

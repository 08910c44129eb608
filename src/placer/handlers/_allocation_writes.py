"""What PUT/POST /allocations and POST /reshaper share: a consumer's body
read as a ConsumerWrite, and the allocation write itself, retried when a
provider generation moved and failing with the reference's texts."""

import uuid as uuidlib
from collections.abc import Callable

from oslo_utils import uuidutils

from placer import exceptions
from placer.db import allocations as db
from placer.http.request import Request


def consumer_uuid(value: str) -> str:
    """A consumer uuid from a body key, canonical; 400 when it is not one
    (the schema's key pattern lets 36 hex digits and dashes in any order through)."""
    if not uuidutils.is_uuid_like(value):
        raise exceptions.BadRequest(f"Malformed consumer_uuid: {value}")
    return str(uuidlib.UUID(value))


def consumer_write(req: Request, consumer_uuid: str, data: dict) -> db.ConsumerWrite:
    """A ConsumerWrite from one consumer's validated body."""
    allocs = data["allocations"]
    if isinstance(allocs, list):  # before 1.12: a list naming each provider
        allocs = {a["resource_provider"]["uuid"]: {"resources": a["resources"]}
                  for a in allocs}
    placement = req.context.conf.placement
    if "project_id" in data:  # the schemas require both from 1.8
        project, user = data["project_id"], data["user_id"]
    else:  # before 1.8 writes carry no owner
        project = placement.incomplete_consumer_project_id
        user = placement.incomplete_consumer_user_id
    return db.ConsumerWrite(
        uuid=consumer_uuid,
        allocations={rp: dict(entry["resources"]) for rp, entry in allocs.items()},
        project_id=project, user_id=user,
        generation=data.get("consumer_generation"),
        consumer_type=data.get("consumer_type"))


def write(req: Request, fn: Callable[..., None], *args, unknown_class: str, changed: str) -> None:
    """``fn(conn, *args)`` in one write transaction, run again when a provider
    generation moved meanwhile, or a consumer's project or user row was
    deleted meanwhile (allocation_conflict_retry_count times in all).
    The detail of an unknown resource class follows ``unknown_class``, that of
    a lost race ``changed``: the reference words them per route."""
    tries = req.context.conf.placement.allocation_conflict_retry_count
    try:
        req.context.db.write_retrying(db.WriteRaced, tries, fn, *args)
    except db.UnknownResourceClass as exc:
        raise exceptions.BadRequest(f"{unknown_class}{exc.detail}") from None
    except db.InvalidInventory as exc:
        raise exceptions.Conflict(f"Unable to allocate inventory: {exc.detail}") from None
    except exceptions.ConcurrentUpdate as exc:  # a provider or consumer moved meanwhile
        raise exceptions.ConcurrentUpdate(f"{changed}{exc.detail}") from None

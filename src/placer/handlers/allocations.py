"""/allocations/{consumer_uuid}, POST /allocations (1.13) and
/resource_providers/{uuid}/allocations."""


import falcon

from placer.db import allocations as db
from placer.handlers import _allocation_writes as allocation_writes
from placer.http import util
from placer.http.negotiation import json_body, returns_json, takes_json
from placer.http.request import Request
from placer.microversions import ALLOCATIONS_DICT, CONSUMER_GENERATIONS, CONSUMER_TYPES

_CHANGED = "Inventory and/or allocations changed while attempting to allocate: "


@returns_json
def list_for_consumer(req: Request, resp: falcon.Response, consumer_uuid):
    found = req.context.db.read(db.for_consumer, consumer_uuid)
    body: dict[str, object] = {"allocations": found.by_provider}
    if found.by_provider and util.want(req, ALLOCATIONS_DICT):
        body["project_id"], body["user_id"] = found.project_id, found.user_id
        if util.want(req, CONSUMER_GENERATIONS):
            body["consumer_generation"] = found.generation
        if util.want(req, CONSUMER_TYPES):
            body["consumer_type"] = found.consumer_type
    util.send_json(req, resp, body, last_modified=found.last_modified)


@returns_json
def list_for_provider(req: Request, resp: falcon.Response, uuid):
    generation, by_consumer, last = req.context.db.read(db.for_provider, uuid)
    if not util.want(req, CONSUMER_GENERATIONS):
        for entry in by_consumer.values():
            del entry["consumer_generation"]
    util.send_json(req, resp, {"allocations": by_consumer,
                               "resource_provider_generation": generation},
                   last_modified=last)


def _replace(req: Request, writes: list[db.ConsumerWrite], unknown_class_prefix: str) -> None:
    rules = db.WriteRules(check_generation=util.want(req, CONSUMER_GENERATIONS))
    allocation_writes.write(req, db.replace, writes, rules,
                            unknown_class=unknown_class_prefix, changed=_CHANGED)


@takes_json
def set_for_consumer(req: Request, resp: falcon.Response, consumer_uuid):
    consumer_uuid = allocation_writes.consumer_uuid(consumer_uuid)
    data = json_body(req, util.body_schema(req))
    _replace(req, [allocation_writes.consumer_write(req, consumer_uuid, data)],
             f"Unable to allocate inventory for consumer {consumer_uuid}: ")
    util.no_content(resp)


@takes_json
def set_many(req: Request, resp: falcon.Response):
    data = json_body(req, util.body_schema(req))
    writes = [allocation_writes.consumer_write(req, allocation_writes.consumer_uuid(c), body)
              for c, body in data.items()]
    _replace(req, writes, "Unable to allocate inventory ")
    util.no_content(resp)


def delete_for_consumer(req: Request, resp: falcon.Response, consumer_uuid):
    req.context.db.write(db.delete_for_consumer, consumer_uuid)
    util.no_content(resp)

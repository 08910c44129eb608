"""/resource_providers/{uuid}/inventories and .../inventories/{resource_class}."""

from placer.db import inventories as db
from placer.handlers._provider_body import provider_body
from placer.http import util
from placer.http.negotiation import returns_json, takes_json
from placer.microversions import RESERVED_EQUALS_TOTAL
from placer.model.inventory import InventoryRecord
from placer.schemas import inventories as schema


def _url(req, uuid: str, resource_class: str) -> str:
    return f"{util.url_prefix(req)}/resource_providers/{uuid}/inventories/{resource_class}"


def _reserved_can_be_total(req) -> bool:
    return util.want(req, RESERVED_EQUALS_TOTAL)


def _render_one(inv: InventoryRecord, generation: int) -> dict:
    body = inv.fields()
    if generation:  # the reference leaves a zero generation out
        body["resource_provider_generation"] = generation
    return body


def _send_all(req, resp, generation: int, invs: list[InventoryRecord]) -> None:
    body = {"resource_provider_generation": generation,
            "inventories": {inv.resource_class: inv.fields() for inv in invs}}
    util.send_json(req, resp, body, last_modified=util.newest(inv.stamp for inv in invs))
    if not invs:  # no rows, no Last-Modified
        resp.delete_header("Last-Modified")


@returns_json
def list_inventories(req, resp, uuid):
    generation, invs = req.context.db.read(db.list_for_provider, uuid)
    _send_all(req, resp, generation, invs)


@takes_json
def create_inventory(req, resp, uuid):
    inv = provider_body(req, uuid,
                        lambda data: InventoryRecord.from_body(data["resource_class"], data))
    generation = req.context.db.write(db.add, uuid, inv, _reserved_can_be_total(req))
    resp.location = _url(req, uuid, inv.resource_class)
    util.send_json(req, resp, _render_one(inv, generation), status=201)


@returns_json
def show_inventory(req, resp, uuid, resource_class):
    generation, inv = req.context.db.read(db.get_one, uuid, resource_class)
    util.send_json(req, resp, _render_one(inv, generation), last_modified=inv.stamp)


@takes_json
def update_inventory(req, resp, uuid, resource_class):
    def parse(data):
        return data["resource_provider_generation"], InventoryRecord.from_body(resource_class, data)

    seen, inv = provider_body(req, uuid, parse)
    generation = req.context.db.write(db.update_one, uuid, seen, inv,
                                      _reserved_can_be_total(req))
    util.send_json(req, resp, _render_one(inv, generation))


@takes_json
def replace_inventories(req, resp, uuid):
    def parse(data):
        schema.check_unmatched(data["inventories"])
        invs = [InventoryRecord.from_body(rc, fields) for rc, fields in data["inventories"].items()]
        return data["resource_provider_generation"], invs

    seen, invs = provider_body(req, uuid, parse)
    generation = req.context.db.write(db.replace_all, uuid, seen, invs,
                                      _reserved_can_be_total(req))
    _send_all(req, resp, generation, invs)


def delete_inventories(req, resp, uuid):
    # (before 1.5 the router answers 405: see the route table)
    req.context.db.write(db.delete_all, uuid)
    util.no_content(resp)


def delete_inventory(req, resp, uuid, resource_class):
    req.context.db.write(db.delete_one, uuid, resource_class)
    util.no_content(resp)

"""POST /reshaper (1.30): atomic inventory and allocation moves."""

import falcon

from placer.db import allocations as allocations_db
from placer.db import reshaper as db
from placer.handlers import _allocation_writes as allocation_writes
from placer.http import util
from placer.http.negotiation import json_body, takes_json
from placer.http.request import Request
from placer.microversions import RESERVED_EQUALS_TOTAL
from placer.model.inventory import InventoryRecord
from placer.schemas import inventories as inventories_schema


@takes_json
def reshape(req: Request, resp: falcon.Response):
    data = json_body(req, util.body_schema(req))
    for body in data["inventories"].values():
        inventories_schema.check_unmatched(body["inventories"])
    providers = [
        db.ProviderInventory(uuid, body["resource_provider_generation"],
                             [InventoryRecord.from_body(rc, fields)
                              for rc, fields in body["inventories"].items()])
        for uuid, body in data["inventories"].items()]
    writes = [allocation_writes.consumer_write(req, allocation_writes.consumer_uuid(c), body)
              for c, body in data["allocations"].items()]
    rules = allocations_db.WriteRules(check_generation=True)
    allocation_writes.write(req, db.reshape, providers, writes, rules,
                            util.want(req, RESERVED_EQUALS_TOTAL),
                            unknown_class="malformed reshaper data: ", changed="update conflict: ")
    util.no_content(resp)

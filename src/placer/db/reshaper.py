"""POST /reshaper's core: move inventory and allocations between providers in
one transaction, so that inventory can move from a root to a new child while
in use.

As in the reference, each named provider first gets the union of its old and
new inventory, then the allocations are replaced, then each provider's
inventory is cut down to exactly what was asked: the in-use checks of that
last step see the allocations already moved.
"""

import dataclasses

from sqlalchemy.engine import Connection

from placer import exceptions
from placer.db import allocations
from placer.db import inventories as inventories_db
from placer.db import resource_providers as rp_db
from placer.model.inventory import InventoryRecord


@dataclasses.dataclass
class ProviderInventory:
    uuid: str
    generation: int  # as the client last saw it
    inventories: list[InventoryRecord]


def reshape(conn: Connection, providers: list[ProviderInventory],
            writes: list[allocations.ConsumerWrite], rules: allocations.WriteRules,
            reserved_can_be_total: bool) -> None:
    for wanted in providers:
        provider = rp_db.find(conn, wanted.uuid)
        if provider is None:
            raise exceptions.BadRequest(
                f"Resource provider {wanted.uuid} in inventories not found: "
                f"{rp_db.missing(wanted.uuid)}",
                exceptions.RESOURCE_PROVIDER_NOT_FOUND)
        if provider.generation != wanted.generation:
            raise exceptions.Conflict(
                f"resource provider generation conflict for provider {wanted.uuid}: "
                f"actual: {provider.generation}, given: {wanted.generation}",
                exceptions.CONCURRENT_UPDATE)
    for wanted in providers:
        if wanted.inventories:
            _, current = inventories_db.list_for_provider(conn, wanted.uuid)
            merged = {inv.resource_class: inv for inv in current}
            merged.update({inv.resource_class: inv for inv in wanted.inventories})
            _replace(conn, wanted.uuid, list(merged.values()), reserved_can_be_total)
    allocations.replace(conn, writes, rules)
    for wanted in providers:
        _replace(conn, wanted.uuid, wanted.inventories, reserved_can_be_total)


def _replace(conn: Connection, uuid: str, invs: list[InventoryRecord],
             reserved_can_be_total: bool) -> None:
    provider = rp_db.get(conn, uuid)
    inventories_db.replace_all(conn, uuid, provider.generation, invs, reserved_can_be_total)

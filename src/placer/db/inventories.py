"""Inventory rows of one provider: read, add, update, replace, delete.

Every change bumps the provider's generation (compare-and-set) in the same
transaction. The checks run in the order the reference runs them, so that a
request with several problems reports the same one; the error texts are the
reference's.
"""

import functools
import logging
from collections.abc import Iterable
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from placer import exceptions
from placer.db import resource_classes as rc_db
from placer.db import resource_providers as rp_db
from placer.db import room
from placer.db.tables import allocations as alloc_t
from placer.db.tables import inventories as inv_t
from placer.db.tables import resource_classes as rc_t
from placer.db.tables import resource_providers as rp_t
from placer.model.inventory import FIELDS, InventoryRecord, capacity_problem, over_capacity

LOG = logging.getLogger("placement.inventories")

RACE = rp_db.PROVIDER_CHANGED
GENERATION_CONFLICT = "resource provider generation conflict"

_SELECT = (
    sa.select(rc_t.c.name, inv_t.c.total, inv_t.c.reserved,
              inv_t.c.min_unit, inv_t.c.max_unit, inv_t.c.step_size,
              inv_t.c.allocation_ratio, inv_t.c.created_at, inv_t.c.updated_at)
    .select_from(inv_t.join(rc_t, inv_t.c.resource_class_id == rc_t.c.id))
    .order_by(inv_t.c.resource_class_id)
)
_OF_PROVIDER = rp_db.of_named_provider(_SELECT, inv_t.c.resource_provider_id)


def _from_row(r: sa.Row[*tuple[Any, ...]]) -> InventoryRecord:
    return InventoryRecord(r.name, r.total, r.reserved, r.min_unit, r.max_unit, r.step_size,
                     r.allocation_ratio, r.created_at, r.updated_at)


def _class_ids(conn: Connection, provider_id: int) -> set[int]:
    return set(conn.execute(sa.select(inv_t.c.resource_class_id)
                            .where(inv_t.c.resource_provider_id == provider_id)).scalars())


def _check_generation(provider: rp_db.ProviderRecord, seen: int) -> None:
    if seen != provider.generation:
        raise exceptions.ConcurrentUpdate(GENERATION_CONFLICT)


def _check_capacities(invs: Iterable[InventoryRecord], provider: rp_db.ProviderRecord,
                      reserved_can_be_total: bool, prefix: str) -> None:
    for inv in invs:
        problem = capacity_problem(inv, provider.uuid, reserved_can_be_total)
        if problem:
            raise exceptions.BadRequest(f"{prefix}: {problem}")


def _in_use(conn: Connection, provider: rp_db.ProviderRecord,
            class_ids: Iterable[int]) -> str | None:
    """Names (", "-joined, by id) of the given classes the provider has
    allocations of, or None: such inventory cannot be removed."""
    rows = conn.execute(
        sa.select(rc_t.c.name)
        .where(rc_t.c.id.in_(
            sa.select(alloc_t.c.resource_class_id)
            .where(alloc_t.c.resource_provider_id == provider.id,
                   alloc_t.c.resource_class_id.in_(list(class_ids)))))
        .order_by(rc_t.c.id)).scalars().all()
    return ", ".join(rows) or None


def _warn_over_capacity(conn: Connection, provider: rp_db.ProviderRecord,
                        invs: dict[int, InventoryRecord]) -> None:
    """Shrinking inventory below current usage is allowed; say so in the log."""
    if not invs:
        return
    usage = conn.execute(room.used_per_record(alloc_t.c.resource_provider_id == provider.id,
                                              alloc_t.c.resource_class_id.in_(list(invs))))
    for _, rc_id, used in usage:
        if used is not None and over_capacity(invs[rc_id], int(used)):
            LOG.warning("Resource provider %s is now over-capacity for %s",
                        provider.uuid, invs[rc_id].resource_class)


# -- reads -----------------------------------------------------------------


def list_for_provider(conn: Connection, uuid: str) -> tuple[int, list[InventoryRecord]]:
    """(the provider's generation, its inventories)."""
    generation, rows = rp_db.generation_and_rows(conn, _OF_PROVIDER, uuid,
                                                 prefix=f"{rp_db.missing(uuid)} : ")
    return generation, [_from_row(r) for r in rows]


def get_one(conn: Connection, uuid: str, resource_class: str
            ) -> tuple[int, InventoryRecord]:
    generation, invs = list_for_provider(conn, uuid)
    for inv in invs:
        if inv.resource_class == resource_class:
            return generation, inv
    raise exceptions.NotFound(f"No inventory of class {resource_class} for {uuid}")


# -- writes ----------------------------------------------------------------


def add(conn: Connection, uuid: str, inv: InventoryRecord, reserved_can_be_total: bool) -> int:
    """POST: a class the provider has no inventory of yet. The new generation."""
    provider = rp_db.get(conn, uuid)
    prefix = f"Unable to create inventory for resource provider {provider.uuid}"
    _check_capacities([inv], provider, reserved_can_be_total, prefix)
    rc_id = rc_db.ids_by_name(conn, [inv.resource_class]).get(inv.resource_class)
    if rc_id is None:
        raise exceptions.BadRequest(f"{prefix}: {exceptions.no_such_class(inv.resource_class)}")
    duplicate = exceptions.ConcurrentUpdate(
        f"Update conflict: Duplicate entry for inventories.resource_provider_id, "
        f"inventories.resource_class_id: resource provider {provider.uuid} already "
        f"has inventory of class {inv.resource_class}")
    exists = conn.execute(sa.select(inv_t.c.id).where(
        inv_t.c.resource_provider_id == provider.id, inv_t.c.resource_class_id == rc_id)).first()
    if exists:
        raise duplicate
    try:
        conn.execute(inv_t.insert().values(resource_provider_id=provider.id,
                                           resource_class_id=rc_id, **inv.row()))
    except IntegrityError:  # a concurrent POST of the same class won (rolled back)
        raise duplicate from None
    return rp_db.increment_generation(conn, provider, detail=f"Update conflict: {RACE}")


def update_one(conn: Connection, uuid: str, seen: int, inv: InventoryRecord,
               reserved_can_be_total: bool) -> int:
    """PUT one: change an existing inventory. The new generation."""
    provider = rp_db.get(conn, uuid)
    _check_generation(provider, seen)
    prefix = f"Unable to update inventory for resource provider {provider.uuid}"
    _check_capacities([inv], provider, reserved_can_be_total, prefix)
    rc_id = rc_db.get(conn, inv.resource_class).id  # unknown class: 404
    result = conn.execute(
        inv_t.update()
        .where(inv_t.c.resource_provider_id == provider.id, inv_t.c.resource_class_id == rc_id)
        .values(**inv.row()))
    if result.rowcount != 1:
        raise exceptions.BadRequest(
            f"No inventory record with resource class for resource provider {provider.uuid}: "
            f"No inventory of class {inv.resource_class} found.")
    generation = rp_db.increment_generation(conn, provider, detail=f"update conflict: {RACE}")
    _warn_over_capacity(conn, provider, {rc_id: inv})
    return generation


def replace_all(conn: Connection, uuid: str, seen: int, invs: list[InventoryRecord],
                reserved_can_be_total: bool) -> int:
    """PUT all: the provider's inventory becomes exactly ``invs``. The new generation.

    One read (the provider, the named classes, the classes it has inventory
    of and what their allocations use), then the changes: the rows removed,
    added and updated (one statement each), and the generation's
    compare-and-set."""
    provider, ids, existing, used = _read_for_replace(conn, uuid, invs)
    _check_generation(provider, seen)
    _check_capacities(invs, provider, reserved_can_be_total,
                      f"Unable to update inventory for resource provider {provider.uuid}")
    for inv in invs:
        if inv.resource_class not in ids:
            raise exceptions.BadRequest(
                f"Unknown resource class in inventory for resource provider {provider.uuid}: "
                + exceptions.no_such_class(inv.resource_class))
    wanted = {ids[inv.resource_class]: inv for inv in invs}
    _delete(conn, provider, existing - set(wanted), "update conflict: ",
            exceptions.INVENTORY_INUSE)
    added = [rc_id for rc_id in wanted if rc_id not in existing]
    if added:
        conn.execute(inv_t.insert(), [
            {"resource_provider_id": provider.id, "resource_class_id": rc_id,
             **wanted[rc_id].row()} for rc_id in added])
    kept = {rc_id: inv for rc_id, inv in wanted.items() if rc_id in existing}
    if kept:
        values: dict[str, Any] = {"provider_id": provider.id}
        for i, (rc_id, inv) in enumerate(sorted(kept.items())):
            values[f"rc_{i}"] = rc_id
            values.update((f"{name}_{i}", value) for name, value in inv.row().items())
        conn.execute(_update_rows(len(kept)), values)
    generation = rp_db.increment_generation(conn, provider, detail=f"update conflict: {RACE}")
    for rc_id, inv in kept.items():  # shrinking below usage is allowed: said in the log
        if over_capacity(inv, used.get(rc_id, 0)):
            LOG.warning("Resource provider %s is now over-capacity for %s",
                        provider.uuid, inv.resource_class)
    return generation


@functools.cache
def _for_replace(named: bool) -> sa.Select[Any]:
    """``_read_for_replace``'s statement, built once (bind parameters: uuid,
    and the class ``names`` where ``named``)."""
    other = inv_t.alias("held")
    held = (sa.select(other.c.resource_class_id)
            .where(other.c.resource_provider_id == rp_t.c.id))
    classes: sa.ColumnElement[bool] = rc_t.c.id.in_(held)
    if named:
        classes = sa.or_(rc_t.c.name.in_(sa.bindparam("names", expanding=True)), classes)
    return (rp_db.PROVIDER_SELECT
            .add_columns(rc_t.c.id.label("rc_id"), rc_t.c.name.label("rc"),
                         inv_t.c.resource_class_id.label("held"),
                         room.used_of(inv_t).label("used"))
            .outerjoin(rc_t, classes)
            .outerjoin(inv_t, sa.and_(inv_t.c.resource_provider_id == rp_t.c.id,
                                      inv_t.c.resource_class_id == rc_t.c.id))
            .where(rp_t.c.uuid == sa.bindparam("uuid")))


def _read_for_replace(conn: Connection, uuid: str, invs: list[InventoryRecord]
                      ) -> tuple[rp_db.ProviderRecord, dict[str, int], set[int], dict[int, int]]:
    """(the provider, ids of the classes ``invs`` name, ids of the classes it
    has inventory of, what allocations use of each of those) in one
    statement; NotFound as ``rp_db.get``."""
    names = sorted({inv.resource_class for inv in invs})
    rows = conn.execute(_for_replace(bool(names)), {"uuid": uuid, "names": names}
                        ).all() if "\x00" not in uuid else []
    if not rows:
        raise exceptions.NotFound(rp_db.missing(uuid))
    ids: dict[str, int] = {}
    existing: set[int] = set()
    used: dict[int, int] = {}
    for r in rows:
        if r.rc_id is None:
            continue
        if r.rc in names:
            ids[r.rc] = r.rc_id
        if r.held is not None:
            existing.add(r.rc_id)
            used[r.rc_id] = int(r.used or 0)
    return rp_db.from_row(rows[0]), ids, existing, used


@functools.cache
def _update_rows(n: int) -> sa.Update:
    """One UPDATE of a provider's rows of ``n`` classes, each to its values,
    built once per ``n``: bind parameters provider_id, and per class ``i``
    rc_i and each field as FIELD_i."""
    rc = inv_t.c.resource_class_id

    def value(name: str, i: int) -> sa.BindParameter[Any]:
        return sa.bindparam(f"{name}_{i}", type_=inv_t.c[name].type)

    values: dict[str, Any] = {}
    for name in FIELDS:
        if n == 1:
            values[name] = value(name, 0)
        else:
            values[name] = sa.case(*((rc == sa.bindparam(f"rc_{i}"), value(name, i))
                                     for i in range(n)))
    return (inv_t.update().where(inv_t.c.resource_provider_id == sa.bindparam("provider_id"),
                                 rc.in_([sa.bindparam(f"rc_{i}") for i in range(n)]))
            .values(values))


def _delete(conn: Connection, provider: rp_db.ProviderRecord, class_ids: set[int],
            in_use_prefix: str, in_use_code: str) -> int:
    """Delete the provider's inventory of ``class_ids`` (none may be in use)."""
    if not class_ids:
        return 0
    names = _in_use(conn, provider, class_ids)
    if names:
        raise exceptions.Conflict(
            f"{in_use_prefix}Inventory for '{names}' on resource provider '{provider.uuid}' "
            "in use.", in_use_code)
    return conn.execute(inv_t.delete().where(
        inv_t.c.resource_provider_id == provider.id,
        inv_t.c.resource_class_id.in_(list(class_ids)))).rowcount


def delete_one(conn: Connection, uuid: str, resource_class: str) -> None:
    provider = rp_db.get(conn, uuid)
    not_found = f"No inventory of class {resource_class} found for delete"
    rc = rc_db.find(conn, resource_class)
    if rc is None:
        raise exceptions.NotFound(f"{not_found}: {exceptions.no_such_class(resource_class)}")
    # The reference reports this "in use" conflict with the concurrent-update code.
    prefix = f"Unable to delete inventory of class {resource_class}"
    if not _delete(conn, provider, {rc.id}, f"{prefix}: ", exceptions.CONCURRENT_UPDATE):
        raise exceptions.NotFound(f"{not_found}: {not_found}")
    rp_db.increment_generation(conn, provider, detail=f"{prefix}: {RACE}")


def delete_all(conn: Connection, uuid: str) -> None:
    """DELETE all (1.5): like replacing with nothing; bumps the generation
    even when there was nothing to delete."""
    provider = rp_db.get(conn, uuid)
    _delete(conn, provider, _class_ids(conn, provider.id), "", exceptions.INVENTORY_INUSE)
    rp_db.increment_generation(
        conn, provider,
        detail=f"Unable to delete inventory for resource provider {provider.uuid} because the "
               "inventory was updated by another process. Please retry your request.")


def with_use(conn: Connection) -> list[sa.Row[tuple[str, str, int, int, float, int]]]:
    """Every inventory record with its provider's name and the amount used:
    (provider name, class, total, reserved, allocation_ratio, used), by
    provider id and class name, as GET /resource_providers/{uuid}/inventories
    and /usages would give them provider by provider."""
    joined, used = room.joined_use(
        inv_t.join(rp_t, rp_t.c.id == inv_t.c.resource_provider_id)
        .join(rc_t, rc_t.c.id == inv_t.c.resource_class_id), inv_t)
    return list(conn.execute(
        sa.select(rp_t.c.name, rc_t.c.name, inv_t.c.total, inv_t.c.reserved,
                  inv_t.c.allocation_ratio, used)
        .select_from(joined).order_by(rp_t.c.id, rc_t.c.name)))

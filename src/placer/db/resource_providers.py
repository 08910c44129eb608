"""Resource provider rows: lookup, the generation compare-and-set, and the
provider CRUD and queries (list filters, trees)."""

import dataclasses
import datetime
import enum
from collections.abc import Iterable, Sequence
from typing import Any, Final

import sqlalchemy as sa
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from placer import exceptions
from placer.db import room, scores, statements
from placer.db.engine import bump_generations, generation_parameters, json_rows, plain_rows
from placer.db.tables import (
    allocations,
    inventories,
    placement_aggregates,
    resource_classes,
    resource_provider_aggregates,
    resource_provider_traits,
    traits,
)
from placer.db.tables import resource_providers as rp_t

Condition = sa.ColumnElement[bool]  # a WHERE condition on the providers table

PROVIDER_CHANGED = ("Another thread concurrently updated the resource provider data. "
                    "Please retry your update")


@dataclasses.dataclass(frozen=True)
class ProviderRecord:
    """A stored provider with its parent's and root's uuids, as the API
    shows it (the candidate engine has its own, candidates.snapshot.Provider)."""

    id: int
    uuid: str
    name: str | None
    generation: int
    parent_id: int | None
    root_id: int
    parent_uuid: str | None
    root_uuid: str
    created_at: datetime.datetime | None
    updated_at: datetime.datetime | None


_parent = rp_t.alias("parent")
_root = rp_t.alias("root")

# Providers joined to their parent's and root's uuids: every read goes through it.
PROVIDER_SELECT = (
    sa.select(rp_t.c.id, rp_t.c.uuid, rp_t.c.name, rp_t.c.generation,
              rp_t.c.parent_provider_id, rp_t.c.root_provider_id,
              _parent.c.uuid.label("parent_uuid"), _root.c.uuid.label("root_uuid"),
              rp_t.c.created_at, rp_t.c.updated_at)
    .select_from(rp_t.outerjoin(_parent, rp_t.c.parent_provider_id == _parent.c.id)
                 .outerjoin(_root, rp_t.c.root_provider_id == _root.c.id))
)


def from_row(r: sa.Row[*tuple[Any, ...]]) -> ProviderRecord:
    return ProviderRecord(r.id, r.uuid, r.name, r.generation or 0, r.parent_provider_id,
                    r.root_provider_id, r.parent_uuid, r.root_uuid, r.created_at,
                    r.updated_at)


# Built once: SQLAlchemy then keeps its cache key and compiled form.
_BY_UUID = PROVIDER_SELECT.where(rp_t.c.uuid == sa.bindparam("uuid"))


def find(conn: Connection, uuid: str) -> ProviderRecord | None:
    if "\x00" in uuid:  # PostgreSQL refuses NUL in text; no provider has one
        return None
    found = statements.rows(conn, _BY_UUID, {"uuid": uuid})
    return from_row(found[0]) if found else None


def of_named_provider(stmt: sa.Select[Any], provider_id: sa.ColumnElement[int]
                      ) -> sa.Select[Any]:
    """``stmt`` (rows that ``provider_id`` ties to a provider) for the
    provider named by the bind parameter ``uuid``, with its generation as
    the first column: the statement ``generation_and_rows`` runs."""
    return (stmt.with_only_columns(rp_t.c.generation.label("provider_generation"),
                                   *stmt.selected_columns)
            .join(rp_t, provider_id == rp_t.c.id)
            .where(rp_t.c.uuid == sa.bindparam("uuid")))


def generation_and_rows(conn: Connection, stmt: sa.Select[Any], uuid: str, prefix: str = ""
                        ) -> tuple[int, Sequence[sa.Row[Any]]]:
    """The rows of ``stmt`` (built by ``of_named_provider``) and the
    provider's generation, in one round trip where the provider has rows;
    where it has none, the provider is read on its own (``get``: NotFound
    with ``prefix``)."""
    if "\x00" not in uuid:
        rows = statements.rows(conn, stmt, {"uuid": uuid})
        if rows:
            return rows[0][0] or 0, rows
    return get(conn, uuid, prefix).generation, []


def missing(uuid: str) -> str:
    """The reference's text for a provider uuid that names no provider."""
    return f"No resource provider with uuid {uuid} found"


def get(conn: Connection, uuid: str, prefix: str = "") -> ProviderRecord:
    """The provider, or NotFound: ``prefix`` (whose wording varies by route
    in the reference) then the usual text."""
    provider = find(conn, uuid)
    if provider is None:
        raise exceptions.NotFound(prefix + missing(uuid))
    return provider


def increment_generation(conn: Connection, provider: ProviderRecord, seen: int | None = None,
                         detail: str = PROVIDER_CHANGED) -> int:
    """Compare-and-set the generation from ``seen`` (default: as read) to +1.

    Zero rows updated means another writer got there first: ConcurrentUpdate
    with ``detail`` (the reference words it per route). Every change to a
    provider's inventory, traits, aggregates or allocations goes through
    here, in the same transaction as the change itself.
    """
    seen = provider.generation if seen is None else seen
    result = conn.execute(bump_generations(rp_t, 1), generation_parameters([(provider.id, seen)]))
    if result.rowcount != 1:
        raise exceptions.ConcurrentUpdate(detail)
    scores.touch(conn, provider.root_id)
    return seen + 1


# -- CRUD ---------------------------------------------------------------------

class _Unset(enum.Enum):
    """``update``'s default parent: keep the current one (None unparents)."""

    UNSET = enum.auto()


UNSET: Final = _Unset.UNSET


def _lock(conn: Connection, ids: Iterable[int]) -> None:
    """Row locks on providers (no-op on SQLite, where writers are serialised)."""
    conn.execute(sa.select(rp_t.c.id).where(rp_t.c.id.in_(sorted(set(ids))))
                 .order_by(rp_t.c.id).with_for_update())


def _duplicate(conn: Connection, uuid: str, name: str) -> str | None:
    """Which unique value is taken ('uuid: ..' is checked before 'name: ..')."""
    if conn.execute(sa.select(rp_t.c.id).where(rp_t.c.uuid == uuid)).first():
        return f"uuid: {uuid}"
    if conn.execute(sa.select(rp_t.c.id).where(rp_t.c.name == name)).first():
        return f"name: {name}"
    return None


def create(conn: Connection, uuid: str, name: str,
           parent_uuid: str | None = None) -> ProviderRecord:
    """Insert a provider, under ``parent_uuid`` when given (its tree's root)."""

    def refuse(reason: str) -> exceptions.BadRequest:
        return exceptions.BadRequest(
            f'Unable to create resource provider "{name}", {uuid}: '
            f"Object action create failed because: {reason}")

    if not name:
        raise refuse("name is required")
    parent = None
    if parent_uuid is not None:
        if parent_uuid == uuid:
            raise refuse("parent provider UUID cannot be same as UUID. Please set parent "
                         "provider UUID to None if there is no parent.")
        parent = find(conn, parent_uuid)
        if parent is None:
            raise refuse("parent provider UUID does not exist.")
    duplicate = _duplicate(conn, uuid, name)
    if duplicate:
        raise _conflict(duplicate)
    try:
        result = conn.execute(rp_t.insert().values(
            uuid=uuid, name=name, generation=0,
            parent_provider_id=parent.id if parent else None,
            root_provider_id=parent.root_id if parent else None))
    except IntegrityError as exc:
        # lost a race: someone took the uuid or name, or deleted the parent
        column = _unique_column(exc)
        if column:
            raise _conflict(f"{column}: {uuid if column == 'uuid' else name}") from None
        raise refuse("parent provider UUID does not exist.") from None
    if parent is None:
        # a root is its own root; like the reference this second write sets updated_at
        key = result.inserted_primary_key
        assert key is not None  # a single-row INSERT always has one
        new_id = key[0]
        conn.execute(rp_t.update().where(rp_t.c.id == new_id).values(root_provider_id=new_id))
    created = get(conn, uuid)
    scores.touch(conn, created.root_id)
    return created


def _unique_column(exc: IntegrityError) -> str | None:
    """'uuid' or 'name' when ``exc`` broke that unique constraint (the
    constraint's name on PostgreSQL and MySQL, table.column on SQLite)."""
    text = str(exc.orig)
    for column in ("uuid", "name"):
        if f"uniq_resource_providers0{column}" in text or f"resource_providers.{column}" in text:
            return column
    return None


def _conflict(what: str) -> exceptions.Conflict:
    return exceptions.Conflict(f"Conflicting resource provider {what} already exists.",
                               exceptions.DUPLICATE_NAME)


def _tree(conn: Connection, root_id: int) -> dict[int, int | None]:
    """id -> parent id of every provider in one tree (one indexed query)."""
    rows = conn.execute(sa.select(rp_t.c.id, rp_t.c.parent_provider_id)
                        .where(rp_t.c.root_provider_id == root_id))
    return {id_: parent for id_, parent in rows}


def _descends_from(tree: dict[int, int | None], node: int, ancestor: int) -> bool:
    """Whether ``node`` is ``ancestor`` or below it (walks up; tolerates bad data)."""
    seen: set[int] = set()
    current: int | None = node
    while current is not None and current not in seen:
        if current == ancestor:
            return True
        seen.add(current)
        current = tree.get(current)
    return False


def _locked_pair(conn: Connection, uuid: str,
                 parent_uuid: str | None) -> tuple[ProviderRecord, ProviderRecord | None]:
    """Read the provider and the wanted parent with their trees' roots locked,
    so that two concurrent re-parentings cannot build a loop between them."""
    locked: set[int] = set()
    for _attempt in range(3):
        me = get(conn, uuid)
        parent = find(conn, parent_uuid) if parent_uuid is not None else None
        roots = {me.root_id} | ({parent.root_id} if parent else set())
        if roots <= locked:
            return me, parent
        locked |= roots
        _lock(conn, locked)
    raise exceptions.ConcurrentUpdate()


def update(conn: Connection, uuid: str, name: str, parent_uuid: str | None | _Unset = UNSET,
           allow_reparenting: bool = False) -> tuple[ProviderRecord, datetime.datetime | None]:
    """Rename and/or (re-/un-)parent a provider.

    ``parent_uuid`` left unset keeps the current parent. Before 1.37
    (``allow_reparenting`` False) a parent may only be given to a root.
    Returns the provider as saved and its updated_at from before the change
    (what the reference reports as Last-Modified). The generation is unchanged.
    """
    me = get(conn, uuid)
    if parent_uuid is UNSET:
        parent_uuid = me.parent_uuid
    if parent_uuid != me.parent_uuid:
        me, parent = _locked_pair(conn, uuid, parent_uuid)
    else:
        parent = find(conn, parent_uuid) if parent_uuid is not None else None
    before = me.updated_at

    def refuse(action: str, reason: str) -> exceptions.BadRequest:
        return exceptions.BadRequest(f"Unable to save resource provider {uuid}: "
                                     f"Object action {action} failed because: {reason}")

    new_parent_id, new_root_id = me.parent_id, me.root_id
    if parent_uuid is not None:
        if parent is None:
            raise refuse("create", "parent provider UUID does not exist.")
        if me.parent_id is not None and me.parent_id != parent.id and not allow_reparenting:
            raise refuse("update", "re-parenting a provider is not currently allowed.")
        if (parent.id != me.parent_id and parent.root_id == me.root_id
                and _descends_from(_tree(conn, me.root_id), parent.id, me.id)):
            raise refuse("update", "creating loop in the provider tree is not allowed.")
        new_parent_id, new_root_id = parent.id, parent.root_id
    elif me.parent_id is not None:
        if not allow_reparenting:
            raise refuse("update", "un-parenting a provider is not currently allowed.")
        new_parent_id, new_root_id = None, me.id

    values: dict[str, object] = {}
    if name != me.name:
        taken = conn.execute(sa.select(rp_t.c.id).where(rp_t.c.name == name,
                                                        rp_t.c.id != me.id)).first()
        if taken:
            raise _rename_conflict(name)
        values["name"] = name
    if new_parent_id != me.parent_id:
        values["parent_provider_id"] = new_parent_id
    if new_root_id != me.root_id:
        values["root_provider_id"] = new_root_id
        _move_subtree(conn, me, new_root_id)
        scores.touch(conn, me.root_id, new_root_id)
    if values:
        try:
            conn.execute(rp_t.update().where(rp_t.c.id == me.id).values(**values))
        except IntegrityError as exc:
            if _unique_column(exc) == "name":
                raise _rename_conflict(name) from None
            raise refuse("update", "parent provider UUID does not exist.") from None
    return get(conn, uuid), before


def _rename_conflict(name: str) -> exceptions.Conflict:
    return exceptions.Conflict(f"Conflicting resource provider {name} already exists.",
                               exceptions.DUPLICATE_NAME)


def _move_subtree(conn: Connection, me: ProviderRecord, new_root_id: int) -> None:
    """Point every provider below ``me`` at ``new_root_id`` (``me`` itself is
    updated by the caller) in one statement."""
    if me.id == me.root_id:
        # a root's subtree is its whole tree
        where = sa.and_(rp_t.c.root_provider_id == me.id, rp_t.c.id != me.id)
    else:
        tree = _tree(conn, me.root_id)
        below = [node for node in tree if node != me.id and _descends_from(tree, node, me.id)]
        if not below:
            return
        where = rp_t.c.id.in_(below)
    conn.execute(rp_t.update().where(where).values(root_provider_id=new_root_id))


def delete(conn: Connection, uuid: str) -> None:
    """Remove a provider with no children and no allocations, with its
    inventories and its trait and aggregate associations."""
    row = None if "\x00" in uuid else conn.execute(
        sa.select(rp_t.c.id, rp_t.c.root_provider_id).where(rp_t.c.uuid == uuid)
        .with_for_update()).first()
    if row is None:
        raise exceptions.NotFound(f"{missing(uuid)} for delete")
    rp_id = row.id
    has_child = conn.execute(sa.select(rp_t.c.id).where(rp_t.c.parent_provider_id == rp_id)
                             .limit(1)).first()
    if has_child:
        raise _parent_conflict(uuid)
    in_use = conn.execute(sa.select(allocations.c.id)
                          .where(allocations.c.resource_provider_id == rp_id).limit(1)).first()
    if in_use:
        raise exceptions.Conflict(
            f"Unable to delete resource provider {uuid}: Resource provider has allocations.",
            exceptions.PROVIDER_IN_USE)
    scores.touch(conn, row.root_provider_id)
    for table in (inventories, resource_provider_aggregates, resource_provider_traits):
        conn.execute(table.delete().where(table.c.resource_provider_id == rp_id))
    try:
        # a root references itself: clear that before the row goes
        conn.execute(rp_t.update().where(rp_t.c.id == rp_id, rp_t.c.root_provider_id == rp_id)
                     .values(root_provider_id=None))
        conn.execute(rp_t.delete().where(rp_t.c.id == rp_id))
    except IntegrityError:
        raise _parent_conflict(uuid) from None  # a child appeared meanwhile


def _parent_conflict(uuid: str) -> exceptions.Conflict:
    return exceptions.Conflict(
        f"Unable to delete parent resource provider {uuid}: It has child resource providers.",
        exceptions.PROVIDER_CANNOT_DELETE_PARENT)


# -- listing with filters -----------------------------------------------------

@dataclasses.dataclass
class ProviderFilter:
    """GET /resource_providers filters. ``member_of`` and ``required`` are
    conjunctions of any-of sets (aggregate uuids, trait names)."""

    name: str | None = None
    uuid: str | None = None
    in_tree: str | None = None
    member_of: list[list[str]] = dataclasses.field(default_factory=list)
    forbidden_aggs: list[str] = dataclasses.field(default_factory=list)
    required: list[list[str]] = dataclasses.field(default_factory=list)
    forbidden_traits: list[str] = dataclasses.field(default_factory=list)
    resources: dict[str, int] = dataclasses.field(default_factory=dict)


def _ids(conn: Connection, column: sa.Column[Any], key_column: sa.Column[Any],
         keys: Iterable[str]) -> dict[str, int]:
    """Ids by exact key (a case-insensitive collation must not widen a match)."""
    keys = set(keys)
    if not keys:
        return {}
    rows = conn.execute(sa.select(key_column, column).where(key_column.in_(keys)))
    return {key: id_ for key, id_ in rows if key in keys}


def _having(table: sa.Table, column: sa.Column[Any], ids: Sequence[int]) -> Condition:
    """Providers with a ``table`` row whose ``column`` is one of ``ids``."""
    return rp_t.c.id.in_(sa.select(table.c.resource_provider_id).where(column.in_(ids)))


def _with_capacity(amounts: dict[int, int]) -> Condition:
    """Providers whose inventory of each class can give its amount more: a
    correlated count of the provider's inventory rows that can (one per class
    at most), whose cost follows the providers the other filters leave (a
    class-wide usage aggregate would cost the whole cloud). One probe of the
    provider's inventories for all classes costs less than one per class.
    Written ``>=`` (a provider has one row per class at most): PostgreSQL
    guesses 0.5% of rows pass an equality to a subquery, and then joined
    the parent and root by scanning all providers for each one (4.6 s at
    10,000 providers); an inequality it guesses at a third."""
    inv = inventories
    can = [sa.and_(inv.c.resource_class_id == rc_id, *room.room_for(inv, amount))
           for rc_id, amount in amounts.items()]
    return (sa.select(sa.func.count()).where(inv.c.resource_provider_id == rp_t.c.id,
                                             sa.or_(*can))
            .scalar_subquery() >= len(can))


def _with_capacity_grouped(amounts: dict[int, int]) -> Condition:
    """``_with_capacity`` for a filter on resources alone, on PostgreSQL:
    the usage of the classes asked for summed once over the cloud, joined
    to their inventory rows, instead of a correlated sum per provider and
    class (at 1,000 flat hosts 6 ms instead of 10; at 10,000, 57 instead of
    96). Where other filters narrow the providers, the correlated form
    costs only what they leave; on SQLite, and on MariaDB at 10,000
    providers, it is the faster one anyway."""
    inv, rcs = inventories, list(amounts)
    joined, used = room.joined_use(inv, inv, allocations.c.resource_class_id.in_(rcs))
    can = [sa.and_(inv.c.resource_class_id == rc_id, *room.room_for(inv, amount, used=used))
           for rc_id, amount in amounts.items()]
    fits = (sa.select(inv.c.resource_provider_id).select_from(joined)
            .where(inv.c.resource_class_id.in_(rcs), sa.or_(*can))
            .group_by(inv.c.resource_provider_id).having(sa.func.count() >= len(can)))
    return rp_t.c.id.in_(fits)


def _matches_nothing(conn: Connection, conds: Sequence[Condition]) -> bool:
    return bool(conds) and conn.execute(
        sa.select(rp_t.c.id).where(*conds).limit(1)).first() is None


# A listed provider is a plain row, not a ProviderRecord: (uuid, name, generation,
# parent uuid, root uuid, changed_at), changed_at being updated_at or else
# created_at as the driver returns it: a datetime, or on SQLite the stored
# text, whose layout ('YYYY-MM-DD HH:MM:SS.ffffff') sorts as time does, so that
# only the newest of a large answer needs converting.
_LISTED = (
    sa.select(rp_t.c.uuid, rp_t.c.name, sa.func.coalesce(rp_t.c.generation, 0),
              _parent.c.uuid, _root.c.uuid,
              sa.func.coalesce(rp_t.c.updated_at, rp_t.c.created_at, type_=sa.String))
    .select_from(rp_t.outerjoin(_parent, rp_t.c.parent_provider_id == _parent.c.id)
                 .outerjoin(_root, rp_t.c.root_provider_id == _root.c.id))
)


def _newest(conn: Connection, rows: Sequence[tuple[Any, ...]]) -> datetime.datetime | None:
    """The latest changed_at of listed rows (None when none has one)."""
    newest = max((r[5] for r in rows if r[5] is not None), default=None)
    if isinstance(newest, str) and conn.dialect.name == "mysql":  # JSON's text
        newest = datetime.datetime.fromisoformat(newest)
    elif isinstance(newest, str):
        to_datetime = sa.DateTime().dialect_impl(conn.dialect).result_processor(
            conn.dialect, None)
        assert to_datetime is not None  # DateTime parses SQLite's text
        newest = to_datetime(newest)
    return newest


_named = rp_t.alias("named")
# ?in_tree= alone (the resource tracker's): one statement, built once
_IN_TREE = (_LISTED.where(rp_t.c.root_provider_id == sa.select(_named.c.root_provider_id)
                          .where(_named.c.uuid == sa.bindparam("in_tree")).scalar_subquery())
            .order_by(rp_t.c.id))


def list_filtered(conn: Connection,
                  f: ProviderFilter) -> tuple[Sequence[tuple[Any, ...]], datetime.datetime | None]:
    """Providers matching every filter, by id, as rows of (uuid, name,
    generation, parent uuid, root uuid, changed_at), and the latest change
    among them (what Last-Modified reports)."""
    if f.in_tree and f == ProviderFilter(in_tree=f.in_tree):
        tree = statements.rows(conn, _IN_TREE, {"in_tree": f.in_tree})
        return tree, _newest(conn, tree)
    conds = conditions(conn, f)
    if conds is None:
        return [], None
    found = json_rows(conn, _LISTED.add_columns(rp_t.c.id).where(*conds))
    if found is not None:  # MySQL: in no order, the times as text
        found.sort(key=lambda row: row[6])
        rows: Sequence[tuple[Any, ...]] = [tuple(row[:6]) for row in found]
    else:
        rows = plain_rows(conn.execute(_LISTED.where(*conds).order_by(rp_t.c.id)))
    return rows, _newest(conn, rows)


def conditions(conn: Connection, f: ProviderFilter) -> list[Condition] | None:
    """The WHERE conditions on the providers table that select the providers
    matching every filter; None when none can match.

    The reference looks names up in this order and stops at the first unknown
    one (400), but answers an empty list first when in_tree names no provider,
    or when the required traits or the member_of aggregates alone match no
    provider at all; that order is kept so the same queries get the same answer.
    """
    conds: list[Condition] = []
    if f.name:
        conds.append(rp_t.c.name == f.name)
    if f.uuid:
        conds.append(rp_t.c.uuid == f.uuid)
    if f.in_tree:
        root = conn.execute(sa.select(rp_t.c.root_provider_id)
                            .where(rp_t.c.uuid == f.in_tree)).first()
        if root is None:
            return None
        conds.append(rp_t.c.root_provider_id == root[0])

    required = [t for clause in f.required for t in clause]
    trait_ids = _ids(conn, traits.c.id, traits.c.name, required + list(f.forbidden_traits))
    unknown_trait = next((t for t in required if t not in trait_ids), None)
    if unknown_trait is not None:
        raise _unknown_trait(unknown_trait)
    unknown_trait = next((t for t in f.forbidden_traits if t not in trait_ids), None)
    trait_conds = [_having(resource_provider_traits, resource_provider_traits.c.trait_id,
                           [trait_ids[t] for t in clause]) for clause in f.required]
    if unknown_trait is not None:
        if _matches_nothing(conn, trait_conds):
            return None
        raise _unknown_trait(unknown_trait)
    conds += trait_conds
    if f.forbidden_traits:
        conds.append(~_having(resource_provider_traits, resource_provider_traits.c.trait_id,
                              [trait_ids[t] for t in f.forbidden_traits]))

    agg_ids = _ids(conn, placement_aggregates.c.id, placement_aggregates.c.uuid,
                   [a for clause in f.member_of for a in clause] + list(f.forbidden_aggs))
    agg_conds: list[Condition] = []
    for clause in f.member_of:
        known = [agg_ids[a] for a in clause if a in agg_ids]
        if not known:
            return None
        agg_conds.append(_having(resource_provider_aggregates,
                                 resource_provider_aggregates.c.aggregate_id, known))
    conds += agg_conds
    bad_aggs = [agg_ids[a] for a in f.forbidden_aggs if a in agg_ids]
    if bad_aggs:
        conds.append(~_having(resource_provider_aggregates,
                              resource_provider_aggregates.c.aggregate_id, bad_aggs))

    rc_ids = _ids(conn, resource_classes.c.id, resource_classes.c.name, f.resources)
    unknown_rc = next((rc for rc in f.resources if rc not in rc_ids), None)
    if unknown_rc is not None:
        if _matches_nothing(conn, trait_conds) or _matches_nothing(conn, agg_conds):
            return None
        raise exceptions.BadRequest("Invalid resource class in resources parameter: "
                                    + exceptions.no_such_class(unknown_rc))
    if f.resources:
        alone = f == ProviderFilter(resources=f.resources)
        capacity = (_with_capacity_grouped if alone and conn.dialect.name == "postgresql"
                    else _with_capacity)
        conds.append(capacity({rc_ids[rc]: n for rc, n in f.resources.items()}))
    return conds


def _unknown_trait(name: str) -> exceptions.BadRequest:
    return exceptions.BadRequest(
        f'Invalid trait(s) in "required" parameter: {exceptions.no_such_trait(name)}')

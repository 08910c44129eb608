"""Loading the snapshot the candidate search works on, in a fixed number of
queries (never one per provider).

Which trees: those with a provider holding inventory of a requested class,
plus those joined by an aggregate to a sharing provider holding such
inventory. For every provider of those trees (and the sharing providers) we
load the provider rows, inventories, usages, traits and aggregates: the
engine needs whole trees (ancestry, traits of resourceless providers) and
provider_summaries show them whole.
"""

import collections

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from placer.candidates.request import CandidateRequest
from placer.candidates.snapshot import SHARING_TRAIT, Inventory, Provider, Snapshot
from placer.db import tables as t

rp_t = t.resource_providers
inv_t = t.inventories


def load(conn: Connection, request: CandidateRequest):
    """(snapshot, known class names, known trait names) for ``request``.

    Unknown names are not errors here: the handler reports them in the
    order the reference meets them (candidates.precheck)."""
    classes = request.resource_classes()
    class_ids = {name: id_ for name, id_ in conn.execute(
        sa.select(t.resource_classes.c.name, t.resource_classes.c.id)
        .where(t.resource_classes.c.name.in_(classes)))} if classes else {}
    traits = request.trait_names()
    known_traits = set(conn.execute(sa.select(t.traits.c.name).where(
        t.traits.c.name.in_(traits))).scalars()) if traits else set()
    return _snapshot(conn, request, list(class_ids.values())), set(class_ids), known_traits


def _snapshot(conn: Connection, request: CandidateRequest, rc_ids: list[int]) -> Snapshot:
    if not rc_ids:
        return Snapshot([])
    with_inventory = sa.select(inv_t.c.resource_provider_id).where(
        inv_t.c.resource_class_id.in_(rc_ids))
    sharing = (
        sa.select(t.resource_provider_traits.c.resource_provider_id)
        .join(t.traits, t.traits.c.id == t.resource_provider_traits.c.trait_id)
        .where(t.traits.c.name == SHARING_TRAIT,
               t.resource_provider_traits.c.resource_provider_id.in_(with_inventory)))
    rpa = t.resource_provider_aggregates
    shared_aggs = sa.select(rpa.c.aggregate_id).where(rpa.c.resource_provider_id.in_(sharing))
    served = sa.select(rpa.c.resource_provider_id).where(rpa.c.aggregate_id.in_(shared_aggs))
    in_trees = [g.in_tree for g in request.groups if g.in_tree]
    roots = sa.select(rp_t.c.root_provider_id).where(
        sa.or_(rp_t.c.id.in_(with_inventory), rp_t.c.id.in_(served),
               rp_t.c.uuid.in_(in_trees)))
    rows = conn.execute(
        sa.select(rp_t.c.id, rp_t.c.uuid, rp_t.c.name, rp_t.c.generation,
                  rp_t.c.parent_provider_id, rp_t.c.root_provider_id)
        .where(rp_t.c.root_provider_id.in_(roots))).all()
    return Snapshot(_assemble(conn, rows) if rows else [])


def _among(column, ids) -> sa.TextClause:
    """``column IN (ids)`` with the integers inlined: thousands of ids would
    otherwise cost a bound parameter each, which dominates the load."""
    return sa.text(f"{column.table.name}.{column.name} IN ({','.join(map(str, map(int, ids)))})")


def _linked(conn: Connection, ids, link, value) -> dict[int, set]:
    """provider id -> the ``value``s (trait names, aggregate uuids) linked to it
    through the association table of the ``link`` column."""
    assoc = link.table
    result = collections.defaultdict(set)
    for rp, item in conn.execute(
            sa.select(assoc.c.resource_provider_id, value)
            .join(value.table, value.table.c.id == link)
            .where(_among(assoc.c.resource_provider_id, ids))).all():
        result[rp].add(item)
    return result


def _assemble(conn: Connection, rows) -> list[Provider]:
    ids = [r.id for r in rows]
    names = dict(conn.execute(sa.select(t.resource_classes.c.id, t.resource_classes.c.name)).all())
    inventories = collections.defaultdict(dict)
    for rp, rc, *fields in conn.execute(
            sa.select(inv_t.c.resource_provider_id, inv_t.c.resource_class_id, inv_t.c.total,
                      inv_t.c.reserved, inv_t.c.min_unit, inv_t.c.max_unit, inv_t.c.step_size,
                      inv_t.c.allocation_ratio)
            .where(_among(inv_t.c.resource_provider_id, ids))).all():
        inventories[rp][names[rc]] = Inventory(*fields)
    a = t.allocations
    usages = collections.defaultdict(dict)
    for rp, rc, used in conn.execute(
            sa.select(a.c.resource_provider_id, a.c.resource_class_id, sa.func.sum(a.c.used))
            .where(_among(a.c.resource_provider_id, ids))
            .group_by(a.c.resource_provider_id, a.c.resource_class_id)).all():
        usages[rp][names[rc]] = int(used)
    traits = _linked(conn, ids, t.resource_provider_traits.c.trait_id, t.traits.c.name)
    aggregates = _linked(conn, ids, t.resource_provider_aggregates.c.aggregate_id,
                         t.placement_aggregates.c.uuid)
    return [
        Provider(id=id_, uuid=uuid, name=name, parent_id=parent, root_id=root,
                 generation=generation or 0, traits=frozenset(traits[id_]),
                 aggregates=frozenset(aggregates[id_]), inventories=inventories[id_],
                 usages=usages[id_])
        for id_, uuid, name, generation, parent, root in rows]

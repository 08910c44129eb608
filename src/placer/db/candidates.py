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
    return Snapshot(_assemble(conn, rows, [r.id for r in rows]) if rows else [])


def _assemble(conn: Connection, rows, ids: list[int]) -> list[Provider]:
    names = {id_: name for id_, name in conn.execute(
        sa.select(t.resource_classes.c.id, t.resource_classes.c.name))}
    inventories = collections.defaultdict(dict)
    for r in _in_chunks(conn, sa.select(inv_t), inv_t.c.resource_provider_id, ids):
        inventories[r.resource_provider_id][names[r.resource_class_id]] = Inventory(
            r.total, r.reserved, r.min_unit, r.max_unit, r.step_size, r.allocation_ratio)
    a = t.allocations
    usages = collections.defaultdict(dict)
    usage_query = (sa.select(a.c.resource_provider_id, a.c.resource_class_id,
                             sa.func.sum(a.c.used).label("used"))
                   .group_by(a.c.resource_provider_id, a.c.resource_class_id))
    for r in _in_chunks(conn, usage_query, a.c.resource_provider_id, ids):
        usages[r.resource_provider_id][names[r.resource_class_id]] = int(r.used)
    traits = collections.defaultdict(set)
    rpt = t.resource_provider_traits
    trait_query = sa.select(rpt.c.resource_provider_id, t.traits.c.name).join(
        t.traits, t.traits.c.id == rpt.c.trait_id)
    for r in _in_chunks(conn, trait_query, rpt.c.resource_provider_id, ids):
        traits[r.resource_provider_id].add(r.name)
    aggregates = collections.defaultdict(set)
    rpa = t.resource_provider_aggregates
    agg_query = sa.select(rpa.c.resource_provider_id, t.placement_aggregates.c.uuid).join(
        t.placement_aggregates, t.placement_aggregates.c.id == rpa.c.aggregate_id)
    for r in _in_chunks(conn, agg_query, rpa.c.resource_provider_id, ids):
        aggregates[r.resource_provider_id].add(r.uuid)
    return [
        Provider(id=r.id, uuid=r.uuid, name=r.name, parent_id=r.parent_provider_id,
                 root_id=r.root_provider_id, generation=r.generation or 0,
                 traits=frozenset(traits[r.id]), aggregates=frozenset(aggregates[r.id]),
                 inventories=inventories[r.id], usages=usages[r.id])
        for r in rows]


_CHUNK = 5000  # bound the bind parameters of one IN list (SQLite, drivers)


def _in_chunks(conn: Connection, query, column, ids: list[int]):
    """Rows of ``query`` restricted to ``column IN ids``, in a few statements."""
    for start in range(0, len(ids), _CHUNK):
        yield from conn.execute(query.where(column.in_(ids[start:start + _CHUNK])))

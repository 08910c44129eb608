"""What ``placement-manage audit --nova`` reads of Placement: every consumer
with its allocations grouped by root, and which of those roots are sharing
providers of the others (cli/audit_nova.py compares it with Nova's answer).

Read in one transaction (``Database.snapshot_read``), so that the consumers,
their generations and the trees are one moment's.
"""

import dataclasses

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from placer.db.tables import (
    allocations,
    consumer_types,
    consumers,
    projects,
    resource_provider_aggregates,
    resource_provider_traits,
    traits,
    users,
)
from placer.db.tables import resource_classes as rc_t
from placer.db.tables import resource_providers as rp_t

SHARING_TRAIT = "MISC_SHARES_VIA_AGGREGATE"


@dataclasses.dataclass
class Root:
    uuid: str
    name: str
    resources: dict[str, dict[str, int]]  # provider uuid -> class -> amount


@dataclasses.dataclass
class Consumer:
    uuid: str
    generation: int | None  # None: allocations without a consumer row
    consumer_type: str | None  # None: never given one (before 1.38)
    project_id: str | None
    user_id: str | None
    roots: dict[str, Root]  # root uuid -> what the consumer holds in that tree

    def resources(self, root: str) -> dict[str, int]:
        """The amounts per class this consumer holds in one tree."""
        total: dict[str, int] = {}
        for classes in self.roots[root].resources.values():
            for rc, amount in classes.items():
                total[rc] = total.get(rc, 0) + amount
        return total


@dataclasses.dataclass
class Snapshot:
    consumers: dict[str, Consumer]
    # roots whose trees share an aggregate with a sharing provider: sharing
    # provider uuid -> root uuids it serves
    shared_with: dict[str, set[str]]
    sharing_roots: dict[str, str]  # sharing provider uuid -> its root uuid


def read(conn: Connection) -> Snapshot:
    root_t = rp_t.alias("root")
    rows = conn.execute(
        sa.select(allocations.c.consumer_id, consumers.c.generation,
                  consumer_types.c.name.label("consumer_type"),
                  projects.c.external_id.label("project"), users.c.external_id.label("user"),
                  rp_t.c.uuid.label("provider"), root_t.c.uuid.label("root"),
                  root_t.c.name.label("root_name"), rc_t.c.name.label("rc"),
                  allocations.c.used)
        .select_from(
            allocations.join(rp_t, allocations.c.resource_provider_id == rp_t.c.id)
            .join(root_t, rp_t.c.root_provider_id == root_t.c.id)
            .join(rc_t, allocations.c.resource_class_id == rc_t.c.id)
            .outerjoin(consumers, allocations.c.consumer_id == consumers.c.uuid)
            .outerjoin(projects, consumers.c.project_id == projects.c.id)
            .outerjoin(users, consumers.c.user_id == users.c.id)
            .outerjoin(consumer_types, consumers.c.consumer_type_id == consumer_types.c.id))
        .order_by(allocations.c.consumer_id, allocations.c.id)).all()
    found: dict[str, Consumer] = {}
    for r in rows:
        consumer = found.get(r.consumer_id)
        if consumer is None:
            consumer = found[r.consumer_id] = Consumer(
                r.consumer_id, r.generation, r.consumer_type, r.project, r.user, {})
        root = consumer.roots.setdefault(r.root, Root(r.root, r.root_name, {}))
        root.resources.setdefault(r.provider, {})[r.rc] = int(r.used)
    shared_with, sharing_roots = _sharing(conn)
    return Snapshot(found, shared_with, sharing_roots)


def _sharing(conn: Connection) -> tuple[dict[str, set[str]], dict[str, str]]:
    """Each sharing provider (MISC_SHARES_VIA_AGGREGATE), and the roots of
    the trees that have a provider in one of its aggregates."""
    root_t = rp_t.alias("root")
    sharing = conn.execute(
        sa.select(rp_t.c.id, rp_t.c.uuid, root_t.c.uuid.label("root"))
        .select_from(rp_t.join(root_t, rp_t.c.root_provider_id == root_t.c.id)
                     .join(resource_provider_traits,
                           resource_provider_traits.c.resource_provider_id == rp_t.c.id)
                     .join(traits, resource_provider_traits.c.trait_id == traits.c.id))
        .where(traits.c.name == SHARING_TRAIT)).all()
    if not sharing:
        return {}, {}
    mine = resource_provider_aggregates.alias("mine")
    theirs = resource_provider_aggregates.alias("theirs")
    other = rp_t.alias("other")
    other_root = rp_t.alias("other_root")
    pairs = conn.execute(
        sa.select(mine.c.resource_provider_id, other_root.c.uuid).distinct()
        .select_from(
            mine.join(theirs, mine.c.aggregate_id == theirs.c.aggregate_id)
            .join(other, theirs.c.resource_provider_id == other.c.id)
            .join(other_root, other.c.root_provider_id == other_root.c.id))
        .where(mine.c.resource_provider_id.in_([s.id for s in sharing]))).all()
    uuid_of = {s.id: s.uuid for s in sharing}
    shared_with: dict[str, set[str]] = {s.uuid: set() for s in sharing}
    for provider_id, root in pairs:
        shared_with[uuid_of[provider_id]].add(root)
    return shared_with, {s.uuid: s.root for s in sharing}

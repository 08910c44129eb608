"""Random worlds (tests/helpers/worlds.py) written to a database, and the
answer of one snapshot of every tree, for the walk's property tests."""

import sqlalchemy as sa

from placer.candidates import search
from placer.db import scores
from placer.db import tables as t
from placer.db.candidates import CandidateStore
from tests.helpers import factories
from tests.helpers.worlds import TRAITS


def clear(conn) -> None:
    for table in (t.allocations, t.inventories, t.resource_provider_traits,
                  t.resource_provider_aggregates, t.placement_aggregates):
        conn.execute(table.delete())
    # MySQL checks the self-references row by row: detach them first
    conn.execute(t.resource_providers.update().values(parent_provider_id=None,
                                                      root_provider_id=None))
    conn.execute(t.resource_providers.delete())
    for table in scores.TABLES:
        conn.execute(table.delete())


def store(db, snap) -> None:
    """Write a world's providers (parents first) to the database; the
    queries' traits all exist, on a provider or not."""
    db.write(clear)
    known = set(db.read(lambda conn: conn.execute(sa.select(t.traits.c.name)).scalars().all()))
    for name in sorted(set(TRAITS) - known):
        factories.trait_row(db, name)
    for p in snap.providers.values():
        parent = snap.get(p.parent_id).uuid if p.parent_id is not None else None
        inventory = {rc: {k: v for k, v in inv._asdict().items() if k != "capacity"}
                     for rc, inv in p.inventories.items()}
        factories.provider(db, p.name, uuid=p.uuid, parent=parent, inventory=inventory,
                           traits=p.traits, aggregates=p.aggregates, generation=p.generation)
        for rc, used in p.usages.items():
            factories.allocation(db, p.uuid, rc, used)
    db.write(scores.rebuild)  # the rows were written with SQL: score them


def whole(conn, request, **options):
    """The answer as it was before batching: one snapshot of every tree."""
    rc_ids = list(conn.execute(sa.select(t.resource_classes.c.id).where(
        t.resource_classes.c.name.in_(request.resource_classes()))).scalars())
    snap = CandidateStore(conn).whole_cloud(request, rc_ids)
    found = list(search.find_candidates(request, snap, **options))
    return found, search.summary_providers(found, request.nested_aware)

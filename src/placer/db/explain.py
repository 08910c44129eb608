"""What the explain diagnostic reads: one whole-cloud snapshot for a request.

Unlike the search (db/candidates.py), which walks candidate roots in
batches, explain needs every tree that could hold part of an answer to
count what each constraint removes: every tree holding a requested class,
served by a sharing provider holding one, or named by in_tree (the snapshot
the unknown-name precheck reads). That costs a read of the relevant part of
the cloud: fine for an operator's question, not for the scheduler's path.
"""

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from placer import exceptions
from placer.candidates import precheck
from placer.candidates.request import CandidateRequest
from placer.candidates.snapshot import Snapshot
from placer.db import candidates
from placer.db import tables as t


def load(conn: Connection, request: CandidateRequest,
         provider: str | None = None) -> tuple[Snapshot, Snapshot | None]:
    """(snapshot for the funnel, snapshot for the ``provider`` report: the
    same, plus that provider's tree when the first lacks it; None without
    ``provider``). BadRequest for an unknown name, exactly where
    GET /allocation_candidates reports one, and for an unknown provider."""
    rc, tr = t.resource_classes, t.traits
    names = request.resource_classes()
    classes = dict(conn.execute(sa.select(rc.c.name, rc.c.id)
                                .where(rc.c.name.in_(names))).all()) if names else {}
    names = request.trait_names()
    traits = set(conn.execute(sa.select(tr.c.name).where(tr.c.name.in_(names)))
                 .scalars()) if names else set()
    snapshot = candidates.full_snapshot(conn, request, list(classes.values()))
    if set(request.resource_classes()) - classes.keys() or set(request.trait_names()) - traits:
        precheck.check_names(request, snapshot, classes, traits)
    if provider is None:
        return snapshot, None
    if provider in snapshot.by_uuid:
        return snapshot, snapshot
    rp = t.resource_providers
    root = conn.execute(sa.select(rp.c.root_provider_id).where(rp.c.uuid == provider)).scalar()
    if root is None:
        raise exceptions.BadRequest(f"No resource provider with uuid {provider} found",
                                    code=exceptions.QUERYPARAM_BAD_VALUE)
    tree = candidates.load_trees(conn, [root])
    return snapshot, Snapshot([*snapshot.providers.values(), *tree])

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
from placer.candidates.request import CandidateRequest
from placer.candidates.snapshot import Snapshot
from placer.db import candidates
from placer.db import tables as t


def load(conn: Connection, request: CandidateRequest, provider: str | None = None
         ) -> tuple[Snapshot, Snapshot | None, str | None]:
    """(snapshot for the funnel; snapshot for the ``provider`` report: the
    same, plus that provider's tree when the first lacks it; the provider's
    uuid as stored, which the report looks up), the last two None without
    ``provider``. BadRequest for an unknown name, exactly where
    GET /allocation_candidates reports one, and for an unknown provider."""
    snapshot = candidates.checked_snapshot(conn, request)
    if provider is None:
        return snapshot, None, None
    if provider in snapshot.by_uuid:
        return snapshot, snapshot, provider
    rp = t.resource_providers
    # MySQL compares uuids regardless of case: keep the stored spelling
    found = conn.execute(sa.select(rp.c.uuid, rp.c.root_provider_id)
                         .where(rp.c.uuid == provider)).first()
    if found is None:
        raise exceptions.BadRequest(f"No resource provider with uuid {provider} found",
                                    code=exceptions.QUERYPARAM_BAD_VALUE)
    tree = candidates.load_trees(conn, [found.root_provider_id])
    return snapshot, Snapshot([*snapshot.providers.values(), *tree]), found.uuid

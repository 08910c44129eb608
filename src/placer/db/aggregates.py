"""Aggregates: placement_aggregates rows (created on first use, never
removed, as in the reference) and the provider <-> aggregate associations."""

from collections.abc import Iterable

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from placer import exceptions
from placer.db import resource_providers as rp_db
from placer.db.engine import insert_ignoring_duplicates
from placer.db.tables import placement_aggregates as agg_t
from placer.db.tables import resource_provider_aggregates as rp_agg_t
from placer.db.tables import resource_providers as rp_t

# The reference's texts for a lost compare-and-set on this route.
GENERATION_CHANGED = ("Resource provider's generation already changed. Please update "
                      "the generation and try again.")
PROVIDER_CHANGED = rp_db.PROVIDER_CHANGED


def _ids(conn: Connection, uuids: set[str]) -> dict[str, int]:
    rows = conn.execute(sa.select(agg_t.c.id, agg_t.c.uuid).where(agg_t.c.uuid.in_(uuids)))
    exact: dict[str, int] = {}
    folded: dict[str, int] = {}
    for agg_id, agg_uuid in rows:
        exact[agg_uuid] = agg_id
        folded.setdefault(agg_uuid.lower(), agg_id)
    # A case-insensitive collation (MySQL) may answer with another spelling
    # of the same uuid; SQLite and PostgreSQL only return exact matches.
    found = {}
    for u in uuids:
        agg_id = exact.get(u, folded.get(u.lower()))
        if agg_id is not None:
            found[u] = agg_id
    return found


def ensure(conn: Connection, uuids: Iterable[str]) -> dict[str, int]:
    """Internal ids of the aggregates, creating the missing rows. Two requests
    creating the same uuid at once both succeed (no unique-key error)."""
    uuids = set(uuids)
    if not uuids:
        return {}
    found = _ids(conn, uuids)
    missing = sorted(uuids - set(found))  # a stable order keeps concurrent inserts deadlock-free
    if missing:
        insert_ignoring_duplicates(conn, agg_t, [{"uuid": u} for u in missing])
        found = _ids(conn, uuids)
    return found


_OF_PROVIDER = rp_db.of_named_provider(
    sa.select(agg_t.c.uuid).join(rp_agg_t, rp_agg_t.c.aggregate_id == agg_t.c.id)
    .order_by(agg_t.c.id), rp_agg_t.c.resource_provider_id)


def provider_aggregates(conn: Connection, uuid: str) -> tuple[list[str], int]:
    """GET /resource_providers/{uuid}/aggregates: (uuids, oldest aggregate
    first; the provider's generation)."""
    generation, rows = rp_db.generation_and_rows(conn, _OF_PROVIDER, uuid)
    return [r.uuid for r in rows], generation


def _lock(conn: Connection, provider: rp_db.ProviderRecord) -> None:
    """Serialise writers of one provider's aggregates when no generation is
    checked (before 1.19): the row lock stands in for the compare-and-set."""
    locked = conn.execute(sa.select(rp_t.c.id).where(rp_t.c.id == provider.id)
                          .with_for_update()).first()
    if locked is None:
        raise exceptions.NotFound(rp_db.missing(provider.uuid))


def set_aggregates(conn: Connection, uuid: str, uuids: list[str],
                   seen: int | None = None) -> int:
    """Replace the provider's aggregates; returns its generation afterwards.

    With ``seen`` (1.19+) the generation must match and is always bumped, even
    when the set is unchanged; without it (1.1-1.18) it is left alone. Either
    way as the reference does.
    """
    provider = rp_db.get(conn, uuid)
    generation = provider.generation
    if seen is not None:
        if seen != provider.generation:
            raise exceptions.ConcurrentUpdate(GENERATION_CHANGED)
        generation = rp_db.increment_generation(conn, provider, seen,
                                                detail=f"Update conflict: {PROVIDER_CHANGED}")
    else:
        _lock(conn, provider)
    wanted = set(ensure(conn, uuids).values())
    current = set(conn.execute(sa.select(rp_agg_t.c.aggregate_id)
                               .where(rp_agg_t.c.resource_provider_id == provider.id)).scalars())
    if current - wanted:
        conn.execute(rp_agg_t.delete().where(
            rp_agg_t.c.resource_provider_id == provider.id,
            rp_agg_t.c.aggregate_id.in_(current - wanted)))
    if wanted - current:
        conn.execute(rp_agg_t.insert(), [
            {"resource_provider_id": provider.id, "aggregate_id": agg_id}
            for agg_id in sorted(wanted - current)])
    return generation


def of_providers(conn: Connection, uuids: list[str]) -> dict[str, list[str]]:
    """Provider uuid -> the uuids of its aggregates (sorted), for ``uuids``."""
    if not uuids:
        return {}
    found: dict[str, list[str]] = {}
    for start in range(0, len(uuids), 1000):  # bounded IN lists
        rows = conn.execute(
            sa.select(rp_t.c.uuid, agg_t.c.uuid)
            .select_from(rp_t.join(rp_agg_t, rp_agg_t.c.resource_provider_id == rp_t.c.id)
                         .join(agg_t, agg_t.c.id == rp_agg_t.c.aggregate_id))
            .where(rp_t.c.uuid.in_(uuids[start:start + 1000])).order_by(agg_t.c.uuid))
        for provider, aggregate in rows:
            found.setdefault(provider, []).append(aggregate)
    return found

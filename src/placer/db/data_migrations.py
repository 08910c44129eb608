"""Online data migrations run by ``placement-manage db online_data_migrations``.

The reference registers two, in this order, and the names appear in the CLI's
summary table. Each takes a connection, the placement config and a batch size,
migrates at most ``batch_size`` rows with set-based SQL, and returns
``(found, done)``: like the reference, both are the number of rows migrated in
this batch, so a non-zero result means "call me again".
"""

import sqlalchemy as sa
from oslo_config import cfg
from sqlalchemy.engine import Connection

from placer import exceptions
from placer.db import consumers as consumers_db
from placer.db.tables import allocations, consumers, resource_providers


def set_root_provider_ids(conn: Connection, conf: cfg.ConfigOpts,
                          batch_size: int) -> tuple[int, int]:
    """Providers created before nesting have no root: they are their own root."""
    rp = resource_providers
    # The double subquery is what MySQL needs: it refuses LIMIT inside IN and
    # reading the table being updated unless the read is a derived table.
    batch = (sa.select(rp.c.id).where(rp.c.root_provider_id.is_(None))
             .limit(batch_size).subquery("batch"))
    stmt = (rp.update()
            .where(rp.c.id.in_(sa.select(batch.c.id)))
            .values(root_provider_id=rp.c.id))
    done = conn.execute(stmt).rowcount
    return done, done


def create_incomplete_consumers(conn: Connection, conf: cfg.ConfigOpts,
                                batch_size: int) -> tuple[int, int]:
    """Allocations written before microversion 1.8 have no consumers row: give
    them one owned by the configured "incomplete consumer" project and user."""
    placement = conf.placement
    # locked, so that an unused-row delete cannot remove them before the
    # consumers below refer to them (db/consumers.py); a row deleted between
    # its lookup and the lock is created again by the next lookup, which sees
    # the delete (every statement reads what was committed before it)
    for _ in range(3):
        owner = consumers_db.locked_owner(conn, placement.incomplete_consumer_project_id,
                                          placement.incomplete_consumer_user_id)
        if owner is not None:
            break
    else:
        raise exceptions.ConcurrentUpdate()
    project_id, user_id = owner
    missing = (
        sa.select(allocations.c.consumer_id,
                  sa.literal(project_id, sa.Integer), sa.literal(user_id, sa.Integer))
        .select_from(allocations.outerjoin(
            consumers, allocations.c.consumer_id == consumers.c.uuid))
        .where(consumers.c.id.is_(None))
        # one row per consumer, however many allocations it has
        .group_by(allocations.c.consumer_id)
        .limit(batch_size)
    )
    stmt = consumers.insert().from_select(["uuid", "project_id", "user_id"], missing)
    # Only UPDATE/DELETE keep their rowcount unless asked (psycopg would say -1).
    done = conn.execute(stmt.execution_options(preserve_rowcount=True)).rowcount
    return done, done


# The order is the reference's and is the order of the summary table.
MIGRATIONS = (set_root_provider_ids, create_incomplete_consumers)


def count_missing_root_ids(conn: Connection) -> int:
    rp = resource_providers
    return conn.execute(sa.select(sa.func.count()).select_from(rp)
                        .where(rp.c.root_provider_id.is_(None))).scalar_one()


def count_incomplete_consumers(conn: Connection) -> int:
    """Distinct consumers that have allocations but no consumers row."""
    return conn.execute(
        sa.select(sa.func.count(sa.distinct(allocations.c.consumer_id)))
        .select_from(allocations.outerjoin(
            consumers, allocations.c.consumer_id == consumers.c.uuid))
        .where(consumers.c.id.is_(None))
    ).scalar_one()

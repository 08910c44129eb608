"""The fixes of ``placement-manage audit --fix``: delete empty consumers and
unused project and user rows, and nothing else, safely beside the API's
writers.

The findings were read in an earlier transaction (db/audit.py), so each
delete re-checks its condition **in the statement that deletes**:

- an empty consumer only while it has no allocations and is still at the
  generation the audit read (a write to it since moved the generation);
- a project or user row only while no consumer refers to it.

Each call locks its candidate rows first (``SELECT ... FOR UPDATE``), then
deletes them with that condition in a second statement, then reads which of
them are left; all in one write transaction (``Database.write``, which runs
it again if it loses a deadlock). Why no writer can be hurt, per backend:

- **PostgreSQL** (READ COMMITTED, the default): every statement sees what was
  committed before it began; a row lock waits for the transaction holding it.
  A writer locks the project and user rows it is about to point a consumer
  at (``FOR KEY SHARE``, db/consumers.py ``read_for_write``) before it writes the
  consumer row, and holds the lock until it commits. If the writer locked
  first, our ``FOR UPDATE`` waits until it has committed, so the DELETE that
  follows, a new statement, sees its consumer and keeps the row. (Hence
  the two statements: a DELETE that itself waited for the writer would have
  evaluated its NOT EXISTS on the snapshot taken when it began, before the
  writer's consumer, and delete the row.) If we locked first, the
  writer's lock waits for our commit and then finds the row gone: the writer
  creates it anew and locks it (or, if ours went between its insert and its
  lock, runs again). An empty consumer: a writer adding
  allocations to it moves its generation in the same transaction (the
  consumer generation compare-and-set of db/allocations.py). Our ``FOR
  UPDATE`` waits for it, and the DELETE's ``generation = <read>`` then fails;
  if we deleted first, the writer's compare-and-set finds no row and its
  transaction rolls back (a 409, as when the consumer's allocations are
  deleted by ``DELETE /allocations`` meanwhile): no allocation is ever left
  without its consumer by us.
- **MariaDB / MySQL InnoDB** (Placer's engines use READ COMMITTED): a
  locking read (``FOR UPDATE``, ``LOCK IN SHARE MODE``) reads the newest
  committed row and waits for the locks of others; the DELETE's subqueries
  read a fresh snapshot per statement (or, where InnoDB reads them with
  shared locks, wait for the writers' uncommitted rows). The same two orders
  as on PostgreSQL follow: a writer that locked first is seen, one that locks
  later finds the row gone and creates it anew. A lock cycle between a writer and
  the fix is a deadlock error, which both sides retry whole.
- **SQLite**: a write transaction takes the database's write lock with its
  first statement (``BEGIN IMMEDIATE``, db/engine.py), the fix's as the
  writers': they run one after the other, and each statement sees every
  committed write. ``FOR UPDATE`` is not rendered there; nothing is needed.

On Galera, row locks are not taken across nodes: send the fix and the API's
writes to one node, as Placement deployments write to one node anyway.
"""

from collections.abc import Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from placer.db.tables import allocations, consumers, projects, users

# a bound on the parameters of one statement; callers cut longer lists
BATCH = 500

_OWNER_TABLES = {"unused_projects": (projects, consumers.c.project_id),
                 "unused_users": (users, consumers.c.user_id)}


def delete_empty_consumers(conn: Connection, items: Sequence[dict[str, Any]]) -> list[str]:
    """Delete the consumers of ``items`` (``empty_consumers`` findings) that
    still have no allocations and are at the generation read; their uuids."""
    read = {item["consumer"]: item["generation"] for item in items}
    if not read:
        return []
    locked = conn.execute(
        sa.select(consumers.c.id, consumers.c.uuid, consumers.c.generation)
        .where(consumers.c.uuid.in_(sorted(read)))
        .order_by(consumers.c.id).with_for_update()).all()
    wanted = [(row.id, read[row.uuid]) for row in locked if row.generation == read[row.uuid]]
    if not wanted:
        return []
    has_allocations = sa.select(allocations.c.id).where(
        allocations.c.consumer_id == consumers.c.uuid)
    ids = [consumer_id for consumer_id, _ in wanted]
    conn.execute(consumers.delete().where(
        consumers.c.id.in_(ids),  # the index, for MySQL's row-constructor IN
        sa.tuple_(consumers.c.id, consumers.c.generation).in_(wanted),
        ~sa.exists(has_allocations)))
    left = set(conn.execute(sa.select(consumers.c.id).where(consumers.c.id.in_(ids))).scalars())
    return sorted(row.uuid for row in locked if row.id in ids and row.id not in left)


def delete_unused(conn: Connection, kind: str, items: Sequence[dict[str, Any]]) -> list[str]:
    """Delete the rows of ``items`` (``unused_projects`` or ``unused_users``
    findings) that no consumer refers to; their external ids."""
    table, owner_column = _OWNER_TABLES[kind]
    external_ids = sorted({item["external_id"] for item in items})
    if not external_ids:
        return []
    locked = {row.id: row.external_id for row in conn.execute(
        sa.select(table.c.id, table.c.external_id)
        .where(table.c.external_id.in_(external_ids))
        .order_by(table.c.id).with_for_update())}
    if not locked:
        return []
    referred = sa.select(consumers.c.id).where(owner_column == table.c.id)
    conn.execute(table.delete().where(table.c.id.in_(sorted(locked)), ~sa.exists(referred)))
    left = set(conn.execute(
        sa.select(table.c.id).where(table.c.id.in_(sorted(locked)))).scalars())
    return sorted(external_id for row_id, external_id in locked.items() if row_id not in left)

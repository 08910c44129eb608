"""Consumers and the projects, users and consumer types they belong to.

A project or user row that no consumer refers to may be deleted at any time
(``placement-manage audit --fix``, db/audit_fixes.py). So a write that points
a consumer at a project and user locks both rows first, FOR SHARE (PostgreSQL's
FOR KEY SHARE, the lock a foreign key check takes), in its own transaction,
and only then writes the consumer row: a delete that locked them first has
committed by then and the lock finds nothing (``read_for_write`` creates
them again and locks them; ``lock_owner`` is False: the write runs again,
and re-creates them); a delete that comes later waits for
the write to commit and then sees the consumer that refers to them. No
consumer can point at a missing project or user. (On SQLite every write holds
the database's write lock from its first statement: nothing can come between.)
"""

import dataclasses
import functools
from collections.abc import Iterable
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from placer import exceptions
from placer.db.engine import bump_generations, generation_parameters, insert_ignoring_duplicates
from placer.db.tables import allocations, consumer_types, consumers, projects, users


@dataclasses.dataclass
class Consumer:
    id: int
    uuid: str
    generation: int
    project_id: int
    user_id: int
    consumer_type_id: int | None


def _get_or_create(conn: Connection, table: sa.Table, column: str, value: str) -> int:
    """Id of the row whose ``column`` is ``value``, inserting it if missing.

    A concurrent insert of the same value is skipped, not an error: no
    savepoint is needed (MySQL drops savepoints when it breaks a deadlock).
    """
    col = table.c[column]
    found: int | None = conn.execute(sa.select(table.c.id).where(col == value)).scalar()
    if found is not None:
        return found
    insert_ignoring_duplicates(conn, table, [{column: value}])
    inserted: int = conn.execute(sa.select(table.c.id).where(col == value)).scalar_one()
    return inserted


def project_id(conn: Connection, external_id: str) -> int:
    return _get_or_create(conn, projects, "external_id", external_id)


def user_id(conn: Connection, external_id: str) -> int:
    return _get_or_create(conn, users, "external_id", external_id)


def lock_owner(conn: Connection, project: int, user: int) -> bool:
    """Lock the project and user rows (by id) until the transaction ends,
    so that they cannot be deleted meanwhile; False when either is gone."""
    found = conn.execute(
        sa.select(projects.c.id, users.c.id)
        .select_from(projects.join(users, sa.true()))  # one row of each
        .where(projects.c.id == project, users.c.id == user)
        .with_for_update(read=True, key_share=True)).first()
    return found is not None


def locked_owner(conn: Connection, project_external_id: str,
                 user_external_id: str) -> tuple[int, int] | None:
    """(project id, user id) of these external ids, created if missing and
    locked (``lock_owner``); None when a row was deleted between its lookup
    and the lock: the caller writes again from the start."""
    project = project_id(conn, project_external_id)
    user = user_id(conn, user_external_id)
    return (project, user) if lock_owner(conn, project, user) else None


def find(conn: Connection, uuid: str) -> Consumer | None:
    row = conn.execute(sa.select(consumers).where(consumers.c.uuid == uuid)).first()
    if row is None:
        return None
    return Consumer(row.id, row.uuid, row.generation, row.project_id, row.user_id,
                    row.consumer_type_id)


def delete_if_unused(conn: Connection, uuids: Iterable[str]) -> None:
    """Consumers without allocations disappear, as in the reference."""
    uuids = list(uuids)
    if not uuids:
        return
    has_allocs = sa.select(allocations.c.id).where(allocations.c.consumer_id == consumers.c.uuid)
    conn.execute(consumers.delete().where(consumers.c.uuid.in_(uuids),
                                          ~sa.exists(has_allocs)))


@dataclasses.dataclass
class Owned:
    """What a write reads of its consumer's owner and of the consumer, in
    one statement (``read_for_write``): the project and user ids (locked),
    the consumer type's id, the consumer as stored (None: none yet), and
    whether any allocation row names the consumer's uuid."""

    project: int
    user: int
    type_id: int | None
    consumer: Consumer | None
    has_allocations: bool


@functools.cache
def _owner_statement(typed: bool) -> sa.Select[Any]:
    """``_read_for_write``'s statement, built once (bind parameters: project,
    user, uuid, and type_name where ``typed``)."""
    c = consumers.c
    uuid: sa.BindParameter[str] = sa.bindparam("uuid")

    def one(column: sa.Column[Any]) -> sa.ScalarSelect[Any]:
        return sa.select(column).where(c.uuid == uuid).scalar_subquery()

    type_id: sa.ColumnElement[Any] = (
        sa.select(consumer_types.c.id)
        .where(consumer_types.c.name == sa.bindparam("type_name"))
        .scalar_subquery() if typed else sa.null())
    rest = [type_id.label("type_id"),
            one(c.id).label("c_id"), one(c.generation).label("c_generation"),
            one(c.project_id).label("c_project"), one(c.user_id).label("c_user"),
            one(c.consumer_type_id).label("c_type"),
            sa.exists(sa.select(allocations.c.id)
                      .where(allocations.c.consumer_id == uuid)).label("held")]
    # the lock is on the FROM's rows, the project and user: not on what the
    # subqueries read (PostgreSQL 15, InnoDB on MariaDB 10.11: checked)
    return (sa.select(projects.c.id, users.c.id.label("user_id"), *rest)
            .select_from(projects.join(users, sa.true()))  # one row of each
            .where(projects.c.external_id == sa.bindparam("project"),
                   users.c.external_id == sa.bindparam("user"))
            .with_for_update(read=True, key_share=True))


def _read_for_write(conn: Connection, project: str, user: str, type_name: str | None,
                    uuid: str) -> Owned | None:
    row = conn.execute(_owner_statement(bool(type_name)), {
        "project": project, "user": user, "uuid": uuid, "type_name": type_name}).first()
    if row is None or (type_name and row.type_id is None):
        return None
    consumer = (Consumer(row.c_id, uuid, row.c_generation, row.c_project, row.c_user,
                         row.c_type) if row.c_id is not None else None)
    return Owned(row.id, row.user_id, row.type_id, consumer, bool(row.held))


def read_for_write(conn: Connection, project: str, user: str, type_name: str | None,
                   uuid: str) -> Owned | None:
    """The owner's rows, created if missing and locked as ``lock_owner``
    locks them (the project and user rows FOR SHARE; the consumer row is
    not locked), with the consumer and its type, in one statement when they
    all exist; None when the project or user row was deleted between its
    creation and the lock: the caller writes again from the start."""
    found = _read_for_write(conn, project, user, type_name, uuid)
    if found is not None:
        return found
    insert_ignoring_duplicates(conn, projects, [{"external_id": project}])
    insert_ignoring_duplicates(conn, users, [{"external_id": user}])
    if type_name:
        insert_ignoring_duplicates(conn, consumer_types, [{"name": type_name}])
    return _read_for_write(conn, project, user, type_name, uuid)


def insert_new(conn: Connection, uuid: str, project: int, user: int,
               type_id: int | None) -> bool:
    """Insert a consumer at generation 1 (created and written by this
    transaction: the first increment done); False when a concurrent write
    created it first (it is left as that write made it)."""
    return insert_ignoring_duplicates(conn, consumers, [{
        "uuid": uuid, "project_id": project, "user_id": user, "generation": 1,
        "consumer_type_id": type_id}]) == 1


def increment_generations(conn: Connection, found: Iterable[tuple[Consumer, int, int,
                                                                  int | None]]) -> None:
    """Compare-and-set each consumer's generation to +1, with the owner and
    type a write names where they differ from what is stored (as the
    reference records them): one statement for
    those whose owner stays, one for each other. ConcurrentUpdate when
    another write moved one first."""
    plain: list[Consumer] = []
    for consumer, project, user, type_id in found:
        values: dict[str, int] = {}
        if (project, user) != (consumer.project_id, consumer.user_id):
            values.update(project_id=project, user_id=user)
        if type_id is not None and type_id != consumer.consumer_type_id:
            values["consumer_type_id"] = type_id
        if values:
            _compare_and_set(conn, [consumer], values)
        else:
            plain.append(consumer)
    if plain:
        _compare_and_set(conn, plain, {})


def _compare_and_set(conn: Connection, found: list[Consumer], values: dict[str, int]) -> None:
    params = {**values, **generation_parameters((c.id, c.generation) for c in found)}
    result = conn.execute(bump_generations(consumers, len(found), tuple(sorted(values))), params)
    if result.rowcount != len(found):
        raise exceptions.ConcurrentUpdate()

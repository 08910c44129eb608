"""Standard resource classes and traits, synced from os-resource-classes and
os-traits at start-up as the reference does.

Several processes may sync the same database at once (gunicorn or uwsgi
workers booting together on a fresh or upgraded database), so every insert
skips the rows another process has already written instead of failing.
"""

from typing import Any

import os_resource_classes as orc
import os_traits
import sqlalchemy as sa
from sqlalchemy.engine import Connection

from placer.db.engine import insert_ignoring_duplicates
from placer.db.tables import resource_classes, traits


def sync_standard_names(conn: Connection) -> None:
    """Insert the standard classes (id = position in the library's list, as in
    the reference) and traits that the database does not have yet."""
    have = set(conn.execute(sa.select(resource_classes.c.name)).scalars())
    missing = [{"id": i, "name": name} for i, name in enumerate(orc.STANDARDS)
               if name not in have]
    if missing:
        _insert_classes(conn, missing)
    have = set(conn.execute(sa.select(traits.c.name)).scalars())
    new_traits = [{"name": t} for t in sorted(set(os_traits.get_traits()) - have)]
    insert_ignoring_duplicates(conn, traits, new_traits)


def _insert_classes(conn: Connection, rows: list[dict[str, Any]]) -> None:
    if conn.dialect.name != "mysql":
        insert_ignoring_duplicates(conn, resource_classes, rows)
        return
    # Class 0 (VCPU) must keep id 0, which MySQL would otherwise renumber; the
    # session's mode is put back so the pooled connection is left as it was.
    mode = conn.exec_driver_sql("SELECT @@SESSION.sql_mode").scalar()
    conn.exec_driver_sql(
        "SET SESSION sql_mode = CONCAT(@@SESSION.sql_mode, ',NO_AUTO_VALUE_ON_ZERO')")
    try:
        insert_ignoring_duplicates(conn, resource_classes, rows)
    finally:
        conn.exec_driver_sql("SET SESSION sql_mode = %s", (mode,))

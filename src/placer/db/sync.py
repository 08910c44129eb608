"""Standard resource classes and traits, synced from os-resource-classes and
os-traits at start-up as the reference does."""

import os_resource_classes as orc
import os_traits
import sqlalchemy as sa
from sqlalchemy.engine import Connection

from placer.db.tables import resource_classes, traits


def sync_standard_names(conn: Connection) -> None:
    """Insert the standard classes (id = position in the library's list, as in
    the reference) and traits that the database does not have yet."""
    have = set(conn.execute(sa.select(resource_classes.c.name)).scalars())
    missing = [{"id": i, "name": name} for i, name in enumerate(orc.STANDARDS)
               if name not in have]
    if missing:
        if conn.dialect.name == "mysql":
            # class 0 (VCPU) must keep id 0, which MySQL would otherwise renumber
            conn.exec_driver_sql(
                "SET SESSION sql_mode = CONCAT(@@SESSION.sql_mode, ',NO_AUTO_VALUE_ON_ZERO')")
        conn.execute(resource_classes.insert(), missing)
    have = set(conn.execute(sa.select(traits.c.name)).scalars())
    new_traits = [{"name": t} for t in sorted(set(os_traits.get_traits()) - have)]
    if new_traits:
        conn.execute(traits.insert(), new_traits)

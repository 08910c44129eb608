"""Resource class rows: standard ones (ids below 10000) and CUSTOM_ ones."""

from collections.abc import Iterable
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError

from placer import exceptions
from placer.db import statements
from placer.db.tables import inventories, resource_classes
from placer.model.names import MIN_CUSTOM_RESOURCE_CLASS_ID, NamedRecord


class ResourceClass(NamedRecord):
    @property
    def standard(self) -> bool:
        return self.id < MIN_CUSTOM_RESOURCE_CLASS_ID


def _row(r: sa.Row[*tuple[Any, ...]]) -> ResourceClass:
    return ResourceClass(r.id, r.name, r.created_at, r.updated_at)


def list_all(conn: Connection) -> list[ResourceClass]:
    rows = conn.execute(sa.select(resource_classes).order_by(resource_classes.c.id))
    return [_row(r) for r in rows]


_BY_NAME = sa.select(resource_classes).where(resource_classes.c.name == sa.bindparam("name"))


def get(conn: Connection, name: str) -> ResourceClass:
    found = statements.rows(conn, _BY_NAME, {"name": name})
    if not found:
        raise exceptions.NotFound(exceptions.no_such_class(name))
    return _row(found[0])


def find(conn: Connection, name: str) -> ResourceClass | None:
    try:
        return get(conn, name)
    except exceptions.NotFound:
        return None


def ids_by_name(conn: Connection, names: Iterable[str]) -> dict[str, int]:
    """Ids of the named classes that exist (unknown names are left out)."""
    names = set(names)
    if not names:
        return {}
    rows = conn.execute(sa.select(resource_classes.c.name, resource_classes.c.id)
                        .where(resource_classes.c.name.in_(names)))
    return {name: id_ for name, id_ in rows}


def create(conn: Connection, name: str) -> ResourceClass:
    """Insert a custom class; ids continue from max(id, 9999) as in the reference."""
    if find(conn, name) is not None:
        raise exceptions.Conflict(f"Conflicting resource class already exists: {name}")
    max_id = conn.execute(sa.select(sa.func.max(resource_classes.c.id))).scalar() or 0
    new_id = max(max_id + 1, MIN_CUSTOM_RESOURCE_CLASS_ID)
    try:
        conn.execute(resource_classes.insert().values(id=new_id, name=name))
    except IntegrityError:
        raise exceptions.Conflict(
            f"Conflicting resource class already exists: {name}") from None
    return get(conn, name)


def ensure(conn: Connection, name: str) -> tuple[ResourceClass, bool]:
    """The named class, creating it if missing; True when it was created."""
    existing = find(conn, name)
    if existing is not None:
        return existing, False
    return create(conn, name), True


def rename(conn: Connection, name: str, new_name: str) -> ResourceClass:
    rc = get(conn, name)
    if rc.standard:
        raise exceptions.BadRequest(f"Cannot update standard resource class {name}")
    if new_name != name and find(conn, new_name) is not None:
        raise exceptions.Conflict(f"Resource class already exists: {new_name}")
    conn.execute(resource_classes.update().where(resource_classes.c.id == rc.id)
                 .values(name=new_name))
    return get(conn, new_name)


def delete(conn: Connection, name: str) -> None:
    rc = get(conn, name)
    if rc.standard:
        raise exceptions.BadRequest(
            f"Error in delete resource class: Cannot delete standard resource class {name}.")
    in_use = conn.execute(sa.select(sa.func.count()).select_from(inventories)
                          .where(inventories.c.resource_class_id == rc.id)).scalar()
    if in_use:
        raise exceptions.Conflict(
            f"Error in delete resource class: Cannot delete resource class {name}. "
            "Class is in use in inventory.")
    conn.execute(resource_classes.delete().where(resource_classes.c.id == rc.id))

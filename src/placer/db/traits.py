"""Trait rows (standard ones synced from os-traits, CUSTOM_ ones made by
users) and the traits of a provider."""

import re
from collections.abc import Iterable
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from placer import exceptions
from placer.db import resource_providers as rp_db
from placer.db.aggregates import GENERATION_CHANGED
from placer.db.engine import insert_ignoring_duplicates
from placer.db.tables import resource_provider_traits as rp_trait_t
from placer.db.tables import traits as trait_t
from placer.model import names

# A startswith: prefix is matched literally (the reference passes `%` and `_`
# to LIKE as wildcards, so `startswith:%` listed every trait); letters match
# either case. Anything else cannot begin a trait name, so it matches nothing.
_LIKE_PREFIX = re.compile(r"[A-Za-z0-9_]*")


class Trait(names.NamedRecord):
    @property
    def standard(self) -> bool:
        return not self.name.startswith(names.CUSTOM_PREFIX)


_SELECT = sa.select(trait_t.c.id, trait_t.c.name, trait_t.c.created_at, trait_t.c.updated_at)


def _traits(rows: Iterable[sa.Row[*tuple[Any, ...]]]) -> list[Trait]:
    return [Trait(r.id, r.name, r.created_at, r.updated_at) for r in rows]


def _by_names(conn: Connection, wanted: Iterable[str], lock: str | None = None) -> list[Trait]:
    """The named traits that exist, compared exactly whatever the collation."""
    wanted = {n for n in wanted if names.could_be_trait(n)}
    if not wanted:
        return []
    stmt = _SELECT.where(trait_t.c.name.in_(wanted))
    if lock:
        stmt = stmt.with_for_update(read=lock == "share")
    return [t for t in _traits(conn.execute(stmt)) if t.name in wanted]


def find(conn: Connection, name: str, lock: str | None = None) -> Trait | None:
    found = _by_names(conn, [name], lock)
    return found[0] if found else None


def get(conn: Connection, name: str) -> Trait:
    trait = find(conn, name)
    if trait is None:
        raise exceptions.NotFound(exceptions.no_such_trait(name))
    return trait


def list_traits(conn: Connection, name_in: list[str] | None = None,
                prefix: str | None = None, associated: bool | None = None) -> list[Trait]:
    """GET /traits. Ordered as the reference's queries come back: by name when
    filtered by names, else by id (creation order)."""
    if name_in is not None:
        found = _by_names(conn, name_in)
        if associated is not None:
            linked = _associated(conn, [t.id for t in found])
            found = [t for t in found if (t.id in linked) == associated]
        return sorted(found, key=lambda t: t.name)
    stmt = _SELECT.order_by(trait_t.c.id)
    if prefix is not None:
        if not _LIKE_PREFIX.fullmatch(prefix):
            return []
        stmt = stmt.where(trait_t.c.name.startswith(prefix.upper(), autoescape=True))
    if associated is not None:
        used = sa.exists().where(rp_trait_t.c.trait_id == trait_t.c.id)
        stmt = stmt.where(used if associated else ~used)
    return _traits(conn.execute(stmt))


def _associated(conn: Connection, trait_ids: list[int]) -> set[int]:
    if not trait_ids:
        return set()
    return set(conn.execute(sa.select(rp_trait_t.c.trait_id).distinct()
                            .where(rp_trait_t.c.trait_id.in_(trait_ids))).scalars())


def ensure_custom(conn: Connection, name: str) -> tuple[Trait, bool]:
    """PUT /traits/{name}: the trait, and whether this call created it. A
    concurrent creation of the same name is not an error (it existed)."""
    existing = find(conn, name)
    if existing is not None:
        return existing, False
    # Losing a creation race is no error, and needs no savepoint (which
    # MySQL would drop when breaking a deadlock): the insert just skips.
    created = insert_ignoring_duplicates(conn, trait_t, [{"name": name}]) == 1
    return get(conn, name), created


def delete_custom(conn: Connection, name: str) -> None:
    """DELETE /traits/{name}. The row is locked first so that a provider
    cannot take the trait on between the in-use check and the delete."""
    trait = find(conn, name, lock="update")
    if trait is None:
        raise exceptions.NotFound(exceptions.no_such_trait(name))
    if trait.standard:
        raise exceptions.BadRequest(f"Cannot delete standard trait {name}.")
    if _associated(conn, [trait.id]):
        raise exceptions.Conflict(f"The trait {name} is in use by a resource provider.")
    conn.execute(trait_t.delete().where(trait_t.c.id == trait.id))


_OF_PROVIDER = rp_db.of_named_provider(
    _SELECT.join(rp_trait_t, rp_trait_t.c.trait_id == trait_t.c.id).order_by(trait_t.c.id),
    rp_trait_t.c.resource_provider_id)


def provider_traits(conn: Connection, uuid: str) -> tuple[list[Trait], int]:
    """GET /resource_providers/{uuid}/traits: (traits by trait id, as the
    reference lists them; the provider's generation)."""
    generation, rows = rp_db.generation_and_rows(conn, _OF_PROVIDER, uuid)
    return _traits(rows), generation


def _current_ids(conn: Connection, provider_id: int) -> set[int]:
    return set(conn.execute(sa.select(rp_trait_t.c.trait_id)
                            .where(rp_trait_t.c.resource_provider_id == provider_id)).scalars())


def set_provider_traits(conn: Connection, uuid: str, wanted: list[str],
                        seen: int) -> tuple[list[Trait], int]:
    """PUT /resource_providers/{uuid}/traits: replace the set; returns the
    traits (by name) and the generation, bumped only if the set changed.

    The compare-and-set comes before the row changes, so a concurrent writer
    of the same provider waits on the provider row and then loses cleanly.
    """
    provider = rp_db.get(conn, uuid)
    if provider.generation != seen:
        raise exceptions.ConcurrentUpdate(GENERATION_CHANGED)
    # Shared locks: a concurrent DELETE /traits/{name} waits for us, then sees the use.
    found = _by_names(conn, wanted, lock="share")
    known = {t.name for t in found}
    unknown = list(dict.fromkeys(n for n in wanted if n not in known))
    if unknown:
        raise exceptions.BadRequest(f"No such trait {', '.join(unknown)}")
    found.sort(key=lambda t: t.name)
    want_ids = {t.id for t in found}
    current = _current_ids(conn, provider.id)
    if want_ids == current:
        return found, provider.generation
    generation = rp_db.increment_generation(conn, provider)
    _replace(conn, provider.id, current, want_ids)
    return found, generation


def delete_provider_traits(conn: Connection, uuid: str) -> None:
    """DELETE /resource_providers/{uuid}/traits (a bump only if there were any)."""
    provider = rp_db.get(conn, uuid)
    current = _current_ids(conn, provider.id)
    if current:
        rp_db.increment_generation(conn, provider)
        _replace(conn, provider.id, current, set())


def _replace(conn: Connection, provider_id: int, current: set[int], wanted: set[int]) -> None:
    if current - wanted:
        conn.execute(rp_trait_t.delete().where(
            rp_trait_t.c.resource_provider_id == provider_id,
            rp_trait_t.c.trait_id.in_(current - wanted)))
    if wanted - current:
        conn.execute(rp_trait_t.insert(), [
            {"resource_provider_id": provider_id, "trait_id": trait_id}
            for trait_id in sorted(wanted - current)])

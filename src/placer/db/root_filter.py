"""The SQL of the candidate roots: compiles a root plan (its steps are
placer.candidates.store's Step, built by placer.candidates.root_plan) into
a query, in the form each backend plans well."""

import functools
from collections.abc import Callable, Sequence
from typing import Any

import sqlalchemy as sa

from placer.candidates.store import Plan, Sharing
from placer.db import room
from placer.db import tables as t

rp_t = t.resource_providers
inv_t = t.inventories
rpt_t = t.resource_provider_traits
rpa_t = t.resource_provider_aggregates

Ids = Sequence[int]
Condition = sa.ColumnElement[bool]


@functools.lru_cache(maxsize=256)
def roots_sql(dialect: sa.Dialect, plan: Plan, room: bool = True) -> str:
    """The query of the plan's candidate roots, as SQL text ending in its
    WHERE clause (callers append a range and an order); without ``room``,
    a class's inventory is not tested for room (the tree has some of it).
    Compiled once per plan: with SQLAlchemy's per-execution work it cost
    several times what running it does. All values in it are integers and
    floats."""
    tests = Conditions(dialect.name, room)
    # roots are the providers without a parent (a test planners estimate well)
    query = sa.select(rp_t.c.id).where(rp_t.c.parent_provider_id.is_(None),
                                       *(_BUILD[kind](tests, *args) for kind, *args in plan))
    return str(query.compile(dialect=dialect, compile_kwargs={"literal_binds": True}))


def _root_has(tests: "Conditions", trait_ids: Ids) -> Condition:
    return tests.has_trait(rp_t.c.id, trait_ids)


def _root_lacks(tests: "Conditions", trait_ids: Ids) -> Condition:
    return ~tests.has_trait(rp_t.c.id, trait_ids)


def _in_tree(tests: "Conditions", target: int) -> Condition:
    return rp_t.c.id == target


def _not_in_aggs(tests: "Conditions", agg_ids: Ids) -> Condition:
    return ~tests.in_aggs(rp_t.c.id, agg_ids)


def _member_of(tests: "Conditions", sets: Sequence[Ids], sharing: Sharing) -> Condition:
    # the provider or the root must be a member: some provider of the tree is
    # (the root is one of them)
    root, p, link = rp_t.c.id, rp_t.alias("p"), rpa_t.alias("pa")
    in_first = sa.select(p.c.root_provider_id).join(
        link, link.c.resource_provider_id == p.c.id).where(link.c.aggregate_id.in_(sets[0]))
    return sa.or_(
        # a set the database computes once, rather than a probe per root
        sa.and_(root.in_(in_first), tests.some(sa.select(1).select_from(p).where(
            p.c.root_provider_id == root, *tests.member_of(p.c.id, sets)))),
        _shared_with(tests, sharing))


def _traits(tests: "Conditions", trait_ids: Ids, sharing: Sharing) -> Condition:
    # judged on every provider the group uses: any of the tree's, or a sharing
    # provider serving it
    p = rp_t.alias("p")
    anywhere = tests.some(sa.select(1).select_from(p).where(
        p.c.root_provider_id == rp_t.c.id, tests.has_trait(p.c.id, trait_ids)))
    return sa.or_(anywhere, _shared_with(tests, sharing))


def _class(tests: "Conditions", rc_id: int, amount: int, forbidden: Ids, forbidden_aggs: Ids,
           sharing: Sharing) -> Condition:
    p, inv = rp_t.alias("p"), inv_t.alias("i")
    own = [p.c.root_provider_id == rp_t.c.id, tests.class_is(inv, rc_id),
           *tests.room_for(inv, amount)]
    if forbidden:
        own.append(~tests.has_trait(p.c.id, forbidden))
    if forbidden_aggs:
        own.append(~tests.in_aggs(p.c.id, forbidden_aggs))
    found = tests.some(sa.select(1).select_from(
        p.join(inv, inv.c.resource_provider_id == p.c.id)).where(*own))
    return sa.or_(found, _shared_with(tests, sharing))


def _granular(tests: "Conditions", amounts: Sequence[tuple[int, int]], clauses: Sequence[Ids],
              forbidden: Ids, sets: Sequence[Ids], forbidden_aggs: Ids, target: int | None,
              sharing: Sharing) -> Condition:
    (rc_id, amount), *others = amounts
    p, inv = rp_t.alias("p"), inv_t.alias("i")
    own = [p.c.root_provider_id == rp_t.c.id, tests.class_is(inv, rc_id),
           *tests.room_for(inv, amount)]
    for other, n in others:
        more = inv_t.alias("j")
        own.append(tests.some(sa.select(1).where(
            more.c.resource_provider_id == p.c.id,
            tests.class_is(more, other), *tests.room_for(more, n))))
    own += [tests.has_trait(p.c.id, ids) for ids in clauses]
    if forbidden:
        own.append(~tests.has_trait(p.c.id, forbidden))
    own += tests.member_of(p.c.id, sets)
    if forbidden_aggs:
        own.append(~tests.in_aggs(p.c.id, forbidden_aggs))
    if target is not None:
        own.append(rp_t.c.id == target)
    found = tests.some(sa.select(1).select_from(
        p.join(inv, inv.c.resource_provider_id == p.c.id)).where(*own))
    return sa.or_(found, _shared_with(tests, sharing))


def _shared_with(tests: "Conditions", sharing: Sharing) -> Condition:
    """The root is served by one of these sharing providers: it is the root
    of one, or one of its providers is in one of their aggregates."""
    if sharing is None:
        return sa.false()
    sharing_ids, sharing_roots = sharing
    root, q, link = rp_t.c.id, rp_t.alias("q"), rpa_t.alias("qa")
    their_aggs = sa.select(rpa_t.c.aggregate_id).where(
        rpa_t.c.resource_provider_id.in_(sharing_ids))
    return sa.or_(
        root.in_(sharing_roots),
        tests.some(sa.select(1).select_from(
            q.join(link, link.c.resource_provider_id == q.c.id)).where(
            q.c.root_provider_id == root, link.c.aggregate_id.in_(their_aggs))))


_BUILD: dict[str, Callable[..., Condition]] = {
    "root_has": _root_has, "root_lacks": _root_lacks, "in_tree": _in_tree,
    "not_in_aggs": _not_in_aggs, "member_of": _member_of, "traits": _traits,
    "class": _class, "granular": _granular}


class Conditions:
    """The SQL conditions on one provider that the root filter is made of, in the
    form the backend plans well."""

    def __init__(self, dialect: str, room: bool = True):
        self.mysql = dialect == "mysql"
        self.postgresql = dialect == "postgresql"
        self.room = room

    def room_for(self, inv: sa.FromClause, amount: int) -> list[Condition]:
        """Room for ``amount`` in ``inv`` (none when the filter tests no room)."""
        return room.room_for(inv, amount, headroom=True) if self.room else []

    def class_is(self, inv: sa.FromClause, rc_id: int) -> Condition:
        """``inv`` is of class ``rc_id``. Elsewhere than on PostgreSQL it is
        written ``resource_class_id + 0``, which keeps planners without
        statistics (SQLite's) from scanning every inventory of the class for
        each root: the provider-and-class unique index is the way in.
        PostgreSQL estimates the plain form from its statistics; given the
        expression it assumed 0.5% of rows and computed the whole set of
        matching inventories before the walk's LIMIT (260 ms instead of 10 at
        100,000 providers)."""
        if self.postgresql:
            return inv.c.resource_class_id == rc_id
        return inv.c.resource_class_id + 0 == rc_id

    def some(self, query: sa.Select[*tuple[Any, ...]]) -> Condition:
        """EXISTS (query). On MariaDB and MySQL it is written as a LIMIT 1
        scalar subquery: they turn a plain EXISTS into a semi-join computed
        for every root before the walk's LIMIT applies, while this form is
        tested root by root in walk order. PostgreSQL plans the plain form
        better (hash semi-joins for the selective tests)."""
        if self.mysql:
            return query.limit(1).scalar_subquery().is_not(None)
        return sa.exists(query)

    def has_trait(self, provider_id: sa.ColumnElement[Any], trait_ids: Ids) -> Condition:
        return self.some(sa.select(1).where(rpt_t.c.resource_provider_id == provider_id,
                                            rpt_t.c.trait_id.in_(trait_ids)))

    def in_aggs(self, provider_id: sa.ColumnElement[Any], agg_ids: Ids) -> Condition:
        return self.some(sa.select(1).where(rpa_t.c.resource_provider_id == provider_id,
                                            rpa_t.c.aggregate_id.in_(agg_ids)))

    def member_of(self, provider_id: sa.ColumnElement[Any], sets: Sequence[Ids]
                  ) -> list[Condition]:
        """The provider is in one aggregate of each any-of set of ids."""
        return [self.in_aggs(provider_id, ids) for ids in sets]

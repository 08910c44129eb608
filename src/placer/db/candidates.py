"""What the candidate search reads, loaded in batches of trees.

The database picks the roots that may anchor a candidate, with necessary
conditions only (room for each amount, min/max/step, traits, aggregates,
in_tree, root_required, sharing providers reachable by aggregate). Each
condition is looser than the engine's rule, never stricter, so the engine
stays the single judge of an answer; the rules that need a whole tree (the
unsuffixed group's traits spread over providers, same_subtree, isolate)
are left to it.

Roots are walked in answer order (by id; shuffled with
randomize_allocation_candidates). The trees of one batch are loaded with a
fixed number of queries, searched, and the next batch is loaded only while
the answer needs more, so a limited query costs what its answer costs, not
what the cloud holds. Trees that serve others (those of sharing providers
and in_tree targets) are loaded once per request and join every batch.
"""

import collections
import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import sqlalchemy as sa
from sqlalchemy.engine import Connection

from placer.candidates import precheck, search
from placer.candidates.request import CandidateRequest, RequestGroup
from placer.candidates.snapshot import SHARING_TRAIT, Inventory, Provider, Snapshot
from placer.db import capacity
from placer.db import tables as t

rp_t = t.resource_providers
inv_t = t.inventories
rpt_t = t.resource_provider_traits
rpa_t = t.resource_provider_aggregates

# Batch sizes: the first follows the limit (a limited query rarely needs
# more roots than candidates), later ones grow to amortise the queries.
FIRST_BATCH = (16, 1000)  # bounds of the first batch; unlimited queries start at the top
LARGEST_BATCH = 4000


@dataclass
class _Names:
    """Ids of the names a request uses (the unknown ones are absent)."""

    classes: dict[str, int]
    traits: dict[str, int]
    aggregates: dict[str, int]


def find(conn: Connection, request: CandidateRequest, *, max_candidates: int = -1,
         strategy: str = "depth-first", rng: random.Random | None = None,
         batch: tuple[int, int] | None = None) -> tuple[list, list[Provider]]:
    """(candidates, providers for provider_summaries) for ``request``.

    Raises BadRequest for an unknown name, where the reference reports it.
    ``batch`` overrides (first, largest) batch sizes, for tests.
    """
    names = _resolve(conn, request)
    if (set(request.resource_classes()) - names.classes.keys()
            or set(request.trait_names()) - names.traits.keys()):
        # Only an unknown name needs the whole picture: a 400, or the
        # reference's early empty answer.
        snapshot = full_snapshot(conn, request, list(names.classes.values()))
        if not precheck.check_names(request, snapshot, names.classes, names.traits):
            return [], []
    walk = _Walk(conn, request, names)
    if walk.hopeless:
        return [], []
    wanted = [n for n in (request.limit, max_candidates) if n is not None and n >= 0]
    first, largest = batch or (_first_batch(min(wanted) if wanted else None), LARGEST_BATCH)
    candidates = list(search.stream_candidates(
        request, walk.batches(first, largest, rng), max_candidates=max_candidates,
        strategy=strategy, rng=rng))
    return candidates, search.summary_providers(candidates, request.nested_aware)


def _first_batch(wanted: int | None) -> int:
    low, high = FIRST_BATCH
    return high if wanted is None else max(low, min(high, wanted))


def _resolve(conn: Connection, request: CandidateRequest) -> _Names:
    classes = request.resource_classes()
    traits = request.trait_names()
    aggs = {u for g in request.groups for s in (*g.member_of, g.forbidden_aggs) for u in s}
    rc, tr, ag = t.resource_classes, t.traits, t.placement_aggregates
    return _Names(
        dict(conn.execute(sa.select(rc.c.name, rc.c.id).where(rc.c.name.in_(classes))).all())
        if classes else {},
        dict(conn.execute(sa.select(tr.c.name, tr.c.id).where(tr.c.name.in_(traits))).all())
        if traits else {},
        dict(conn.execute(sa.select(ag.c.uuid, ag.c.id).where(ag.c.uuid.in_(aggs))).all())
        if aggs else {},
    )


class _Walk:
    """The request's walk over candidate roots, one batch of trees at a time."""

    def __init__(self, conn: Connection, request: CandidateRequest, names: _Names):
        self.conn, self.request, self.names = conn, request, names
        self.hopeless = not names.classes or not self._possible()
        if self.hopeless:
            return
        rc_ids = list(names.classes.values())
        self.targets = _in_tree_roots(conn, request)
        aux = set(self.targets.values()) | _sharing_roots(conn, rc_ids)
        if any(not g.resources for g in request.groups):
            aux |= _classless_sharing_roots(conn, rc_ids, aux)
        self.aux_roots = aux
        self.class_names = _class_names(conn)
        self.aux = load_trees(conn, sorted(aux), self.class_names)
        self.sharing = [p for p in self.aux if p.is_sharing and p.inventories]
        self.where = _RootFilter(self).conditions()

    def _possible(self) -> bool:
        """False when the engine would find nothing anywhere: an unknown
        in_tree provider, or a member_of no provider meets."""
        request, conn = self.request, self.conn
        uuids = {g.in_tree for g in request.groups if g.in_tree}
        if uuids and len(_in_tree_roots(conn, request)) < len(uuids):
            return False
        for group in request.groups:
            if group.member_of:
                p = rp_t.alias("p")
                found = conn.execute(sa.select(p.c.id).where(
                    *_Tests(conn.dialect.name).member_of(p.c.id, group, self.names))
                    .limit(1)).first()
                if found is None:
                    return False
        return True

    def batches(self, first: int, largest: int,
                rng: random.Random | None = None) -> Iterator[Snapshot]:
        """Snapshots of consecutive runs of candidate roots, in answer order."""
        if rng is not None:
            roots = list(self.conn.execute(self._roots()).scalars())
            rng.shuffle(roots)
            chunks: Iterable[list[int]] = _chunks(roots, first, largest)
        else:
            chunks = self._in_id_order(first, largest)
        for ids in chunks:
            trees = load_trees(self.conn, [i for i in ids if i not in self.aux_roots],
                               self.class_names)
            yield Snapshot(self.aux + trees, anchor_ids=ids)

    def _in_id_order(self, size: int, largest: int) -> Iterator[list[int]]:
        after = -1
        while True:
            ids = list(self.conn.execute(
                self._roots().where(rp_t.c.id > after).order_by(rp_t.c.id).limit(size)).scalars())
            if ids:
                yield ids
            if len(ids) < size:
                return
            after = ids[-1]
            size = min(size * 4, largest)

    def _roots(self) -> sa.Select:
        # roots are the providers without a parent (a test planners estimate well)
        return sa.select(rp_t.c.id).where(rp_t.c.parent_provider_id.is_(None), *self.where)


def _chunks(ids: list[int], size: int, largest: int) -> Iterator[list[int]]:
    start = 0
    while start < len(ids):
        yield ids[start:start + size]
        start += size
        size = min(size * 4, largest)


class _RootFilter:
    """SQL conditions on a root (``rp_t``) that every anchor of a candidate meets."""

    def __init__(self, walk: _Walk):
        self.names = walk.names
        self.request = walk.request
        self.targets = walk.targets
        self.sharing = walk.sharing
        self.root = rp_t.c.id
        self.tests = _Tests(walk.conn.dialect.name)

    def conditions(self) -> list:
        request, has_trait = self.request, self.tests.has_trait
        conds = [has_trait(self.root, self._trait_ids([n])) for n in sorted(request.root_required)]
        if request.root_forbidden:
            conds.append(~has_trait(self.root, self._trait_ids(request.root_forbidden)))
        for group in request.groups:
            if group.suffix:
                if group.resources:
                    conds.append(self._granular(group))
            else:
                conds += self._unsuffixed(group)
        return conds

    def _unsuffixed(self, group: RequestGroup) -> list:
        names, root = self.names, self.root
        # the sharing providers that may serve other trees for this group
        serving = [] if group.in_tree else [
            s for s in self.sharing
            if all(s.aggregates & any_of for any_of in group.member_of)
            and not (s.traits & group.forbidden or s.aggregates & group.forbidden_aggs)]
        # cheap and selective tests first: databases mostly keep this order
        conds = []
        if group.in_tree:
            conds.append(root == self.targets[group.in_tree])
        if group.forbidden_aggs:
            conds.append(~self.tests.in_aggs(root, self._agg_ids(group.forbidden_aggs)))
        if group.member_of:
            # the provider or the root must be a member: some provider of the
            # tree is (the root is one of them)
            p, link = rp_t.alias("p"), rpa_t.alias("pa")
            first = self._agg_ids(group.member_of[0])
            in_first = sa.select(p.c.root_provider_id).join(
                link, link.c.resource_provider_id == p.c.id).where(link.c.aggregate_id.in_(first))
            conds.append(sa.or_(
                # a set the database computes once, rather than a probe per root
                sa.and_(root.in_(in_first), self.tests.some(sa.select(1).select_from(p).where(
                    p.c.root_provider_id == root, *self.tests.member_of(p.c.id, group, names)))),
                self._served_by(serving)))
        for clause in group.trait_clauses:
            # judged on every provider the group uses: any of the tree's,
            # or a sharing provider serving it
            p = rp_t.alias("p")
            anywhere = self.tests.some(sa.select(1).select_from(p).where(
                p.c.root_provider_id == root,
                self.tests.has_trait(p.c.id, self._trait_ids(clause))))
            conds.append(sa.or_(anywhere, self._served_by(
                s for s in serving if s.traits & clause)))
        for rc, amount in group.resources.items():
            p, inv = rp_t.alias("p"), inv_t.alias("i")
            own = [p.c.root_provider_id == root, _class_is(inv, names.classes[rc]),
                   *capacity.can_take(inv, amount, headroom=True)]
            if group.forbidden:
                own.append(~self.tests.has_trait(p.c.id, self._trait_ids(group.forbidden)))
            if group.forbidden_aggs:
                own.append(~self.tests.in_aggs(p.c.id, self._agg_ids(group.forbidden_aggs)))
            found = self.tests.some(sa.select(1).select_from(
                p.join(inv, inv.c.resource_provider_id == p.c.id)).where(*own))
            conds.append(sa.or_(found, self._served_by(
                s for s in serving if s.fits(rc, amount))))
        return conds

    def _granular(self, group: RequestGroup) -> sa.ColumnElement:
        names, root = self.names, self.root
        (rc, amount), *others = group.resources.items()
        p, inv = rp_t.alias("p"), inv_t.alias("i")
        own = [p.c.root_provider_id == root, _class_is(inv, names.classes[rc]),
               *capacity.can_take(inv, amount, headroom=True)]
        for other, n in others:
            more = inv_t.alias("j")
            own.append(self.tests.some(sa.select(1).where(
                more.c.resource_provider_id == p.c.id,
                _class_is(more, names.classes[other]), *capacity.can_take(more, n, headroom=True))))
        own += [self.tests.has_trait(p.c.id, self._trait_ids(c)) for c in group.trait_clauses]
        if group.forbidden:
            own.append(~self.tests.has_trait(p.c.id, self._trait_ids(group.forbidden)))
        own += self.tests.member_of(p.c.id, group, names)
        if group.forbidden_aggs:
            own.append(~self.tests.in_aggs(p.c.id, self._agg_ids(group.forbidden_aggs)))
        if group.in_tree:
            own.append(root == self.targets[group.in_tree])
        found = self.tests.some(sa.select(1).select_from(
            p.join(inv, inv.c.resource_provider_id == p.c.id)).where(*own))
        target = self.targets.get(group.in_tree) if group.in_tree else None
        return sa.or_(found, self._served_by(
            s for s in self.sharing
            if all(s.fits(c, n) for c, n in group.resources.items())
            and (target is None or s.root_id == target)
            and all(clause & s.traits for clause in group.trait_clauses)
            and all(s.aggregates & any_of for any_of in group.member_of)
            and not (s.traits & group.forbidden or s.aggregates & group.forbidden_aggs)))

    def _served_by(self, sharing: Iterable[Provider]) -> sa.ColumnElement:
        """The root is served by one of these sharing providers: it is the
        root of one, or one of its providers is in one of their aggregates."""
        sharing = list(sharing)
        if not sharing:
            return sa.false()
        q, link = rp_t.alias("q"), rpa_t.alias("qa")
        their_aggs = sa.select(rpa_t.c.aggregate_id).where(
            _among(rpa_t.c.resource_provider_id, [s.id for s in sharing]))
        return sa.or_(
            _among(self.root, {s.root_id for s in sharing}),
            self.tests.some(sa.select(1).select_from(
                q.join(link, link.c.resource_provider_id == q.c.id)).where(
                q.c.root_provider_id == self.root, link.c.aggregate_id.in_(their_aggs))))

    def _trait_ids(self, names: Iterable[str]) -> list[int]:
        return [self.names.traits[n] for n in sorted(names)]

    def _agg_ids(self, uuids: Iterable[str]) -> list[int]:
        return [self.names.aggregates[u] for u in sorted(uuids) if u in self.names.aggregates]


def _class_is(inv, rc_id: int) -> sa.ColumnElement:
    """``inv`` is of class ``rc_id``. The ``+ 0`` keeps planners (SQLite's,
    without statistics) from scanning every inventory of the class for each
    root: the provider-and-class unique index is the way in."""
    return inv.c.resource_class_id + 0 == rc_id


class _Tests:
    """The SQL tests on one provider that the root filter is made of, in the
    form the backend plans well."""

    def __init__(self, dialect: str):
        self.mysql = dialect == "mysql"

    def some(self, query: sa.Select) -> sa.ColumnElement:
        """EXISTS (query). On MariaDB and MySQL it is written as a LIMIT 1
        scalar subquery: they turn a plain EXISTS into a semi-join computed
        for every root before the walk's LIMIT applies, while this form is
        tested root by root in walk order. PostgreSQL plans the plain form
        better (hash semi-joins for the selective tests)."""
        if self.mysql:
            return query.limit(1).scalar_subquery().is_not(None)
        return sa.exists(query)

    def has_trait(self, provider_id, trait_ids: list[int]) -> sa.ColumnElement:
        return self.some(sa.select(1).where(rpt_t.c.resource_provider_id == provider_id,
                                            rpt_t.c.trait_id.in_(trait_ids)))

    def in_aggs(self, provider_id, agg_ids: list[int]) -> sa.ColumnElement:
        return self.some(sa.select(1).where(rpa_t.c.resource_provider_id == provider_id,
                                            rpa_t.c.aggregate_id.in_(agg_ids)))

    def member_of(self, provider_id, group: RequestGroup, names: _Names) -> list:
        """The provider is in one aggregate of each of the group's any-of sets."""
        return [self.in_aggs(provider_id, [names.aggregates[u] for u in sorted(any_of)
                                           if u in names.aggregates])
                for any_of in group.member_of]


def _in_tree_roots(conn: Connection, request: CandidateRequest) -> dict[str, int]:
    uuids = {g.in_tree for g in request.groups if g.in_tree}
    if not uuids:
        return {}
    return dict(conn.execute(sa.select(rp_t.c.uuid, rp_t.c.root_provider_id)
                             .where(rp_t.c.uuid.in_(uuids))).all())


def _sharing_providers():
    return (sa.select(rpt_t.c.resource_provider_id)
            .join(t.traits, t.traits.c.id == rpt_t.c.trait_id)
            .where(t.traits.c.name == SHARING_TRAIT))


def _sharing_roots(conn: Connection, rc_ids: list[int]) -> set[int]:
    """Roots of the sharing providers with inventory of a requested class."""
    return set(conn.execute(
        sa.select(rp_t.c.root_provider_id).distinct()
        .join(inv_t, inv_t.c.resource_provider_id == rp_t.c.id)
        .where(inv_t.c.resource_class_id.in_(rc_ids),
               rp_t.c.id.in_(_sharing_providers()))).scalars())


def _classless_sharing_roots(conn: Connection, rc_ids: list[int], aux: set[int]) -> set[int]:
    """Roots of the other sharing providers that a resourceless group may
    use: those whose tree holds a requested class or is served by a sharing
    provider that does (the trees a whole-cloud search would look at)."""
    s, q, sa_link, qa_link = (rp_t.alias("s"), rp_t.alias("q"), rpa_t.alias("sl"),
                              rpa_t.alias("ql"))
    holds_class = sa.exists(sa.select(1).select_from(
        q.join(inv_t, inv_t.c.resource_provider_id == q.c.id)).where(
        q.c.root_provider_id == s.c.root_provider_id, inv_t.c.resource_class_id.in_(rc_ids)))
    serving = (sa.select(sa_link.c.aggregate_id)
               .join(inv_t, inv_t.c.resource_provider_id == sa_link.c.resource_provider_id)
               .where(inv_t.c.resource_class_id.in_(rc_ids),
                      sa_link.c.resource_provider_id.in_(_sharing_providers())))
    served = sa.exists(sa.select(1).select_from(
        q.join(qa_link, qa_link.c.resource_provider_id == q.c.id)).where(
        q.c.root_provider_id == s.c.root_provider_id, qa_link.c.aggregate_id.in_(serving)))
    return set(conn.execute(
        sa.select(s.c.root_provider_id).distinct()
        .where(s.c.id.in_(_sharing_providers()), sa.or_(holds_class, served))).scalars()) - aux


def full_snapshot(conn: Connection, request: CandidateRequest, rc_ids: list[int]) -> Snapshot:
    """Every tree holding a requested class, served by a sharing provider
    holding one, or named by in_tree: what the unknown-name precheck reads."""
    if not rc_ids:
        return Snapshot([])
    with_inventory = sa.select(inv_t.c.resource_provider_id).where(
        inv_t.c.resource_class_id.in_(rc_ids))
    sharing = _sharing_providers().where(rpt_t.c.resource_provider_id.in_(with_inventory))
    shared_aggs = sa.select(rpa_t.c.aggregate_id).where(rpa_t.c.resource_provider_id.in_(sharing))
    served = sa.select(rpa_t.c.resource_provider_id).where(rpa_t.c.aggregate_id.in_(shared_aggs))
    in_trees = [g.in_tree for g in request.groups if g.in_tree]
    roots = conn.execute(sa.select(rp_t.c.root_provider_id).distinct().where(
        sa.or_(rp_t.c.id.in_(with_inventory), rp_t.c.id.in_(served),
               rp_t.c.uuid.in_(in_trees)))).scalars()
    return Snapshot(load_trees(conn, sorted(roots)))


def _among(column, ids) -> sa.ColumnElement:
    """``column IN (ids)`` with the integers inlined: thousands of ids would
    otherwise cost a bound parameter each, which dominates the load."""
    ids = sorted(set(map(int, ids)))
    if not ids:
        return sa.false()
    # a literal column, unlike text(), is not scanned for bind parameters
    return sa.literal_column(f"{column.table.name}.{column.name}").op("IN")(
        sa.literal_column(f"({','.join(map(str, ids))})"))


def load_trees(conn: Connection, root_ids: list[int],
               class_names: dict[int, str] | None = None) -> list[Provider]:
    """Every provider of the trees of ``root_ids``, with its inventories,
    usages, traits and aggregates: five queries, whatever the number
    (``class_names``, id -> name, saves a sixth)."""
    if not root_ids:
        return []
    rows = conn.execute(
        sa.select(rp_t.c.id, rp_t.c.uuid, rp_t.c.name, rp_t.c.generation,
                  rp_t.c.parent_provider_id, rp_t.c.root_provider_id)
        .where(_among(rp_t.c.root_provider_id, root_ids))).all()
    ids = [r[0] for r in rows]
    names = class_names or _class_names(conn)
    inventories: dict[int, dict[str, Inventory]] = collections.defaultdict(dict)
    for rp, rc, *fields in conn.execute(
            sa.select(inv_t.c.resource_provider_id, inv_t.c.resource_class_id, inv_t.c.total,
                      inv_t.c.reserved, inv_t.c.min_unit, inv_t.c.max_unit, inv_t.c.step_size,
                      inv_t.c.allocation_ratio)
            .where(_among(inv_t.c.resource_provider_id, ids))).all():
        inventories[rp][names[rc]] = Inventory(*fields)
    a = t.allocations
    usages: dict[int, dict[str, int]] = collections.defaultdict(dict)
    for rp, rc, used in conn.execute(
            sa.select(a.c.resource_provider_id, a.c.resource_class_id, sa.func.sum(a.c.used))
            .where(_among(a.c.resource_provider_id, ids))
            .group_by(a.c.resource_provider_id, a.c.resource_class_id)).all():
        usages[rp][names[rc]] = int(used)
    traits = _linked(conn, ids, rpt_t.c.trait_id, t.traits.c.name)
    aggregates = _linked(conn, ids, rpa_t.c.aggregate_id, t.placement_aggregates.c.uuid)
    empty: frozenset[str] = frozenset()
    return [
        Provider(id=id_, uuid=uuid, name=name, parent_id=parent, root_id=root,
                 generation=generation or 0, traits=traits.get(id_, empty),
                 aggregates=aggregates.get(id_, empty), inventories=inventories[id_],
                 usages=usages[id_])
        for id_, uuid, name, generation, parent, root in rows]


def _class_names(conn: Connection) -> dict[int, str]:
    rc = t.resource_classes
    return dict(conn.execute(sa.select(rc.c.id, rc.c.name)).all())


def _linked(conn: Connection, ids, link, value) -> dict[int, frozenset]:
    """provider id -> the ``value``s (trait names, aggregate uuids) linked to it
    through the association table of the ``link`` column."""
    assoc = link.table
    result = collections.defaultdict(set)
    for rp, item in conn.execute(
            sa.select(assoc.c.resource_provider_id, value)
            .join(value.table, value.table.c.id == link)
            .where(_among(assoc.c.resource_provider_id, ids))).all():
        result[rp].add(item)
    return {rp: frozenset(items) for rp, items in result.items()}

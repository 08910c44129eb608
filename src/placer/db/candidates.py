"""What the candidate search reads, loaded in batches of trees.

The database picks the roots that may anchor a candidate, with necessary
conditions only (room for each amount, min/max/step, traits, aggregates,
in_tree, root_required, sharing providers reachable by aggregate). Each
condition is looser than the engine's rule, never stricter, so the engine
stays the single judge of an answer; the rules that need a whole tree (the
unsuffixed group's traits spread over providers, same_subtree, isolate)
are left to it.

Roots are walked in answer order (by id; with randomize_allocation_candidates
in a random order drawn as it goes). The trees of one batch are loaded with a
fixed number of queries, searched, and the next batch is loaded only while
the answer needs more, so a limited query costs what its answer costs, not
what the cloud holds. Trees that serve others (those of sharing providers
and in_tree targets) are loaded once per request and join every batch.
"""

import collections
import functools
import random
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

import orjson
import sqlalchemy as sa
from sqlalchemy.engine import Connection

from placer.candidates import precheck, search
from placer.candidates.request import CandidateRequest, RequestGroup
from placer.candidates.snapshot import SHARING_TRAIT, Inventory, Provider, Snapshot
from placer.db import capacity
from placer.db import tables as t
from placer.db.engine import plain_rows

rp_t = t.resource_providers
inv_t = t.inventories
rpt_t = t.resource_provider_traits
rpa_t = t.resource_provider_aggregates

# Roots are read in pages (one query each: the filter's fixed cost, such as a
# member_of set, is paid per page) and their trees loaded in batches. A
# limited query's first page holds as many roots as it wants candidates,
# unlimited ones start at the top; pages grow to amortise the queries.
FIRST_PAGE, LARGEST_PAGE, SMALLEST_BATCH = (16, 1000), 4000, 16


@dataclass
class _Names:
    """Ids of the names a request uses (the unknown ones are absent)."""

    classes: dict[str, int]
    traits: dict[str, int]
    aggregates: dict[str, int]

    def lack_some_of(self, request: CandidateRequest) -> bool:
        """The request names a class or trait the database does not have."""
        return bool(set(request.resource_classes()) - self.classes.keys()
                    or set(request.trait_names()) - self.traits.keys())


def find(conn: Connection, request: CandidateRequest, *, max_candidates: int = -1,
         strategy: str = "depth-first", rng: random.Random | None = None,
         batch: tuple[int, int] | None = None,
         timings: dict[str, float] | None = None) -> tuple[list, list[Provider]]:
    """(candidates, providers for provider_summaries) for ``request``.

    Raises BadRequest for an unknown name, where the reference reports it.
    ``batch`` overrides (first, largest) batch sizes, for tests. ``timings``,
    if given, gets the seconds spent searching ('search') and loading from
    the database ('load': the rest) added to it, when the search ran.
    """
    started = time.perf_counter()
    names = _resolve(conn, request)
    if names.lack_some_of(request):
        # Only an unknown name needs the whole picture: a 400, or the
        # reference's early empty answer.
        snapshot = full_snapshot(conn, request, list(names.classes.values()))
        if not precheck.check_names(request, snapshot, names.classes, names.traits):
            return [], []
    walk = _Walk(conn, request, names)
    if walk.hopeless:
        return [], []
    wanted = [n for n in (request.limit, max_candidates) if n is not None and n >= 0]
    candidates: list = []
    sizes = _Sizes(min(wanted) if wanted else None, lambda: len(candidates), batch)
    batches = walk.batches(sizes, rng)
    loading = [0.0]
    if timings is not None:
        batches = _timed(batches, loading)
    searching = time.perf_counter()
    for candidate in search.stream_candidates(request, batches, max_candidates=max_candidates,
                                              strategy=strategy, rng=rng):
        candidates.append(candidate)
    if timings is not None:
        now = time.perf_counter()
        timings["search"] = timings.get("search", 0.0) + now - searching - loading[0]
        timings["load"] = timings.get("load", 0.0) + searching - started + loading[0]
    return candidates, search.summary_providers(candidates, request.nested_aware)


def _timed(batches: Iterator[Snapshot], spent: list[float]) -> Iterator[Snapshot]:
    """``batches``, adding the seconds each takes to load to ``spent[0]``."""
    while True:
        start = time.perf_counter()
        snapshot = next(batches, None)
        spent[0] += time.perf_counter() - start
        if snapshot is None:
            return
        yield snapshot


class _Sizes:
    """Pages of roots and batches of trees. A limited query's first batch is
    a sixteenth of its limit and the next ones what the yield so far says the
    rest of the answer needs: a batch's trees are loaded and searched whole,
    so roots beyond the need are wasted work. ``batch`` (first, largest)
    sets both sizes instead, for tests."""

    def __init__(self, wanted: int | None, produced: Callable[[], int],
                 batch: tuple[int, int] | None = None):
        self.wanted, self.produced = wanted, produced
        low, high = FIRST_PAGE
        if batch is not None:
            self.page, self.largest = batch
            self.batch = self.smallest = self.page
        else:
            self.page = high if wanted is None else max(low, min(high, wanted))
            self.largest = LARGEST_PAGE
            self.batch = self.page if wanted is None else max(SMALLEST_BATCH, wanted // 16)
            self.smallest = min(self.batch, SMALLEST_BATCH)

    def next_page(self, batch: int) -> int:
        """The size of the next page of roots, read for a batch of ``batch``:
        the first page, then the batch itself (limited) or four times the
        last page (unlimited)."""
        size = max(self.page, batch)
        self.page = min(self.page * 4, self.largest) if self.wanted is None else 0
        return size

    def next_batch(self, walked: int) -> int:
        """The size of the next batch, once ``walked`` roots were searched."""
        size = self.batch
        if walked:
            produced = self.produced()
            if self.wanted is None or not produced:
                size *= 4
            else:
                # the roots the rest needs at the yield so far, with a margin
                # that saves most answers a last small batch
                size = int(max(self.wanted - produced, 0) * walked / produced * 1.1) + 1
        self.batch = max(self.smallest, min(size, self.largest))
        return self.batch


# Statements built once: constructing a SQLAlchemy statement per request
# cost more than the small lookups themselves.
_IDS_BY_NAME = {
    table: sa.text(f"SELECT {column}, id FROM {table} WHERE {column} IN :names")
    .bindparams(sa.bindparam("names", expanding=True))
    for table, column in (("resource_classes", "name"), ("traits", "name"),
                          ("placement_aggregates", "uuid"))}


def _resolve(conn: Connection, request: CandidateRequest) -> _Names:
    aggs = {u for g in request.groups for s in (*g.member_of, g.forbidden_aggs) for u in s}

    def ids(table: str, names) -> dict:
        if not names:
            return {}
        return dict(conn.execute(_IDS_BY_NAME[table], {"names": sorted(names)}).all())

    return _Names(ids("resource_classes", request.resource_classes()),
                  ids("traits", request.trait_names()), ids("placement_aggregates", aggs))


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
        # A tree's aggregates matter only to aggregate filters, to the sharing
        # providers it may be served by, and to resourceless groups (which
        # may use a sharing provider of any tree); provider summaries do not
        # show them.
        self.aggregates = any(g.member_of or g.forbidden_aggs or not g.resources
                              for g in request.groups) or any(p.is_sharing for p in self.aux)
        self.roots_sql = _roots_sql(conn.dialect, _RootFilter(self).plan())

    def _possible(self) -> bool:
        """False when the engine would find nothing anywhere: an unknown
        in_tree provider, or a member_of no provider meets."""
        request, conn = self.request, self.conn
        uuids = {g.in_tree for g in request.groups if g.in_tree}
        if uuids and len(_in_tree_roots(conn, request)) < len(uuids):
            return False
        for group in request.groups:
            # a group with resources needs a member in the roots' own filter;
            # a resourceless one would otherwise walk every root for nothing
            if group.member_of and not group.resources:
                p = rp_t.alias("p")
                found = conn.execute(sa.select(p.c.id).where(
                    *_Tests(conn.dialect.name).member_of(
                        p.c.id, [_agg_ids(self.names, s) for s in group.member_of]))
                    .limit(1)).first()
                if found is None:
                    return False
        return True

    def batches(self, sizes: _Sizes, rng: random.Random | None = None) -> Iterator[Snapshot]:
        """Snapshots of consecutive runs of candidate roots, in answer order."""
        pages: _InOrder | _Shuffled
        if rng is None:
            pages = _InOrder(self.conn, self.roots_sql)
        else:
            pages = _Shuffled(self.conn, self.roots_sql, rng, sizes.largest,
                              confined=bool(self.targets))
        page: list[int] = []
        walked = 0
        while True:
            want = sizes.next_batch(walked)
            if not page:
                page = pages.next(sizes.next_page(want))
                if not page:
                    return
            ids, page = page[:want], page[want:]
            walked += len(ids)
            trees = load_trees(self.conn, [i for i in ids if i not in self.aux_roots],
                               self.class_names, self.aggregates)
            yield Snapshot(self.aux + trees, anchor_ids=ids)


class _InOrder:
    """The candidate roots by id, one query per page."""

    def __init__(self, conn: Connection, roots_sql: str):
        self.conn, self.roots_sql = conn, roots_sql
        self.after, self.done = -1, False

    def next(self, size: int) -> list[int]:
        """The next ``size`` candidate roots (fewer at the end, then none)."""
        if self.done:
            return []
        page = list(self.conn.exec_driver_sql(
            f"{self.roots_sql} AND resource_providers.id > {int(self.after)}"
            f" ORDER BY resource_providers.id LIMIT {int(size)}").scalars())
        self.done = len(page) < size
        if page:
            self.after = page[-1]
        return page


class _Shuffled:
    """The candidate roots in random order (randomize_allocation_candidates).

    Provider ids are drawn in a uniformly random order (_Permutation) and the
    roots' filter runs on slices of that order until a page is full: a
    limited query filters about the providers it needs rather than the whole
    cloud, and the roots that pass (the filter drops the other ids) come in
    a uniformly random order as well. A ``confined`` request (in_tree) has
    few candidate roots: they are filtered in one query, then shuffled."""

    def __init__(self, conn: Connection, roots_sql: str, rng: random.Random, largest: int,
                 confined: bool):
        self.conn = conn
        # ids per statement: each pays the filter's fixed costs (such as the
        # member_of set), so SQLite (ids as one parameter) and PostgreSQL
        # take fewer, longer lists; MariaDB plans a long list of literals
        # worse (at 100,000 providers, a filter passing 4.5% of them: 23,000
        # ids in one statement took 1.35 s, in statements of 4,000 0.62 s)
        self.largest = largest * (1 if conn.dialect.name == "mysql" else 16)
        # the roots' filter, run on each slice of ids; None: already run
        self.filter: str | None = None if confined else f"{roots_sql} AND resource_providers.id"
        if confined:
            self.ids = _Permutation(list(conn.exec_driver_sql(roots_sql).scalars()), rng)
        else:
            # two subqueries: planners read one end of the index for each,
            # where MIN and MAX in one select scan every row (SQLite)
            low, high = conn.exec_driver_sql(
                "SELECT (SELECT MIN(id) FROM resource_providers),"
                " (SELECT MAX(id) FROM resource_providers)").one()
            self.ids = _Permutation(range(low or 0, (high or -1) + 1), rng)

    def next(self, size: int) -> list[int]:
        """At least ``size`` more candidate roots while there are some, then none."""
        found: list[int] = []
        chunk, drawn = size, 0
        while len(found) < size and self.ids.left:
            ids = self.ids.take(chunk)
            if self.filter is None:
                found += ids
                continue
            passed = set(_where_in(self.conn, self.filter, ids).scalars())
            found += [i for i in ids if i in passed]
            # the ids the rest needs at the share that passed so far (ids
            # of children and deleted providers never do), in one query
            # rather than many, as each pays the filter's fixed costs
            drawn += len(ids)
            chunk = (int((size - len(found)) * drawn / len(found) * 1.1) + 1
                     if found else chunk * 4)
            chunk = min(chunk, self.largest)
        return found


class _Permutation:
    """The items of a sequence in a uniformly random order, drawn as needed:
    a Fisher-Yates shuffle of which only the drawn prefix is done, with the
    displaced items kept in a dict (memory and time follow the draws)."""

    def __init__(self, items: Sequence[int], rng: random.Random):
        self.items, self.rng = items, rng
        self.drawn = 0
        self.moved: dict[int, int] = {}  # position -> index of the item now there

    @property
    def left(self) -> int:
        return len(self.items) - self.drawn

    def take(self, count: int) -> list[int]:
        items, moved, randrange, end = self.items, self.moved, self.rng.randrange, len(self.items)
        out = []
        stop = min(end, self.drawn + count)
        for i in range(self.drawn, stop):
            j = randrange(i, end)
            out.append(items[moved.get(j, j)])
            moved[j] = moved.pop(i, i)  # position i is used up: its item moves to j
        self.drawn = stop
        return out


class _RootFilter:
    """SQL conditions on a root (``rp_t``) that every anchor of a candidate meets.

    They are written as a plan of plain tuples (ids, amounts, and the sharing
    providers that may serve instead), which _roots_sql turns into SQL once
    per distinct plan: building SQLAlchemy expressions costs more than running
    them on a small cloud, and the scheduler asks the same shapes again."""

    def __init__(self, walk: _Walk):
        self.names = walk.names
        self.request = walk.request
        self.targets = walk.targets
        self.sharing = walk.sharing

    def plan(self) -> tuple:
        request = self.request
        plan = [("root_has", self._trait_ids([n])) for n in sorted(request.root_required)]
        if request.root_forbidden:
            plan.append(("root_lacks", self._trait_ids(request.root_forbidden)))
        for group in request.groups:
            if group.suffix:
                if group.resources:
                    plan.append(self._granular(group))
            else:
                plan += self._unsuffixed(group)
        return tuple(plan)

    def _unsuffixed(self, group: RequestGroup) -> list:
        # the sharing providers that may serve other trees for this group
        serving = [] if group.in_tree else [
            s for s in self.sharing
            if all(s.aggregates & any_of for any_of in group.member_of)
            and not (s.traits & group.forbidden or s.aggregates & group.forbidden_aggs)]
        # cheap and selective tests first: databases mostly keep this order
        served = {rc: _served(s for s in serving if s.fits(rc, amount))
                  for rc, amount in group.resources.items()}
        plan: list = []
        if group.in_tree:
            plan.append(("in_tree", self.targets[group.in_tree]))
        if group.forbidden_aggs:
            plan.append(("not_in_aggs", self._agg_ids(group.forbidden_aggs)))
        if group.member_of:
            # A class no sharing provider can give comes from the tree, from
            # a provider that is a member or whose root is: then sharing
            # providers cannot make up for a tree without members.
            plan.append(("member_of", self._member_of(group),
                         _served(serving) if all(served.values()) else None))
        for clause in group.trait_clauses:
            plan.append(("traits", self._trait_ids(clause),
                         _served(s for s in serving if s.traits & clause)))
        for rc, amount in group.resources.items():
            plan.append(("class", self.names.classes[rc], amount,
                         self._trait_ids(group.forbidden), self._agg_ids(group.forbidden_aggs),
                         served[rc]))
        return plan

    def _granular(self, group: RequestGroup) -> tuple:
        target = self.targets[group.in_tree] if group.in_tree else None
        serving = _served(
            s for s in self.sharing
            if all(s.fits(c, n) for c, n in group.resources.items())
            and (target is None or s.root_id == target)
            and all(clause & s.traits for clause in group.trait_clauses)
            and all(s.aggregates & any_of for any_of in group.member_of)
            and not (s.traits & group.forbidden or s.aggregates & group.forbidden_aggs))
        return ("granular",
                tuple((self.names.classes[rc], n) for rc, n in group.resources.items()),
                tuple(self._trait_ids(c) for c in group.trait_clauses),
                self._trait_ids(group.forbidden), self._member_of(group),
                self._agg_ids(group.forbidden_aggs), target, serving)

    def _trait_ids(self, names: Iterable[str]) -> tuple[int, ...]:
        return tuple(self.names.traits[n] for n in sorted(names))

    def _agg_ids(self, uuids: Iterable[str]) -> tuple[int, ...]:
        return _agg_ids(self.names, uuids)

    def _member_of(self, group: RequestGroup) -> tuple[tuple[int, ...], ...]:
        return tuple(self._agg_ids(any_of) for any_of in group.member_of)


def _agg_ids(names: _Names, uuids: Iterable[str]) -> tuple[int, ...]:
    """Ids of the known aggregates among ``uuids`` (an unknown one has no member)."""
    return tuple(names.aggregates[u] for u in sorted(uuids) if u in names.aggregates)


def _served(sharing: Iterable[Provider]) -> tuple[tuple[int, ...], tuple[int, ...]] | None:
    """The plan's form of some sharing providers: their ids and their roots."""
    sharing = list(sharing)
    if not sharing:
        return None
    return tuple(sorted(s.id for s in sharing)), tuple(sorted({s.root_id for s in sharing}))


@functools.lru_cache(maxsize=256)
def _roots_sql(dialect: sa.Dialect, plan: tuple) -> str:
    """The query of the plan's candidate roots, as SQL text ending in its
    WHERE clause (callers append a range and an order). Compiled once per
    plan: with SQLAlchemy's per-execution work it cost several times what
    running it does. All values in it are integers and floats."""
    tests = _Tests(dialect.name)
    # roots are the providers without a parent (a test planners estimate well)
    query = sa.select(rp_t.c.id).where(rp_t.c.parent_provider_id.is_(None),
                                       *(_BUILD[kind](tests, *args) for kind, *args in plan))
    return str(query.compile(dialect=dialect, compile_kwargs={"literal_binds": True}))


def _root_has(tests: "_Tests", trait_ids) -> sa.ColumnElement:
    return tests.has_trait(rp_t.c.id, trait_ids)


def _root_lacks(tests: "_Tests", trait_ids) -> sa.ColumnElement:
    return ~tests.has_trait(rp_t.c.id, trait_ids)


def _in_tree(tests: "_Tests", target: int) -> sa.ColumnElement:
    return rp_t.c.id == target


def _not_in_aggs(tests: "_Tests", agg_ids) -> sa.ColumnElement:
    return ~tests.in_aggs(rp_t.c.id, agg_ids)


def _member_of(tests: "_Tests", sets, served) -> sa.ColumnElement:
    # the provider or the root must be a member: some provider of the tree is
    # (the root is one of them)
    root, p, link = rp_t.c.id, rp_t.alias("p"), rpa_t.alias("pa")
    in_first = sa.select(p.c.root_provider_id).join(
        link, link.c.resource_provider_id == p.c.id).where(link.c.aggregate_id.in_(sets[0]))
    return sa.or_(
        # a set the database computes once, rather than a probe per root
        sa.and_(root.in_(in_first), tests.some(sa.select(1).select_from(p).where(
            p.c.root_provider_id == root, *tests.member_of(p.c.id, sets)))),
        _served_by(tests, served))


def _traits(tests: "_Tests", trait_ids, served) -> sa.ColumnElement:
    # judged on every provider the group uses: any of the tree's, or a sharing
    # provider serving it
    p = rp_t.alias("p")
    anywhere = tests.some(sa.select(1).select_from(p).where(
        p.c.root_provider_id == rp_t.c.id, tests.has_trait(p.c.id, trait_ids)))
    return sa.or_(anywhere, _served_by(tests, served))


def _class(tests: "_Tests", rc_id: int, amount: int, forbidden, forbidden_aggs,
           served) -> sa.ColumnElement:
    p, inv = rp_t.alias("p"), inv_t.alias("i")
    own = [p.c.root_provider_id == rp_t.c.id, tests.class_is(inv, rc_id),
           *capacity.can_take(inv, amount, headroom=True)]
    if forbidden:
        own.append(~tests.has_trait(p.c.id, forbidden))
    if forbidden_aggs:
        own.append(~tests.in_aggs(p.c.id, forbidden_aggs))
    found = tests.some(sa.select(1).select_from(
        p.join(inv, inv.c.resource_provider_id == p.c.id)).where(*own))
    return sa.or_(found, _served_by(tests, served))


def _granular(tests: "_Tests", amounts, clauses, forbidden, sets, forbidden_aggs, target,
              served) -> sa.ColumnElement:
    (rc_id, amount), *others = amounts
    p, inv = rp_t.alias("p"), inv_t.alias("i")
    own = [p.c.root_provider_id == rp_t.c.id, tests.class_is(inv, rc_id),
           *capacity.can_take(inv, amount, headroom=True)]
    for other, n in others:
        more = inv_t.alias("j")
        own.append(tests.some(sa.select(1).where(
            more.c.resource_provider_id == p.c.id,
            tests.class_is(more, other), *capacity.can_take(more, n, headroom=True))))
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
    return sa.or_(found, _served_by(tests, served))


def _served_by(tests: "_Tests", served) -> sa.ColumnElement:
    """The root is served by one of these sharing providers: it is the root
    of one, or one of its providers is in one of their aggregates."""
    if served is None:
        return sa.false()
    sharing_ids, sharing_roots = served
    root, q, link = rp_t.c.id, rp_t.alias("q"), rpa_t.alias("qa")
    their_aggs = sa.select(rpa_t.c.aggregate_id).where(
        rpa_t.c.resource_provider_id.in_(sharing_ids))
    return sa.or_(
        root.in_(sharing_roots),
        tests.some(sa.select(1).select_from(
            q.join(link, link.c.resource_provider_id == q.c.id)).where(
            q.c.root_provider_id == root, link.c.aggregate_id.in_(their_aggs))))


_BUILD: dict[str, Callable[..., sa.ColumnElement]] = {
    "root_has": _root_has, "root_lacks": _root_lacks, "in_tree": _in_tree,
    "not_in_aggs": _not_in_aggs, "member_of": _member_of, "traits": _traits,
    "class": _class, "granular": _granular}


class _Tests:
    """The SQL tests on one provider that the root filter is made of, in the
    form the backend plans well."""

    def __init__(self, dialect: str):
        self.mysql = dialect == "mysql"
        self.postgresql = dialect == "postgresql"

    def class_is(self, inv, rc_id: int) -> sa.ColumnElement:
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

    def member_of(self, provider_id, sets) -> list:
        """The provider is in one aggregate of each any-of set of ids."""
        return [self.in_aggs(provider_id, ids) for ids in sets]


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


# Roots of the sharing providers with inventory of some classes (built once:
# every candidates request asks).
_SHARING_ROOTS = (
    sa.select(rp_t.c.root_provider_id).distinct()
    .join(inv_t, inv_t.c.resource_provider_id == rp_t.c.id)
    .where(inv_t.c.resource_class_id.in_(sa.bindparam("rc_ids", expanding=True)),
           rp_t.c.id.in_(_sharing_providers())))


def _sharing_roots(conn: Connection, rc_ids: list[int]) -> set[int]:
    """Roots of the sharing providers with inventory of a requested class."""
    return set(conn.execute(_SHARING_ROOTS, {"rc_ids": rc_ids}).scalars())


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


def checked_snapshot(conn: Connection, request: CandidateRequest) -> Snapshot:
    """``full_snapshot`` of the request, after the reference's checks of the
    names it uses (BadRequest where GET /allocation_candidates gives one)."""
    names = _resolve(conn, request)
    snapshot = full_snapshot(conn, request, list(names.classes.values()))
    if names.lack_some_of(request):
        precheck.check_names(request, snapshot, names.classes, names.traits)
    return snapshot


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


# The tree loader's queries, as the driver takes them (each ends in the
# column that _where_in tests): with thousands of ids inlined each statement is
# new to SQLAlchemy's compiled cache, and compiling it would cost more than
# running it.
_LOAD = {
    "providers": "SELECT id, uuid, name, generation, parent_provider_id, root_provider_id"
                 " FROM resource_providers WHERE root_provider_id",
    # each inventory with its usage: one index probe per record, and one
    # row for both instead of a second query and a second pass
    "inventories": "SELECT i.resource_provider_id, i.resource_class_id, i.total, i.reserved,"
                   " i.min_unit, i.max_unit, i.step_size, i.allocation_ratio,"
                   " (SELECT SUM(a.used) FROM allocations a"
                   " WHERE a.resource_provider_id = i.resource_provider_id"
                   " AND a.resource_class_id = i.resource_class_id)"
                   " FROM inventories i WHERE i.resource_provider_id",
    "traits": "SELECT l.resource_provider_id, t.name FROM resource_provider_traits l"
              " JOIN traits t ON t.id = l.trait_id WHERE l.resource_provider_id",
    "aggregates": "SELECT l.resource_provider_id, a.uuid FROM resource_provider_aggregates l"
                  " JOIN placement_aggregates a ON a.id = l.aggregate_id"
                  " WHERE l.resource_provider_id",
}


def _where_in(conn: Connection, sql: str, ids: Iterable[int]) -> sa.CursorResult:
    """Run ``sql``, which ends in a column, with ``IN`` the ids appended.

    The ids are written as integer literals (no bound parameter per id),
    except on SQLite: there they are one JSON parameter, so that the
    statement's text is the same whatever the ids. Python's sqlite3 keeps
    every distinct statement it prepared (128 per connection), each holding
    about 100 bytes per literal id: a worker kept tens of MiB of them after
    a few large answers."""
    ids = sorted(set(map(int, ids)))
    if conn.dialect.name == "sqlite":
        return conn.exec_driver_sql(f"{sql} IN (SELECT value FROM json_each(?))",
                                    (orjson.dumps(ids).decode(),))
    return conn.exec_driver_sql(f"{sql} IN ({','.join(map(str, ids))})")


def _load(conn: Connection, query: str, ids: Iterable[int]) -> Sequence[tuple]:
    return plain_rows(_where_in(conn, _LOAD[query], ids))


def load_trees(conn: Connection, root_ids: list[int],
               class_names: dict[int, str] | None = None,
               aggregates: bool = True) -> list[Provider]:
    """Every provider of the trees of ``root_ids``, with its inventories,
    usages, traits and aggregates (or none, where the caller has no use for
    them): four queries at most, whatever the number (``class_names``,
    id -> name, saves a fifth)."""
    if not root_ids:
        return []
    rows = _load(conn, "providers", root_ids)
    ids = [r[0] for r in rows]
    if not ids:
        return []
    names = class_names or _class_names(conn)
    inventories: dict[int, dict[str, Inventory]] = collections.defaultdict(dict)
    usages: dict[int, dict[str, int]] = collections.defaultdict(dict)
    for rp, rc, total, reserved, min_unit, max_unit, step, ratio, used in _load(
            conn, "inventories", ids):
        name = names[rc]
        inventories[rp][name] = Inventory(total, reserved, min_unit, max_unit, step, ratio)
        if used is not None:
            usages[rp][name] = int(used)
    traits = _linked(_load(conn, "traits", ids))
    links = _linked(_load(conn, "aggregates", ids)) if aggregates else {}
    empty: frozenset[str] = frozenset()
    return [
        Provider(id_, uuid, name, parent, root, generation or 0, traits.get(id_, empty),
                 links.get(id_, empty), inventories[id_], usages[id_])
        for id_, uuid, name, generation, parent, root in rows]


def _class_names(conn: Connection) -> dict[int, str]:
    return dict(conn.exec_driver_sql("SELECT id, name FROM resource_classes").all())


def _linked(rows) -> dict[int, frozenset]:
    """provider id -> the values (trait names, aggregate uuids) of its rows."""
    result = collections.defaultdict(set)
    for rp, item in rows:
        result[rp].add(item)
    return {rp: frozenset(items) for rp, items in result.items()}

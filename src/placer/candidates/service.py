"""The candidate service: what GET /allocation_candidates, its explain and
``placement-manage explain`` call, over a Store (the database behind it).

A search walks the candidate roots in answer order ([placer]
candidate_order: by id; in a random order drawn as it goes; or, for spread
and pack, best rank first from the trees' stored scores, see order.py and
ranking.py). The trees of one batch are loaded with a fixed number of
queries, searched, and the next batch is loaded only while the answer
needs more, so a limited query costs what its answer costs, not what the
cloud holds. Trees that serve others (those of sharing providers and
in_tree targets) are loaded once per request and join every batch.

Explain needs every tree that could hold part of an answer, to count what
each constraint removes: a read of the relevant part of the cloud, fine
for an operator's question, not for the scheduler's path.

This module is the one door into candidates/: handlers, the CLI, conf and
shapes import it and nothing else of the package (db/ implements the Store
of store.py over the types of request.py and snapshot.py; schemas/ parses a
query into a request.CandidateRequest). The import contracts of
pyproject.toml ([tool.importlinter], run by lint-imports and
tests/unit/test_layers.py) keep the rest of the package behind it.
"""

import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TypeVar

from placer import exceptions
from placer.candidates import (
    batches,
    capacity,
    explanation,
    precheck,
    ranking,
    render,
    search,
    solver,
)
from placer.candidates import order as _order
from placer.candidates.batches import InOrder, Ranked, Shuffled, Sizes
from placer.candidates.domains import Layout
from placer.candidates.explanation import render as explanation_render
from placer.candidates.explanation.steps import Explanation
from placer.candidates.order import BY_ID, Order
from placer.candidates.request import CandidateRequest
from placer.candidates.root_plan import RootPlan
from placer.candidates.snapshot import Provider, Snapshot
from placer.candidates.store import Names, Store

T = TypeVar("T")
# runs a function on a Store inside one read transaction
Reader = Callable[[Callable[[Store], T]], T]

# --- the door: what callers outside candidates/ use, besides find, explain,
# count_copies, asks_for_resources and the types above (CandidateRequest, Store,
# Order, Explanation) and below (Timings)
Count = capacity.Count  # how many copies of a request fit, per root and in all
ORDERS = _order.ORDERS  # [placer] candidate_order's choices
order_from_conf = _order.from_conf  # the candidate order [placer] asks for
check_order_weights = _order.check_weights  # [placer] candidate_order_weights, at start-up
candidates_body = render.body  # GET /allocation_candidates' answer body
explanation_body = explanation_render.body  # GET /allocation_candidates/explain's


@dataclass
class Timings:
    """Seconds a search spent loading from the database and searching
    (``searched``: it got that far; an unknown name or an impossible
    request stops it before)."""

    load: float = 0.0
    search: float = 0.0
    searched: bool = False


def find(store: Store, request: CandidateRequest, *, max_candidates: int = -1,
         strategy: str = "depth-first", order: Order = BY_ID,
         rng: random.Random | None = None, batch: tuple[int, int] | None = None,
         timings: Timings | None = None) -> tuple[list, list[Provider]]:
    """(candidates, providers for provider_summaries) for ``request``, in
    ``order`` (``random`` and the herd pool of spread and pack draw from
    ``rng``: a fresh generator unless given; the id order draws nothing).

    Raises BadRequest for an unknown name, where the reference reports it.
    ``batch`` overrides (first, largest) batch sizes, for tests. ``timings``,
    if given, gets the time spent added to it, when the search ran.
    """
    started = time.perf_counter()
    if rng is None and order.name != "id":
        rng = random.Random()
    names = store.names(request)
    if names.lack_some_of(request):
        # Only an unknown name needs the whole picture: a 400, or the
        # reference's early empty answer.
        snapshot = store.whole_cloud(request, list(names.classes.values()))
        if not precheck.check_names(request, snapshot, names.classes, names.traits):
            return [], []
    walk = _Walk(store, request, names)
    if walk.hopeless:
        return [], []
    wanted = [n for n in (request.limit, max_candidates) if n is not None and n >= 0]
    candidates: list = []
    sizes = batches.Sizes(min(wanted) if wanted else None, lambda: len(candidates), batch)
    trees = walk.batches(sizes, order, rng)
    loading = [0.0]
    if timings is not None:
        trees = _timed(trees, loading)
    searching = time.perf_counter()
    for candidate in search.stream_candidates(
            request, trees, max_candidates=max_candidates, strategy=strategy,
            rng=rng if order.name == "random" else None, order=order):
        candidates.append(candidate)
    if timings is not None:
        now = time.perf_counter()
        timings.search += now - searching - loading[0]
        timings.load += searching - started + loading[0]
        timings.searched = True
    return candidates, search.summary_providers(candidates, request.nested_aware)


def asks_for_resources(pairs: list[tuple[str, str]]) -> bool:
    """Whether a query string's pairs name resources (a candidates query)."""
    return any(key.startswith("resources") for key, _ in pairs)


def count_copies(store: Store, requests: dict[str, CandidateRequest], budget: float
                 ) -> Iterator[tuple[str, capacity.Count]]:
    """(name, Count) of each request in turn: how many copies of it fit at
    once, per root and in all (candidates/capacity.py), all on one store
    (one read); ``budget``: seconds the integer programs of each request
    may take. Counting a request raises BadRequest for an unknown name,
    where GET /allocation_candidates gives one.

    Where no sharing provider is involved, roots that are their whole tree,
    and every tree for a request of amounts alone whose slots are
    independent, are counted from the inventory rows (read once for every
    request: a capacity.Table); only the other trees are loaded, a batch at
    a time, and once for all the requests."""
    if len(requests) > 1:
        store = _TreesOnce(store)
    cloud = _Cloud(store, {rc for r in requests.values() for rc in r.resource_classes()})
    for name, request in requests.items():
        yield name, _count(store, request, budget, cloud)


class _TreesOnce:
    """A store that loads each tree once: several requests of one read walk
    the same trees (kept until the read ends)."""

    def __init__(self, store: Store):
        self._store = store
        self._trees: dict[int, list[Provider]] = {}

    def __getattr__(self, name: str):
        return getattr(self._store, name)

    def trees(self, root_ids: list[int], class_names: dict[int, str] | None = None,
              aggregates: bool = True) -> list[Provider]:
        missing = [root for root in root_ids if root not in self._trees]
        if missing:
            for root in missing:
                self._trees[root] = []
            for p in self._store.trees(missing, class_names, True):
                self._trees[p.root_id].append(p)
        return [p for root in root_ids for p in self._trees[root]]


class _Cloud:
    """What one read holds for counting many requests: the Table of every
    root and provider (of the requests' classes) and the roots whose tree
    holds more than the root, read on first use."""

    def __init__(self, store: Store, classes: set[str]):
        self.store, self.classes = store, classes
        self._table: capacity.Table | None = None
        self._children: list[tuple[int, int]] | None = None
        self._nested: list[int] | None = None

    @property
    def children(self) -> list[tuple[int, int]]:
        if self._children is None:
            self._children = self.store.children()
        return self._children

    @property
    def nested(self) -> list[int]:
        if self._nested is None:
            self._nested = sorted({root for _, root in self.children})
        return self._nested

    @property
    def table(self) -> capacity.Table:
        if self._table is None:
            ids = self.store.names_of_classes(sorted(self.classes))
            by_id = {rc_id: rc for rc, rc_id in ids.items()}
            self._table = capacity.Table(self.store.all_roots(), self.children,
                                         self.store.inventories(list(by_id)), by_id)
        return self._table


def _count(store: Store, request: CandidateRequest, budget: float, cloud: _Cloud
           ) -> capacity.Count:
    names = store.names(request)
    if names.lack_some_of(request):
        snapshot = store.whole_cloud(request, list(names.classes.values()))
        if not precheck.check_names(request, snapshot, names.classes, names.traits):
            return capacity.Count()
    walk = _Walk(store, request, names)
    if walk.hopeless:
        return capacity.Count()
    if walk.sharing or not all(g.resources for g in request.groups):
        return capacity.count(request, walk.batches(batches.Sizes(None, lambda: 0), BY_ID),
                              budget)
    if not _filtered(request):
        if solver.Plan(Layout(request), request, Snapshot([])).independent:
            # nothing but amounts, and every combination of the slots'
            # providers a candidate: counted from the table, every tree
            return capacity.count(request, [], budget, cloud.table.independent_fits(request))
        nested = sorted(walk.roots.among(cloud.nested)) if cloud.nested else []
        fits = cloud.table.lone_fits(request)
    else:  # the root filter says which roots meet the filters
        allowed = walk.roots.all()
        nested = sorted(set(allowed).intersection(cloud.nested))
        fits = cloud.table.lone_fits(request, allowed)
    return capacity.count(request, walk.batches_of(nested), budget, fits)


def _filtered(request: CandidateRequest) -> bool:
    """Whether the request has conditions beyond amounts (traits,
    aggregates, in_tree, root traits)."""
    return bool(request.root_required or request.root_forbidden) or any(
        g.required or g.forbidden or g.any_of or g.member_of or g.forbidden_aggs or g.in_tree
        for g in request.groups)


def _timed(trees: Iterator[Snapshot], spent: list[float]) -> Iterator[Snapshot]:
    """``trees``, adding the seconds each batch takes to load to ``spent[0]``."""
    while True:
        start = time.perf_counter()
        snapshot = next(trees, None)
        spent[0] += time.perf_counter() - start
        if snapshot is None:
            return
        yield snapshot


class _Walk:
    """The request's walk over candidate roots, one batch of trees at a time."""

    def __init__(self, store: Store, request: CandidateRequest, names: Names):
        self.store, self.request, self.names = store, request, names
        self.targets = self._targets() if names.classes else {}
        self.hopeless = not names.classes or not self._possible()
        if self.hopeless:
            return
        rc_ids = list(names.classes.values())
        # the trees that may serve others: in_tree targets and sharing providers'
        serving = set(self.targets.values()) | store.sharing_roots(rc_ids)
        if any(not g.resources for g in request.groups):
            serving |= store.classless_sharing_roots(rc_ids)
        self.serving_roots = serving
        self.class_names = store.class_names()
        self.serving = store.trees(sorted(serving), self.class_names)
        sharing = [p for p in self.serving if p.is_sharing and p.inventories]
        self.sharing = sharing
        # A tree's aggregates matter only to aggregate filters, to the sharing
        # providers it may be served by, and to resourceless groups (which
        # may use a sharing provider of any tree); provider summaries do not
        # show them.
        self.aggregates = any(g.member_of or g.forbidden_aggs or not g.resources
                              for g in request.groups) or any(p.is_sharing for p in self.serving)
        self.roots = store.roots(RootPlan(request, names, self.targets, sharing).plan())

    def _targets(self) -> dict[str, int]:
        uuids = {g.in_tree for g in self.request.groups if g.in_tree}
        return self.store.in_tree_roots(uuids) if uuids else {}

    def _possible(self) -> bool:
        """False when the engine would find nothing anywhere: an unknown
        in_tree provider, or a member_of no provider meets."""
        uuids = {g.in_tree for g in self.request.groups if g.in_tree}
        if len(self.targets) < len(uuids):
            return False
        # a group with resources needs a member in the roots' own filter;
        # a resourceless one would otherwise walk every root for nothing
        return all(self.store.any_member([self.names.agg_ids(s) for s in group.member_of])
                   for group in self.request.groups if group.member_of and not group.resources)

    def batches(self, sizes: batches.Sizes, order: Order, rng: random.Random | None = None
                ) -> Iterator[Snapshot]:
        """Snapshots of consecutive runs of candidate roots, in answer order."""
        pages = self._pages(sizes, order, rng)
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
            yield self._snapshot(ids)

    def batches_of(self, root_ids: list[int], size: int = 1000) -> Iterator[Snapshot]:
        """Snapshots of these candidate roots, ``size`` at a time."""
        for start in range(0, len(root_ids), size):
            yield self._snapshot(root_ids[start:start + size])

    def _snapshot(self, ids: list[int]) -> Snapshot:
        """The trees of these roots, and those serving them, answering for them."""
        trees = self.store.trees([i for i in ids if i not in self.serving_roots],
                                 self.class_names, self.aggregates)
        return Snapshot(self.serving + trees, anchor_ids=ids)

    def _pages(self, sizes: Sizes, order: Order, rng: random.Random | None
               ) -> InOrder | Shuffled | Ranked:
        """The candidate roots in ``order``, a page at a time."""
        terms = self._terms(order)
        if not terms:
            if order.name == "random":
                return batches.Shuffled(self.roots, self.store.id_range(),
                                        rng or random.Random(), sizes.largest,
                                        confined=bool(self.targets))
            return batches.InOrder(self.roots)
        best: batches.RankedRoots | batches.Listed
        if self.targets:  # in_tree confines the answer to a few trees: rank them all
            best = batches.Listed(self._ranked_roots(order, terms))
        else:
            walk = ranking.Ranking(self.store, order, terms)
            best = batches.RankedRoots(self.roots, walk, tail=all(t.least == 0 for t in terms))
        return batches.Ranked(best, order.pool_size(sizes.wanted), rng)

    def _ranked_roots(self, order: Order, terms: list[ranking.Term]) -> list[int]:
        """All candidate roots, by (rank, id) from their stored scores."""
        roots = self.roots.all()
        free = self.store.free(roots, [t.rc_id for t in terms])
        return sorted(roots, key=lambda root: (ranking.rank(order, terms, free.get(root, {})),
                                               root))

    def _terms(self, order: Order) -> list[ranking.Term]:
        """The classes of a spread or pack walk, none for the others (or
        when the scores are not kept, or no requested class weighs): a
        class no sharing provider holds must come from the tree itself,
        so trees lacking the least amount a group asks of it are skipped."""
        if not order.scored or not self.store.scores_kept:
            return []
        terms = []
        for rc in order.weighted(self.request.resource_classes()):
            shared = any(rc in s.inventories for s in self.sharing)
            least = 0 if shared else min(g.resources[rc] for g in self.request.groups
                                         if rc in g.resources)
            terms.append(ranking.Term(self.names.classes[rc], order.weight(rc), least))
        return terms


def checked_snapshot(store: Store, request: CandidateRequest) -> Snapshot:
    """The whole-cloud snapshot of the request, after the reference's checks
    of the names it uses (BadRequest where GET /allocation_candidates gives
    one)."""
    names = store.names(request)
    snapshot = store.whole_cloud(request, list(names.classes.values()))
    if names.lack_some_of(request):
        precheck.check_names(request, snapshot, names.classes, names.traits)
    return snapshot


def explain(read: Reader, request: CandidateRequest, provider: str | None = None,
            max_candidates: int = -1, order: Order = BY_ID,
            strategy: str = "depth-first") -> Explanation:
    """The explain answer for a candidates request (``provider``: the uuid of a
    provider to report on, with its tree; schemas/allocation_candidates.py's
    parse_explain_query reads both from explain's query). BadRequest where
    GET /allocation_candidates answers 400 for an unknown name, and for an
    unknown provider."""
    snapshot, around, provider = read(lambda store: _explain_snapshots(store, request, provider))
    return explanation.explain(request, snapshot, provider=provider,
                               provider_snapshot=around, max_candidates=max_candidates,
                               order=order, strategy=strategy)


def _explain_snapshots(store: Store, request: CandidateRequest, provider: str | None
                       ) -> tuple[Snapshot, Snapshot | None, str | None]:
    """(snapshot for the funnel; snapshot for the ``provider`` report: the
    same, plus that provider's tree when the first lacks it; the provider's
    uuid as stored), the last two None without ``provider``."""
    snapshot = checked_snapshot(store, request)
    if provider is None:
        return snapshot, None, None
    if provider in snapshot.by_uuid:
        return snapshot, snapshot, provider
    found = store.provider_root(provider)
    if found is None:
        raise exceptions.BadRequest(f"No resource provider with uuid {provider} found",
                                    code=exceptions.QUERYPARAM_BAD_VALUE)
    uuid, root_id = found
    tree = store.trees([root_id])
    return snapshot, Snapshot([*snapshot.providers.values(), *tree]), uuid

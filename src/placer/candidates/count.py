"""How many copies of a request fit at once: GET and POST /capacity, the
capacity gauges and ``placement-manage capacity``.

``fits`` of a root is the largest k such that k candidates of the request
anchored at that root can be allocated at the same time: each copy a
candidate as the engine judges one (traits, aggregates, min_unit, max_unit
and step_size per copy, the group rules), their amounts summed against
each provider's free capacity ((total - reserved) x allocation_ratio -
used). That is an integer program over the root's distinct candidates (an
allocation vector each: mappings do not matter), counted without it where
the request's shape allows:

- when no rule ties the request's slots together (solver.Plan.independent:
  every combination of the slots' providers is a candidate, and no class is
  asked by two slots), each slot needs one provider per copy and its
  providers are independent, so k = min over slots of the sum over its
  providers of how many copies' share each holds (a flat host: min over
  classes of free // amount; one granular group: the sum over the
  providers that can serve it; the unsuffixed group alone: per class, the
  sum over the tree's providers of that class);
- one distinct candidate: min over its (provider, class) of free // amount;
- candidates touching disjoint (provider, class) pairs: the sum of theirs.

The first two need no tree loaded when no sharing provider is involved:
cloud_table.py holds every root and provider of a read as arrays, and
counts flat hosts, and every tree for requests of amounts alone, for many
requests at once.

The rest is an integer program (program.py), within the time left of the
request's budget. A root whose count is not proven
(its candidates too many to list, or the budget spent) answers a feasible
lower bound, marked inexact.

Sharing providers: a root's ``fits`` counts a sharing provider's free
capacity as if that root alone drew on it (what that host could take now).
``total`` is the number of copies the selection holds at once: the sum of
the roots' fits where no sharing provider is involved; roots drawing on
the same sharing providers compete for them, so those are counted together
(one integer program over their candidates; a lower bound, marked
inexact, when it is not proven in time).
"""

import heapq
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

from placer.candidates import batches, domains, program, solver, walk
from placer.candidates.order import BY_ID
from placer.candidates.program import Free, Solved, Vector
from placer.candidates.request import CandidateRequest
from placer.candidates.snapshot import Provider, Snapshot
from placer.candidates.store import ChildRow, CountStore

if TYPE_CHECKING:
    from placer.candidates.cloud_table import CloudTable, TableFits

MAX_VECTORS = 2000  # distinct candidates listed per root (or per shared pool's roots)


class Root(NamedTuple):
    id: int
    uuid: str
    name: str | None


@dataclass
class RootFit:
    root: Root
    fits: int
    exact: bool = True


@dataclass
class Count:
    """The answer for one request: the roots with fits >= 1, largest first
    (ties by uuid): those counted one by one (``counted``) and, lazily,
    those counted on the cloud table (``table_fits``); ``total``; whether
    the total is proven."""

    total: int = 0
    counted: list[RootFit] = field(default_factory=list)
    total_exact: bool = True
    table_fits: "TableFits | None" = None

    @property
    def inexact(self) -> int:
        return sum(1 for r in self.counted if not r.exact)

    def iter_roots(self) -> Iterator[RootFit]:
        """Every root with fits >= 1, in answer order."""
        if self.table_fits is None:
            return iter(self.counted)
        tabled = (RootFit(Root(*row), k) for row, k in self.table_fits)
        return heapq.merge(self.counted, tabled, key=_answer_order)

    @property
    def roots(self) -> list[RootFit]:
        return list(self.iter_roots())


def _answer_order(fit: RootFit) -> tuple[int, str]:
    return -fit.fits, fit.root.uuid


# --- counting requests on a store ------------------------------------------------------

def count_requests(store: CountStore, requests: dict[str, CandidateRequest], budget: float
                   ) -> Iterator[tuple[str, Count]]:
    """(name, Count) of each request in turn, all on one store (one read);
    ``budget``: seconds the integer programs of each request may take.
    Counting a request raises BadRequest for an unknown name, where GET
    /allocation_candidates gives one.

    Where no sharing provider is involved, flat hosts, and every tree for a
    request of amounts alone whose slots are independent, are counted on
    the cloud table (read once for every request); only the other trees
    are loaded, a batch at a time, and once for all the requests."""
    if len(requests) > 1:
        store = _TreesOnce(store)
    cloud = _Cloud(store, {rc for r in requests.values() for rc in r.resource_classes()})
    for name, request in requests.items():
        yield name, _count_request(store, request, budget, cloud)


class _TreesOnce:
    """A store that loads each tree once: several requests of one read walk
    the same trees (kept until the read ends)."""

    def __init__(self, store: CountStore):
        self._store = store
        self._trees: dict[int, list[Provider]] = {}

    def __getattr__(self, name: str) -> Any:  # the store's other reads, as they are
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
    """What one read holds for counting many requests: the cloud table of
    the requests' classes, and the roots whose tree holds more than the
    root, read on first use."""

    def __init__(self, store: CountStore, classes: set[str]):
        self.store, self.classes = store, classes
        self._table: CloudTable | None = None
        self._children: list[ChildRow] | None = None
        self._nested: list[int] | None = None

    @property
    def children(self) -> list[ChildRow]:
        if self._children is None:
            self._children = self.store.children()
        return self._children

    @property
    def nested(self) -> list[int]:
        if self._nested is None:
            self._nested = sorted({root for _, root in self.children})
        return self._nested

    @property
    def table(self) -> "CloudTable":
        if self._table is None:
            # numpy is loaded only when a count needs the table
            from placer.candidates.cloud_table import CloudTable

            ids = self.store.names_of_classes(sorted(self.classes))
            by_id = {rc_id: rc for rc, rc_id in ids.items()}
            self._table = CloudTable(self.store.all_roots(), self.children,
                                     self.store.inventories(list(by_id)), by_id)
        return self._table


def _count_request(store: CountStore, request: CandidateRequest, budget: float,
                   cloud: _Cloud) -> Count:
    found = walk.start(store, request)
    if found is None:
        return Count()
    if found.sharing or not all(g.resources for g in request.groups):
        return count(request, found.batches(batches.Sizes(None, lambda: 0), BY_ID), budget)
    if not _filtered(request):
        if solver.Plan(domains.Layout(request), request, Snapshot([])).independent:
            # nothing but amounts, and every combination of the slots'
            # providers a candidate: counted on the table, every tree
            return count(request, [], budget, cloud.table.independent_fits(request))
        nested = sorted(found.roots.among(cloud.nested)) if cloud.nested else []
        fits = cloud.table.flat_fits(request)
    else:  # the root filter says which roots meet the filters
        allowed = found.roots.all()
        nested = sorted(set(allowed).intersection(cloud.nested))
        fits = cloud.table.flat_fits(request, allowed)
    return count(request, found.batches_of(nested), budget, fits)


def _filtered(request: CandidateRequest) -> bool:
    """Whether the request has conditions beyond amounts (traits,
    aggregates, in_tree, root traits)."""
    return bool(request.root_required or request.root_forbidden) or any(
        g.required or g.forbidden or g.any_of or g.member_of or g.forbidden_aggs or g.in_tree
        for g in request.groups)


# --- counting on snapshots -------------------------------------------------------------

def count(request: CandidateRequest, snapshots: Iterable[Snapshot], budget: float,
          table_fits: "TableFits | None" = None) -> Count:
    """The Count of ``request`` over the snapshots of the candidate roots
    (each answering for its ``anchor_ids``), within ``budget`` seconds of
    solver time, with the roots of ``table_fits`` counted already."""
    deadline = time.monotonic() + budget
    layout = domains.Layout(request)
    solved: Solved = {}
    fits: list[RootFit] = []
    # the roots drawing on sharing providers: their candidates and free amounts
    pooled: dict[int, tuple[list[Vector], Free]] = {}
    shared_ids: set[int] = set()
    for snapshot in snapshots:
        plan = solver.Plan(layout, request, snapshot)
        for problem in domains.build_problems(request, layout, snapshot):
            p = snapshot.get(problem.anchor)
            root = Root(p.id, p.uuid, p.name)
            sharing = any(p.is_sharing for options in problem.options for p in options)
            if plan.independent and not sharing:
                fit = RootFit(root, _independent(layout, problem.options))
            else:
                vectors, complete = _vectors(plan, problem)
                free = _free_of(vectors, snapshot)
                k, exact = program.solve(vectors, free, solved, deadline)
                fit = RootFit(root, k, exact and complete)
                if sharing and k >= 1:
                    pooled[root.id] = (vectors, free)
                    shared_ids.update(p.id for options in problem.options for p in options
                                      if p.is_sharing)
            if fit.fits >= 1:
                fits.append(fit)
    result = Count(counted=sorted(fits, key=_answer_order), table_fits=table_fits)
    alone = sum(f.fits for f in fits if f.root.id not in pooled)
    shared, exact = program.pools(pooled, {f.root.id: (f.fits, f.exact) for f in fits},
                                  shared_ids, deadline)
    result.total = alone + shared + (table_fits.total if table_fits is not None else 0)
    result.total_exact = exact
    return result


def _free(p: Provider, rc: str) -> int:
    inv = p.inventories[rc]
    return max(inv.capacity - p.usages.get(rc, 0), 0)


def _independent(layout: domains.Layout, options: list[list[Provider]]) -> int:
    """Copies of a request whose slots are independent (see the module)."""
    k = None
    for slot, providers in zip(layout.slots, options, strict=True):
        if not slot.demand:
            continue
        units = sum(min(_free(p, rc) // n for rc, n in slot.demand.items()) for p in providers)
        k = units if k is None else min(k, units)
    return 0 if k is None else k


def _vectors(plan: solver.Plan, problem: domains.Problem) -> tuple[list[Vector], bool]:
    """The root's distinct candidates (at most MAX_VECTORS), and whether
    that is all of them."""
    found: dict[Vector, None] = {}
    slots = plan.slots
    for providers in plan.assignments(problem):
        amounts: dict[tuple[int, str], int] = {}
        for slot, p in zip(slots, providers, strict=True):
            for rc, n in slot.demand.items():
                amounts[p.id, rc] = amounts.get((p.id, rc), 0) + n
        found[tuple(sorted((pid, rc, n) for (pid, rc), n in amounts.items()))] = None
        if len(found) > MAX_VECTORS:
            return list(found)[:MAX_VECTORS], False
    return list(found), True


def _free_of(vectors: list[Vector], snapshot: Snapshot) -> Free:
    return {(pid, rc): _free(snapshot.get(pid), rc)
            for vector in vectors for pid, rc, _ in vector}

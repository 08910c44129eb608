"""How many copies of a request fit at once: GET and POST /capacity.

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
``Table`` holds every root and provider of a read as arrays, and counts
roots that are their whole tree, and every tree for requests of amounts
alone, for many requests at once.

The rest goes to scipy's ``milp`` (HiGHS), within the time left of the
request's budget. Identical trees (the same candidates over the same free
amounts, up to renaming) are solved once. A root whose count is not proven
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
import itertools
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import NamedTuple

from placer.candidates import domains, solver
from placer.candidates.request import CandidateRequest
from placer.candidates.snapshot import Provider, Snapshot

MAX_VECTORS = 2000  # distinct candidates listed per root (or per shared pool's roots)

# one distinct candidate: ((provider id, class, amount), ...) summed per pair
Vector = tuple[tuple[int, str, int], ...]


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
    those of a Table (``lone``: its roots' fits, in that order);
    ``total``; whether the total is proven."""

    total: int = 0
    counted: list[RootFit] = field(default_factory=list)
    total_exact: bool = True
    lone: "TableFits | None" = None

    @property
    def inexact(self) -> int:
        return sum(1 for r in self.counted if not r.exact)

    def iter_roots(self) -> Iterator[RootFit]:
        """Every root with fits >= 1, in answer order."""
        if self.lone is None:
            return iter(self.counted)
        return heapq.merge(self.counted, self.lone, key=_answer_order)

    @property
    def roots(self) -> list[RootFit]:
        return list(self.iter_roots())

    def answer(self, limit: int | None = None) -> dict:
        """The JSON answer of GET /capacity, ``limit`` roots at most."""
        head = {"total": self.total, "exact": self.total_exact, "inexact": self.inexact}
        if not self.counted and self.lone is not None:  # straight from the arrays
            return {**head, "roots": self.lone.answer(limit)}
        roots = itertools.islice(self.iter_roots(), limit)
        return {**head, "roots": [{"uuid": r.root.uuid, "name": r.root.name, "fits": r.fits,
                                   **({} if r.exact else {"exact": False})} for r in roots]}


def _answer_order(fit: RootFit) -> tuple[int, str]:
    return -fit.fits, fit.root.uuid


def count(request: CandidateRequest, batches: Iterable[Snapshot], budget: float,
          lone: "TableFits | None" = None) -> Count:
    """The Count of ``request`` over the snapshots of the candidate roots
    (each answering for its ``anchor_ids``), within ``budget`` seconds of
    solver time, with the roots of ``lone`` counted already."""
    deadline = time.monotonic() + budget
    layout = domains.Layout(request)
    solved: dict = {}  # canonical problem -> (fits, exact)
    fits: list[RootFit] = []
    # the roots drawing on sharing providers: their candidates and free amounts
    pooled: dict[int, tuple[list[Vector], dict]] = {}
    shared_ids: set[int] = set()
    for snapshot in batches:
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
                k, exact = _solve(vectors, free, solved, deadline)
                fit = RootFit(root, k, exact and complete)
                if sharing and k >= 1:
                    pooled[root.id] = (vectors, free)
                    shared_ids.update(p.id for options in problem.options for p in options
                                      if p.is_sharing)
            if fit.fits >= 1:
                fits.append(fit)
    result = Count(counted=sorted(fits, key=_answer_order), lone=lone)
    alone = sum(f.fits for f in fits if f.root.id not in pooled)
    shared, exact = _pools(pooled, {f.root.id: f for f in fits}, shared_ids, deadline)
    result.total = alone + shared + (lone.total if lone is not None else 0)
    result.total_exact = exact
    return result


class Table:
    """Every root of a read and every provider's inventories of some
    classes, as arrays: the copies of a request counted for all roots at
    once, for many requests (one read of the rows), where the request's
    shape allows it without walking trees:

    - ``lone``: roots that are their whole tree, every part of each copy on
      the root (the least over classes of free // the copy's amount, each
      part within the units, the copy within max_unit);
    - ``independent``: a request whose slots no rule ties together and with
      no condition but amounts (see the module), on every tree: per slot,
      the sum over the tree's providers of the copies' shares each holds.

    ``roots``: (id, uuid, name) of every root, by uuid; ``children``:
    (provider id, root id) of every other provider; ``rows``: (provider id,
    class id, free, min_unit, max_unit, step_size) (Store.inventories);
    ``class_names``: class id -> name."""

    def __init__(self, roots: list[tuple[int, str, str | None]],
                 children: list[tuple[int, int]], rows: list[tuple],
                 class_names: dict[int, str]):
        import numpy as np  # noqa: PLC0415 - loaded only when a count needs it

        self.roots = roots
        self.ids = np.array([r[0] for r in roots], dtype=np.int64)
        by_id = np.argsort(self.ids)

        def position(ids):  # of roots, by id
            return by_id[np.searchsorted(self.ids, ids, sorter=by_id)]

        child = np.array([c for c, _ in children], dtype=np.int64)
        child_root = np.array([r for _, r in children], dtype=np.int64)
        # the providers: the roots first (position = root position), then the children
        self.pids = np.concatenate([self.ids, child])
        self.root_of = np.concatenate([np.arange(len(roots)), position(child_root)])
        self.lone = np.ones(len(self.pids), dtype=bool)  # a root that is its whole tree
        self.lone[len(roots):] = False
        self.lone[self.root_of[len(roots):]] = False
        order = np.argsort(self.pids)
        count = len(self.pids)
        self.classes: dict[str, tuple] = {}
        if not rows:
            return
        pid, rc_ids, room, min_unit, max_unit, step = np.array(rows, dtype=np.int64).T
        at = order[np.searchsorted(self.pids, pid, sorter=order)]
        for rc_id in np.unique(rc_ids).tolist():
            mine = rc_ids == rc_id
            free = np.full(count, -1, dtype=np.int64)  # -1: no inventory of the class
            free[at[mine]] = np.maximum(room[mine], 0)
            units = np.zeros((3, count), dtype=np.int64)
            units[:, at[mine]] = np.array([min_unit[mine], max_unit[mine], step[mine]])
            self.classes[class_names[int(rc_id)]] = (free, units)

    def _share(self, rc: str, amounts: list[int]):
        """Per provider: how many copies' ``amounts`` of ``rc`` (summed in a
        copy) it holds, 0 where it has none or the units refuse them."""
        import numpy as np  # noqa: PLC0415

        if rc not in self.classes:
            return np.zeros(len(self.pids), dtype=np.int64)
        free, (min_unit, max_unit, step) = self.classes[rc]
        copy = sum(amounts)
        ok = (free >= 0) & (copy <= max_unit)
        for n in amounts:
            ok &= (min_unit <= n) & (n <= max_unit) & (n % np.maximum(step, 1) == 0)
        return np.where(ok, free // copy, 0)

    def lone_fits(self, request: CandidateRequest, allowed: list[int] | None = None
                  ) -> "TableFits":
        """The copies of ``request`` on the roots that are their whole tree
        (of ``allowed`` ids only, when given: the candidate roots of a
        request with filters); 0 on the others."""
        import numpy as np  # noqa: PLC0415

        layout = domains.Layout(request)
        parts: dict[str, list[int]] = {}
        for slot in layout.slots:
            for rc, n in slot.demand.items():
                parts.setdefault(rc, []).append(n)
        roots = len(self.roots)
        k = np.where(self.lone[:roots], np.iinfo(np.int64).max, 0)
        if request.isolate and sum(1 for s in layout.slots if s.granular and s.demand) > 1:
            k[:] = 0  # isolated groups need as many providers
        for rc, amounts in parts.items():
            k = np.minimum(k, self._share(rc, amounts)[:roots])
        if allowed is not None:
            k = np.where(np.isin(self.ids, np.array(allowed, dtype=np.int64)), k, 0)
        return TableFits(self, k)

    def independent_fits(self, request: CandidateRequest) -> "TableFits":
        """The copies of a request whose slots are independent and which
        asks nothing but amounts, on every tree."""
        import numpy as np  # noqa: PLC0415

        layout = domains.Layout(request)
        roots = len(self.roots)
        k = np.full(roots, np.iinfo(np.int64).max, dtype=np.int64)
        for slot in layout.slots:
            if not slot.demand:
                continue
            held = np.full(len(self.pids), np.iinfo(np.int64).max, dtype=np.int64)
            for rc, n in slot.demand.items():
                held = np.minimum(held, self._share(rc, [n]))
            per_tree = np.zeros(roots, dtype=np.int64)
            np.add.at(per_tree, self.root_of, held)
            k = np.minimum(k, per_tree)
        return TableFits(self, k)


class TableFits:
    """A request's copies on a Table's roots: ``total``, and the roots with
    one or more, in answer order (iterating)."""

    def __init__(self, table: Table, k):
        import numpy as np  # noqa: PLC0415

        self.table, self.k = table, k
        fitting = np.nonzero(k >= 1)[0]
        # the roots are by uuid: a stable sort by fits keeps that order for ties
        self.order = fitting[np.argsort(-k[fitting], kind="stable")]
        self.total = int(k[fitting].sum())

    def __iter__(self) -> Iterator[RootFit]:
        roots, k = self.table.roots, self.k
        for i in self.order.tolist():
            yield RootFit(Root(*roots[i]), int(k[i]))

    def answer(self, limit: int | None) -> list[dict]:
        """The answer's entries of the first ``limit`` roots (all: None)."""
        roots = self.table.roots
        order = self.order[:limit].tolist()
        return [{"uuid": roots[i][1], "name": roots[i][2], "fits": k}
                for i, k in zip(order, self.k[order].tolist(), strict=True)]


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


def _free_of(vectors: list[Vector], snapshot: Snapshot) -> dict[tuple[int, str], int]:
    return {(pid, rc): _free(snapshot.get(pid), rc)
            for vector in vectors for pid, rc, _ in vector}


def _solve(vectors: list[Vector], free: dict[tuple[int, str], int], solved: dict,
           deadline: float) -> tuple[int, bool]:
    """(most copies, proven) of candidates ``vectors`` over ``free``."""
    if not vectors:
        return 0, True
    if len(vectors) == 1:
        return min(free[pid, rc] // n for pid, rc, n in vectors[0]), True
    pairs = [(pid, rc) for vector in vectors for pid, rc, _ in vector]
    if len(pairs) == len(set(pairs)):  # disjoint: each on its own
        return sum(min(free[pid, rc] // n for pid, rc, n in v) for v in vectors), True
    key = _canonical(vectors, free)
    if key not in solved:
        solved[key] = _program(vectors, free, deadline)
    return solved[key]


def _canonical(vectors: list[Vector], free: dict[tuple[int, str], int]) -> tuple:
    """The problem up to the providers' names: alike trees share a key."""
    local: dict[tuple[int, str], int] = {}
    shape = tuple(tuple((local.setdefault((pid, rc), len(local)), n) for pid, rc, n in v)
                  for v in vectors)
    return shape, tuple(free[pair] for pair in local)


def _program(vectors: list[Vector], free: dict[tuple[int, str], int],
             deadline: float) -> tuple[int, bool]:
    """max sum(x) over x >= 0 integer, sum(x_c * amount_c) <= free per
    (provider, class): (value, proven). Out of time, the solver's best
    feasible point or a greedy one (a lower bound)."""
    import numpy as np  # noqa: PLC0415 - scipy is loaded only when a count needs it
    from scipy.optimize import Bounds, LinearConstraint, milp  # noqa: PLC0415

    rows = {pair: i for i, pair in enumerate(free)}
    matrix = np.zeros((len(rows), len(vectors)))
    for j, vector in enumerate(vectors):
        for pid, rc, n in vector:
            matrix[rows[pid, rc], j] = n
    limits = np.array([free[pair] for pair in rows], dtype=float)
    greedy = _greedy(vectors, free)
    left = deadline - time.monotonic()
    if left <= 0:
        return greedy, False
    result = milp(-np.ones(len(vectors)), integrality=np.ones(len(vectors)),
                  bounds=Bounds(0, np.inf),
                  constraints=LinearConstraint(matrix, -np.inf, limits),
                  options={"time_limit": left})
    if result.x is None:
        return greedy, False
    found = int(round(-result.fun))
    return max(found, greedy), result.status == 0


def _greedy(vectors: list[Vector], free: dict[tuple[int, str], int]) -> int:
    """A feasible count: each candidate in turn, as many times as it fits."""
    left = dict(free)
    total = 0
    for vector in vectors:
        k = min(left[pid, rc] // n for pid, rc, n in vector)
        for pid, rc, n in vector:
            left[pid, rc] -= k * n
        total += k
    return total


def _pools(pooled: dict[int, tuple[list[Vector], dict]], fits: dict[int, RootFit],
           shared: set[int], deadline: float) -> tuple[int, bool]:
    """(copies, proven): what the roots drawing on sharing providers hold
    together; roots that may use the same sharing provider are counted in
    one program."""
    parent = {root: root for root in pooled}

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    first: dict[int, int] = {}  # sharing provider -> the first root using it
    for root, (vectors, _) in pooled.items():
        for vector in vectors:
            for pid, _, _ in vector:
                if pid in shared:
                    parent[find(root)] = find(first.setdefault(pid, root))
    components: dict[int, list[int]] = {}
    for root in pooled:
        components.setdefault(find(root), []).append(root)
    total, exact = 0, True
    for roots in components.values():
        if len(roots) == 1:
            total += fits[roots[0]].fits
            exact = exact and fits[roots[0]].exact
            continue
        vectors = [v for root in roots for v in pooled[root][0]]
        free = {pair: n for root in roots for pair, n in pooled[root][1].items()}
        k, proven = _program(vectors, free, deadline)
        total += k
        exact = exact and proven and all(fits[r].exact for r in roots)
    return total, exact

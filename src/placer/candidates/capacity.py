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

import time
from collections.abc import Iterable
from dataclasses import dataclass, field

from placer.candidates import domains, solver
from placer.candidates.request import CandidateRequest
from placer.candidates.snapshot import Inventory, Provider, Snapshot
from placer.model.inventory import amount_within_units

MAX_VECTORS = 2000  # distinct candidates listed per root (or per shared pool's roots)

# one distinct candidate: ((provider id, class, amount), ...) summed per pair
Vector = tuple[tuple[int, str, int], ...]


@dataclass
class RootFit:
    root: Provider
    fits: int
    exact: bool = True


@dataclass
class Count:
    """The answer for one request: ``roots`` with fits >= 1, largest first
    (ties by uuid); ``total``; how many roots are inexact, and whether the
    total is proven."""

    total: int = 0
    roots: list[RootFit] = field(default_factory=list)
    total_exact: bool = True

    @property
    def inexact(self) -> int:
        return sum(1 for r in self.roots if not r.exact)

    def answer(self, limit: int | None = None) -> dict:
        """The JSON answer of GET /capacity, ``limit`` roots at most."""
        roots = self.roots if limit is None else self.roots[:limit]
        return {"total": self.total, "exact": self.total_exact, "inexact": self.inexact,
                "roots": [{"uuid": r.root.uuid, "name": r.root.name, "fits": r.fits,
                           **({} if r.exact else {"exact": False})} for r in roots]}


def count(request: CandidateRequest, batches: Iterable[Snapshot], budget: float,
          counted: Iterable[RootFit] = ()) -> Count:
    """The Count of ``request`` over the snapshots of the candidate roots
    (each answering for its ``anchor_ids``), within ``budget`` seconds of
    solver time, with the roots ``counted`` already (``lone``'s)."""
    deadline = time.monotonic() + budget
    layout = domains.Layout(request)
    solved: dict = {}  # canonical problem -> (fits, exact)
    fits: list[RootFit] = list(counted)
    # the roots drawing on sharing providers: their candidates and free amounts
    pooled: dict[int, tuple[list[Vector], dict]] = {}
    shared_ids: set[int] = set()
    for snapshot in batches:
        plan = solver.Plan(layout, request, snapshot)
        for problem in domains.build_problems(request, layout, snapshot):
            root = snapshot.get(problem.anchor)
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
    result = Count(roots=sorted(fits, key=lambda f: (-f.fits, f.root.uuid)))
    alone = sum(f.fits for f in fits if f.root.id not in pooled)
    shared, exact = _pools(pooled, {f.root.id: f for f in fits}, shared_ids, deadline)
    result.total, result.total_exact = alone + shared, exact
    return result


def lone(request: CandidateRequest, rows: Iterable[tuple], class_names: dict[int, str]
         ) -> dict[int, int]:
    """Root id -> copies (1 or more) on roots that are their whole tree and
    that no sharing provider serves, from their inventory rows (provider id,
    class id, total, reserved, min_unit, max_unit, step_size,
    allocation_ratio, used): every part of each copy on the root, so the
    least over classes of free // the copy's amount, where each part's
    amount is within the units and the copy's total within max_unit. The
    rows come from candidate roots, which met the request's traits and
    aggregates."""
    layout = domains.Layout(request)
    parts: dict[str, list[int]] = {}
    for slot in layout.slots:
        for rc, n in slot.demand.items():
            parts.setdefault(rc, []).append(n)
    if request.isolate and sum(1 for s in layout.slots if s.granular and s.demand) > 1:
        return {}  # isolated groups need as many providers
    held: dict[int, dict[str, tuple[Inventory, int]]] = {}
    for pid, rc_id, total, reserved, min_unit, max_unit, step, ratio, used in rows:
        held.setdefault(pid, {})[class_names[rc_id]] = (
            Inventory(total, reserved, min_unit, max_unit, step, ratio), int(used or 0))
    found = {}
    for root, inventories in held.items():
        k: int | None = None
        for rc, amounts in parts.items():
            if rc not in inventories:
                k = 0
                break
            inv, used = inventories[rc]
            copy = sum(amounts)
            if copy > inv.max_unit or not all(amount_within_units(inv, n) for n in amounts):
                k = 0
                break
            room = max(inv.capacity - used, 0) // copy
            k = room if k is None else min(k, room)
        if k:
            found[root] = k
    return found


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

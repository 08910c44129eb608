"""The integer program of a count of copies (count.py): how many copies of
a request's distinct candidates fit together in the free amounts.

max sum(x) over integer x >= 0 with sum(x_c * amount_c) <= free for each
(provider, class), solved by scipy's ``milp`` (HiGHS) within a deadline.
The closed forms come first: one candidate, or candidates touching
disjoint (provider, class) pairs; alike problems (the same candidates over
the same free amounts, up to the providers' names) are solved once.
"""

import time

# one distinct candidate: ((provider id, class, amount), ...) summed per pair
Vector = tuple[tuple[int, str, int], ...]
Free = dict[tuple[int, str], int]  # (provider id, class) -> free amount
# a problem up to the providers' names: per candidate ((pair's index, amount), ...),
# then the free amount of each pair, by index
Canonical = tuple[tuple[tuple[tuple[int, int], ...], ...], tuple[int, ...]]
Solved = dict[Canonical, tuple[int, bool]]  # canonical problem -> (copies, proven)


def solve(vectors: list[Vector], free: Free, solved: Solved, deadline: float
          ) -> tuple[int, bool]:
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
        solved[key] = program(vectors, free, deadline)
    return solved[key]


def _canonical(vectors: list[Vector], free: Free) -> Canonical:
    """The problem up to the providers' names: alike trees share a key."""
    local: dict[tuple[int, str], int] = {}
    shape = tuple(tuple((local.setdefault((pid, rc), len(local)), n) for pid, rc, n in v)
                  for v in vectors)
    return shape, tuple(free[pair] for pair in local)


def program(vectors: list[Vector], free: Free, deadline: float) -> tuple[int, bool]:
    """(value, proven) of the program. Out of time, the solver's best
    feasible point or a greedy one (a lower bound)."""
    # scipy is loaded only when a count needs a program
    import numpy as np
    from scipy.optimize import Bounds, LinearConstraint, milp

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


def _greedy(vectors: list[Vector], free: Free) -> int:
    """A feasible count: each candidate in turn, as many times as it fits."""
    left = dict(free)
    total = 0
    for vector in vectors:
        k = min(left[pid, rc] // n for pid, rc, n in vector)
        for pid, rc, n in vector:
            left[pid, rc] -= k * n
        total += k
    return total


def pools(pooled: dict[int, tuple[list[Vector], Free]], fits: dict[int, tuple[int, bool]],
          shared: set[int], deadline: float) -> tuple[int, bool]:
    """(copies, proven) that the roots drawing on sharing providers hold
    together: ``pooled``, root id -> (its candidates, their free amounts);
    ``fits``, root id -> (its own count, proven); ``shared``, the sharing
    providers' ids. Roots that may use the same sharing provider are
    counted in one program."""
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
            k, proven = fits[roots[0]]
            total += k
            exact = exact and proven
            continue
        vectors = [v for root in roots for v in pooled[root][0]]
        free = {pair: n for root in roots for pair, n in pooled[root][1].items()}
        k, proven = program(vectors, free, deadline)
        total += k
        exact = exact and proven and all(fits[r][1] for r in roots)
    return total, exact

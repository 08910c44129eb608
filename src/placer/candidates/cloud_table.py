"""The whole cloud as arrays, for counting copies (count.py) without
walking trees: every root of a read, and every provider's inventory
records of some classes, read once for many requests.

It counts two kinds of request on every root at once:

- ``flat_fits``: on the roots that are their whole tree (flat hosts), every
  part of each copy on the root: the least over classes of free // the
  copy's amount, each part within the units, the copy within max_unit;
- ``independent_fits``: a request whose slots no rule ties together and
  that asks nothing but amounts, on every tree: per slot, the sum over the
  tree's providers of the copies' shares each holds.
"""

from collections.abc import Iterator

import numpy as np

from placer.candidates import domains
from placer.candidates.request import CandidateRequest
from placer.candidates.store import ChildRow, InventoryRow, RootRow
from placer.model.inventory import MAX_INT

Shares = np.ndarray  # int64 per provider, or per root


class CloudTable:
    """``roots``: every root, by uuid; ``children``: every other provider;
    ``rows``: the inventory records of the classes counted;
    ``class_names``: class id -> name."""

    def __init__(self, roots: list[RootRow], children: list[ChildRow],
                 rows: list[InventoryRow], class_names: dict[int, str]):
        self.roots = roots
        self.ids = np.array([r[0] for r in roots], dtype=np.int64)
        by_id = np.argsort(self.ids)

        def position(ids: np.ndarray) -> np.ndarray:  # of roots, by id
            return by_id[np.searchsorted(self.ids, ids, sorter=by_id)]

        child = np.array([c for c, _ in children], dtype=np.int64)
        child_root = np.array([r for _, r in children], dtype=np.int64)
        # the providers: the roots first (position = root position), then the children
        self.pids = np.concatenate([self.ids, child])
        self.root_of = np.concatenate([np.arange(len(roots)), position(child_root)])
        self.flat = np.ones(len(self.pids), dtype=bool)  # a root that is its whole tree
        self.flat[len(roots):] = False
        self.flat[self.root_of[len(roots):]] = False
        order = np.argsort(self.pids)
        count = len(self.pids)
        self.classes: dict[str, tuple[np.ndarray, np.ndarray]] = {}
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

    def _share(self, rc: str, amounts: list[int]) -> Shares:
        """Per provider: how many copies' ``amounts`` of ``rc`` (summed in a
        copy) it holds, 0 where it has none or the units refuse them."""
        copy = sum(amounts)
        if rc not in self.classes or copy > MAX_INT:  # past any max_unit (and int64)
            return np.zeros(len(self.pids), dtype=np.int64)
        free, (min_unit, max_unit, step) = self.classes[rc]
        ok = (free >= 0) & (copy <= max_unit)
        for n in amounts:
            ok &= (min_unit <= n) & (n <= max_unit) & (n % np.maximum(step, 1) == 0)
        return np.where(ok, free // copy, 0)

    def flat_fits(self, request: CandidateRequest, allowed: list[int] | None = None
                  ) -> "TableFits":
        """The copies of ``request`` on the roots that are their whole tree
        (of ``allowed`` ids only, when given: the candidate roots of a
        request with filters); 0 on the others."""
        layout = domains.Layout(request)
        parts: dict[str, list[int]] = {}
        for slot in layout.slots:
            for rc, n in slot.demand.items():
                parts.setdefault(rc, []).append(n)
        roots = len(self.roots)
        k = np.where(self.flat[:roots], np.iinfo(np.int64).max, 0)
        if request.isolate and sum(1 for s in layout.slots if s.granular and s.demand) > 1:
            k[:] = 0  # isolated groups need as many providers
        for rc, amounts in parts.items():
            k = np.minimum(k, self._share(rc, amounts)[:roots])
        if allowed is not None:
            k = np.where(np.isin(self.ids, np.array(allowed, dtype=np.int64)), k, 0)
        return TableFits(self.roots, k)

    def independent_fits(self, request: CandidateRequest) -> "TableFits":
        """The copies of a request whose slots are independent and which
        asks nothing but amounts, on every tree."""
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
        return TableFits(self.roots, k)


class TableFits:
    """A request's copies on a table's roots (``k``, per root): ``total``, and
    the roots with one or more, largest first, ties by uuid."""

    def __init__(self, roots: list[RootRow], k: Shares):
        self.roots, self.k = roots, k
        fitting = np.nonzero(k >= 1)[0]
        # the roots are by uuid: a stable sort by fits keeps that order for ties
        self.order = fitting[np.argsort(-k[fitting], kind="stable")]
        self.total = int(k[fitting].sum())

    def __iter__(self) -> Iterator[tuple[RootRow, int]]:
        roots, k = self.roots, self.k
        for i in self.order.tolist():
            yield roots[i], int(k[i])

    def head(self, limit: int | None) -> list[tuple[RootRow, int]]:
        """The first ``limit`` of them (all: None), read from the arrays at once."""
        order = self.order[:limit].tolist()
        return [(self.roots[i], k) for i, k in zip(order, self.k[order].tolist(), strict=True)]

"""Trees best rank first (spread, pack), read from their stored scores.

A rank is a weighted sum of one term per class (order.py), and the store
keeps each class's trees in an index by term then root id. Summing every
tree's terms per request would read the whole cloud; instead the lists are
read a page at a time, side by side, and a tree's other terms are looked
up when it first appears (Fagin's threshold algorithm). A tree not read
yet in any list sits below the last row read in each, so its rank is at
least the weighted sum of those rows' terms, and, if equal, its id is
above theirs: every tree read whose (rank, id) is at most that bound is
final. When the terms of the classes agree (hosts filling evenly across
CPU, RAM and disk, as flavors do), the bound follows the best trees
closely and a limited answer reads about what it returns; classes whose
free shares disagree make the walk read further.
"""

import heapq
from dataclasses import dataclass

from placer.candidates.order import MISSING, Order
from placer.candidates.store import SearchStore

LARGEST_READ = 4000


@dataclass(frozen=True)
class Term:
    """One class of a rank: its id, weight and the least free amount a tree
    needs on one provider to be read at all (0: every tree holding it)."""

    rc_id: int
    weight: int
    least: int = 0


class Ranking:
    """(rank, root id) of the trees holding some class of ``terms``, in that
    order; trees holding none of them, or short of a class's ``least``,
    are never given. Every tree, whether it meets the request's
    other conditions or not: the caller filters what it takes."""

    def __init__(self, store: SearchStore, order: Order, terms: list[Term], first_read: int = 16):
        self.store, self.order, self.terms = store, order, terms
        self.spread = order.name == "spread"
        self.cursors = [(-1, -1)] * len(terms)  # (term, root id) of the last row read
        self.ended = [False] * len(terms)
        self.seen: set[int] = set()
        self.heap: list[tuple[int, int]] = []
        self.read = first_read  # rows per list in the first read (then doubling)

    @property
    def exhausted(self) -> bool:
        return all(self.ended) and not self.heap

    def next(self, size: int) -> list[tuple[int, int]]:
        """The next ``size`` (rank, root id), fewer at the end."""
        out: list[tuple[int, int]] = []
        while len(out) < size:
            bound = self._bound()
            while self.heap and self.heap[0] <= bound and len(out) < size:
                out.append(heapq.heappop(self.heap))
            if len(out) >= size or self.exhausted:
                break
            # in steps of half what is missing: each step's bound finalises
            # trees, and rows read past the need are wasted
            self._read(min(max(self.read, (size - len(out)) // 2), LARGEST_READ))
            self.read = min(self.read * 2, LARGEST_READ)
        return out

    def _bound(self) -> tuple[int, int]:
        """(least rank, id above which a tie may come) of the trees not read."""
        rank = sum(t.weight * term for t, (term, _) in zip(self.terms, self.cursors, strict=True))
        return rank, max(root for _, root in self.cursors)

    def _read(self, size: int) -> None:
        new: list[int] = []
        single: dict[int, int] = {}
        for i, t in enumerate(self.terms):
            if self.ended[i]:
                continue
            rows = self.store.ranked(t.rc_id, self.spread, self.cursors[i], size, t.least)
            if len(rows) < size:
                self.ended[i] = True
                self.cursors[i] = (MISSING, -1)  # what an unread tree has: no row
            else:
                self.cursors[i] = rows[-1]
            for term, root in rows:
                if root not in self.seen:
                    self.seen.add(root)
                    new.append(root)
                    single[root] = term
        if not new:
            return
        if len(self.terms) == 1:
            weight = self.terms[0].weight
            for root in new:
                heapq.heappush(self.heap, (weight * single[root], root))
            return
        # a tree read in one list but short of another class's least cannot
        # fit: dropped here, it takes no place in a herd pool
        needs = {t.rc_id: t.least for t in self.terms if t.least}
        free = self.store.free(new, [t.rc_id for t in self.terms], needs or None)
        for root in new:
            if needs and root not in free:
                continue
            heapq.heappush(self.heap, (rank(self.order, self.terms, free.get(root, {})), root))


def rank(order: Order, terms: list[Term], free: dict[int, int]) -> int:
    """The rank of a tree whose free per mille per class id is ``free``."""
    return sum(t.weight * order.term(free.get(t.rc_id)) for t in terms)

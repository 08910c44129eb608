"""How the search walks the candidate roots: batch sizes and root orders.

Roots are read in pages (one query each: the filter's fixed cost, such as a
member_of set, is paid per page) and their trees loaded in batches. A
limited query's first page holds as many roots as it wants candidates,
unlimited ones start at the top; pages grow to amortise the queries.
"""

import random
from collections.abc import Callable, Sequence

from placer.candidates.ranking import Ranking
from placer.candidates.store import Roots

FIRST_PAGE, LARGEST_PAGE, SMALLEST_BATCH = (16, 1000), 4000, 16


class Sizes:
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


class InOrder:
    """The candidate roots by id, one query per page."""

    def __init__(self, roots: Roots):
        self.roots = roots
        self.last, self.done = -1, False

    def next(self, size: int) -> list[int]:
        """The next ``size`` candidate roots (fewer at the end, then none)."""
        if self.done:
            return []
        page = self.roots.after(self.last, size)
        self.done = len(page) < size
        if page:
            self.last = page[-1]
        return page


class Shuffled:
    """The candidate roots in random order (randomize_allocation_candidates).

    Provider ids (``id_range``, both ends included) are drawn in a uniformly
    random order (Permutation) and the roots' filter runs on slices of that
    order until a page is full: a limited query filters about the providers
    it needs rather than the whole cloud, and the roots that pass (the
    filter drops the other ids) come in a uniformly random order as well. A
    ``confined`` request (in_tree) has few candidate roots: they are
    filtered at once, then shuffled."""

    def __init__(self, roots: Roots, id_range: tuple[int, int], rng: random.Random,
                 largest: int, confined: bool):
        self.roots = roots
        # ids per filter: each pays the filter's fixed costs (such as the
        # member_of set), so backends that take long lists well get longer
        # ones (at 100,000 providers and a filter passing 4.5% of them,
        # MariaDB took 1.35 s for 23,000 ids in one statement and 0.62 s in
        # statements of 4,000)
        self.largest = largest * (16 if roots.long_lists else 1)
        self.filtered = confined
        if confined:
            self.ids = Permutation(roots.all(), rng)
        else:
            low, high = id_range
            self.ids = Permutation(range(low, high + 1), rng)

    def next(self, size: int) -> list[int]:
        """At least ``size`` more candidate roots while there are some, then none."""
        found: list[int] = []
        chunk, drawn = size, 0
        while len(found) < size and self.ids.left:
            ids = self.ids.take(chunk)
            if self.filtered:
                found += ids
                continue
            passed = self.roots.among(ids)
            found += [i for i in ids if i in passed]
            # the ids the rest needs at the share that passed so far (ids
            # of children and deleted providers never do), in one query
            # rather than many, as each pays the filter's fixed costs
            drawn += len(ids)
            chunk = (int((size - len(found)) * drawn / len(found) * 1.1) + 1
                     if found else chunk * 4)
            chunk = min(chunk, self.largest)
        return found


class Ranked:
    """The candidate roots by rank (spread, pack), from ``best`` (RankedRoots,
    or Listed for a confined request). With ``pool`` (herd avoidance), a
    limited answer's roots are drawn at random from the best ``pool`` that
    pass the roots' filter, then the walk goes on in order."""

    def __init__(self, best: "RankedRoots | Listed", pool: int = 0,
                 rng: random.Random | None = None):
        self.best = best
        self.drawn: Permutation | None = None
        if pool:
            self.drawn = Permutation(best.next(pool), rng or random.Random())

    def next(self, size: int) -> list[int]:
        """At least ``size`` more candidate roots while there are some, then none."""
        if self.drawn is not None and self.drawn.left:
            return self.drawn.take(size)
        return self.best.next(size)


class RankedRoots:
    """The trees the ranking reads, through the roots' filter, best first;
    then, if the answer still needs more and ``tail`` says some candidate
    root may hold none of the ranked classes itself (sharing providers give
    them all), the others by id."""

    def __init__(self, roots: Roots, ranking: Ranking, tail: bool):
        self.roots, self.ranking, self.tail = roots, ranking, tail
        self.after: InOrder | None = None

    def next(self, size: int) -> list[int]:
        found: list[int] = []
        chunk, read = size, 0
        while len(found) < size and not self.ranking.exhausted:
            # The roots' filter on what the ranking gives, by pages sized as
            # Shuffled's (what the rest needs at the share passed so far).
            # Testing each index row against the filter in the database
            # instead cost more (100k providers, a filter passing 4.5% of
            # them: 2.1 s against 0.94 s on PostgreSQL, 0.68 against 0.62 s
            # on SQLite): the lists read several rows per tree taken.
            ranked = [root for _, root in self.ranking.next(chunk)]
            passed = self.roots.among(ranked) if ranked else set()
            found += [root for root in ranked if root in passed]
            read += len(ranked)
            chunk = min(int((size - len(found)) * read / len(found) * 1.1) + 1
                        if found else chunk * 4, LARGEST_PAGE * 4)
        while len(found) < size and self.tail:
            if self.after is None:
                self.after = InOrder(self.roots)
            page = self.after.next(size - len(found))
            if not page:
                break
            found += [root for root in page if root not in self.ranking.seen]
        return found


class Listed:
    """Candidate roots already filtered and in order, a slice at a time."""

    def __init__(self, roots: list[int]):
        self.roots = roots

    def next(self, size: int) -> list[int]:
        found, self.roots = self.roots[:size], self.roots[size:]
        return found


class Permutation:
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

"""How the search walks candidate roots, without a database: batch sizes,
roots by id, and roots in a uniformly random order drawn as needed."""

import collections
import random

from placer.candidates import batches


class FakeRoots:
    """Candidate roots among provider ids, counting what the walk asks."""

    def __init__(self, roots, long_lists=True):
        self.roots = sorted(roots)
        self.long_lists = long_lists
        self.asked: list[list[int]] = []

    def after(self, last, size):
        return [r for r in self.roots if r > last][:size]

    def among(self, ids):
        self.asked.append(list(ids))
        return set(ids) & set(self.roots)

    def all(self):
        return list(self.roots)


def test_in_order_pages_by_id_until_a_short_page():
    pages = batches.InOrder(FakeRoots([3, 5, 8, 13, 21]))
    assert [pages.next(2), pages.next(2), pages.next(2), pages.next(2)] == [
        [3, 5], [8, 13], [21], []]


def test_in_order_stops_after_an_exact_last_page():
    pages = batches.InOrder(FakeRoots([1, 2]))
    assert pages.next(2) == [1, 2]
    assert pages.next(2) == []


def test_shuffled_gives_every_root_once_and_filters_only_what_it_needs():
    roots = FakeRoots(range(0, 1000, 10))  # one id in ten is a root
    pages = batches.Shuffled(roots, (0, 999), random.Random(4), largest=64, confined=False)
    first = pages.next(5)
    assert len(first) >= 5 and set(first) <= set(roots.roots)
    # the first slice is the page's size, the next ones what the share that
    # passed says the rest needs: far fewer than the thousand ids
    assert len(roots.asked[0]) == 5
    assert sum(map(len, roots.asked)) < 400
    rest = []
    while page := pages.next(7):
        rest += page
    assert sorted(first + rest) == roots.roots


def test_shuffled_slices_are_bounded_by_the_backend_list_length():
    long, short = FakeRoots([999]), FakeRoots([999], long_lists=False)
    for roots in (long, short):
        pages = batches.Shuffled(roots, (0, 999), random.Random(1), largest=8, confined=False)
        assert pages.next(1) == [999]
    assert max(map(len, long.asked)) == 8 * 16
    assert max(map(len, short.asked)) == 8


def test_shuffled_confined_roots_are_filtered_once_then_shuffled():
    roots = FakeRoots([7, 11, 19])
    pages = batches.Shuffled(roots, (0, 100), random.Random(2), largest=8, confined=True)
    drawn = pages.next(2) + pages.next(2)
    assert sorted(drawn) == [7, 11, 19] and pages.next(2) == []
    assert roots.asked == []  # no filter by ids: all() gave the candidate roots


def test_shuffled_first_roots_are_uniform():
    counts: collections.Counter = collections.Counter()
    rng = random.Random(3)
    for _ in range(4000):
        roots = FakeRoots([2, 5, 9, 14])
        counts[batches.Shuffled(roots, (0, 15), rng, largest=4, confined=False).next(1)[0]] += 1
    # 1000 each expected; chi-square with 3 degrees of freedom over 16.3 has
    # probability 0.001
    assert sum((n - 1000) ** 2 / 1000 for n in counts.values()) < 16.3, counts


def test_random_order_is_uniform_and_drawn_as_needed():
    counts: collections.Counter = collections.Counter()
    rng = random.Random(2)
    for _ in range(24000):
        order = batches.Permutation(range(10, 14), rng)
        drawn = order.take(1) + order.take(2) + order.take(5)
        assert sorted(drawn) == [10, 11, 12, 13] and order.left == 0
        counts[tuple(drawn)] += 1
    assert len(counts) == 24
    # chi-square with 23 degrees of freedom: over 49.7 has probability 0.001
    assert sum((n - 1000) ** 2 / 1000 for n in counts.values()) < 49.7
    assert batches.Permutation([], rng).take(3) == []



def test_limited_batches_follow_the_yield():
    produced = [0]
    sizes = batches.Sizes(1000, lambda: produced[0])
    assert sizes.next_batch(0) == 62  # a sixteenth of the limit first
    assert sizes.next_page(62) == 1000  # read as many roots as candidates wanted
    produced[0] = 124  # two candidates per root: the rest needs 438 more, plus 10%
    assert sizes.next_batch(62) == 482
    assert sizes.next_page(482) == 482  # a later page holds the batch it is read for
    nothing_yet = batches.Sizes(1000, lambda: 0)
    nothing_yet.next_batch(0)
    assert nothing_yet.next_batch(62) == 248  # no yield to go by: four times as many


def test_small_limits_and_unlimited_queries():
    small = batches.Sizes(10, lambda: 0)
    assert (small.next_batch(0), small.next_page(16)) == (16, 16)
    everything = batches.Sizes(None, lambda: 5)
    assert [everything.next_batch(n) for n in (0, 1000, 5000, 9000)] == [1000, 4000, 4000, 4000]
    assert [everything.next_page(4000) for _ in range(3)] == [4000, 4000, 4000]

"""The tree score (model/scores.py), the candidate order's ranks
(candidates/order.py), and the threshold walk over per-class lists
(candidates/ranking.py) against a sort of every tree, on an in-memory
store."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from placer.candidates.order import MISSING, Order, from_conf, holdings
from placer.candidates.ranking import Ranking, Term
from placer.candidates.snapshot import Inventory, Provider
from placer.model.scores import free_per_mille, tree_scores
from tests.helpers.api import make_conf
from tests.helpers.floors import answered, at_least, examples


def test_free_per_mille_rounds_down_and_never_leaves_the_range():
    assert free_per_mille(1000, 0) == 1000
    assert free_per_mille(3, 1) == 666
    assert free_per_mille(128, 127) == 7
    assert free_per_mille(10, 12) == 0  # over-committed after a ratio change
    assert free_per_mille(0, 0) == 0


def test_tree_scores_sum_the_trees_providers():
    numa = [Provider(i, f"u{i}", f"n{i}", 1, 1, inventories={"VCPU": Inventory(8)},
                     usages={"VCPU": used}) for i, used in ((2, 6), (3, 1))]
    root = Provider(1, "u1", "root", None, 1,
                    inventories={"DISK_GB": Inventory(100, reserved=10, allocation_ratio=2.0)})
    assert tree_scores(holdings([root, *numa])) == {
        "VCPU": (free_per_mille(16, 7), 7),  # the most free on one provider: 7
        "DISK_GB": (1000, 180)}


def test_ranks_weigh_terms_and_put_missing_classes_last():
    free = {"VCPU": 250, "MEMORY_MB": 900}
    spread, pack = Order("spread"), Order("pack", {"VCPU": 2000})
    assert spread.rank(free, ["MEMORY_MB", "VCPU"]) == 1000 * 100 + 1000 * 750
    assert pack.rank(free, ["MEMORY_MB", "VCPU"]) == 1000 * 900 + 2000 * 250
    assert spread.rank(free, ["DISK_GB"]) == 1000 * MISSING
    assert pack.rank({}, ["VCPU"]) > pack.rank({"VCPU": 1000}, ["VCPU"])
    assert Order("spread", {"DISK_GB": 0}).weighted(["VCPU", "DISK_GB", "VCPU"]) == ["VCPU"]


def test_pool_size():
    assert Order("spread", pool=2.0).pool_size(30) == 60
    assert Order("spread", pool=1.5).pool_size(3) == 5
    assert Order("spread", pool=1.0).pool_size(30) == 0  # exact order
    assert Order("spread", pool=2.0).pool_size(None) == 0  # unlimited


@pytest.mark.parametrize(("placement", "placer", "expected"), [
    ({}, {}, "id"),
    ({"randomize_allocation_candidates": "true"}, {}, "random"),
    ({"randomize_allocation_candidates": "true"}, {"candidate_order": "id"}, "id"),
    ({"randomize_allocation_candidates": "true"}, {"candidate_order": "spread"}, "spread"),
    ({}, {"candidate_order": "pack"}, "pack"),
])
def test_the_new_option_wins_when_set(tmp_path, placement, placer, expected):
    conf = make_conf(tmp_path, placement=placement, placer=placer)
    assert from_conf(conf).name == expected


def test_weights_and_pool_from_the_options(tmp_path):
    conf = make_conf(tmp_path, placer={"candidate_order": "spread",
                                       "candidate_order_weights": "VCPU:0.5,DISK_GB:0",
                                       "candidate_order_pool": "1.5"})
    order = from_conf(conf)
    assert (order.weights, order.pool) == ({"VCPU": 500, "DISK_GB": 0}, 1.5)


class _Lists:
    """The store's two score reads over a dict: root -> class id ->
    (free per mille, most free on one provider)."""

    def __init__(self, trees: dict[int, dict[int, tuple[int, int]]]):
        self.trees = trees
        self.rows_read = 0

    def ranked(self, rc_id, spread, after, size, least):
        rows = sorted((1000 - f if spread else f, root) for root, held in self.trees.items()
                      for rc, (f, most) in held.items() if rc == rc_id and most >= least)
        page = [row for row in rows if row > after][:size]
        self.rows_read += len(page)
        return page

    def free(self, root_ids, rc_ids, least=None):
        least = least or {}
        return {root: {rc: self.trees[root][rc][0] for rc in rc_ids if rc in self.trees[root]}
                for root in root_ids if root in self.trees
                and all(self.trees[root].get(rc, (0, -1))[1] >= n for rc, n in least.items())}


FREE = st.sampled_from([0, 500, 990, 1000]) | st.integers(0, 1000)  # ties and spread
TREES = st.dictionaries(
    st.integers(1, 60),
    st.dictionaries(st.integers(0, 2), st.tuples(FREE, st.integers(0, 9)), max_size=3),
    max_size=40)


@at_least(50)  # 119 to 140 of 300 seen
@settings(max_examples=examples(300))
@given(trees=TREES, name=st.sampled_from(["spread", "pack"]),
       terms=st.lists(st.tuples(st.integers(0, 2), st.sampled_from([1, 500, 1000, 3000]),
                                st.sampled_from([0, 0, 3])), min_size=1, max_size=3,
                      unique_by=lambda term: term[0]),
       steps=st.lists(st.integers(1, 7), min_size=1, max_size=12),
       first_read=st.sampled_from([1, 2, 16]))
def test_threshold_walk_is_the_sorted_trees(trees, name, terms, steps, first_read):
    order = Order(name)
    terms = [Term(rc, weight, least) for rc, weight, least in terms]
    lists = _Lists(trees)
    ranking = Ranking(lists, order, terms, first_read=first_read)
    got = []
    for size in steps:
        page = ranking.next(size)
        assert len(page) <= size
        got += page
    while not ranking.exhausted:
        got += ranking.next(5)
    # a tree short of a class's least amount cannot fit (no sharing provider
    # gives that class): it never comes (it would take a place in a pool)
    def fits(held):
        return all(t.rc_id in held and held[t.rc_id][1] >= t.least for t in terms if t.least)

    # every tree that may fit and has a row some list reads, by (rank, id)
    read = [root for root, held in trees.items() if fits(held) and any(
        t.rc_id in held and held[t.rc_id][1] >= t.least for t in terms)]

    def rank(root):
        held = trees[root]
        return sum(t.weight * (MISSING if t.rc_id not in held else
                               1000 - held[t.rc_id][0] if name == "spread" else held[t.rc_id][0])
                   for t in terms)

    answered(got[1:])  # useful: two trees or more to put in order
    assert got == sorted(
        (rank(root), root) for root in read)
    assert len(got) == len({root for _, root in got})


def test_agreeing_classes_read_about_the_answer():
    """Hosts filling evenly: the walk reads little more than it returns."""
    trees = {root: {0: (root * 7 % 1000, 9), 1: (root * 7 % 1000, 9)} for root in range(1, 2001)}
    lists = _Lists(trees)
    ranking = Ranking(lists, Order("spread"), [Term(0, 1000), Term(1, 1000)])
    assert len(ranking.next(100)) == 100
    assert lists.rows_read <= 2 * 2 * 100


@pytest.mark.parametrize("first_read", [1, 2, 3, 4, 5, 6])
@pytest.mark.parametrize("size", [1, 2, 7])
def test_a_tie_at_the_bound_waits_for_lower_ids(first_read, size):
    """Trees 1 to 6 are even (500 free per mille of both classes), tree 7 has
    all of A and nothing of B: all rank alike under spread, so they come by
    id, though tree 7 is read first in A's list."""
    trees = {root: {0: (500, 9), 1: (500, 9)} for root in range(1, 7)}
    trees[7] = {0: (1000, 9), 1: (0, 9)}
    lists = _Lists(trees)
    ranking = Ranking(lists, Order("spread"), [Term(0, 1000), Term(1, 1000)],
                      first_read=first_read)
    got = []
    while not ranking.exhausted:
        got += ranking.next(size)
    assert got == [(1000 * 1000, root) for root in range(1, 8)]

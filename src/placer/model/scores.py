"""The tree score: the one rule behind the spread and pack candidate orders
(candidates/order.py ranks trees and providers by it) and the scores the
database keeps per tree (db/scores.py stores it, in the write's own
transaction).

Per class, a tree's score is the free share of its capacity in per mille
(an integer, so that ties and order are the same on every backend) and the
most free on one of its providers. Plain numbers in, plain numbers out: the
engine computes it from its snapshots, the database from its rows.
"""

from collections.abc import Hashable, Iterable
from typing import TypeVar

FULL = 1000  # free per mille of an empty tree

Class = TypeVar("Class", bound=Hashable)  # a resource class: its name, or its id


def free_per_mille(capacity: int, used: int) -> int:
    """The free share of ``capacity`` in per mille, rounded down (0 when
    over-committed or without capacity)."""
    if capacity <= 0:
        return 0
    return min(FULL, max(capacity - used, 0) * FULL // capacity)


def tree_scores(holdings: Iterable[tuple[Class, int, int]]) -> dict[Class, tuple[int, int]]:
    """class -> (free per mille over these holdings, the most free of one of
    them, never below 0), for the classes held: the score of a tree, from
    one holding, (class, capacity, used), per provider and class of it."""
    capacity: dict[Class, int] = {}
    used: dict[Class, int] = {}
    largest: dict[Class, int] = {}
    for rc, cap, in_use in holdings:
        capacity[rc] = capacity.get(rc, 0) + cap
        used[rc] = used.get(rc, 0) + in_use
        largest[rc] = max(largest.get(rc, 0), cap - in_use)
    return {rc: (free_per_mille(capacity[rc], used[rc]), max(largest[rc], 0))
            for rc in capacity}

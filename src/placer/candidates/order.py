"""The order of a limited answer's roots ([placer] candidate_order).

``id`` walks roots by provider id (the reference's order) and ``random`` in
a random order. ``spread`` and ``pack`` rank each tree by what is free of
the requested classes on its own providers: per class, the free share of
the tree's capacity in per mille (model/scores.py, the rule the stored
scores follow too), which makes classes in different units
comparable without the min-max normalisation over the hosts weighed that
Nova's weighers do and an index cannot keep. A tree's rank is the
weighted sum of one term per requested class, lower first:

- spread: 1000 - free per mille (the most free first);
- pack: free per mille (the least free first; trees that do not fit are
  left out by the search, as always);
- a requested class the tree does not hold itself (a sharing provider
  gives it) adds MISSING, worse than any amount it holds: trees that hold
  what is asked come first. Sharing providers are left out of the score:
  their capacity is shared by every tree they serve, so it cannot tell
  those trees apart.

Ties go by root id. Inside a tree the same terms, over one provider's own
inventory, order the providers a class or group may come from (the NUMA
node or PF with the most free first for spread, the least for pack).

Only the order depends on the scores; which candidates are valid is still
the search's judgement alone, so a stale score can never admit an
over-commit.
"""

import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from placer.candidates.snapshot import Provider
from placer.model.scores import FULL, tree_scores

ORDERS = ("id", "random", "spread", "pack")
SCORED = ("spread", "pack")
MISSING = FULL + 1  # the term of a requested class the tree does not hold
WEIGHT_UNIT = 1000  # weights are kept in thousandths: integer ranks


def holdings(providers: Iterable[Provider]) -> Iterator[tuple[str, int, int]]:
    """(class, capacity, used) of each inventory of these providers: what
    their score (model/scores.py: tree_scores) is computed from."""
    for p in providers:
        for rc, inv in p.inventories.items():
            yield rc, inv.capacity, p.usages.get(rc, 0)


@dataclass(frozen=True)
class Order:
    """An order of roots; ``weights`` in thousandths per class (absent:
    WEIGHT_UNIT), ``pool`` the herd avoidance factor (1.0: exact order)."""

    name: str = "id"
    weights: Mapping[str, int] = field(default_factory=dict)
    pool: float = 1.0

    @property
    def scored(self) -> bool:
        return self.name in SCORED

    def weight(self, rc: str) -> int:
        return self.weights.get(rc, WEIGHT_UNIT)

    def weighted(self, classes: Iterable[str]) -> list[str]:
        """The classes that count in a rank, sorted."""
        return sorted(rc for rc in set(classes) if self.weight(rc) > 0)

    def term(self, free: int | None) -> int:
        """A class's term in a rank, from its free per mille (None: not held)."""
        if free is None:
            return MISSING
        return FULL - free if self.name == "spread" else free

    def rank(self, free: Mapping[str, int], classes: Iterable[str]) -> int:
        """The rank (lower first) of a tree or provider whose free per mille
        per class is ``free``, over ``classes``."""
        return sum(self.weight(rc) * self.term(free.get(rc)) for rc in classes)

    def tree_rank(self, providers: Iterable[Provider], classes: Iterable[str]) -> int:
        return self.rank({rc: f for rc, (f, _) in tree_scores(holdings(providers)).items()},
                         classes)

    def provider_rank(self, provider: Provider, classes: Iterable[str]) -> int:
        return self.tree_rank([provider], classes)

    def pool_size(self, wanted: int | None) -> int:
        """Roots a limited answer is drawn from (0: exact order)."""
        if wanted is None or self.pool <= 1.0:
            return 0
        return math.ceil(self.pool * wanted)


BY_ID = Order()


def from_conf(conf: Any) -> Order:
    """The order ``conf`` asks for (``conf``: the whole configuration, an
    oslo.config ConfigOpts: Any, as this package imports no configuration
    library)."""
    name = conf.placer.candidate_order
    if name is None:
        name = "random" if conf.placement.randomize_allocation_candidates else "id"
    weights: dict[str, int] = {}
    for rc, value in conf.placer.candidate_order_weights.items():
        multiplier = float(value)  # checked at start-up (check_weights)
        weights[rc] = round(multiplier * WEIGHT_UNIT)
    return Order(name, weights, conf.placer.candidate_order_pool)


def check_weights(values: Mapping[str, str]) -> None:
    """ValueError unless every multiplier is a number of 0 or more."""
    for rc, value in values.items():
        try:
            multiplier = float(value)
        except (TypeError, ValueError):
            raise ValueError(f"candidate_order_weights: {rc}:{value} is not a number") from None
        if not math.isfinite(multiplier) or multiplier < 0:
            raise ValueError(f"candidate_order_weights: {rc}:{value} must be 0 or more")

"""The four rules an amount meets on one inventory (capacity, min_unit,
max_unit, step_size), each with how explain reports it: one table entry
per rule."""

from collections.abc import Callable
from dataclasses import dataclass

from placer.candidates.snapshot import Provider
from placer.model import inventory


def free(p: Provider, rc: str) -> int:
    return p.inventories[rc].capacity - p.usages.get(rc, 0)


@dataclass(frozen=True)
class UnitRule:
    kind: str
    # the provider of a pool that comes closest to meeting the rule: the
    # first with the highest score
    score: Callable[[Provider, str], int]
    # what the pool's numbers are, given its closest provider
    detail: Callable[[Provider, list[Provider], str], str]
    # why no provider with room meets it: formatted with amount, rc, detail
    refusal: str
    # by how much one provider misses it
    shortfall: Callable[[Provider, str, int], str]

    def ok(self, p: Provider, rc: str, amount: int) -> bool:
        """The rule's part of Provider.fits, for an amount alone."""
        return inventory.RULE_PARTS[self.kind](p.inventories[rc], p.usages.get(rc, 0), amount)

    def closest(self, pool: list[Provider], rc: str) -> Provider:
        return max(pool, key=lambda p: self.score(p, rc))

    def pool_detail(self, pool: list[Provider], rc: str) -> str:
        """The numbers of ``pool`` that matter for the rule ("" for no pool)."""
        return self.detail(self.closest(pool, rc), pool, rc) if pool else ""


def _step_sizes(pool: list[Provider], rc: str) -> str:
    sizes = sorted({p.inventories[rc].step_size for p in pool})
    return "step sizes are " + ", ".join(map(str, sizes[:8])) + (" ..." if len(sizes) > 8 else "")


def _capacity_shortfall(p: Provider, rc: str, amount: int) -> str:
    left = max(free(p, rc), 0)
    return (f"{left} {rc} free on {p.name} (capacity {p.inventories[rc].capacity}, used "
            f"{p.usages.get(rc, 0)}), {amount} asked: {amount - left} short")


def _unit_bound(field: str, least: bool) -> UnitRule:
    """min_unit (``least``: the least a provider takes at once) or max_unit."""
    def value(p: Provider, rc: str) -> int:
        return int(getattr(p.inventories[rc], field))

    def shortfall(p: Provider, rc: str, amount: int) -> str:
        said = f"{field} of {rc} is {value(p, rc)} on {p.name}, {amount} asked"
        return said if least else f"{said}: {amount - value(p, rc)} too many"

    return UnitRule(
        field, lambda p, rc: -value(p, rc) if least else value(p, rc),
        lambda best, pool, rc: f"the {'smallest' if least else 'largest'} {field} is "
                               f"{value(best, rc)} on {best.name}",
        "no provider with room for {amount} {rc} accepts so "
        + ("little" if least else "much at once") + ": {detail}",
        shortfall)


RULES = (
    UnitRule(
        "capacity", free,
        lambda best, pool, rc: f"the largest free amount is {max(free(best, rc), 0)} "
                               f"on {best.name}",
        "no provider has {amount} free {rc}: {detail}",
        _capacity_shortfall),
    _unit_bound("min_unit", least=True),
    _unit_bound("max_unit", least=False),
    UnitRule(
        "step_size", lambda p, rc: 0,
        lambda best, pool, rc: _step_sizes(pool, rc),
        "no provider with room for {amount} {rc} takes it in steps that divide {amount}: "
        "{detail}",
        lambda p, rc, amount: f"step_size of {rc} is {p.inventories[rc].step_size} on "
                              f"{p.name}: {amount} is not a multiple"),
)

"""The in-memory picture of providers that the candidate search works on.

The database loader fills these plain objects; the engine never queries
anything else. What a snapshot must include, for exact answers about the
roots it answers for (all its roots, or its ``anchor_ids``):

- every provider with inventory of a requested class in those trees, with
  its whole tree (provider summaries list whole trees, and tree rules need
  parents);
- every sharing provider (trait MISC_SHARES_VIA_AGGREGATE) with inventory of
  a requested class, with its tree, and every provider of those trees
  sharing an aggregate with one of them (those are the trees it serves);
- the provider named by each ``in_tree`` (if it exists), with its tree;
- with a resourceless group, every sharing provider that serves those trees
  and whose own tree is one of the above;
- for each provider: all its traits, aggregates, inventories and usages.

Other trees do no harm as long as they hold no sharing provider; they only
cost time.
"""

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import NamedTuple, Self

from placer.model.inventory import can_take, capacity

SHARING_TRAIT = "MISC_SHARES_VIA_AGGREGATE"


class _InventoryRecord(NamedTuple):
    total: int
    reserved: int
    min_unit: int
    max_unit: int
    step_size: int
    allocation_ratio: float
    capacity: int  # derived: read for every option the search tries


class Inventory(_InventoryRecord):
    """One inventory record of a provider, as stored (a tuple: hundreds of
    thousands are built for a large answer)."""

    __slots__ = ()

    def __new__(cls, total: int, reserved: int = 0, min_unit: int = 1,
                max_unit: int = 2147483647, step_size: int = 1,
                allocation_ratio: float = 1.0) -> Self:
        # tuple.__new__ directly: the named tuple's own __new__ is one more
        # Python call per record
        return tuple.__new__(cls, (total, reserved, min_unit, max_unit, step_size,
                                   allocation_ratio, capacity(total, reserved, allocation_ratio)))


@dataclass(eq=False, slots=True)
class Provider:
    """A resource provider.

    ``id``/``parent_id``/``root_id`` are internal ids (a root has
    ``parent_id`` None and ``root_id == id``). ``traits`` are names,
    ``aggregates`` are aggregate uuids, ``inventories`` maps a resource class
    name to its record and ``usages`` maps a class name to the amount already
    allocated (sum over all consumers; absent means 0).
    """

    id: int
    uuid: str
    name: str
    parent_id: int | None
    root_id: int
    generation: int = 0
    traits: frozenset[str] = frozenset()
    aggregates: frozenset[str] = frozenset()
    inventories: Mapping[str, Inventory] = field(default_factory=dict)
    usages: Mapping[str, int] = field(default_factory=dict)
    is_sharing: bool = field(init=False, repr=False)  # from traits, read in every search loop

    def __post_init__(self) -> None:
        self.is_sharing = SHARING_TRAIT in self.traits

    def fits(self, rc: str, amount: int, already: int = 0) -> bool:
        """Whether ``amount`` more of ``rc`` fits as one request group's share,
        ``already`` being what the same candidate takes from it for other
        groups (model.inventory.can_take)."""
        inv = self.inventories.get(rc)
        return inv is not None and can_take(inv, self.usages.get(rc, 0), amount, already)


class Snapshot:
    """Providers plus the derived indexes the engine needs (computed once)."""

    def __init__(self, providers: Iterable[Provider], anchor_ids: Iterable[int] | None = None):
        self.providers: dict[int, Provider] = {p.id: p for p in sorted(providers, key=_by_id)}
        self.by_uuid: dict[str, Provider] = {p.uuid: p for p in self.providers.values()}
        # The roots this snapshot answers for (None: all). A batch of the
        # database's walk holds other trees too, only to serve these ones:
        # sharing providers and in_tree targets.
        # In answer order: a ranked walk's batch is not by id.
        self.anchor_order: tuple[int, ...] | None = None
        self.anchor_ids: frozenset[int] | None = None
        if anchor_ids is not None:
            self.anchor_order = tuple(anchor_ids)
            self.anchor_ids = frozenset(self.anchor_order)

    def may_anchor(self, root_id: int) -> bool:
        return self.anchor_ids is None or root_id in self.anchor_ids

    def __len__(self) -> int:
        return len(self.providers)

    def get(self, provider_id: int) -> Provider:
        return self.providers[provider_id]

    @cached_property
    def _by_class(self) -> dict[str, list[Provider]]:
        index: dict[str, list[Provider]] = {}
        for p in self.providers.values():
            for rc in p.inventories:
                index.setdefault(rc, []).append(p)
        return index

    def with_class(self, rc: str) -> list[Provider]:
        """Providers having an inventory of ``rc``, by id."""
        return self._by_class.get(rc, [])

    @cached_property
    def sharing(self) -> tuple[Provider, ...]:
        return tuple(p for p in self.providers.values() if p.is_sharing)

    @cached_property
    def _roots_by_aggregate(self) -> dict[str, frozenset[int]]:
        roots: dict[str, set[int]] = {}
        for p in self.providers.values():
            for agg in p.aggregates:
                roots.setdefault(agg, set()).add(p.root_id)
        return {agg: frozenset(ids) for agg, ids in roots.items()}

    def anchors(self, provider: Provider) -> frozenset[int]:
        """Roots of the trees a provider serves: its own, plus, for a sharing
        provider, the root of every provider (at any depth) that shares one
        of its aggregates."""
        if not provider.is_sharing:
            return frozenset([provider.root_id])
        found = {provider.root_id}
        for agg in provider.aggregates:
            found |= self._roots_by_aggregate.get(agg, frozenset())
        return frozenset(found)

    def lineage(self, provider_id: int) -> list[int]:
        """The provider and its ancestors, nearest first."""
        chain: list[int] = []
        current: int | None = provider_id
        while current is not None:
            chain.append(current)
            current = self.providers[current].parent_id
        return chain

    @cached_property
    def _trees(self) -> dict[int, list[Provider]]:
        trees: dict[int, list[Provider]] = {}
        for p in self.providers.values():
            trees.setdefault(p.root_id, []).append(p)
        return trees

    def tree(self, root_id: int) -> list[Provider]:
        """All providers whose root is ``root_id``, by id."""
        return self._trees.get(root_id, [])


def _by_id(provider: Provider) -> int:
    return provider.id

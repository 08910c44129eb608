"""A tiny builder for hand-made snapshots, shared by the candidate tests
(tests/unit/candidates/test_cases.py builds each case's world with it)."""

import uuid

from placer.candidates import search
from placer.candidates.snapshot import SHARING_TRAIT, Inventory, Provider, Snapshot

_NAMESPACE = uuid.UUID("6ba7b811-9dad-11d1-80b4-00c04fd430c8")


def agg(name: str) -> str:
    return str(uuid.uuid5(_NAMESPACE, "agg-" + name))


class World:
    """Providers by name; ``inv`` values are totals or Inventory kwargs."""

    def __init__(self):
        self.providers: dict[str, Provider] = {}

    def add(self, name, parent=None, inv=None, traits=(), aggs=(), used=None, sharing=False):
        pid = len(self.providers) + 1
        parent_p = self.providers[parent] if parent else None
        inventories = {
            rc: Inventory(total=spec) if isinstance(spec, int) else Inventory(**spec)
            for rc, spec in (inv or {}).items()
        }
        traits = set(traits) | ({SHARING_TRAIT} if sharing else set())
        self.providers[name] = Provider(
            id=pid,
            uuid=str(uuid.uuid5(_NAMESPACE, name)),
            name=name,
            parent_id=parent_p.id if parent_p else None,
            root_id=parent_p.root_id if parent_p else pid,
            traits=frozenset(traits),
            aggregates=frozenset(agg(a) for a in aggs),
            inventories=inventories,
            usages=dict(used or {}),
        )
        return self.providers[name]

    def uuid(self, name: str) -> str:
        return self.providers[name].uuid

    def snapshot(self) -> Snapshot:
        return Snapshot(self.providers.values())


def named(candidate: search.Candidate):
    """(frozenset of (provider, class, amount), frozenset of (suffix, providers))."""
    names = {p.uuid: p.name for group in candidate.groups.values() for p, _ in group}
    allocations = frozenset(
        (names[u], rc, n) for u, res in candidate.allocations().items() for rc, n in res.items()
    )
    mappings = frozenset(
        (sfx, frozenset(names[u] for u in uuids)) for sfx, uuids in candidate.mappings().items()
    )
    return allocations, mappings

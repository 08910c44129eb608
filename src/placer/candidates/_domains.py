"""Which providers may serve which part of a request, per anchor tree.

A candidate is built around an *anchor*: the root of one (non-sharing) tree.
The unsuffixed group becomes one slot per resource class, each served by a
provider of the anchor's tree or by a sharing provider serving that tree;
every suffixed group becomes one slot served by a single provider, which may
be a sharing provider serving the anchor. This module applies the rules that
concern one slot and one provider (its own amount fits, traits, aggregates,
in_tree, root_required); the solver handles the rules tying slots together.
"""

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from placer.candidates.request import CandidateRequest, RequestGroup
from placer.candidates.snapshot import Provider, Snapshot

# (provider id, roots it may be anchored to) for one slot
Options = list[tuple[int, Iterable[int]]]


@dataclass
class Slot:
    suffix: str
    demand: dict[str, int]  # empty for a resourceless group
    granular: bool  # part of a suffixed group: one provider, subject to isolate
    options: list[int] = field(default_factory=list)  # provider ids, in search order


@dataclass
class Problem:
    """Everything needed to enumerate the candidates anchored at one root."""

    anchor: int
    slots: list[Slot]
    clauses: tuple[frozenset[str], ...]  # traits the unsuffixed providers hold together


def build_problems(request: CandidateRequest, snapshot: Snapshot) -> list[Problem]:
    """One Problem per viable anchor, anchors in id order."""
    slots: list[Slot] = []
    options: list[Options] = []
    clauses: tuple[frozenset[str], ...] = ()
    seen: dict[tuple, Options] = {}  # identical groups (eight VGPU:1...) share their options
    for group in request.groups:
        scope = _group_scope(group, snapshot)
        if scope is None:
            return []  # upstream gives up on the whole request
        members, tree_root = scope
        if group.suffix:
            slots.append(Slot(group.suffix, dict(group.resources), True))
            same = _signature(group)
            if same not in seen:
                seen[same] = _granular_options(group, snapshot, members, tree_root)
            options.append(seen[same])
            continue
        clauses = group.trait_clauses
        for rc, amount in group.resources.items():
            slots.append(Slot("", {rc: amount}, False))
            options.append(_unsuffixed_options(group, rc, amount, snapshot, members, tree_root))

    # Unsuffixed slots first: the solver relies on it (traits, isolate matching).
    order = sorted(range(len(slots)), key=lambda i: slots[i].granular)
    slots = [slots[i] for i in order]
    options = [options[i] for i in order]

    root_ok = _root_filter(request, snapshot)
    by_anchor: dict[int, list[list[int]]] = {}
    for index, slot_options in enumerate(options):
        for provider_id, anchors in slot_options:
            for anchor in anchors:
                if root_ok(anchor):
                    lists = by_anchor.setdefault(anchor, [[] for _ in slots])
                    lists[index].append(provider_id)

    problems = []
    for anchor in sorted(by_anchor):
        lists = by_anchor[anchor]
        if not all(lists):
            continue
        anchored = [
            Slot(s.suffix, s.demand, s.granular, ids) for s, ids in zip(slots, lists, strict=True)
        ]
        unsuffixed = {pid for s in anchored if not s.granular for pid in s.options}
        if not _covers(clauses, (snapshot.get(pid) for pid in unsuffixed)):
            continue
        problems.append(Problem(anchor, anchored, clauses))
    return problems


def _signature(group: RequestGroup) -> tuple:
    return (
        tuple(group.resources.items()),
        group.trait_clauses,
        group.forbidden,
        group.member_of,
        group.forbidden_aggs,
        group.in_tree,
    )


def _group_scope(group: RequestGroup, snapshot: Snapshot):
    """(ids of providers meeting member_of, root id of in_tree), or None when
    upstream would find nothing at all: an unknown in_tree provider, or no
    provider meeting member_of."""
    tree_root = None
    if group.in_tree is not None:
        target = snapshot.by_uuid.get(group.in_tree)
        if target is None:
            return None
        tree_root = target.root_id
    members: set[int] = set()
    if group.member_of:
        members = {
            p.id
            for p in snapshot.providers.values()
            if all(p.aggregates & any_of for any_of in group.member_of)
        }
        if not members:
            return None
    return members, tree_root


def _granular_options(group, snapshot, members, tree_root) -> Options:
    clauses = group.trait_clauses
    if not group.resources and not (clauses or group.member_of):
        # Upstream finds no provider for a resourceless group that has no
        # positive trait or aggregate filter (in_tree is ignored there too).
        return []
    result = []
    for p in snapshot.providers.values():
        if (
            (group.member_of and p.id not in members)
            or group.forbidden_aggs & p.aggregates
            or group.forbidden & p.traits
            or not _covers(clauses, [p])
        ):
            continue
        if group.resources:
            if tree_root is not None and p.root_id != tree_root:
                continue
            if not all(p.fits(rc, amount) for rc, amount in group.resources.items()):
                continue
        result.append((p.id, snapshot.anchors(p)))
    return result


def _unsuffixed_options(group, rc, amount, snapshot, members, tree_root) -> Options:
    """Providers for one class of the unsuffixed group, with their anchors.

    Aggregates on the anchor root count as the provider's own here (member_of
    and forbidden aggregates alike); a sharing provider serves other trees
    only when it meets member_of itself and no in_tree is given.
    """
    result = []
    for p in snapshot.providers.values():
        if group.forbidden & p.traits or not p.fits(rc, amount):
            continue
        if tree_root is not None and p.root_id != tree_root:
            continue
        anchors = {p.root_id}
        if tree_root is None and (not group.member_of or p.id in members):
            anchors |= snapshot.anchors(p)
        kept = [a for a in anchors if _aggregates_ok(group, p, snapshot.get(a), members)]
        if kept:
            result.append((p.id, kept))
    return result


def _aggregates_ok(group: RequestGroup, p: Provider, root: Provider, members) -> bool:
    if group.member_of and p.id not in members and root.id not in members:
        return False
    return not (group.forbidden_aggs & (p.aggregates | root.aggregates))


def _covers(clauses, providers: Iterable[Provider]) -> bool:
    traits: set[str] = set()
    for p in providers:
        traits |= p.traits
    return all(clause & traits for clause in clauses)


def _root_filter(request: CandidateRequest, snapshot: Snapshot) -> Callable[[int], bool]:
    required, forbidden = request.root_required, request.root_forbidden
    if not (required or forbidden):
        return lambda _anchor: True

    def ok(anchor: int) -> bool:
        root = snapshot.get(anchor)
        return required <= root.traits and not forbidden & root.traits

    return ok

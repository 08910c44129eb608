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
from dataclasses import dataclass

from placer.candidates.request import CandidateRequest, RequestGroup
from placer.candidates.snapshot import Provider, Snapshot

# (provider, roots it may be anchored to) for one slot
Options = list[tuple[Provider, Iterable[int]]]
# (ids of providers meeting member_of, root id of in_tree) of one group
Scope = tuple[set[int], int | None]
# what makes two groups alike: resources, trait clauses, forbidden traits,
# member_of, forbidden aggregates, in_tree
Signature = tuple[
    tuple[tuple[str, int], ...],
    tuple[frozenset[str], ...],
    frozenset[str],
    tuple[frozenset[str], ...],
    frozenset[str],
    str | None,
]


@dataclass(frozen=True, eq=False)
class Slot:
    suffix: str
    demand: dict[str, int]  # empty for a resourceless group
    granular: bool  # part of a suffixed group: one provider, subject to isolate
    group: RequestGroup


class Layout:
    """The slots of a request, the same for every anchor.

    ``slots`` are in search order: unsuffixed classes first (the solver
    relies on it for traits and isolate), then suffixed groups. ``groups``
    gives, in request order, each group's suffix and slot indices; ``giving``
    the (index, demand items) of the slots giving resources, in that order.
    """

    def __init__(self, request: CandidateRequest):
        slots: list[Slot] = []
        for group in request.groups:
            if group.suffix:
                slots.append(Slot(group.suffix, dict(group.resources), True, group))
            else:
                slots += [Slot("", {rc: n}, False, group) for rc, n in group.resources.items()]
        self.slots: list[Slot] = sorted(slots, key=lambda s: s.granular)
        self.clauses = next((g.trait_clauses for g in request.groups if not g.suffix), ())
        self.groups: tuple[tuple[str, tuple[int, ...]], ...] = tuple(
            (g.suffix, tuple(i for i, s in enumerate(self.slots) if s.group is g))
            for g in request.groups
        )
        self.giving: tuple[tuple[int, tuple[tuple[str, int], ...]], ...] = tuple(
            (i, tuple(self.slots[i].demand.items()))
            for _, indices in self.groups
            for i in indices
            if self.slots[i].demand
        )


@dataclass(eq=False)
class Problem:
    """Everything needed to enumerate the candidates anchored at one root."""

    anchor: int
    options: list[list[Provider]]  # per slot of the Layout, in search order


def build_problems(request: CandidateRequest, layout: Layout, snapshot: Snapshot) -> list[Problem]:
    """One Problem per viable anchor, anchors in id order."""
    options: list[Options] = []
    scopes: dict[int, Scope] = {}
    seen: dict[Signature, Options] = {}  # identical groups (eight VGPU:1...) share their options
    for group in request.groups:
        scope = group_scope(group, snapshot)
        if scope is None:
            return []  # upstream gives up on the whole request
        scopes[id(group)] = scope
    for slot in layout.slots:
        group = slot.group
        members, tree_root = scopes[id(group)]
        if slot.granular:
            same = signature(group)
            if same not in seen:
                seen[same] = _granular_options(group, snapshot, members, tree_root)
            options.append(seen[same])
        else:
            (rc, amount), = slot.demand.items()
            options.append(_unsuffixed_options(group, rc, amount, snapshot, members, tree_root))

    root_ok = _root_filter(request, snapshot)
    count = len(options)
    by_anchor: dict[int, list[list[Provider]]] = {}
    for index, slot_options in enumerate(options):
        for provider, anchors in slot_options:
            for anchor in anchors:
                lists = by_anchor.get(anchor)
                if lists is None:
                    if not (snapshot.may_anchor(anchor) and root_ok(anchor)):
                        continue
                    lists = by_anchor[anchor] = [[] for _ in range(count)]
                lists[index].append(provider)

    unsuffixed = [i for i, s in enumerate(layout.slots) if not s.granular]
    problems: list[Problem] = []
    for anchor in sorted(by_anchor):
        lists = by_anchor[anchor]
        if not all(lists):
            continue
        if layout.clauses:
            if not _covers(layout.clauses, (p for i in unsuffixed for p in lists[i])):
                continue
        problems.append(Problem(anchor, lists))
    return problems


def signature(group: RequestGroup) -> Signature:
    """What makes two groups alike (all but the suffix)."""
    return (
        tuple(group.resources.items()),
        group.trait_clauses,
        group.forbidden,
        group.member_of,
        group.forbidden_aggs,
        group.in_tree,
    )


def group_scope(group: RequestGroup, snapshot: Snapshot) -> Scope | None:
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


def _granular_options(group: RequestGroup, snapshot: Snapshot, members: set[int],
                      tree_root: int | None) -> Options:
    clauses = group.trait_clauses
    if not group.resources:
        if not (clauses or group.member_of):
            # Upstream finds no provider for a resourceless group that has no
            # positive trait or aggregate filter (in_tree is ignored there too).
            return []
        providers: Iterable[Provider] = snapshot.providers.values()
    else:
        providers = snapshot.with_class(next(iter(group.resources)))
    result: Options = []
    for p in providers:
        if (
            (group.member_of and p.id not in members)
            or group.forbidden_aggs & p.aggregates
            or group.forbidden & p.traits
            or not all(clause & p.traits for clause in clauses)
        ):
            continue
        if group.resources:
            if tree_root is not None and p.root_id != tree_root:
                continue
            if not all(p.fits(rc, amount) for rc, amount in group.resources.items()):
                continue
        result.append((p, snapshot.anchors(p)))
    return result


def _unsuffixed_options(group: RequestGroup, rc: str, amount: int, snapshot: Snapshot,
                        members: set[int], tree_root: int | None) -> Options:
    """Providers for one class of the unsuffixed group, with their anchors.

    Aggregates on the anchor root count as the provider's own here (member_of
    and forbidden aggregates alike); a sharing provider serves other trees
    only when it meets member_of itself and no in_tree is given.
    """
    by_aggregate = group.member_of or group.forbidden_aggs
    result: Options = []
    for p in snapshot.with_class(rc):
        if group.forbidden & p.traits or not p.fits(rc, amount):
            continue
        if tree_root is not None and p.root_id != tree_root:
            continue
        anchors: Iterable[int] = (p.root_id,)
        if p.is_sharing and tree_root is None and (not group.member_of or p.id in members):
            anchors = snapshot.anchors(p)
        if by_aggregate:
            anchors = [a for a in anchors if aggregates_ok(group, p, snapshot.get(a), members)]
        if anchors:
            result.append((p, anchors))
    return result


def aggregates_ok(group: RequestGroup, p: Provider, root: Provider, members: set[int]) -> bool:
    if group.member_of and p.id not in members and root.id not in members:
        return False
    return not (group.forbidden_aggs & (p.aggregates | root.aggregates))


def _covers(clauses: Iterable[frozenset[str]], providers: Iterable[Provider]) -> bool:
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

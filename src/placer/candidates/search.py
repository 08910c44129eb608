"""The allocation candidate engine: parsed request + snapshot -> candidates.

Pure and lazy: ``find_candidates`` is a generator that does only the work
needed for the candidates taken from it, and stops by itself at the limit
and at ``max_candidates``.

Semantics (those of the reference, checked against it):

- A candidate is anchored at the root of one tree. The unsuffixed group takes
  each of its classes from one provider of that tree or from a sharing
  provider serving it (by aggregate, see Snapshot.anchors); its traits are
  judged on the union of the providers it uses, its member_of and forbidden
  aggregates on each provider together with the anchor root.
- A suffixed group takes everything from one provider, which must have the
  traits and aggregates itself; a sharing provider also serves the trees it
  is shared with. Resourceless groups only appear in mappings.
- Capacity and max_unit apply to the candidate's total per provider and
  class; group_policy=isolate makes suffixed groups use distinct providers;
  root_required/root_forbidden apply to the anchor root; same_subtree needs
  one provider of the listed groups to be an ancestor-or-self of the others.
- Candidates with equal allocations and equal mappings are one candidate
  (this only happens when every provider used is a sharing provider serving
  several anchors); different mappings make different candidates, so eight
  identical GPUs give every permutation, as upstream.
- Before 1.29 a candidate may not use two different providers of one tree.
"""

import enum
import itertools
import random
from collections.abc import Iterable, Iterator
from typing import Final, TypedDict, Unpack

from placer.candidates import domains, solver
from placer.candidates.order import Order
from placer.candidates.request import CandidateRequest
from placer.candidates.snapshot import Provider, Snapshot

STRATEGIES = ("depth-first", "breadth-first")


class _FromRequest(enum.Enum):
    """The default ``limit``: the request's (None already means no limit)."""

    FROM_REQUEST = enum.auto()


_FROM_REQUEST: Final = _FromRequest.FROM_REQUEST
# a candidate's allocations (uuid, class, amount) and mappings (suffix, uuids)
_SharedKey = tuple[frozenset[tuple[str, str, int]], frozenset[tuple[str, frozenset[str]]]]


class Candidate:
    """One allocation candidate: the provider serving each slot of the layout.
    ``anchor`` is the root of the tree the candidate was built around, in
    ``snapshot`` (which holds the whole trees of its providers)."""

    __slots__ = ("anchor", "layout", "providers", "snapshot")

    def __init__(self, anchor: Provider, layout: domains.Layout, providers: list[Provider],
                 snapshot: Snapshot):
        self.anchor = anchor
        self.layout = layout
        self.providers = providers
        self.snapshot = snapshot

    @property
    def groups(self) -> dict[str, list[tuple[Provider, dict[str, int]]]]:
        """For each group suffix (request order), the providers serving it and
        what each gives (``{}`` for a resourceless group)."""
        result: dict[str, list[tuple[Provider, dict[str, int]]]] = {}
        for suffix, indices in self.layout.groups:
            gives: dict[Provider, dict[str, int]] = {}
            for i in indices:
                gives.setdefault(self.providers[i], {}).update(self.layout.slots[i].demand)
            result[suffix] = list(gives.items())
        return result

    def allocations(self) -> dict[str, dict[str, int]]:
        """provider uuid -> class -> amount, summed over groups."""
        result: dict[str, dict[str, int]] = {}
        providers = self.providers
        for i, demand in self.layout.giving:
            into = result.get(providers[i].uuid)
            if into is None:
                result[providers[i].uuid] = dict(demand)
                continue
            for rc, amount in demand:
                into[rc] = into.get(rc, 0) + amount
        return result

    def mappings(self) -> dict[str, list[str]]:
        """suffix -> uuids of the providers satisfying that group."""
        providers = self.providers
        result: dict[str, list[str]] = {}
        for sfx, indices in self.layout.groups:
            if len(indices) == 1:
                result[sfx] = [providers[indices[0]].uuid]
            else:
                result[sfx] = list(dict.fromkeys(providers[i].uuid for i in indices))
        return result

    def resource_providers(self) -> list[Provider]:
        """Providers giving resources, each once."""
        return list(dict.fromkeys(self.providers[i] for i, _ in self.layout.giving))


class SearchOptions(TypedDict, total=False):
    """``stream_candidates``' options, which ``find_candidates`` passes on."""

    limit: int | None | _FromRequest
    max_candidates: int
    strategy: str
    rng: random.Random | None
    order: Order | None


def find_candidates(request: CandidateRequest, snapshot: Snapshot,
                    **options: Unpack[SearchOptions]) -> Iterator[Candidate]:
    """Yield the request's candidates, at most ``limit`` (default: the
    request's) and, like upstream's ``max_allocation_candidates``, stopping
    once ``max_candidates`` (-1: no bound) have been produced.

    ``strategy`` orders an unlimited answer: depth-first gives all
    candidates of one root before the next, breadth-first takes one from
    each root in turn. A limited answer always takes one from each root in
    turn (see ``stream_candidates``).
    Without ``rng`` the order is deterministic (anchors and providers by id,
    or by rank with a spread or pack ``order``); with it, anchors and each
    slot's providers are searched in random order (a random walk, not a
    uniform sample of the whole set).
    """
    return stream_candidates(request, [snapshot], **options)


def stream_candidates(
    request: CandidateRequest,
    batches: Iterable[Snapshot],
    *,
    limit: int | None | _FromRequest = _FROM_REQUEST,
    max_candidates: int = -1,
    strategy: str = "depth-first",
    rng: random.Random | None = None,
    order: Order | None = None,
) -> Iterator[Candidate]:
    """``find_candidates`` over snapshots taken one at a time, each answering
    for its ``anchor_ids`` (consecutive runs of the anchors in answer order).

    An unlimited answer comes in ``strategy`` order. A limited one takes
    candidates across anchors, whatever the strategy: the first candidate of
    each anchor, in anchor order, before any anchor's second, and so on until
    the limit, so that it spans as many roots as it can (the reference
    slices its limit off the whole set, listed in a hash order). The
    strategy still decides which candidates are generated when
    ``max_candidates`` bounds them, as upstream: depth-first, the first
    ``max_candidates`` of the anchors in turn (listed, so this costs up to
    that many candidates); breadth-first, the first of the rounds.

    The answer is the one a single snapshot holding every batch would give:
    anchors are met in the same order, rounds span all batches (the first
    round is taken while batches arrive, the next ones once they are all
    in), and shared candidates are deduplicated across batches. The next
    batch is taken only while the answer needs more.
    """
    if strategy not in STRATEGIES:
        raise ValueError(f"Strategy '{strategy}' not recognized")
    if limit is _FROM_REQUEST:
        limit = request.limit
    layout = domains.Layout(request)
    shared_seen: set[_SharedKey] = set()

    def streams() -> Iterator[Iterator[Candidate]]:
        for snapshot in batches:
            for stream in _batch_streams(request, layout, snapshot, rng, order):
                yield _distinct(stream, shared_seen)

    source: Iterator[Candidate]
    if limit is None and strategy == "depth-first":
        source = itertools.chain.from_iterable(streams())
    elif limit is not None and strategy == "depth-first" and max_candidates >= 0:
        source = _across(_depth_first_shares(streams(), max(max_candidates, 1)))
    else:
        source = _across(streams())
    bound = [n for n in (limit, max_candidates) if n is not None and n >= 0]
    # like upstream, a bound of 0 still lets one candidate through
    yield from itertools.islice(source, max(min(bound), 1) if bound else None)


def _batch_streams(request: CandidateRequest, layout: domains.Layout, snapshot: Snapshot,
                   rng: random.Random | None,
                   order: Order | None = None) -> list[Iterator[Candidate]]:
    """One lazy stream of candidates per viable anchor of the snapshot."""
    problems = domains.build_problems(request, layout, snapshot)
    if rng is not None:
        rng.shuffle(problems)
        for problem in problems:
            for options in problem.options:
                rng.shuffle(options)
    elif order is not None and order.scored:
        _rank(problems, request, layout, snapshot, order)
    plan = solver.Plan(layout, request, snapshot)
    return [_anchored(problem, plan, layout, snapshot) for problem in problems]


def _rank(problems: list[domains.Problem], request: CandidateRequest, layout: domains.Layout,
          snapshot: Snapshot, order: Order) -> None:
    """Put anchors and each slot's providers in ``order`` (spread, pack):
    anchors as the walk met them (their stored ranks) or, over a whole
    snapshot, by the rank of their trees; providers by their own rank over
    the slot's classes. Ties by id."""
    if snapshot.anchor_order is not None:
        position = {root: i for i, root in enumerate(snapshot.anchor_order)}
        problems.sort(key=lambda p: position[p.anchor])
    else:
        classes = order.weighted(request.resource_classes())
        problems.sort(key=lambda p: (order.tree_rank(snapshot.tree(p.anchor), classes),
                                     p.anchor))
    ranks: dict[tuple[int, int], int] = {}
    slot_classes = [order.weighted(slot.demand) for slot in layout.slots]
    for problem in problems:
        for i, options in enumerate(problem.options):
            if len(options) < 2 or not slot_classes[i]:
                continue
            for p in options:
                if (p.id, i) not in ranks:
                    ranks[p.id, i] = order.provider_rank(p, slot_classes[i])
            options.sort(key=lambda p: (ranks[p.id, i], p.id))


def summary_providers(candidates: Iterable[Candidate], nested_aware: bool = True) -> list[Provider]:
    """Providers for provider_summaries, by id: from 1.29 every provider of
    every tree giving resources to a candidate; before, only those providers."""
    giving: dict[int, Provider] = {}
    trees: dict[int, Snapshot] = {}
    for candidate in candidates:
        providers = candidate.providers
        for i, _ in candidate.layout.giving:
            p = providers[i]
            giving[p.id] = p
            trees.setdefault(p.root_id, candidate.snapshot)
    if not nested_aware:
        return [giving[pid] for pid in sorted(giving)]
    return sorted((p for root, snap in trees.items() for p in snap.tree(root)),
                  key=lambda p: p.id)


def _anchored(problem: domains.Problem, plan: solver.Plan, layout: domains.Layout,
              snapshot: Snapshot) -> Iterator[Candidate]:
    anchor = snapshot.get(problem.anchor)
    for providers in plan.assignments(problem):
        yield Candidate(anchor, layout, providers, snapshot)


def _distinct(stream: Iterator[Candidate], seen: set[_SharedKey]) -> Iterator[Candidate]:
    """``stream`` without the candidates another anchor already gave (only
    candidates made of sharing providers alone can repeat)."""
    for candidate in stream:
        key = _shared_key(candidate)
        if key is not None:
            if key in seen:
                continue
            seen.add(key)
        yield candidate


def _shared_key(candidate: Candidate) -> _SharedKey | None:
    """Identity of a candidate that may also come from another anchor, else None."""
    if not all(p.is_sharing for p in candidate.providers):
        return None  # a non-sharing provider serves its own tree only
    allocations = frozenset(
        (uuid, rc, amount)
        for uuid, resources in candidate.allocations().items()
        for rc, amount in resources.items()
    )
    mappings = frozenset((sfx, frozenset(uuids)) for sfx, uuids in candidate.mappings().items())
    return allocations, mappings


def _depth_first_shares(streams: Iterator[Iterator[Candidate]], budget: int
                        ) -> Iterator[Iterator[Candidate]]:
    """Each anchor's share of the first ``budget`` candidates generated
    depth-first, listed: the set a depth-first generation bounded by
    max_allocation_candidates holds."""
    for stream in streams:
        share = list(itertools.islice(stream, budget))
        budget -= len(share)
        if share:
            yield iter(share)
        if budget <= 0:
            return


def _across(streams: Iterator[Iterator[Candidate]]) -> Iterator[Candidate]:
    """One candidate from each stream in turn: the first round as streams
    arrive (held for the next rounds), then the others."""
    held: list[Iterator[Candidate]] = []
    for stream in streams:
        first = next(stream, None)
        if first is not None:
            held.append(stream)
            yield first
    while held:
        still: list[Iterator[Candidate]] = []
        for stream in held:
            candidate = next(stream, None)
            if candidate is not None:
                yield candidate
                still.append(stream)
        held = still

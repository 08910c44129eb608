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

import itertools
import random
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from placer.candidates import _domains, _solver
from placer.candidates.request import CandidateRequest
from placer.candidates.snapshot import Provider, Snapshot

STRATEGIES = ("depth-first", "breadth-first")
_FROM_REQUEST = object()


@dataclass(frozen=True, eq=False)
class Candidate:
    """One allocation candidate: for each group suffix (request order), the
    providers serving it and what each gives (``{}`` for a resourceless group).
    ``anchor`` is the root of the tree the candidate was built around."""

    anchor: Provider
    groups: dict[str, list[tuple[Provider, dict[str, int]]]]

    def allocations(self) -> dict[str, dict[str, int]]:
        """provider uuid -> class -> amount, summed over groups."""
        result: dict[str, dict[str, int]] = {}
        for assignments in self.groups.values():
            for provider, resources in assignments:
                if resources:
                    into = result.setdefault(provider.uuid, {})
                    for rc, amount in resources.items():
                        into[rc] = into.get(rc, 0) + amount
        return result

    def mappings(self) -> dict[str, list[str]]:
        """suffix -> uuids of the providers satisfying that group."""
        return {sfx: [p.uuid for p, _ in assigned] for sfx, assigned in self.groups.items()}

    def resource_providers(self) -> list[Provider]:
        """Providers giving resources, each once."""
        seen: dict[int, Provider] = {}
        for assignments in self.groups.values():
            for provider, resources in assignments:
                if resources:
                    seen.setdefault(provider.id, provider)
        return list(seen.values())


def find_candidates(
    request: CandidateRequest,
    snapshot: Snapshot,
    *,
    limit=_FROM_REQUEST,
    max_candidates: int = -1,
    strategy: str = "depth-first",
    rng: random.Random | None = None,
) -> Iterator[Candidate]:
    """Yield the request's candidates, at most ``limit`` (default: the
    request's) and, like upstream's ``max_allocation_candidates``, stopping
    once ``max_candidates`` (-1: no bound) have been produced.

    ``strategy`` orders the anchors: depth-first gives all candidates of one
    root before the next, breadth-first takes one from each root in turn.
    Without ``rng`` the order is deterministic (anchors and providers by id);
    with it, anchors and each slot's providers are searched in random order
    (a random walk, not a uniform sample of the whole set).
    """
    if strategy not in STRATEGIES:
        raise ValueError(f"Strategy '{strategy}' not recognized")
    if limit is _FROM_REQUEST:
        limit = request.limit
    problems = _domains.build_problems(request, snapshot)
    if rng is not None:
        rng.shuffle(problems)
        for problem in problems:
            for slot in problem.slots:
                rng.shuffle(slot.options)
    streams = [_anchored(problem, request, snapshot) for problem in problems]
    merged = itertools.chain.from_iterable(streams)
    if strategy == "breadth-first":
        merged = _round_robin(streams)

    emitted = 0
    shared_seen: set = set()
    for candidate in merged:
        key = _shared_key(candidate)
        if key is not None:
            if key in shared_seen:
                continue
            shared_seen.add(key)
        yield candidate
        emitted += 1
        if limit is not None and emitted >= limit:
            return
        if 0 <= max_candidates <= emitted:
            return


def summary_providers(
    candidates: Iterable[Candidate], snapshot: Snapshot, nested_aware: bool = True
) -> list[Provider]:
    """Providers for provider_summaries, by id: from 1.29 every provider of
    every tree giving resources to a candidate; before, only those providers."""
    giving: dict[int, Provider] = {}
    for candidate in candidates:
        for provider in candidate.resource_providers():
            giving[provider.id] = provider
    if not nested_aware:
        return [giving[pid] for pid in sorted(giving)]
    roots = {p.root_id for p in giving.values()}
    return sorted((p for root in roots for p in snapshot.tree(root)), key=lambda p: p.id)


def _anchored(problem, request, snapshot) -> Iterator[Candidate]:
    anchor = snapshot.get(problem.anchor)
    for choice in _solver.assignments(problem, request, snapshot):
        groups: dict[str, list[tuple[Provider, dict[str, int]]]] = {
            group.suffix: [] for group in request.groups
        }
        for slot, pid in zip(problem.slots, choice, strict=True):
            provider = snapshot.get(pid)
            assigned = groups[slot.suffix]
            if slot.granular:
                assigned.append((provider, dict(slot.demand)))
                continue
            for seen, resources in assigned:  # the unsuffixed group: merge per provider
                if seen is provider:
                    resources.update(slot.demand)
                    break
            else:
                assigned.append((provider, dict(slot.demand)))
        yield Candidate(anchor, groups)


def _shared_key(candidate: Candidate):
    """Identity of a candidate that may also come from another anchor, else None."""
    providers = [p for assigned in candidate.groups.values() for p, _ in assigned]
    if not all(p.is_sharing for p in providers):
        return None  # a non-sharing provider serves its own tree only
    allocations = frozenset(
        (uuid, rc, amount)
        for uuid, resources in candidate.allocations().items()
        for rc, amount in resources.items()
    )
    mappings = frozenset((sfx, frozenset(uuids)) for sfx, uuids in candidate.mappings().items())
    return allocations, mappings


def _round_robin(streams: list[Iterator[Candidate]]) -> Iterator[Candidate]:
    active = list(streams)
    while active:
        still = []
        for stream in active:
            candidate = next(stream, None)
            if candidate is not None:
                yield candidate
                still.append(stream)
        active = still

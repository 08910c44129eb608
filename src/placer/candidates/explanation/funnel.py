"""The funnel: how many providers and trees each constraint leaves, and
how many candidates the request-wide rules leave (see the package's doc)."""

import dataclasses
from collections.abc import Iterable, Iterator

from placer.candidates import domains, search, solver
from placer.candidates.explanation import filters
from placer.candidates.explanation.steps import Step
from placer.candidates.explanation.unit_rules import RULES
from placer.candidates.request import CandidateRequest, RequestGroup
from placer.candidates.snapshot import Provider, Snapshot

# Candidates are counted up to this many (the answer may hold more).
COUNT_CAP = 1000


def _anchors(snapshot: Snapshot, providers: Iterable[Provider]) -> frozenset[int]:
    return frozenset(a for p in providers for a in snapshot.anchors(p) if snapshot.may_anchor(a))


def _resource_steps(group: RequestGroup, snapshot: Snapshot) -> list[Step]:
    """Holding each class, then each class's unit rules. A suffixed group
    needs everything on one provider; the unsuffixed group one provider per
    class, all serving one tree."""
    name, sfx = filters.group_name(group), group.suffix
    # the providers left per class (one pool for a suffixed group) and the
    # trees each pool serves
    pools: dict[str, list[Provider]] = {}
    reach: dict[str, frozenset[int]] = {}

    def trees() -> frozenset[int]:
        return frozenset.intersection(*reach.values())

    def pool_of(rc: str) -> list[Provider]:
        return pools["" if sfx else rc]

    def put(rc: str, providers: list[Provider]) -> None:
        key = "" if sfx else rc
        # a step only ever narrows a pool: the same size is the same pool,
        # whose trees are known (most unit rules drop nobody)
        if key not in pools or len(providers) != len(pools[key]):
            reach[key] = _anchors(snapshot, providers)
        pools[key] = providers

    steps: list[Step] = []
    seen: list[str] = []  # classes so far
    for rc in group.resources:
        holders = snapshot.with_class(rc)
        if sfx and seen:
            holders = [p for p in pool_of(rc) if rc in p.inventories]
        put(rc, holders)
        seen.append(rc)
        left = trees()
        if not holders:
            message = (f"no provider has {' and '.join(seen)} together" if sfx and len(seen) > 1
                       else f"no provider has an inventory of {rc}")
        else:
            message = (f"no tree holds {' and '.join(seen)} (on its own providers or on "
                       "sharing providers serving it)")
        steps.append(Step(sfx, "class", rc, len(left), len(holders), message=message,
                          tree_ids=left))
    for rc, amount in group.resources.items():
        for rule in RULES:
            before = pool_of(rc)
            kept = [p for p in before if rule.ok(p, rc, amount)]
            put(rc, kept)
            left = trees()
            detail = rule.pool_detail(before, rc)
            message = (rule.refusal.format(amount=amount, rc=rc, detail=detail) if not kept else
                       f"the providers that can give {amount} {rc} serve no tree that can also "
                       f"give the other classes of {name}")
            steps.append(Step(sfx, rule.kind, f"{rc}:{amount}", len(left), len(kept),
                              detail=detail, message=message, tree_ids=left))
    return steps


def group_steps(request: CandidateRequest, group: RequestGroup, snapshot: Snapshot) -> list[Step]:
    name, sfx = filters.group_name(group), group.suffix
    if group.resources:
        steps = _resource_steps(group, snapshot)
    else:
        positive = bool(group.trait_clauses or group.member_of)
        everyone = list(snapshot.providers.values()) if positive else []
        left = _anchors(snapshot, everyone)
        steps = [Step(sfx, "providers", "", len(left), len(everyone), tree_ids=left,
                      message=f"{name} has no resources: it matches no provider unless it "
                              "requires a trait or an aggregate")]
    every = filters.of(group)
    for n, f in enumerate(every, start=1):
        problems = filters.anchors_alone(request, filters.with_only(group, every[:n]), snapshot)
        left = frozenset(pr.anchor for pr in problems)
        providers = {p.id for pr in problems for options in pr.options for p in options}
        steps.append(Step(sfx, f[0], filters.text(f), len(left), len(providers),
                          message=filters.message(group, f, snapshot), tree_ids=left))
    return steps


def _trees(count: int) -> str:
    return "1 tree" if count == 1 else f"{count} trees"


def request_steps(request: CandidateRequest, snapshot: Snapshot,
                  groups: list[tuple[RequestGroup, list[Step]]], max_candidates: int,
                  strategy: str = "depth-first") -> tuple[list[Step], int, int]:
    """The request-wide steps, the number of candidates the answer holds and
    the number of roots it spans (``strategy``: the service's, which decides
    them when max_candidates bounds the answer)."""
    common = frozenset.intersection(*(steps[-1].tree_ids for _, steps in groups))
    fits_in = ", ".join(f"{filters.group_name(g)} fits in {_trees(len(steps[-1].tree_ids))}"
                        for g, steps in groups)
    steps = [Step(None, "one_tree", "", len(common), detail=fits_in, tree_ids=common,
                  message=f"no tree can serve every group: {fits_in}, none in common")]
    left = common
    for trait in sorted(request.root_required):
        left = frozenset(a for a in left if trait in snapshot.get(a).traits)
        steps.append(Step(None, "root_required", trait, len(left), tree_ids=left,
                          message=f"no tree left has a root with trait {trait}"))
    for trait in sorted(request.root_forbidden):
        left = frozenset(a for a in left if trait not in snapshot.get(a).traits)
        steps.append(Step(None, "root_forbidden", trait, len(left), tree_ids=left,
                          message=f"every tree left has a root with trait {trait}, "
                                  "which root_required forbids"))

    layout = domains.Layout(request)
    alive = [pr for pr in domains.build_problems(request, layout, snapshot) if pr.anchor in left]
    for kind, value, variant, message in solver_variants(request):
        plan = solver.Plan(layout, variant, snapshot)
        alive = [pr for pr in alive if next(iter(plan.assignments(pr)), None) is not None]
        ids = frozenset(pr.anchor for pr in alive)
        steps.append(Step(None, kind, value, len(ids), tree_ids=ids, message=message))

    # breadth-first, so that a capped count still meets as many roots as it can
    anchors = [c.anchor.id for c in search.find_candidates(
        request, snapshot, limit=None, max_candidates=COUNT_CAP, strategy="breadth-first")]
    found, roots = len(anchors), len(set(anchors))
    detail = f"counted up to {COUNT_CAP}" if found >= COUNT_CAP else ""
    steps.append(Step(None, "candidates", "", trees=roots, candidates=found, detail=detail,
                      message="the search finds no candidate"))
    answer = found
    if max_candidates >= 0:
        answer = min(answer, max_candidates)
        roots = _roots(request, snapshot, None, max_candidates, strategy)
        steps.append(Step(None, "max_allocation_candidates", str(max_candidates),
                          trees=roots, candidates=answer))
    if request.limit is not None:
        answer = min(answer, request.limit)
        roots = _roots(request, snapshot, request.limit, max_candidates, strategy)
        steps.append(Step(None, "limit", str(request.limit), trees=roots, candidates=answer))
    return steps, answer, roots


def _roots(request: CandidateRequest, snapshot: Snapshot, limit: int | None,
           max_candidates: int, strategy: str) -> int:
    """How many roots the answer bounded by ``limit`` and ``max_candidates``
    spans (both bound the search, so this costs what the answer costs)."""
    return len({c.anchor.id for c in search.find_candidates(
        request, snapshot, limit=limit, max_candidates=max_candidates, strategy=strategy)})


def solver_variants(request: CandidateRequest
                    ) -> Iterator[tuple[str, str, CandidateRequest, str]]:
    """(constraint, value, request so far, message): the rules
    tying groups together, added one at a time; the last is the request."""
    current = dataclasses.replace(request, same_subtree=(), group_policy=None, limit=None,
                                  version=max(request.version, (1, 29)))
    yield ("together", "", current,
           "every group fits in some tree alone, but in no tree together: they need more "
           "than the providers they share can give (or the unsuffixed group's traits are "
           "not on the providers that can give it everything)")
    for n, subtree in enumerate(request.same_subtree):
        current = dataclasses.replace(current, same_subtree=request.same_subtree[:n + 1])
        value = ",".join(subtree)
        yield ("same_subtree", value, current,
               f"no tree left can place groups {value} under one provider of theirs "
               "(same_subtree)")
    if request.isolate:
        current = dataclasses.replace(current, group_policy=request.group_policy)
        suffixes = ", ".join(g.suffix for g in request.groups if g.suffix)
        yield ("isolate", "", current,
               f"no tree left has a different provider for each of the groups {suffixes} "
               "(group_policy=isolate)")
    if not request.nested_aware:
        current = dataclasses.replace(current, version=request.version)
        yield ("one_provider_per_tree", "", current,
               "before microversion 1.29 a candidate takes from one provider per tree, and "
               "every tree left needs more than one")

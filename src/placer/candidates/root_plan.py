"""The conditions every root anchoring a candidate meets, as a plan of data.

The plan holds necessary conditions only (room for each amount,
min/max/step, traits, aggregates, in_tree, root_required, sharing providers
reachable by aggregate). Each is looser than the engine's rule, never
stricter, so the engine stays the single judge of an answer; the rules
that need a whole tree (the unsuffixed group's traits spread over
providers, same_subtree, isolate) are left to it.

Steps are plain tuples of ids and amounts, ``(kind, *arguments)``, which
the database side (placer.db.root_filter) compiles once per distinct plan:
the scheduler asks the same shapes again. ``sharing`` arguments name the
sharing providers that may give instead of the tree: (their ids, their
roots), or None.
"""

from collections.abc import Iterable

from placer.candidates.request import CandidateRequest, RequestGroup
from placer.candidates.snapshot import Provider
from placer.candidates.store import (
    Granular,
    Names,
    Plan,
    Sharing,
    Step,
)


class RootPlan:
    """Builds the plan of a request, given the ids of its names, the root of
    each in_tree provider and the sharing providers that may serve."""

    def __init__(self, request: CandidateRequest, names: Names, targets: dict[str, int],
                 sharing: list[Provider]):
        self.request, self.names = request, names
        self.targets, self.sharing = targets, sharing

    def plan(self) -> Plan:
        request = self.request
        plan: list[Step] = [("root_has", self._trait_ids([n]))
                            for n in sorted(request.root_required)]
        if request.root_forbidden:
            plan.append(("root_lacks", self._trait_ids(request.root_forbidden)))
        for group in request.groups:
            if group.suffix:
                if group.resources:
                    plan.append(self._granular(group))
            else:
                plan += self._unsuffixed(group)
        return tuple(plan)

    def _unsuffixed(self, group: RequestGroup) -> list[Step]:
        # the sharing providers that may serve other trees for this group
        serving = [] if group.in_tree else [
            s for s in self.sharing
            if all(s.aggregates & any_of for any_of in group.member_of)
            and not (s.traits & group.forbidden or s.aggregates & group.forbidden_aggs)]
        # cheap and selective tests first: databases mostly keep this order
        by_class = {rc: sharing_form(s for s in serving if s.fits(rc, amount))
                    for rc, amount in group.resources.items()}
        plan: list[Step] = []
        if group.in_tree:
            plan.append(("in_tree", self.targets[group.in_tree]))
        if group.forbidden_aggs:
            plan.append(("not_in_aggs", self.names.agg_ids(group.forbidden_aggs)))
        if group.member_of:
            # A class no sharing provider can give comes from the tree, from
            # a provider that is a member or whose root is: then sharing
            # providers cannot make up for a tree without members.
            plan.append(("member_of", self._member_of(group),
                         sharing_form(serving) if all(by_class.values()) else None))
        for clause in group.trait_clauses:
            plan.append(("traits", self._trait_ids(clause),
                         sharing_form(s for s in serving if s.traits & clause)))
        for rc, amount in group.resources.items():
            plan.append(("class", self.names.classes[rc], amount,
                         self._trait_ids(group.forbidden),
                         self.names.agg_ids(group.forbidden_aggs), by_class[rc]))
        return plan

    def _granular(self, group: RequestGroup) -> Granular:
        target = self.targets[group.in_tree] if group.in_tree else None
        serving = sharing_form(
            s for s in self.sharing
            if all(s.fits(c, n) for c, n in group.resources.items())
            and (target is None or s.root_id == target)
            and all(clause & s.traits for clause in group.trait_clauses)
            and all(s.aggregates & any_of for any_of in group.member_of)
            and not (s.traits & group.forbidden or s.aggregates & group.forbidden_aggs))
        return ("granular",
                tuple((self.names.classes[rc], n) for rc, n in group.resources.items()),
                tuple(self._trait_ids(c) for c in group.trait_clauses),
                self._trait_ids(group.forbidden), self._member_of(group),
                self.names.agg_ids(group.forbidden_aggs), target, serving)

    def _trait_ids(self, names: Iterable[str]) -> tuple[int, ...]:
        return tuple(self.names.traits[n] for n in sorted(names))

    def _member_of(self, group: RequestGroup) -> tuple[tuple[int, ...], ...]:
        return tuple(self.names.agg_ids(any_of) for any_of in group.member_of)


def sharing_form(providers: Iterable[Provider]) -> Sharing:
    """The plan's form of some sharing providers: their ids and their roots."""
    providers = list(providers)
    if not providers:
        return None
    return tuple(sorted(s.id for s in providers)), tuple(sorted({s.root_id for s in providers}))

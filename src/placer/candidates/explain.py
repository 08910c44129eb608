"""Why GET /allocation_candidates answers what it answers: the funnel.

For each request group, in request order: the providers holding each class,
then how many providers and trees are left after each constraint in turn
(per class: capacity, min_unit, max_unit, step_size; then required traits,
any-of traits, member_of, forbidden traits, forbidden aggregates, in_tree).
Then the request-wide constraints, on trees: one tree for every group,
root_required, the groups together (shared capacity), same_subtree,
isolate, the one-provider-per-tree rule before 1.29, and finally the
candidates, max_allocation_candidates and limit.

Every count comes from the engine's own rules: the resource steps split
``Provider.fits`` into its parts, the group filters are
``_domains.build_problems`` on the group with a growing prefix of its
constraints, the request-wide ones the solver on a growing prefix of the
request's, and the last of those is the request itself. Each step is a
necessary condition for a candidate and only adds to the previous ones, so:
the answer is empty exactly when some step leaves nothing, the first such
step is named, and removing it from the query cannot empty an earlier one.

``provider``: every constraint that provider fails by itself, each judged
alone and with the numbers, and the same for its tree as an anchor.
"""

import dataclasses
import uuid as uuidlib
from collections.abc import Iterable
from dataclasses import dataclass, field

from placer import exceptions
from placer.candidates import _domains, _solver, search
from placer.candidates.request import CandidateRequest, RequestGroup
from placer.candidates.snapshot import Provider, Snapshot
from placer.model import inventory, query_values

# Candidates are counted up to this many (the answer may hold more).
COUNT_CAP = 1000

RESOURCE_KINDS = tuple(inventory.RULE_PARTS)


@dataclass
class Step:
    """One constraint of the funnel and what is left after it.

    ``group`` is the group's suffix, None for a request-wide step. ``trees``
    counts the roots that may still anchor a candidate; ``providers`` those
    left to serve the group (for a class step, to serve that class);
    ``candidates`` is set on the last steps, which count candidates.
    """

    group: str | None
    constraint: str
    value: str = ""
    trees: int | None = None
    providers: int | None = None
    candidates: int | None = None
    detail: str = ""
    message: str = ""  # why nothing is left, when nothing is
    removable: bool = False  # can be dropped from the query (see ``without``)
    tree_ids: frozenset[int] = field(default=frozenset(), repr=False)

    @property
    def empty(self) -> bool:
        return (self.candidates if self.candidates is not None else self.trees) == 0

    def as_dict(self) -> dict:
        body: dict = {"constraint": self.constraint, "value": self.value}
        for name in ("providers", "trees", "candidates"):
            if getattr(self, name) is not None:
                body[name] = getattr(self, name)
        if self.detail:
            body["detail"] = self.detail
        return body


@dataclass
class Failure:
    """A constraint one provider or tree fails, and by how much."""

    group: str | None
    constraint: str
    value: str
    detail: str

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)


@dataclass
class ProviderReport:
    provider: Provider
    root: Provider
    failures: list[Failure]
    tree_failures: list[Failure]

    def as_dict(self) -> dict:
        return {
            "uuid": self.provider.uuid,
            "name": self.provider.name,
            "root_provider_uuid": self.root.uuid,
            "failures": [f.as_dict() for f in self.failures],
            "tree": {"uuid": self.root.uuid, "name": self.root.name,
                     "failures": [f.as_dict() for f in self.tree_failures]},
        }


@dataclass
class Explanation:
    request: CandidateRequest
    groups: list[tuple[RequestGroup, list[Step]]]
    request_steps: list[Step]
    candidates: int  # what GET /allocation_candidates answers, in number
    provider: ProviderReport | None = None

    @property
    def steps(self) -> list[Step]:
        """Every step, in the funnel's order."""
        return [s for _, steps in self.groups for s in steps] + self.request_steps

    @property
    def first_empty(self) -> Step | None:
        return next((s for s in self.steps if s.empty), None)

    def as_dict(self) -> dict:
        first = self.first_empty
        body: dict = {
            "candidates": self.candidates,
            "groups": [{"suffix": g.suffix, "resources": dict(g.resources),
                        "funnel": [s.as_dict() for s in steps]} for g, steps in self.groups],
            "request": [s.as_dict() for s in self.request_steps],
            "first_empty": None if first is None else {
                "group": first.group, "constraint": first.constraint, "value": first.value,
                "message": first.message},
        }
        if self.provider is not None:
            body["provider"] = self.provider.as_dict()
        return body


def explain(request: CandidateRequest, snapshot: Snapshot, *, provider: str | None = None,
            provider_snapshot: Snapshot | None = None, max_candidates: int = -1) -> Explanation:
    """The funnel of ``request`` over ``snapshot`` (which must hold what a
    whole-cloud search needs, see snapshot.py). ``provider``: the uuid of a
    provider to report on, found in ``provider_snapshot`` (default:
    ``snapshot``); ``max_candidates``: the service's max_allocation_candidates."""
    groups = [(g, _group_steps(request, g, snapshot)) for g in request.groups]
    request_steps, answer = _request_steps(request, snapshot, groups, max_candidates)
    report = None
    if provider is not None:
        around = provider_snapshot or snapshot
        report = _provider_report(request, around, around.by_uuid[provider])
    return Explanation(request, groups, request_steps, answer, report)


def split_query(pairs: list[tuple[str, str]]) -> tuple[list[tuple[str, str]], str | None]:
    """(the candidates query, the ``provider`` uuid or None) from explain's
    query pairs; BadRequest for a repeated or malformed ``provider``."""
    values = [v for k, v in pairs if k == "provider"]
    if len(values) > 1:
        raise exceptions.BadRequest("Query parameter 'provider' may be specified only once.",
                                    code=exceptions.ILLEGAL_DUPLICATE_QUERYPARAM)
    if values:
        query_values.check_uuid("provider", values[0], code=exceptions.QUERYPARAM_BAD_VALUE)
    provider = str(uuidlib.UUID(values[0])) if values else None
    return [(k, v) for k, v in pairs if k != "provider"], provider


def without(request: CandidateRequest, step: Step) -> CandidateRequest:
    """The request without the constraint of a removable step."""
    if not step.removable:
        raise ValueError(f"{step.constraint} cannot be removed")
    if step.group is None:
        if step.constraint == "root_required":
            return dataclasses.replace(
                request, root_required=request.root_required - {step.value})
        if step.constraint == "root_forbidden":
            return dataclasses.replace(
                request, root_forbidden=request.root_forbidden - {step.value})
        if step.constraint == "same_subtree":
            return dataclasses.replace(request, same_subtree=tuple(
                s for s in request.same_subtree if ",".join(s) != step.value))
        if step.constraint == "isolate":
            return dataclasses.replace(request, group_policy="none")
        raise ValueError(step.constraint)
    groups = []
    for group in request.groups:
        if group.suffix == step.group:
            kept = [f for f in _filters(group) if (f[0], _text(f)) != (step.constraint, step.value)]
            group = _with_filters(group, kept)
        groups.append(group)
    return dataclasses.replace(request, groups=tuple(groups))


# -- per group -------------------------------------------------------------------------


def _name(group: RequestGroup) -> str:
    return f"group {group.suffix!r}" if group.suffix else "the unsuffixed group"


def _free(p: Provider, rc: str) -> int:
    return p.inventories[rc].capacity - p.usages.get(rc, 0)


def _unit_ok(kind: str, p: Provider, rc: str, amount: int) -> bool:
    """One part of Provider.fits for an amount alone (model.inventory.RULE_PARTS)."""
    return inventory.RULE_PARTS[kind](p.inventories[rc], p.usages.get(rc, 0), amount)


def _unit_detail(kind: str, pool: list[Provider], rc: str) -> str:
    """The numbers of ``pool`` that matter for a unit rule."""
    if not pool:
        return ""
    best = _closest(kind, pool, rc)
    if kind == "capacity":
        return f"the largest free amount is {max(_free(best, rc), 0)} on {best.name}"
    if kind == "min_unit":
        return f"the smallest min_unit is {best.inventories[rc].min_unit} on {best.name}"
    if kind == "max_unit":
        return f"the largest max_unit is {best.inventories[rc].max_unit} on {best.name}"
    sizes = sorted({p.inventories[rc].step_size for p in pool})
    return "step sizes are " + ", ".join(map(str, sizes[:8])) + (" ..." if len(sizes) > 8 else "")


def _anchors(snapshot: Snapshot, providers: Iterable[Provider]) -> frozenset[int]:
    return frozenset(a for p in providers for a in snapshot.anchors(p) if snapshot.may_anchor(a))


def _resource_steps(group: RequestGroup, snapshot: Snapshot) -> list[Step]:
    """Holding each class, then each class's unit rules. A suffixed group
    needs everything on one provider; the unsuffixed group one provider per
    class, all serving one tree."""
    name, sfx = _name(group), group.suffix
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

    steps = []
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
        for kind in RESOURCE_KINDS:
            before = pool_of(rc)
            kept = [p for p in before if _unit_ok(kind, p, rc, amount)]
            put(rc, kept)
            left = trees()
            detail = _unit_detail(kind, before, rc)
            steps.append(Step(sfx, kind, f"{rc}:{amount}", len(left), len(kept), detail=detail,
                              message=_unit_message(kind, rc, amount, detail, name, kept),
                              tree_ids=left))
    return steps


def _unit_message(kind, rc, amount, detail, name, kept) -> str:
    if kept:
        return (f"the providers that can give {amount} {rc} serve no tree that can also "
                f"give the other classes of {name}")
    if kind == "capacity":
        return f"no provider has {amount} free {rc}: {detail}"
    if kind == "min_unit":
        return f"no provider with room for {amount} {rc} accepts so little: {detail}"
    if kind == "max_unit":
        return f"no provider with room for {amount} {rc} accepts so much at once: {detail}"
    return f"no provider with room for {amount} {rc} takes it in steps that divide {amount}: " \
           f"{detail}"


# A group filter: (constraint, value) with value a trait, an aggregate, a
# frozenset of either (any-of), or an in_tree uuid.
Filter = tuple[str, object]


def _filters(group: RequestGroup) -> list[Filter]:
    """The group's trait and aggregate filters, in funnel order: the positive
    ones first, since a group without resources matches nothing without one."""
    filters: list[Filter] = []
    filters += [("required", t) for t in sorted(group.required)]
    filters += [("any_of", s) for s in group.any_of]
    filters += [("member_of", s) for s in group.member_of]
    filters += [("forbidden", t) for t in sorted(group.forbidden)]
    filters += [("forbidden_aggregate", a) for a in sorted(group.forbidden_aggs)]
    if group.in_tree is not None:
        filters.append(("in_tree", group.in_tree))
    return filters


def _text(f: Filter) -> str:
    value = f[1]
    return ",".join(sorted(value)) if isinstance(value, frozenset) else str(value)


def _with_filters(group: RequestGroup, filters: list[Filter]) -> RequestGroup:
    def values(kind):
        return [v for k, v in filters if k == kind]

    in_tree = values("in_tree")
    return RequestGroup(
        suffix=group.suffix, resources=group.resources,
        required=frozenset(values("required")), forbidden=frozenset(values("forbidden")),
        any_of=tuple(values("any_of")), member_of=tuple(values("member_of")),
        forbidden_aggs=frozenset(values("forbidden_aggregate")),
        in_tree=in_tree[0] if in_tree else None, written_traits=group.written_traits)


def _alone(request: CandidateRequest, group: RequestGroup) -> CandidateRequest:
    return CandidateRequest(groups=(group,), version=request.version)


def _problems(request: CandidateRequest, snapshot: Snapshot) -> list[_domains.Problem]:
    return _domains.build_problems(request, _domains.Layout(request), snapshot)


def _group_steps(request: CandidateRequest, group: RequestGroup, snapshot: Snapshot) -> list[Step]:
    name, sfx = _name(group), group.suffix
    if group.resources:
        steps = _resource_steps(group, snapshot)
    else:
        positive = bool(group.trait_clauses or group.member_of)
        everyone = list(snapshot.providers.values()) if positive else []
        left = _anchors(snapshot, everyone)
        steps = [Step(sfx, "providers", "", len(left), len(everyone), tree_ids=left,
                      message=f"{name} has no resources: it matches no provider unless it "
                              "requires a trait or an aggregate")]
    filters = _filters(group)
    positives = sum(1 for kind, _ in filters if kind in ("required", "any_of", "member_of"))
    for n, f in enumerate(filters, start=1):
        problems = _problems(_alone(request, _with_filters(group, filters[:n])), snapshot)
        left = frozenset(pr.anchor for pr in problems)
        providers = {p.id for pr in problems for options in pr.options for p in options}
        kind = f[0]
        removable = group.resources or positives > 1 or kind not in (
            "required", "any_of", "member_of")
        steps.append(Step(sfx, kind, _text(f), len(left), len(providers),
                          message=_filter_message(group, f, snapshot), removable=bool(removable),
                          tree_ids=left))
    return steps


def _filter_message(group: RequestGroup, f: Filter, snapshot: Snapshot,
                    subject: str = "provider left for") -> str:
    kind, value = f
    name, text = _name(group), _text(f)
    who = f"{subject} {name}"
    whole = "" if group.suffix else " (on the providers it uses together, in one tree)"
    via = "" if group.suffix else " (itself or through its root)"
    if kind == "required":
        return f"no {who} has trait {text}{whole}"
    if kind == "any_of":
        return f"no {who} has any of the traits {text}{whole}"
    if kind == "forbidden":
        return f"every {who} has trait {text}, which it forbids"
    if kind == "member_of":
        return f"no {who} is in aggregate {text}{via}"
    if kind == "forbidden_aggregate":
        return f"every {who} is in aggregate {text}{via}, which it forbids"
    target = snapshot.by_uuid.get(str(value))
    if target is None:
        return f"in_tree: there is no provider {text}"
    return f"no {who} is in the tree of {snapshot.get(target.root_id).name} (in_tree)"


# -- request-wide ----------------------------------------------------------------------


def _trees(count: int) -> str:
    return "1 tree" if count == 1 else f"{count} trees"


def _request_steps(request, snapshot, groups, max_candidates) -> tuple[list[Step], int]:
    common = frozenset.intersection(*(steps[-1].tree_ids for _, steps in groups))
    fits_in = ", ".join(f"{_name(g)} fits in {_trees(len(steps[-1].tree_ids))}"
                        for g, steps in groups)
    steps = [Step(None, "one_tree", "", len(common), detail=fits_in, tree_ids=common,
                  message=f"no tree can serve every group: {fits_in}, none in common")]
    left = common
    for trait in sorted(request.root_required):
        left = frozenset(a for a in left if trait in snapshot.get(a).traits)
        steps.append(Step(None, "root_required", trait, len(left), removable=True, tree_ids=left,
                          message=f"no tree left has a root with trait {trait}"))
    for trait in sorted(request.root_forbidden):
        left = frozenset(a for a in left if trait not in snapshot.get(a).traits)
        steps.append(Step(None, "root_forbidden", trait, len(left), removable=True,
                          tree_ids=left,
                          message=f"every tree left has a root with trait {trait}, "
                                  "which root_required forbids"))

    layout = _domains.Layout(request)
    alive = [pr for pr in _domains.build_problems(request, layout, snapshot) if pr.anchor in left]
    for kind, value, variant, removable, message in _solver_variants(request):
        plan = _solver.Plan(layout, variant, snapshot)
        alive = [pr for pr in alive if next(iter(plan.assignments(pr)), None) is not None]
        ids = frozenset(pr.anchor for pr in alive)
        steps.append(Step(None, kind, value, len(ids), removable=removable, tree_ids=ids,
                          message=message))

    found = sum(1 for _ in search.find_candidates(request, snapshot, limit=None,
                                                  max_candidates=COUNT_CAP))
    detail = f"counted up to {COUNT_CAP}" if found >= COUNT_CAP else ""
    steps.append(Step(None, "candidates", "", candidates=found, detail=detail,
                      message="the search finds no candidate"))
    answer = found
    if max_candidates >= 0:
        answer = min(answer, max_candidates)
        steps.append(Step(None, "max_allocation_candidates", str(max_candidates),
                          candidates=answer))
    if request.limit is not None:
        answer = min(answer, request.limit)
        steps.append(Step(None, "limit", str(request.limit), candidates=answer))
    return steps, answer


def _solver_variants(request: CandidateRequest):
    """(constraint, value, request so far, removable, message): the rules
    tying groups together, added one at a time; the last is the request."""
    current = dataclasses.replace(request, same_subtree=(), group_policy=None, limit=None,
                                  version=max(request.version, (1, 29)))
    yield ("together", "", current, False,
           "every group fits in some tree alone, but in no tree together: they need more "
           "than the providers they share can give (or the unsuffixed group's traits are "
           "not on the providers that can give it everything)")
    resourceless = {g.suffix for g in request.groups if not g.resources}
    for n, subtree in enumerate(request.same_subtree):
        current = dataclasses.replace(current, same_subtree=request.same_subtree[:n + 1])
        others = {s for k, other in enumerate(request.same_subtree) if k != n for s in other}
        value = ",".join(subtree)
        yield ("same_subtree", value, current, not ((resourceless & set(subtree)) - others),
               f"no tree left can place groups {value} under one provider of theirs "
               "(same_subtree)")
    if request.isolate:
        current = dataclasses.replace(current, group_policy=request.group_policy)
        suffixes = ", ".join(g.suffix for g in request.groups if g.suffix)
        yield ("isolate", "", current, True,
               f"no tree left has a different provider for each of the groups {suffixes} "
               "(group_policy=isolate)")
    if not request.nested_aware:
        current = dataclasses.replace(current, version=request.version)
        yield ("one_provider_per_tree", "", current, False,
               "before microversion 1.29 a candidate takes from one provider per tree, and "
               "every tree left needs more than one")


# -- one provider ----------------------------------------------------------------------


def _provider_report(request: CandidateRequest, snapshot: Snapshot,
                     p: Provider) -> ProviderReport:
    root = snapshot.get(p.root_id)
    failures = [f for g in request.groups for f in _own_failures(g, p, root, snapshot)]
    if p.parent_id is None:
        failures += _root_failures(request, p)
    return ProviderReport(p, root, failures, _tree_failures(request, snapshot, root))


def _shortfall(kind: str, p: Provider, rc: str, amount: int) -> str:
    inv = p.inventories[rc]
    if kind == "capacity":
        free = _free(p, rc)
        return (f"{max(free, 0)} {rc} free on {p.name} (capacity {inv.capacity}, used "
                f"{p.usages.get(rc, 0)}), {amount} asked: {amount - max(free, 0)} short")
    if kind == "min_unit":
        return f"min_unit of {rc} is {inv.min_unit} on {p.name}, {amount} asked"
    if kind == "max_unit":
        return f"max_unit of {rc} is {inv.max_unit} on {p.name}, {amount} asked: " \
               f"{amount - inv.max_unit} too many"
    return f"step_size of {rc} is {inv.step_size} on {p.name}: {amount} is not a multiple"


def _own_failures(group: RequestGroup, p: Provider, root: Provider,
                  snapshot: Snapshot) -> list[Failure]:
    """What ``p`` fails by itself as a provider of ``group``, each rule alone.
    The unsuffixed group's required traits are judged on its tree."""
    sfx, out = group.suffix, []
    held = [rc for rc in group.resources if rc in p.inventories]
    if group.resources and not held:
        out.append(Failure(sfx, "class", ",".join(group.resources),
                           f"{p.name} has no inventory of {', '.join(group.resources)}"))
    elif sfx:
        out += [Failure(sfx, "class", rc, f"{p.name} has no inventory of {rc}")
                for rc in group.resources if rc not in held]
    for rc in held:
        amount = group.resources[rc]
        out += [Failure(sfx, kind, f"{rc}:{amount}", _shortfall(kind, p, rc, amount))
                for kind in RESOURCE_KINDS if not _unit_ok(kind, p, rc, amount)]
    # aggregates are the provider's own in a suffixed group; in the unsuffixed
    # one the root's count too (the engine's _domains._aggregates_ok)
    aggs = p.aggregates if sfx else p.aggregates | root.aggregates
    whose = p.name if sfx else f"{p.name} and its root {root.name}"
    if sfx:
        out += [Failure(sfx, "required", t, f"{p.name} lacks trait {t}")
                for t in sorted(group.required - p.traits)]
        out += [Failure(sfx, "any_of", _text(("any_of", s)),
                        f"{p.name} has none of the traits {_text(('any_of', s))}")
                for s in group.any_of if not s & p.traits]
    out += [Failure(sfx, "forbidden", t, f"{p.name} has trait {t}")
            for t in sorted(group.forbidden & p.traits)]
    if group.member_of and not _member(group, p, root, snapshot):
        # the sets the provider misses (in the unsuffixed group its root,
        # though in some of them, is not in every one either)
        out += [Failure(sfx, "member_of", _text(("member_of", s)),
                        f"{p.name}: in none of the aggregates {_text(('member_of', s))} (its "
                        f"root {root.name} is, but not in every member_of set)"
                        if not sfx and s & root.aggregates else
                        f"{whose}: in none of the aggregates {_text(('member_of', s))}")
                for s in group.member_of if not s & p.aggregates]
    out += [Failure(sfx, "forbidden_aggregate", a, f"{whose}: in aggregate {a}")
            for a in sorted(group.forbidden_aggs & aggs)]
    if group.in_tree is not None and group.resources:  # the engine ignores it otherwise
        target = snapshot.by_uuid.get(group.in_tree)
        if target is None:
            out.append(Failure(sfx, "in_tree", group.in_tree,
                               f"there is no provider {group.in_tree}"))
        elif target.root_id != p.root_id:
            out.append(Failure(sfx, "in_tree", group.in_tree,
                               f"{p.name} is in the tree of {root.name}, not of "
                               f"{snapshot.get(target.root_id).name}"))
    return out


def _member(group: RequestGroup, p: Provider, root: Provider, snapshot: Snapshot) -> bool:
    """``p`` meets the group's member_of as the engine judges it: by itself
    in a suffixed group; itself or through its root in the unsuffixed one."""
    scope = _domains._group_scope(group, snapshot)
    if scope is None:  # no provider anywhere meets it
        return False
    members, _ = scope
    if group.suffix:
        return p.id in members
    return _domains._aggregates_ok(dataclasses.replace(group, forbidden_aggs=frozenset()),
                                   p, root, members)


def _root_failures(request: CandidateRequest, root: Provider) -> list[Failure]:
    return ([Failure(None, "root_required", t, f"the root {root.name} lacks trait {t}")
             for t in sorted(request.root_required - root.traits)]
            + [Failure(None, "root_forbidden", t, f"the root {root.name} has trait {t}")
               for t in sorted(request.root_forbidden & root.traits)])


def _tree_snapshot(request: CandidateRequest, snapshot: Snapshot, root: Provider) -> Snapshot:
    """The tree of ``root`` with what may serve it (sharing providers and
    in_tree targets, with their trees), answering for that root only."""
    roots = {root.id} | {s.root_id for s in snapshot.sharing}
    roots |= {snapshot.by_uuid[g.in_tree].root_id for g in request.groups
              if g.in_tree in snapshot.by_uuid}
    return Snapshot([p for r in roots for p in snapshot.tree(r)], anchor_ids=[root.id])


def _tree_failures(request: CandidateRequest, snapshot: Snapshot,
                   root: Provider) -> list[Failure]:
    """Each constraint the tree of ``root`` fails as an anchor: per group,
    its classes and unit rules, then (if those pass) each filter alone with
    the group's resources; the request-wide rules once every group fits,
    up to the first that fails."""
    tree = _tree_snapshot(request, snapshot, root)
    out = _root_failures(request, root)
    for group in request.groups:
        out += _tree_group_failures(request, group, tree, root.id)
    if out:
        return out
    layout = _domains.Layout(request)
    problems = _domains.build_problems(request, layout, tree)
    if not problems:  # every group fits alone here: not expected, but say so
        return [Failure(None, "one_tree", "", "every group fits here alone, not together")]
    for kind, value, variant, _, message in _solver_variants(request):
        plan = _solver.Plan(layout, variant, tree)
        if next(iter(plan.assignments(problems[0])), None) is None:
            return [Failure(None, kind, value, message.replace("no tree left", "this tree")
                            .replace("every tree left", "this tree"))]
    return out


def _tree_group_failures(request: CandidateRequest, group: RequestGroup, tree: Snapshot,
                         anchor: int) -> list[Failure]:
    sfx = group.suffix

    def viable(filters: list[Filter]) -> bool:
        return bool(_problems(_alone(request, _with_filters(group, filters)), tree))

    filters = _filters(group)
    positive = [f for f in filters if f[0] in ("required", "any_of", "member_of")]
    if group.resources:
        failures = _tree_resource_failures(group, tree, anchor)
        if failures:
            return failures
        if not viable([]):
            return [Failure(sfx, "class", ",".join(group.resources),
                            f"no provider serving this tree has room for every class of "
                            f"{_name(group)} at once")]
    elif not positive:
        return [Failure(sfx, "providers", "", f"{_name(group)} has no resources and requires "
                                              "no trait nor aggregate: it matches no provider")]
    failures = []
    for f in filters:
        # a group without resources keeps its positive filters: it needs one
        alone = [f] if group.resources or f in positive else [*positive, f]
        if not viable(alone):
            failures.append(Failure(sfx, f[0], _text(f), _filter_message(
                group, f, tree, subject="provider serving this tree for")))
    if not failures and not viable(filters):
        failures.append(Failure(sfx, "filters", "", f"each constraint of {_name(group)} is met "
                                                    "here, but not all by the same providers"))
    return failures


def _tree_resource_failures(group: RequestGroup, tree: Snapshot, anchor: int) -> list[Failure]:
    """Each class and unit rule that no provider serving the anchor meets."""
    sfx, out = group.suffix, []
    for rc, amount in group.resources.items():
        pool = [p for p in tree.with_class(rc) if anchor in tree.anchors(p)
                and (not sfx or all(c in p.inventories for c in group.resources))]
        if not pool:
            out.append(Failure(sfx, "class", rc, f"no provider of this tree (nor a sharing "
                                                 f"provider serving it) has {rc}"
                               + (" with the group's other classes" if sfx else "")))
            continue
        for kind in RESOURCE_KINDS:
            if not any(_unit_ok(kind, p, rc, amount) for p in pool):
                best = _closest(kind, pool, rc)
                out.append(Failure(sfx, kind, f"{rc}:{amount}", _shortfall(kind, best, rc, amount)))
    return out


def _closest(kind: str, pool: list[Provider], rc: str) -> Provider:
    if kind == "capacity":
        return max(pool, key=lambda p: _free(p, rc))
    if kind == "min_unit":
        return min(pool, key=lambda p: p.inventories[rc].min_unit)
    if kind == "max_unit":
        return max(pool, key=lambda p: p.inventories[rc].max_unit)
    return pool[0]

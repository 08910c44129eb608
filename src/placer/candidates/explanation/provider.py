"""One provider's report: every constraint it fails by itself, each judged
alone and with the numbers, and the same for its tree as an anchor."""

import dataclasses

from placer.candidates import domains, solver
from placer.candidates.explanation import filters, funnel
from placer.candidates.explanation.steps import Failure, ProviderReport
from placer.candidates.explanation.unit_rules import RULES
from placer.candidates.request import CandidateRequest, RequestGroup
from placer.candidates.snapshot import Provider, Snapshot


def report(request: CandidateRequest, snapshot: Snapshot,
                     p: Provider) -> ProviderReport:
    root = snapshot.get(p.root_id)
    failures = [f for g in request.groups for f in own_failures(g, p, root, snapshot)]
    if p.parent_id is None:
        failures += _root_failures(request, p)
    return ProviderReport(p, root, failures, _tree_failures(request, snapshot, root))


def own_failures(group: RequestGroup, p: Provider, root: Provider,
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
        out += [Failure(sfx, rule.kind, f"{rc}:{amount}", rule.shortfall(p, rc, amount))
                for rule in RULES if not rule.ok(p, rc, amount)]
    # aggregates are the provider's own in a suffixed group; in the unsuffixed
    # one the root's count too (domains.aggregates_ok)
    aggs = p.aggregates if sfx else p.aggregates | root.aggregates
    whose = p.name if sfx else f"{p.name} and its root {root.name}"
    if sfx:
        out += [Failure(sfx, "required", t, f"{p.name} lacks trait {t}")
                for t in sorted(group.required - p.traits)]
        out += [Failure(sfx, "any_of", _listed(s), f"{p.name} has none of the traits {_listed(s)}")
                for s in group.any_of if not s & p.traits]
    out += [Failure(sfx, "forbidden", t, f"{p.name} has trait {t}")
            for t in sorted(group.forbidden & p.traits)]
    if group.member_of and not _member(group, p, root, snapshot):
        # the sets the provider misses (in the unsuffixed group its root,
        # though in some of them, is not in every one either)
        out += [Failure(sfx, "member_of", _listed(s),
                        f"{p.name}: in none of the aggregates {_listed(s)} (its root "
                        f"{root.name} is, but not in every member_of set)"
                        if not sfx and s & root.aggregates else
                        f"{whose}: in none of the aggregates {_listed(s)}")
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


def _listed(values: frozenset[str]) -> str:
    return ",".join(sorted(values))


def _member(group: RequestGroup, p: Provider, root: Provider, snapshot: Snapshot) -> bool:
    """``p`` meets the group's member_of as the engine judges it: by itself
    in a suffixed group; itself or through its root in the unsuffixed one."""
    scope = domains.group_scope(group, snapshot)
    if scope is None:  # no provider anywhere meets it
        return False
    members, _ = scope
    if group.suffix:
        return p.id in members
    return domains.aggregates_ok(dataclasses.replace(group, forbidden_aggs=frozenset()),
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
    layout = domains.Layout(request)
    problems = domains.build_problems(request, layout, tree)
    if not problems:  # every group fits alone here: not expected, but say so
        return [Failure(None, "one_tree", "", "every group fits here alone, not together")]
    for kind, value, variant, message in funnel.solver_variants(request):
        plan = solver.Plan(layout, variant, tree)
        if next(iter(plan.assignments(problems[0])), None) is None:
            return [Failure(None, kind, value, message.replace("no tree left", "this tree")
                            .replace("every tree left", "this tree"))]
    return out


def _tree_group_failures(request: CandidateRequest, group: RequestGroup, tree: Snapshot,
                         anchor: int) -> list[Failure]:
    sfx, name = group.suffix, filters.group_name(group)

    def viable(kept: list[filters.Filter]) -> bool:
        return bool(filters.anchors_alone(request, filters.with_only(group, kept), tree))

    every = filters.of(group)
    positive = [f for f in every if f[0] in filters.POSITIVE]
    if group.resources:
        failures = _tree_resource_failures(group, tree, anchor)
        if failures:
            return failures
        if not viable([]):
            return [Failure(sfx, "class", ",".join(group.resources),
                            f"no provider serving this tree has room for every class of "
                            f"{name} at once")]
    elif not positive:
        return [Failure(sfx, "providers", "", f"{name} has no resources and requires "
                                              "no trait nor aggregate: it matches no provider")]
    failures = []
    for f in every:
        # a group without resources keeps its positive filters: it needs one
        alone = [f] if group.resources or f in positive else [*positive, f]
        if not viable(alone):
            failures.append(Failure(sfx, f[0], filters.text(f), filters.message(
                group, f, tree, subject="provider serving this tree for")))
    if not failures and not viable(every):
        failures.append(Failure(sfx, "filters", "", f"each constraint of {name} is met "
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
        for rule in RULES:
            if not any(rule.ok(p, rc, amount) for p in pool):
                best = rule.closest(pool, rc)
                out.append(Failure(sfx, rule.kind, f"{rc}:{amount}",
                                   rule.shortfall(best, rc, amount)))
    return out

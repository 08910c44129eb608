"""A group's trait and aggregate filters, one at a time: what the funnel
adds step by step and the provider report judges alone."""

from typing import Any

from placer.candidates import domains
from placer.candidates.request import CandidateRequest, RequestGroup
from placer.candidates.snapshot import Snapshot

# A group filter: (constraint, value) with value a trait, an aggregate, a
# frozenset of either (any-of), or an in_tree uuid.
Filter = tuple[str, object]
# the filters that let a group without resources match a provider
POSITIVE = ("required", "any_of", "member_of")


def group_name(group: RequestGroup) -> str:
    return f"group {group.suffix!r}" if group.suffix else "the unsuffixed group"


def of(group: RequestGroup) -> list[Filter]:
    """The group's filters, in funnel order: the positive ones first, since
    a group without resources matches nothing without one."""
    filters: list[Filter] = []
    filters += [("required", t) for t in sorted(group.required)]
    filters += [("any_of", s) for s in group.any_of]
    filters += [("member_of", s) for s in group.member_of]
    filters += [("forbidden", t) for t in sorted(group.forbidden)]
    filters += [("forbidden_aggregate", a) for a in sorted(group.forbidden_aggs)]
    if group.in_tree is not None:
        filters.append(("in_tree", group.in_tree))
    return filters


def text(f: Filter) -> str:
    value = f[1]
    return ",".join(sorted(value)) if isinstance(value, frozenset) else str(value)


def with_only(group: RequestGroup, filters: list[Filter]) -> RequestGroup:
    """The group with its resources and only these filters."""
    def values(kind: str) -> list[Any]:  # each kind's values are of its own type
        return [v for k, v in filters if k == kind]

    in_tree = values("in_tree")
    return RequestGroup(
        suffix=group.suffix, resources=group.resources,
        required=frozenset(values("required")), forbidden=frozenset(values("forbidden")),
        any_of=tuple(values("any_of")), member_of=tuple(values("member_of")),
        forbidden_aggs=frozenset(values("forbidden_aggregate")),
        in_tree=in_tree[0] if in_tree else None, written_traits=group.written_traits)


def anchors_alone(request: CandidateRequest, group: RequestGroup,
                  snapshot: Snapshot) -> list[domains.Problem]:
    """The engine's anchors (with their options) for ``group`` alone."""
    alone = CandidateRequest(groups=(group,), version=request.version)
    return domains.build_problems(alone, domains.Layout(alone), snapshot)


def message(group: RequestGroup, f: Filter, snapshot: Snapshot,
            subject: str = "provider left for") -> str:
    """Why no provider is left after the filter."""
    kind, value = f
    name, shown = group_name(group), text(f)
    who = f"{subject} {name}"
    whole = "" if group.suffix else " (on the providers it uses together, in one tree)"
    via = "" if group.suffix else " (itself or through its root)"
    if kind == "required":
        return f"no {who} has trait {shown}{whole}"
    if kind == "any_of":
        return f"no {who} has any of the traits {shown}{whole}"
    if kind == "forbidden":
        return f"every {who} has trait {shown}, which it forbids"
    if kind == "member_of":
        return f"no {who} is in aggregate {shown}{via}"
    if kind == "forbidden_aggregate":
        return f"every {who} is in aggregate {shown}{via}, which it forbids"
    target = snapshot.by_uuid.get(str(value))
    if target is None:
        return f"in_tree: there is no provider {shown}"
    return f"no {who} is in the tree of {snapshot.get(target.root_id).name} (in_tree)"

"""What the candidate engine is asked: a whole query (CandidateRequest) and
its request groups, as schemas/allocation_candidates.py parses them from a query
string."""

from collections.abc import Mapping
from dataclasses import dataclass, field

from placer.microversions import MAX, NESTED_CANDIDATES, Version


@dataclass(frozen=True, eq=False)
class RequestGroup:
    """One request group: the unsuffixed one ('') or a granular one.

    ``required`` traits must all be present, ``any_of`` sets (``in:``, 1.39)
    each need one member present, ``forbidden`` traits must be absent.
    ``member_of`` is a conjunction of any-of aggregate sets; ``forbidden_aggs``
    must all be avoided. The unsuffixed group is judged on the whole set of
    providers it uses (see search.py); a suffixed group on its one provider.
    """

    suffix: str = ""
    resources: Mapping[str, int] = field(default_factory=dict)
    required: frozenset[str] = frozenset()
    forbidden: frozenset[str] = frozenset()
    any_of: tuple[frozenset[str], ...] = ()
    member_of: tuple[frozenset[str], ...] = ()
    forbidden_aggs: frozenset[str] = frozenset()
    in_tree: str | None = None
    # required and any-of trait names as the client wrote them: the reference
    # reports the first unknown one in this order
    written_traits: tuple[str, ...] = ()

    @property
    def trait_clauses(self) -> tuple[frozenset[str], ...]:
        """Required traits as clauses, each satisfied by any one of its traits."""
        return tuple(frozenset([t]) for t in sorted(self.required)) + self.any_of


@dataclass(frozen=True, eq=False)
class CandidateRequest:
    """A whole query: groups in order of first appearance plus request-wide
    parameters. ``group_policy`` is the raw first value; only 'isolate' isolates."""

    groups: tuple[RequestGroup, ...]
    group_policy: str | None = None
    limit: int | None = None
    root_required: frozenset[str] = frozenset()
    root_forbidden: frozenset[str] = frozenset()
    same_subtree: tuple[tuple[str, ...], ...] = ()
    version: Version = MAX

    @property
    def isolate(self) -> bool:
        return self.group_policy == "isolate"

    @property
    def nested_aware(self) -> bool:
        """Before 1.29 a candidate may not use two providers of one tree."""
        return self.version >= NESTED_CANDIDATES

    def resource_classes(self) -> list[str]:
        """Every class named, in the order the reference looks them up."""
        return list(dict.fromkeys(rc for g in self.groups for rc in g.resources))

    def trait_names(self) -> list[str]:
        """Every trait named (root_required first, then per group), deduplicated."""
        names = sorted(self.root_required) + sorted(self.root_forbidden)
        for group in self.groups:
            names += [t for clause in group.trait_clauses for t in sorted(clause)]
            names += sorted(group.forbidden)
        return list(dict.fromkeys(names))

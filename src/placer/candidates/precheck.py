"""Unknown trait and class names, reported the way the reference reports them.

The reference resolves names while it searches: first root_required, then
each group in query order (classes, member_of, traits, then the group's own
candidates). It answers an empty 200 as soon as something on that path
finds nothing, so a later group's unknown name then goes unreported. The
handler calls ``check_names`` after loading the snapshot to reproduce that.
"""

import dataclasses
from collections.abc import Iterable

from placer import exceptions
from placer.candidates import domains, search
from placer.candidates.request import CandidateRequest, RequestGroup
from placer.candidates.snapshot import Snapshot
from placer.microversions import NESTED_CANDIDATES


def check_names(
    request: CandidateRequest,
    snapshot: Snapshot,
    known_classes: Iterable[str],
    known_traits: Iterable[str],
) -> bool:
    """Raise BadRequest for the first unknown name the reference would meet;
    return False when it would stop before with no candidates, else True.

    Exact when the snapshot holds every root satisfying root_required and
    every provider matching each member_of (otherwise an empty answer may
    come where the reference reports an unknown name of a later group).
    """
    known_classes, known_traits = set(known_classes), set(known_traits)
    _check_traits(sorted(request.root_required) + sorted(request.root_forbidden), known_traits)
    if (request.root_required or request.root_forbidden) and not any(
        p.parent_id is None
        and request.root_required <= p.traits
        and not request.root_forbidden & p.traits
        for p in snapshot.providers.values()
    ):
        return False
    # identical groups (eight VGPU:1...) are tried once
    alone: dict[tuple[bool, domains.Signature], bool] = {}
    for group in request.groups:
        for rc in group.resources:
            if rc not in known_classes:
                raise exceptions.BadRequest(
                    f"Invalid resource class in resources parameter: {exceptions.no_such_class(rc)}"
                )
        if group.member_of and not any(
            all(p.aggregates & any_of for any_of in group.member_of)
            for p in snapshot.providers.values()
        ):
            return False
        _check_traits(list(group.written_traits) + sorted(group.forbidden), known_traits)
        same = (bool(group.suffix), domains.signature(group))
        if same not in alone:
            alone[same] = satisfiable_alone(request, snapshot, group)
        if not alone[same]:
            return False
    return True


def satisfiable_alone(request: CandidateRequest, snapshot: Snapshot, group: RequestGroup) -> bool:
    """Whether the group has a candidate on its own (root_required still applies)."""
    alone = dataclasses.replace(
        request,
        groups=(group,),
        group_policy=None,
        same_subtree=(),
        limit=None,
        version=max(request.version, NESTED_CANDIDATES),  # upstream applies the tree rule later
    )
    return next(search.find_candidates(alone, snapshot, limit=1), None) is not None


def _check_traits(names: list[str], known: set[str]) -> None:
    for name in names:
        if name not in known:
            raise exceptions.BadRequest(exceptions.no_such_trait(name))

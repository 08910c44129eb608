"""The GET /allocation_candidates body for a microversion, and the count
of copies of GET and POST /capacity.

allocation_requests: a list of providers before 1.12, a dict by provider
uuid from 1.12, with ``mappings`` from 1.34. provider_summaries: capacity and
usage of the requested classes (of every class from 1.27), traits from 1.17,
parent and root uuids from 1.29.
"""

import itertools
from collections.abc import Iterable
from typing import Any

from placer.candidates.count import Count
from placer.candidates.search import Candidate
from placer.candidates.snapshot import Provider
from placer.microversions import (
    ALL_SUMMARY_CLASSES,
    ALLOCATIONS_DICT,
    CANDIDATES_REQUIRED,
    GROUP_MAPPINGS,
    NESTED_CANDIDATES,
    Version,
)


def allocation_request(candidate: Candidate, version: Version) -> dict[str, Any]:
    allocations = candidate.allocations()
    if version < ALLOCATIONS_DICT:
        return {"allocations": [{"resource_provider": {"uuid": uuid}, "resources": res}
                                for uuid, res in allocations.items()]}
    body: dict[str, object] = {
        "allocations": {uuid: {"resources": res} for uuid, res in allocations.items()}}
    if version >= GROUP_MAPPINGS:
        body["mappings"] = candidate.mappings()
    return body


def provider_summary(provider: Provider, tree: dict[int, Provider], requested: set[str],
                     version: Version) -> dict[str, Any]:
    """``tree``: provider id -> provider, holding its parent and root (from 1.29)."""
    every, used = version >= ALL_SUMMARY_CLASSES, provider.usages
    summary: dict[str, Any] = {"resources": {
        rc: {"capacity": inv.capacity, "used": used.get(rc, 0)}
        for rc, inv in provider.inventories.items() if every or rc in requested}}
    if version >= CANDIDATES_REQUIRED:
        summary["traits"] = sorted(provider.traits)
    if version >= NESTED_CANDIDATES:
        parent = tree[provider.parent_id] if provider.parent_id is not None else None
        summary["parent_provider_uuid"] = parent.uuid if parent else None
        summary["root_provider_uuid"] = tree[provider.root_id].uuid
    return summary


def body(candidates: list[Candidate], summaries: Iterable[Provider], requested: set[str],
         version: Version) -> dict[str, Any]:
    """``summaries`` as search.summary_providers gives them: from 1.29 whole
    trees, so every parent and root is among them."""
    summaries = list(summaries)
    by_id = {p.id: p for p in summaries}
    return {
        "allocation_requests": [allocation_request(c, version) for c in candidates],
        "provider_summaries": {p.uuid: provider_summary(p, by_id, requested, version)
                               for p in summaries},
    }


def count_body(count: Count, limit: int | None = None) -> dict[str, Any]:
    """GET /capacity's answer for a count, ``limit`` roots at most."""
    head = {"total": count.total, "exact": count.total_exact, "inexact": count.inexact}
    if not count.counted and count.table_fits is not None:  # straight from the arrays
        return {**head, "roots": [{"uuid": uuid, "name": name, "fits": k}
                                  for (_, uuid, name), k in count.table_fits.head(limit)]}
    roots = itertools.islice(count.iter_roots(), limit)
    return {**head, "roots": [{"uuid": r.root.uuid, "name": r.root.name, "fits": r.fits,
                               **({} if r.exact else {"exact": False})} for r in roots]}

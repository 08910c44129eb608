"""The GET /allocation_candidates body for a microversion.

allocation_requests: a list of providers before 1.12, a dict by provider
uuid from 1.12, with ``mappings`` from 1.34. provider_summaries: capacity and
usage of the requested classes (of every class from 1.27), traits from 1.17,
parent and root uuids from 1.29.
"""

from collections.abc import Iterable

from placer.candidates.search import Candidate
from placer.candidates.snapshot import Provider, Snapshot

Version = tuple[int, int]


def allocation_request(candidate: Candidate, version: Version) -> dict:
    allocations = candidate.allocations()
    if version < (1, 12):
        return {"allocations": [{"resource_provider": {"uuid": uuid}, "resources": res}
                                for uuid, res in allocations.items()]}
    body = {"allocations": {uuid: {"resources": res} for uuid, res in allocations.items()}}
    if version >= (1, 34):
        body["mappings"] = candidate.mappings()
    return body


def provider_summary(provider: Provider, snapshot: Snapshot, requested: set[str],
                     version: Version) -> dict:
    every, used = version >= (1, 27), provider.usages
    summary: dict = {"resources": {
        rc: {"capacity": inv.capacity, "used": used.get(rc, 0)}
        for rc, inv in provider.inventories.items() if every or rc in requested}}
    if version >= (1, 17):
        summary["traits"] = sorted(provider.traits)
    if version >= (1, 29):
        parent = snapshot.providers.get(provider.parent_id) if provider.parent_id else None
        summary["parent_provider_uuid"] = parent.uuid if parent else None
        summary["root_provider_uuid"] = snapshot.get(provider.root_id).uuid
    return summary


def body(candidates: list[Candidate], summaries: Iterable[Provider], snapshot: Snapshot,
         requested: set[str], version: Version) -> dict:
    return {
        "allocation_requests": [allocation_request(c, version) for c in candidates],
        "provider_summaries": {p.uuid: provider_summary(p, snapshot, requested, version)
                               for p in summaries},
    }

"""``placement-manage audit --nova``: Placement's consumers against what Nova
knows (placer/nova.py), and with ``fix``, the safe repairs.

Order matters. Placement is read first, in one snapshot
(``db/audit_nova.py``), then Nova. Nova writes its own record before any
allocation for it exists: the build request before the scheduler claims, the
migration before allocations are moved to it. So every consumer in the
snapshot whose server or migration is alive is in Nova's later answer; one
deleted or finished in between has had its allocations removed by Nova, and
the fix below then finds it changed and leaves it alone.

The kinds (each ``{"count", "items"}``, items by consumer uuid):

- ``orphaned``: a consumer that is neither a server Nova lists nor a
  migration in progress (Nova's definition: not confirmed, reverted, error,
  failed, completed, cancelled or done). Only consumers that may be Nova's
  are judged: type ``INSTANCE``, ``MIGRATION`` or none (written before
  consumer types, microversion 1.38); another service's typed consumers are
  left out.
- ``source_leftovers``: a server's allocations in a tree that is not its
  node's, while it also holds allocations in its node's tree, has no task in
  flight (``OS-EXT-STS:task_state`` null) and no migration in progress: an
  evacuation whose source never came back, a move that failed half way. Its
  node is Nova's compute node for (``OS-EXT-SRV-ATTR:host``,
  ``OS-EXT-SRV-ATTR:hypervisor_hostname``), whose uuid is its root
  provider's uuid (Nova names the provider after the node, and gives it the
  node's uuid). A sharing provider (``MISC_SHARES_VIA_AGGREGATE``) in an
  aggregate with the node's tree is not a leftover. A server whose node Nova
  does not list is not judged.
- ``unallocated_servers``: an ``ACTIVE`` server with no task in flight and no
  allocations at all, which ``nova-manage placement heal_allocations`` would
  heal (reported, never fixed here).

``fix`` removes orphaned consumers' allocations and the leftovers (keeping the
server's other allocations), each in its own write through the allocations
API's consumer generation check: a consumer whose generation moved since the
snapshot, or that is gone, is left alone and listed in ``left_alone``.
"""

import dataclasses
import logging
from typing import Any

from oslo_config import cfg

from placer import exceptions, nova
from placer.db import allocations
from placer.db import audit_nova as snapshot_db
from placer.db.engine import Database

LOG = logging.getLogger("placement.manage.audit")
KINDS = ("orphaned", "source_leftovers", "unallocated_servers")
FIXABLE = ("orphaned", "source_leftovers")
NOVA_TYPES = (None, "INSTANCE", "MIGRATION")  # consumer types that may be Nova's
Refused = nova.Refused


@dataclasses.dataclass
class NovaResult:
    findings: dict[str, dict[str, Any]]  # kind -> {"count", "items"}
    fixed: dict[str, list[str]] = dataclasses.field(default_factory=dict)  # kind -> uuids
    # kind -> [{"consumer", "reason"}]: found, not fixed (changed since read)
    left_alone: dict[str, list[dict[str, str]]] = dataclasses.field(default_factory=dict)


def _roots(consumer: snapshot_db.Consumer, uuids: list[str]) -> list[dict[str, Any]]:
    return [{"uuid": u, "name": consumer.roots[u].name, "resources": consumer.resources(u)}
            for u in sorted(uuids)]


def _owner(consumer: snapshot_db.Consumer) -> dict[str, Any]:
    return {"consumer_type": consumer.consumer_type, "project_id": consumer.project_id,
            "user_id": consumer.user_id, "generation": consumer.generation}


def classify(snap: snapshot_db.Snapshot, view: nova.View) -> dict[str, dict[str, Any]]:
    """The three kinds, from Placement's snapshot and Nova's view."""
    moving = view.in_progress()
    moving_servers = {m.instance_uuid for m in moving.values()}
    orphaned: list[dict[str, Any]] = []
    leftovers: list[dict[str, Any]] = []
    for uuid in sorted(snap.consumers):
        consumer = snap.consumers[uuid]
        if consumer.consumer_type not in NOVA_TYPES:
            continue
        server = view.servers.get(uuid)
        if server is None:
            if uuid not in moving:
                orphaned.append({"consumer": uuid, **_owner(consumer),
                                 "roots": _roots(consumer, list(consumer.roots))})
            continue
        if server.task_state is not None or uuid in moving_servers:
            continue
        node = view.nodes.get((server.host or "", server.node or ""))
        if node is None or node not in consumer.roots:
            continue
        away = [root for root in consumer.roots if root != node
                and not _shared(snap, consumer.roots[root], node)]
        if away:
            leftovers.append({"consumer": uuid, "host": server.host, "node": server.node,
                              "node_provider": node, **_owner(consumer),
                              "roots": _roots(consumer, away)})
    unallocated = [
        {"consumer": s.uuid, "host": s.host, "node": s.node, "project_id": s.project_id,
         "user_id": s.user_id}
        for s in sorted(view.servers.values(), key=lambda s: s.uuid)
        if s.status == "ACTIVE" and s.task_state is None and s.uuid not in snap.consumers]
    found = {"orphaned": orphaned, "source_leftovers": leftovers,
             "unallocated_servers": unallocated}
    return {kind: {"count": len(found[kind]), "items": found[kind]} for kind in KINDS}


def _shared(snap: snapshot_db.Snapshot, root: snapshot_db.Root, node: str) -> bool:
    """Whether every provider used in this tree shares with the node's tree."""
    return all(node in snap.shared_with.get(provider, ())
               for provider in root.resources)


def _write(conn: Any, write: allocations.ConsumerWrite) -> None:
    allocations.replace(conn, [write], allocations.WriteRules(check_generation=True))


def _fix_one(db: Database, conf: cfg.ConfigOpts, consumer: snapshot_db.Consumer,
             keep: dict[str, dict[str, int]]) -> str | None:
    """Make the consumer's allocations ``keep``; why not, or None when done."""
    if consumer.generation is None or consumer.project_id is None or consumer.user_id is None:
        return "its allocations have no consumer record"
    write = allocations.ConsumerWrite(
        uuid=consumer.uuid, allocations=keep, project_id=consumer.project_id,
        user_id=consumer.user_id, generation=consumer.generation,
        consumer_type=consumer.consumer_type)
    tries = conf.placement.allocation_conflict_retry_count
    try:
        db.write_retrying(allocations.WriteRaced, tries, _write, write)
    except exceptions.PlacerError as exc:  # generation moved, consumer gone, inventory
        return str(getattr(exc, "detail", exc))
    return None


def repair(conf: cfg.ConfigOpts, db: Database, snap: snapshot_db.Snapshot,
           findings: dict[str, dict[str, Any]]) -> tuple[dict[str, list[str]],
                                                          dict[str, list[dict[str, str]]]]:
    """Remove the orphaned consumers' allocations and the leftovers."""
    fixed: dict[str, list[str]] = {kind: [] for kind in FIXABLE}
    left: dict[str, list[dict[str, str]]] = {kind: [] for kind in FIXABLE}
    for kind in FIXABLE:
        for item in findings[kind]["items"]:
            consumer = snap.consumers[item["consumer"]]
            gone = {root["uuid"] for root in item["roots"]} if kind == "source_leftovers" \
                else set(consumer.roots)
            keep = {provider: dict(classes)
                    for root_uuid, root in consumer.roots.items() if root_uuid not in gone
                    for provider, classes in root.resources.items()}
            why = _fix_one(db, conf, consumer, keep)
            if why is None:
                fixed[kind].append(consumer.uuid)
                LOG.info("%s: removed allocations of consumer %s in %s", kind, consumer.uuid,
                         ", ".join(sorted(gone)))
            else:
                left[kind].append({"consumer": consumer.uuid, "reason": why})
                LOG.warning("%s: consumer %s left alone: %s", kind, consumer.uuid, why)
    return fixed, left


def run(conf: cfg.ConfigOpts, db: Database, fix: bool = False) -> NovaResult:
    """Placement's consumers sorted against Nova's answer; with ``fix``, the
    orphaned and the leftovers removed. ``Refused`` when Nova's answer is not
    proved whole (then nothing is called orphaned, nothing is fixed)."""
    snap = db.snapshot_read(snapshot_db.read)
    view = nova.read(conf)
    findings = classify(snap, view)
    if not fix:
        return NovaResult(findings)
    fixed, left = repair(conf, db, snap, findings)
    return NovaResult(findings, fixed, left)

"""GET /audit on the scale scenario's flat hosts, with faults planted in
SQL, beside the requests of ``nova-manage placement audit``: GET
/resource_providers, then GET /resource_providers/{uuid}/allocations for
each provider, one after another (its look-ups of the consumers in Nova's
database are left out). Placer serves with ``--workers``; the reference,
with ``--reference``, the same database after it. Beyond ``--whole``
providers the walk is timed over a fixed sample of them and extrapolated."""

import time
import uuid

import sqlalchemy as sa

from benchmarks.harness import machine
from benchmarks.harness.client import Client
from benchmarks.harness.databases import ThrowAwayDatabase, engine_at
from benchmarks.harness.servers import Server
from benchmarks.scenarios import DATA, Query, progress, servers, time_queries
from benchmarks.scenarios.scale import generate
from placer.db import tables as t

D = DATA["audit"]


def plant(engine, hosts: int) -> dict[str, int]:
    """From host 1, every D["every"] hosts (ids; the kinds on neighbours): an
    allocation of a class without inventory there, VCPU shrunk under its
    allocations, a consumer's disk on a second host, a consumer without
    allocations. The count planted of each kind."""
    starts = range(1, max(hosts - 3, 1) + 1, D["every"])
    a, inv = t.allocations, t.inventories
    with engine.begin() as conn:
        rc = dict(conn.execute(sa.select(t.resource_classes.c.name, t.resource_classes.c.id)).all())
        for h in starts:
            on = [conn.execute(sa.select(a.c.consumer_id).where(a.c.resource_provider_id == p)
                               .limit(1)).scalar_one() for p in (h, h + 2)]
            conn.execute(a.insert(), [
                {"resource_provider_id": h, "consumer_id": on[0], "resource_class_id": rc["VGPU"],
                 "used": 1},
                {"resource_provider_id": h + 3, "consumer_id": on[1],
                 "resource_class_id": rc["DISK_GB"], "used": 1}])
            conn.execute(inv.update().where(inv.c.resource_provider_id == h + 1,
                                            inv.c.resource_class_id == rc["VCPU"])
                         .values(total=1, reserved=0, allocation_ratio=1.0))
            conn.execute(t.consumers.insert().values(uuid=str(uuid.uuid4()), project_id=1,
                                                     user_id=1, generation=1))
    return dict.fromkeys(("without_inventory", "over_capacity", "split_consumers",
                          "empty_consumers"), len(starts))


def walk(client: Client, sample: int | None) -> dict:
    """nova-manage's requests, one after another: all of them, or the list and
    ``sample`` providers evenly spread over it (by uuid), then extrapolated."""
    start = time.perf_counter()
    providers = sorted(rp["uuid"] for rp in client.call(
        "GET", "/resource_providers", version="1.14")["resource_providers"])
    listed = time.perf_counter() - start
    asked = providers if not sample or sample >= len(providers) else [
        providers[i * len(providers) // sample] for i in range(sample)]
    start = time.perf_counter()
    for rp in asked:
        client.call("GET", f"/resource_providers/{rp}/allocations")
    each = (time.perf_counter() - start) / max(len(asked), 1)
    return {"requests": 1 + len(providers), "timed_requests": 1 + len(asked),
            "extrapolated": len(asked) < len(providers), "list_s": round(listed, 3),
            "per_provider_ms": round(each * 1000, 3),
            "seconds": round(listed + each * len(providers), 1)}


def run(args, argv: list[str]) -> dict:
    data = machine.header(args, argv, "backend", "sizes", "repeat", "workers", "whole",
                          "sample", target_s=D["target_s"], databases=[], results=[])
    for size in args.sizes:
        with ThrowAwayDatabase(args.backend) as url, engine_at(url) as engine:
            gen = generate(engine, size, consumers_per_tree=tuple(D["consumers_per_host"]))
            planted = plant(engine, gen.roots)
            data["databases"].append({"size": size, **gen.counts(), "planted": planted,
                                      "seconds": round(gen.seconds, 1)})
            progress(f"{size} on {args.backend}: {gen.allocations} allocations")
            for label, venv in servers(args):
                with Server(args.workers, connection=url, reference=venv) as server:
                    client, row = Client(server.url), {"server": label, "size": size}
                    if not venv:
                        found = client.call("GET", "/audit")["findings"]
                        row["findings"] = {k: v["count"] for k, v in found.items()}
                        row["audit"] = time_queries(client, server.measured(), f"{label} {size}", [
                            Query("GET /audit", path="/audit", items=None)], args.repeat)[0].row()
                    row["walk"] = walk(client, None if size <= args.whole else args.sample)
                    progress(f"{label} {size}: 1+N {row['walk']}")
                    data["results"].append(row)
    return machine.finished(data)

"""The capacity scenario: GET and POST /capacity and the capacity gauges of
/metrics, beside what today's tools ask for the same answer.

    python -m benchmarks.capacity --sizes 10000,100000 --shape flat
    python -m benchmarks.capacity --sizes 10000 --shape nested --backend postgresql \\
        --reference /tmp/refvenv --json capacity.json

For each size, a database of the scale scenario (benchmarks/scale.py: flat
hosts, or trees of a root with disk and two NUMA nodes) is generated and
served by Placer with one worker, ``[placer] capacity_metrics`` on and 20
shapes in ``capacity_shapes`` (flavors from 1 core and 1 GiB to 32 cores
and 128 GiB; on nested trees, VCPU and memory as one granular group, from
one NUMA node). Timed, ``--repeat`` runs after a warm-up (median, server
CPU, peak RSS):

- ``capacity 1 shape``: GET /capacity for one flavor;
- ``capacity 20 shapes``: POST /capacity with the 20, each ``limit=100``;
- ``capacity per class``: GET /capacity without resources;
- ``metrics exporter+20 shapes``: GET /metrics with all the gauges;
- ``metrics exporter``: the same on a server without shapes (the
  exporter's gauges alone: four series per inventory record).

Then, once each at the sizes of ``--tools-sizes``, what the tools cost
against the same database, Placer and (with ``--reference VENV``) the
reference: openstack-exporter's scrape (GET /resource_providers, then each
provider's inventories and usages, one after another: 1 + 2N requests) and
os-capacity's (one GET /allocation_candidates per flavor at 1.29 without a
limit, required=!COMPUTE_STATUS_DISABLED, the 20 flavors one after
another). Targets (flat, SQLite, 100,000 providers): one shape under 1 s,
20 shapes under 2 s, peak RSS under 300 MiB; at 10,000, the scrape with
20 shapes under 2 s.
"""

import argparse
import json
import os
import sys
import time
import urllib.parse

from benchmarks import databases, environment, loader, runner, scale
from benchmarks.scenarios import Query, Scenario
from benchmarks.server import Proc, Server, proc_available
from placer.db import engine as db_engine

# 20 flavors: (VCPU, MEMORY_MB, DISK_GB)
FLAVORS = [(v, v * m, d) for v, m, d in [
    (1, 1024, 10), (1, 2048, 20), (2, 2048, 20), (2, 4096, 40), (4, 2048, 40),
    (4, 4096, 80), (4, 8192, 80), (8, 2048, 80), (8, 4096, 160), (8, 8192, 160),
    (16, 1024, 160), (16, 2048, 160), (16, 4096, 320), (16, 8192, 320), (32, 1024, 320),
    (32, 2048, 320), (32, 4096, 640), (2, 1024, 10), (4, 1024, 10), (1, 512, 10)]]
TARGETS = {"capacity 1 shape": 1000, "capacity 20 shapes": 2000}
TARGET_RSS_MB = 300
TARGET_METRICS_10K_MS = 2000


def shape_query(flavor: tuple[int, int, int], shape: str) -> str:
    vcpu, memory, disk = flavor
    if shape == "nested":  # the NUMA nodes hold VCPU and memory, the root disk
        return f"resources=DISK_GB:{disk}&resources1=VCPU:{vcpu},MEMORY_MB:{memory}"
    return f"resources=VCPU:{vcpu},MEMORY_MB:{memory},DISK_GB:{disk}"


def shapes(shape: str) -> dict[str, str]:
    return {f"f{i:02d}.{v}c{m // 1024}g": shape_query((v, m, d), shape)
            for i, (v, m, d) in enumerate(FLAVORS)}


def queries(shape: str) -> list[Query]:
    named = shapes(shape)
    one = next(iter(named.values()))
    limited = {name: f"{q}&limit=100" for name, q in named.items()}
    return [
        Query("capacity 1 shape", [], path="/capacity?" + one, items="roots",
              target_ms=TARGETS["capacity 1 shape"]),
        Query("capacity 20 shapes", [], method="POST", items="shapes",
              target_ms=TARGETS["capacity 20 shapes"],
              request=lambda: ("/capacity", {"shapes": limited})),
        Query("capacity per class", [], path="/capacity", items=None),
        Query("metrics exporter+20 shapes", [], path="/metrics", items=None),
    ]


def _timed_scrapes(client: loader.Client, shape: str) -> dict[str, float]:
    """Seconds of one exporter scrape (1 + 2N requests) and of os-capacity's
    per-flavor queries, one request after another as the tools send them."""
    found = {}
    start = time.perf_counter()
    providers = client.call("GET", "/resource_providers")["resource_providers"]
    for rp in providers:
        client.call("GET", f"/resource_providers/{rp['uuid']}/inventories")
        client.call("GET", f"/resource_providers/{rp['uuid']}/usages")
    found["exporter 1+2N requests"] = time.perf_counter() - start
    found["exporter requests"] = 1 + 2 * len(providers)
    start = time.perf_counter()
    for query in shapes(shape).values():
        params = urllib.parse.parse_qsl(query) + [("required", "!COMPUTE_STATUS_DISABLED")]
        client.call("GET", "/allocation_candidates?" + urllib.parse.urlencode(params),
                    version="1.29")
    found["os-capacity 20 flavors"] = time.perf_counter() - start
    return found


def run(args) -> tuple[list[runner.Result], list[dict], list[dict]]:
    results, tags, tools = [], [], []
    for size in args.sizes:
        with databases.ThrowAwayDatabase(args.backend, args.db_server) as url:
            engine = db_engine.create_engine(url)
            try:
                gen = scale.generate(engine, size, args.shape)
            finally:
                engine.dispose()
            print(f"# capacity {args.shape} {size} on {args.backend}: {gen.providers} providers "
                  f"({gen.roots} trees) in {gen.seconds:.1f}s", file=sys.stderr, flush=True)
            options = {"metrics_enabled": True, "capacity_metrics": True}
            for label, extra, qs in (
                    ("placer", {"capacity_shapes": [f"{n}={q}" for n, q in
                                                    shapes(args.shape).items()]},
                     queries(args.shape)),
                    ("placer", {}, [Query("metrics exporter", [], path="/metrics",
                                          items=None)])):
                with Server(1, connection=url, placer={**options, **extra}) as server:
                    proc = Proc(server.proc.pid) if proc_available() else None
                    client = loader.Client(server.url)
                    scenario = Scenario(f"{label} {args.shape} {size}", [], {}, qs)
                    for query in qs:
                        result = runner.run_query(client, scenario, query, args.repeat, proc)
                        results.append(result)
                        tags.append({"shape": args.shape, "size": size,
                                     "backend": args.backend})
                        print(runner.markdown([result]).splitlines()[-1], file=sys.stderr,
                              flush=True)
                    if extra and size in args.tools_sizes:
                        tools.append({"server": "placer", "shape": args.shape, "size": size,
                                      **_timed_scrapes(client, args.shape)})
                        print(f"# tools on placer: {tools[-1]}", file=sys.stderr, flush=True)
            if args.reference and size in args.tools_sizes:
                with Server(1, connection=url, reference=args.reference) as server:
                    tools.append({"server": "reference", "shape": args.shape, "size": size,
                                  **_timed_scrapes(loader.Client(server.url), args.shape)})
                    print(f"# tools on the reference: {tools[-1]}", file=sys.stderr,
                          flush=True)
    return results, tags, tools


# where the targets hold, on SQLite: (shape, size of the counts, size of the scrape)
TARGET_SIZES = {"flat": (100_000, 10_000), "nested": (30_000, 30_000)}  # 10,000 NUMA hosts


def checks(results: list[runner.Result], tags: list[dict]) -> list[str]:
    """The targets, PASS or MISS with the figure (SQLite: flat at 100,000
    providers, the scrape at 10,000; nested at 10,000 NUMA hosts)."""
    lines = []
    for r, tag in zip(results, tags, strict=True):
        if tag["backend"] != "sqlite" or r.median_ms is None or tag["shape"] not in TARGET_SIZES:
            continue
        counts, scrape = TARGET_SIZES[tag["shape"]]
        at = f"{tag['shape']} {tag['size'] // 1000}k"
        if tag["size"] == counts and r.query in TARGETS:
            ok = r.median_ms < TARGETS[r.query]
            lines.append(f"{r.query} at {at}: {r.median_ms:.0f} ms < {TARGETS[r.query]} ms "
                         f"{'PASS' if ok else 'MISS'}")
        if tag["size"] == counts and r.query == "capacity 20 shapes" and r.rss_peak_mb:
            ok = r.rss_peak_mb < TARGET_RSS_MB
            lines.append(f"peak RSS at {at}: {r.rss_peak_mb:.0f} MiB < {TARGET_RSS_MB} MiB "
                         f"{'PASS' if ok else 'MISS'}")
        if tag["size"] == scrape and r.query == "metrics exporter+20 shapes":
            ok = r.median_ms < TARGET_METRICS_10K_MS
            lines.append(f"scrape with 20 shapes at {at}: {r.median_ms:.0f} ms < "
                         f"{TARGET_METRICS_10K_MS} ms {'PASS' if ok else 'MISS'}")
    return lines


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.capacity",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--shape", choices=scale.SHAPES, default="flat")
    parser.add_argument("--backend", choices=["sqlite", *databases.SERVERS], default="sqlite")
    parser.add_argument("--db-server", help="the database server's URL (default: the "
                                            "backend's on 127.0.0.1)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--tools-sizes", default="10000",
                        help="sizes at which the tools' scrapes are timed (10000)")
    parser.add_argument("--reference", metavar="VENV",
                        help="also time the tools' scrapes on the reference in VENV")
    parser.add_argument("--json", metavar="PATH")
    args = parser.parse_args(argv)
    args.sizes = [int(s) for s in args.sizes.split(",")]
    args.tools_sizes = [int(s) for s in args.tools_sizes.split(",") if s]
    settings = {"benchmark": "capacity",
                **environment.describe(argv, args.reference, "benchmarks.capacity"),
                "shape": args.shape, "backend": args.backend, "sizes": args.sizes,
                "repeat": args.repeat, "cpus": os.cpu_count()}
    results, tags, tools = run(args)
    settings["finished"] = environment.now()
    print(runner.markdown(results))
    for line in checks(results, tags):
        print(line)
    for row in tools:
        print(json.dumps(row))
    if args.json:
        with open(args.json, "w") as out:
            out.write(runner.to_json(results, {**settings, "tools": tools}, tags))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

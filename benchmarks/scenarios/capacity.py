"""GET and POST /capacity and the capacity gauges of /metrics on the scale
scenario's databases (Placer, one worker, the 20 flavors of data.toml in
``capacity_shapes``; the exporter's gauges alone on a server without
them), then, at ``--tools-sizes``, one openstack-exporter scrape (1 + 2N
requests) and os-capacity's (a candidates query per flavor, at 1.29) on
Placer and the reference."""

import time
import urllib.parse

from benchmarks.harness import machine
from benchmarks.harness.client import Client
from benchmarks.harness.servers import Server
from benchmarks.scenarios import DATA, Query, time_queries
from benchmarks.scenarios.fixed import read_providers
from benchmarks.scenarios.scale import clouds

D = DATA["capacity"]


def shapes(shape: str) -> dict[str, str]:
    """Name -> query of each flavor (nested: the NUMA nodes hold VCPU and
    memory, the root disk)."""
    return {f"f{i:02d}.{v}c{m // 1024}g": (
        f"resources=DISK_GB:{d}&resources1=VCPU:{v},MEMORY_MB:{m}" if shape == "nested"
        else f"resources=VCPU:{v},MEMORY_MB:{m},DISK_GB:{d}")
        for i, (v, m, d) in enumerate(D["flavors"])}


def queries(shape: str) -> list[Query]:
    named = shapes(shape)
    limited = {name: f"{q}&limit=100" for name, q in named.items()}
    return [
        Query("capacity 1 shape", path="/capacity?" + next(iter(named.values())),
              items="roots", target_ms=D["targets"]["capacity 1 shape"]),
        Query("capacity 20 shapes", method="POST", items="shapes",
              target_ms=D["targets"]["capacity 20 shapes"],
              request=lambda: ("/capacity", {"shapes": limited})),
        Query("capacity per class", path="/capacity", items=None),
        Query("metrics exporter+20 shapes", path="/metrics", items=None),
    ]


def scrapes(client: Client, shape: str) -> dict[str, float]:
    """Seconds of one exporter scrape and of os-capacity's per-flavor
    queries, one request after another as the tools send them."""
    start = time.perf_counter()
    providers = read_providers(client)
    found = {"exporter 1+2N requests": time.perf_counter() - start,
             "exporter requests": 1 + 2 * len(providers)}
    start = time.perf_counter()
    for query in shapes(shape).values():
        params = urllib.parse.parse_qsl(query) + [("required", "!COMPUTE_STATUS_DISABLED")]
        client.call("GET", "/allocation_candidates?" + urllib.parse.urlencode(params),
                    version="1.29")
    found["os-capacity 20 flavors"] = time.perf_counter() - start
    return found


def checks(rows: list[dict]) -> list[str]:
    """The targets, PASS or MISS with the figure (SQLite: flat at 100,000
    providers, the scrape at 10,000; nested at 10,000 NUMA hosts)."""
    lines = []
    for r in rows:
        if r["backend"] != "sqlite" or r["median_ms"] is None or r["shape"] not in D[
                "target_sizes"]:
            continue
        counts, scrape = D["target_sizes"][r["shape"]]
        at, target = f"{r['shape']} {r['size'] // 1000}k", D["targets"].get(r["query"])
        if r["size"] == counts and target:
            lines.append(f"{r['query']} at {at}: {r['median_ms']:.0f} ms < {target} ms "
                         f"{'PASS' if r['median_ms'] < target else 'MISS'}")
        if r["size"] == counts and r["query"] == "capacity 20 shapes" and r["rss_peak_mb"]:
            lines.append(f"peak RSS at {at}: {r['rss_peak_mb']:.0f} MiB < {D['target_rss_mb']} "
                         f"MiB {'PASS' if r['rss_peak_mb'] < D['target_rss_mb'] else 'MISS'}")
        if r["size"] == scrape and r["query"] == "metrics exporter+20 shapes":
            lines.append(f"scrape with 20 shapes at {at}: {r['median_ms']:.0f} ms < "
                         f"{D['target_scrape_ms']} ms "
                         f"{'PASS' if r['median_ms'] < D['target_scrape_ms'] else 'MISS'}")
    return lines


def run(args, argv: list[str]) -> dict:
    data = machine.header(args, argv, "shape", "backend", "sizes", "repeat", results=[], tools=[])
    tags = {"shape": args.shape, "backend": args.backend}
    named = [f"{n}={q}" for n, q in shapes(args.shape).items()]
    for shape, size, url, _ in clouds(args):
        tools = size in args.tools_sizes
        for extra, qs in (({"capacity_shapes": named}, queries(shape)),
                          ({}, [Query("metrics exporter", path="/metrics", items=None)])):
            with Server(1, connection=url, placer={"metrics_enabled": True,
                                                   "capacity_metrics": True, **extra}) as server:
                client = Client(server.url)
                data["results"] += [r.row(size=size, **tags) for r in time_queries(
                    client, server.measured(), f"placer {shape} {size}", qs, args.repeat)]
                if extra and tools:
                    data["tools"].append({"server": "placer", "shape": shape, "size": size,
                                          **scrapes(client, shape)})
        if args.reference and tools:
            with Server(1, connection=url, reference=args.reference) as server:
                data["tools"].append({"server": "reference", "shape": shape, "size": size,
                                      **scrapes(Client(server.url), shape)})
    return {**data, "finished": machine.now(), "checks": checks(data["results"])}

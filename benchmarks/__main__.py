"""Benchmark GET /allocation_candidates.

    python -m benchmarks --start                      # every scenario, own servers
    python -m benchmarks --url http://host:8778 --scenario wide --repeat 20
    python -m benchmarks --start --json results.json

Each scenario is loaded through the HTTP API (not timed), then every query of
the scenario is sent once to warm up and ``--repeat`` times more; the table
gives the median and p90 latency as the client sees it (send to last byte),
the number of candidates, the response size, the server's CPU time per
request (from /proc: unlike latency, not inflated by other load on the
machine), the worker's peak RSS during the query's runs (VmHWM, reset before
each query) and how much it grew over the RSS before the query, and
PASS/MISS of the median against the target (limit=1000 queries only: under
100 ms for flat and nested, 200 ms for wide).

Scenarios (see benchmarks/scenarios.py):
  flat    1000 compute nodes in 20 aggregates, 10 sharing disk pools, ~30% used
  nested  200 hosts -> 2 NUMA nodes -> NIC -> 2 PFs with VFs and bandwidth
  wide    50 hosts with 8 one-unit VGPU children; 1-8 isolated one-unit groups

--start runs a fresh ``placement-api`` per scenario (SQLite file in a temp
dir, noauth2, one worker by default) and stops it afterwards. --url uses a
running server (noauth2 or a token: --token), ideally with an empty
database (existing providers change the answers); what was loaded is deleted
after each scenario. CPU and memory are measured only with --start or --pid.
Unbounded queries expected to return more than 100000 candidates are skipped
unless --max-candidates bounds them on the started server.
"""

import argparse
import os
import sys
import time

from benchmarks import loader, runner, scenarios
from benchmarks.server import Proc, Server, proc_available


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks", description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--url", help="base URL of a running Placement API")
    where.add_argument("--start", action="store_true",
                       help="start a throw-away placement-api for each scenario")
    parser.add_argument("--scenario", choices=[*scenarios.BUILDERS, "all"], default="all")
    parser.add_argument("--repeat", type=int, default=10, help="timed runs per query (10)")
    parser.add_argument("--workers", type=int, default=1, help="server workers with --start (1)")
    parser.add_argument("--max-candidates", type=int, default=-1,
                        help="max_allocation_candidates of the started server (-1: none)")
    parser.add_argument("--token", default="admin", help="X-Auth-Token (admin: noauth2)")
    parser.add_argument("--pid", type=int,
                        help="with --url: server pid (gunicorn master) for CPU and memory")
    parser.add_argument("--keep", action="store_true",
                        help="with --url: leave the loaded providers in place")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    return args


def run_scenario(args, name: str) -> list[runner.Result]:
    scenario = scenarios.build(name)
    if args.start:
        with Server(args.workers, args.max_candidates) as server:
            server_proc = Proc(server.proc.pid) if proc_available() else None
            return _measure(args, loader.Client(server.url), scenario, server_proc,
                            args.max_candidates)
    client = loader.Client(args.url, token=args.token)
    server_proc = Proc(args.pid) if args.pid else None
    try:
        return _measure(args, client, scenario, server_proc, -1)
    finally:
        if not args.keep:
            loader.unload(client, scenario)


def _measure(args, client, scenario, server_proc, cap) -> list[runner.Result]:
    started = time.perf_counter()
    loader.load(client, scenario)
    print(f"# {scenario.name}: loaded {len(scenario.providers)} providers and "
          f"{len(scenario.allocations)} consumers in {time.perf_counter() - started:.1f}s",
          file=sys.stderr, flush=True)
    results = []
    for query in scenario.queries:
        results.append(runner.run_query(client, scenario, query, args.repeat, server_proc, cap))
        print(runner.markdown(results[-1:]).splitlines()[-1], file=sys.stderr, flush=True)
    return results


def main(argv=None) -> int:
    args = parse_args(argv)
    names = list(scenarios.BUILDERS) if args.scenario == "all" else [args.scenario]
    # latency suffers from anything else running: say how busy the machine was
    settings = {"version": scenarios.VERSION, "repeat": args.repeat, "workers": args.workers,
                "max_candidates": args.max_candidates, "cpus": os.cpu_count(),
                "load_average": [round(x, 2) for x in os.getloadavg()]}
    results = [r for name in names for r in run_scenario(args, name)]
    settings["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    print("GET /allocation_candidates: " + ", ".join(f"{k} {v}" for k, v in settings.items()))
    print()
    print(runner.markdown(results))
    if args.json:
        with open(args.json, "w") as f:
            f.write(runner.to_json(results, settings))
    return 0


if __name__ == "__main__":
    sys.exit(main())

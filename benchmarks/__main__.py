"""Benchmark GET /allocation_candidates.

    python -m benchmarks --start                      # every scenario, own servers
    python -m benchmarks --url http://host:8778 --scenario wide --repeat 20
    python -m benchmarks --start --json results.json
    python -m benchmarks.report results.json --out docs/results/   # page + plots

The JSON file also records the date, commit, machine and command line;
``python -m benchmarks.report`` makes the results page (tables and plots)
from one or more such files (see benchmarks/report.py).

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
dir, noauth2, one worker by default) and stops it afterwards. With
--reference VENV, the reference installed in VENV then serves the same
database file and the scenario's limited queries are timed on it too; the
comparison table checks that Placer's median is at most a fifth of the
reference's. --url uses a
running server (noauth2 or a token: --token), ideally with an empty
database (existing providers change the answers); what was loaded is deleted
after each scenario. CPU and memory are measured only with --start or --pid.
Unbounded queries expected to return more than 100000 candidates are skipped
unless --max-candidates bounds them on the started server.

--scenario scale (with --start; see benchmarks/scale.py) writes N providers
directly with SQL into a throw-away database (--backend: a SQLite file, or a
new database on the PostgreSQL / MariaDB server of --db-server, dropped
afterwards), serves it, and times candidates (limit=1000, limit=10, traits
and member_of, unlimited), GET /resource_providers?resources=, claims and
usages at each of --sizes, for each --shape. It prints the slopes between
sizes and the checks of their targets. --reference VENV also serves the
same database with the reference implementation installed in VENV
(openstack-placement and gunicorn) and prints Placer/reference per query:

    python -m benchmarks --start --scenario scale --sizes 1000,10000,100000
    python -m benchmarks --start --scenario scale --sizes 1000 --reference /tmp/refvenv
    python -m benchmarks --start --scenario scale --candidate-order spread   # [placer] order

--scenario fill (with --start; see benchmarks/fill.py) plays Nova's
scheduler filling a cloud of --hosts hosts (--shape flat, nested or all) for
each candidate order of --orders (Placer's ``[placer] candidate_order``:
id, random, spread, pack, and no-limit: the id order without a limit, Nova's
weigher on every host; --reference VENV adds the reference without and with
randomize_allocation_candidates), on identical hosts or three generations of
hardware (--cloud), each order on a fresh server
with the same cloud and the same seeded stream of boots (--seed) and
deletes: --schedulers threads ask for candidates (--limit), weigh them by
free RAM like Nova, and claim the best. It reports, per order, how evenly
the RAM is used and how fragmented the hosts are when the cloud is half
full, how many instances were placed before the first boot that failed
although the cloud had the room in total (at most --boots boots), the claim
conflicts and the latency of each step, and checks that spread evens the
use out and pack keeps hosts free:

    python -m benchmarks --start --scenario fill --reference /tmp/refvenv --json fill.json

--scenario capacity (see benchmarks/capacity.py, whose options it takes:
--sizes, --shape, --backend, --repeat, --tools-sizes, --reference, --json)
times GET and POST /capacity and the capacity gauges of /metrics on the
scale scenario's databases, beside the scrapes of openstack-exporter and
os-capacity against Placer and the reference:

    python -m benchmarks --start --scenario capacity --sizes 10000,100000 --reference /tmp/refvenv

--scenario production (see benchmarks/production.py, whose options it takes)
times Placer and the reference side by side on the same database, per
backend: ratios against the targets, claims under concurrent writers, and
throughput against workers:

    python -m benchmarks --scenario production --backend postgresql --reference /tmp/refvenv
"""

import argparse
import dataclasses
import http.client
import json
import os
import sys
import time

import placer
from benchmarks import capacity, databases, environment, fill, loader, runner, scale, scenarios
from benchmarks.server import Proc, Server, proc_available
from placer.db import engine as db_engine

REFERENCE_RATIO = runner.REFERENCE_RATIO


def parse_args(argv):
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks", description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--url", help="base URL of a running Placement API")
    where.add_argument("--start", action="store_true",
                       help="start a throw-away placement-api for each scenario")
    parser.add_argument("--scenario", choices=[*scenarios.BUILDERS, "scale", "fill", "all"],
                        default="all", help="all: every scenario but scale and fill")
    parser.add_argument("--repeat", type=int, default=10, help="timed runs per query (10)")
    parser.add_argument("--workers", type=int, default=1, help="server workers with --start (1)")
    parser.add_argument("--max-candidates", type=int, default=-1,
                        help="max_allocation_candidates of the started server (-1: none)")
    parser.add_argument("--randomize", action="store_true",
                        help="started servers (both with --reference) answer with "
                             "randomize_allocation_candidates = true")
    parser.add_argument("--candidate-order", choices=["id", "random", "spread", "pack"],
                        help="started Placer servers answer in this [placer] candidate_order "
                             "(default: unset, the id order)")
    parser.add_argument("--candidate-order-pool", type=float,
                        help="their [placer] candidate_order_pool (default: Placer's, 2.0)")
    parser.add_argument("--token", default="admin", help="X-Auth-Token (admin: noauth2)")
    parser.add_argument("--pid", type=int,
                        help="with --url: server pid (gunicorn master) for CPU and memory")
    parser.add_argument("--keep", action="store_true",
                        help="with --url: leave the loaded providers in place")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    group = parser.add_argument_group("scale scenario")
    group.add_argument("--sizes", default="1000,10000,100000",
                       help="providers per generated database (1000,10000,100000)")
    group.add_argument("--shape", choices=[*scale.SHAPES, "all"],
                       help="scale: flat (default), nested or all; fill: all by default")
    group.add_argument("--backend", choices=["sqlite", *databases.SERVERS], default="sqlite")
    group.add_argument("--db-server", metavar="URL",
                       help="server URL for --backend postgresql/mysql (default: "
                            + ", ".join(databases.SERVERS.values()) + ")")
    group.add_argument("--only", metavar="NAMES",
                       help="comma-separated query names to run (default: all); with "
                            "--reference and flat/nested/wide, the limited queries the "
                            "reference is timed on")
    parser.add_argument("--reference", metavar="VENV",
                        help="with --start: also time the reference installed in VENV "
                             "(openstack-placement and gunicorn) on the same database; for "
                             "flat/nested/wide, their limited queries")
    group.add_argument("--reference-sizes", metavar="SIZES",
                       help="sizes at which to run the reference (default: --sizes)")
    parser.add_argument("--reference-repeat", type=int, default=3,
                        help="timed runs per query for the reference (3)")
    group = parser.add_argument_group("fill scenario")
    group.add_argument("--hosts", type=int, default=300, help="hosts of the cloud (300)")
    group.add_argument("--limit", type=int, default=30,
                       help="limit of each GET /allocation_candidates (30)")
    group.add_argument("--boots", type=int,
                       help=f"at most this many boots per order (default: "
                            f"{fill.BOOTS_PER_HOST} per host, more than fill the cloud)")
    group.add_argument("--seed", type=int, default=0, help="of the cloud and the stream (0)")
    group.add_argument("--schedulers", type=int, default=4,
                       help="scheduler threads claiming concurrently (4)")
    group.add_argument("--orders", default=",".join(fill.ORDERS),
                       help=f"candidate orders of Placer ({','.join(fill.ORDERS)}); "
                            "--reference adds " + " and ".join(fill.REFERENCE_ORDERS))
    group.add_argument("--cloud", choices=list(fill.CLOUDS), default="identical",
                       help="identical hosts, or three generations of hardware (identical)")
    group.add_argument("--pool", type=float, metavar="K",
                       help="[placer] candidate_order_pool for spread and pack "
                            "(default: the server's)")
    group.add_argument("--weights", metavar="CLASS:MULT,...",
                       help="[placer] candidate_order_weights for spread and pack "
                            "(default: the server's, every class 1.0)")
    args = parser.parse_args(argv)
    if args.repeat < 1 or args.reference_repeat < 1:
        parser.error("--repeat and --reference-repeat must be at least 1")
    if args.reference and not args.start:
        parser.error("--reference needs --start")
    if args.scenario == "fill":
        if not args.start:
            parser.error("--scenario fill needs --start (each order gets a fresh server)")
        args.orders = [o for o in args.orders.split(",") if o]
        unknown = [o for o in args.orders if o not in fill.ORDERS]
        if unknown:
            parser.error(f"unknown orders {','.join(unknown)} (known: {','.join(fill.ORDERS)})")
        if args.reference:
            args.orders += list(fill.REFERENCE_ORDERS)
        if args.boots is None:
            args.boots = fill.BOOTS_PER_HOST * args.hosts
        if args.hosts < 1 or args.limit < 1 or args.boots < 1 or args.schedulers < 1:
            parser.error("--hosts, --limit, --boots and --schedulers must be at least 1")
        if args.pool is not None and args.pool < 1:
            parser.error("--pool must be at least 1")
        args.shape = args.shape or "all"
    args.shape = args.shape or "flat"
    if args.scenario == "scale":
        if not args.start:
            parser.error("--scenario scale needs --start (it writes its own database)")
        try:
            args.sizes = [int(x) for x in args.sizes.split(",")]
            args.reference_sizes = ([int(x) for x in args.reference_sizes.split(",")]
                                    if args.reference_sizes else args.sizes)
        except ValueError:
            parser.error("sizes are comma-separated integers")
    return args


def run_scenario(args, name: str) -> list[runner.Result]:
    scenario = scenarios.build(name)
    if args.start and args.reference:
        return _side_by_side(args, scenario)
    if args.start:
        with Server(args.workers, args.max_candidates, randomize=args.randomize,
                    placer=_order_options(args)) as server:
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


def _side_by_side(args, scenario) -> list[runner.Result]:
    """Load and time the scenario on Placer, then time its limited queries on
    the reference serving the same SQLite file. The reference's results are
    in a scenario named "<name> (reference)"."""
    with databases.ThrowAwayDatabase("sqlite") as url:
        with Server(args.workers, args.max_candidates, connection=url,
                    randomize=args.randomize, placer=_order_options(args)) as server:
            proc = Proc(server.proc.pid) if proc_available() else None
            results = _measure(args, loader.Client(server.url), scenario, proc,
                               args.max_candidates)
        # the targets are Placer's; the comparison table judges the reference's times
        only = set(args.only.split(",")) if args.only else None
        limited = [dataclasses.replace(q, target_ms=None) for q in scenario.queries
                   if q.limited and (only is None or q.name in only)]
        theirs = scenarios.Scenario(f"{scenario.name} (reference)", scenario.providers,
                                    scenario.allocations, limited)
        with Server(args.workers, args.max_candidates, connection=url,
                    reference=args.reference, randomize=args.randomize) as server:
            results += _time_scale(args, server, theirs.name, limited, args.reference_repeat)
    return results


def run_scale(args, generated: list[dict] | None = None
              ) -> list[tuple[str, str, int, runner.Result]]:
    """Generate, serve and time each shape at each size; (server, shape,
    size, result) per query. What was generated is appended to ``generated``."""
    rows = []
    shapes = scale.SHAPES if args.shape == "all" else (args.shape,)
    for shape in shapes:
        for size in args.sizes:
            with databases.ThrowAwayDatabase(args.backend, args.db_server) as url:
                engine = db_engine.create_engine(url)
                try:
                    gen = scale.generate(engine, size, shape)
                finally:
                    engine.dispose()
                print(f"# scale {shape} {size} on {args.backend}: {gen.providers} providers "
                      f"({gen.roots} trees), {gen.consumers} consumers, {gen.allocations} "
                      f"allocations generated in {gen.seconds:.1f}s", file=sys.stderr, flush=True)
                if generated is not None:
                    generated.append({
                        "shape": shape, "size": size, "providers": gen.providers,
                        "roots": gen.roots, "consumers": gen.consumers,
                        "allocations": gen.allocations, "seconds": round(gen.seconds, 1)})
                servers = [("placer", None, args.repeat)]
                if args.reference and size in args.reference_sizes:
                    servers.append(("reference", args.reference, args.reference_repeat))
                for label, venv, repeat in servers:
                    with Server(args.workers, args.max_candidates, connection=url,
                                reference=venv, randomize=args.randomize,
                                placer=None if venv else _order_options(args)) as server:
                        queries = scale.queries(gen)
                        if label == "placer":  # the targets are Placer's
                            scale.with_targets(queries, shape, size)
                        rows += [(label, shape, size, r) for r in _time_scale(
                            args, server, f"{label} {shape} {size}", queries, repeat)]
    return rows


def _order_options(args) -> dict:
    """The [placer] options of --candidate-order and --candidate-order-pool."""
    options = {}
    if args.candidate_order:
        options["candidate_order"] = args.candidate_order
    if args.candidate_order_pool is not None:
        options["candidate_order_pool"] = args.candidate_order_pool
    return options


def _time_scale(args, server: Server, name: str, queries, repeat: int) -> list[runner.Result]:
    proc = Proc(server.proc.pid) if proc_available() else None
    client = loader.Client(server.url)
    scenario = scenarios.Scenario(name, [], {}, queries)
    only = set(args.only.split(",")) if args.only else None
    results = []
    for query in queries:
        if only is not None and query.name not in only:
            continue
        started = time.perf_counter()
        try:
            result = runner.run_query(client, scenario, query, repeat, proc, args.max_candidates)
        except (loader.HTTPError, OSError, http.client.HTTPException) as exc:
            # e.g. a worker killed by its timeout: the other queries still run
            result = runner.Result(name, query.name, note=(
                f"failed after {time.perf_counter() - started:.0f} s: "
                f"{type(exc).__name__}: {exc}")[:200])
        results.append(result)
        print(runner.markdown([result]).splitlines()[-1], file=sys.stderr, flush=True)
    return results


def main_scale(args, argv: list[str]) -> int:
    settings = {"benchmark": "scale", **environment.describe(argv, args.reference),
                "placer": os.path.dirname(placer.__file__),  # which tree was measured
                "backend": args.backend, "shape": args.shape, "randomize": args.randomize,
                "candidate_order": _order_options(args),
                "sizes": args.sizes,
                "reference_sizes": args.reference_sizes if args.reference else None,
                "repeat": args.repeat,
                "reference_repeat": args.reference_repeat if args.reference else None,
                "workers": args.workers, "cpus": os.cpu_count(),
                "load_average": [round(x, 2) for x in os.getloadavg()]}
    generated: list[dict] = []
    rows = run_scale(args, generated)
    settings["finished"] = environment.now()
    settings["databases"] = generated
    settings["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    print("scale: " + ", ".join(f"{k} {v}" for k, v in settings.items()))
    print()
    print(runner.markdown([r for *_, r in rows]))
    print()
    print(scale.summary(rows))
    if args.reference:
        print()
        print(scale.comparison(rows))
    if args.json:
        with open(args.json, "w") as f:
            f.write(runner.to_json([r for *_, r in rows], settings, [
                {"server": srv, "shape": shape, "size": size} for srv, shape, size, _ in rows]))
    return 0


def main_fill(args, argv: list[str]) -> int:
    shapes = fill.SHAPES if args.shape == "all" else (args.shape,)
    settings = {"benchmark": "fill", **environment.describe(argv, args.reference),
                "placer": os.path.dirname(placer.__file__),
                "candidate_order_known": fill.order_known(),
                "version": fill.VERSION, "hosts": args.hosts, "limit": args.limit,
                "shapes": list(shapes), "orders": args.orders, "max_boots": args.boots,
                "seed": args.seed, "schedulers": args.schedulers, "pool": args.pool,
                "weights": args.weights,
                "delete_fraction": fill.DELETE_FRACTION, "half": fill.HALF,
                "flavors": [dataclasses.asdict(f) for f in fill.FLAVORS],
                "largest": fill.LARGEST.name,
                "cloud": args.cloud,
                "generations": [{"flat": g.flat(), "numa_node": g.numa_node()}
                                for g in fill.CLOUDS[args.cloud]],
                "host": {"flat": fill.FLAT_HOST, "numa_node": fill.NUMA_NODE},
                "workers": args.workers, "cpus": os.cpu_count(),
                "load_average": [round(x, 2) for x in os.getloadavg()]}
    if not settings["candidate_order_known"]:
        print("# this Placer has no [placer] candidate_order: spread and pack are served "
              "in id order", file=sys.stderr, flush=True)
    results = []
    for shape in shapes:
        for order in args.orders:
            results.append(fill.run(order, shape, args.hosts, args.limit, args.seed,
                                    args.schedulers, args.boots, args.workers,
                                    args.reference, args.pool, args.weights, args.cloud))
            print(f"# fill {shape} {order}: {results[-1]['seconds']} s, loaded in "
                  f"{results[-1]['load_seconds']} s", file=sys.stderr, flush=True)
            print(fill.markdown(results[-1:]).splitlines()[-1], file=sys.stderr, flush=True)
    settings["finished"] = environment.now()
    settings["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    checks = fill.checks(results)
    print("fill: " + ", ".join(f"{k} {v}" for k, v in settings.items()
                               if k not in ("flavors", "host")))
    print()
    print(fill.markdown(results))
    print()
    for c in checks:
        print(f"{c['result']} {c['shape']}, {c['cloud']}: {c['check']} ({c['detail']})")
    if checks and not settings["candidate_order_known"]:
        print("(this Placer has no [placer] candidate_order: its spread and pack ran in "
              "id order, so their checks say nothing of those orders)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({**settings, "results": results, "checks": checks}, f, indent=2)
    return 0


def _capacity_argv(argv: list[str], name: str = "capacity") -> list[str] | None:
    """The arguments for benchmarks.<name> (capacity, production) when ``argv``
    asks for ``--scenario <name>`` (which has options of its own), else None."""
    for i, arg in enumerate(argv):
        if arg == f"--scenario={name}" or (arg == "--scenario" and argv[i + 1:i + 2] ==
                                           [name]):
            cut = 1 if "=" in arg else 2
            return [a for a in argv[:i] + argv[i + cut:] if a != "--start"]
    return None


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    capacity_argv = _capacity_argv(argv)
    if capacity_argv is not None:
        return capacity.main(capacity_argv)
    production_argv = _capacity_argv(argv, "production")
    if production_argv is not None:
        from benchmarks import production
        return production.main(production_argv)
    args = parse_args(argv)
    if args.scenario == "scale":
        return main_scale(args, argv)
    if args.scenario == "fill":
        return main_fill(args, argv)
    names = list(scenarios.BUILDERS) if args.scenario == "all" else [args.scenario]
    # latency suffers from anything else running: say how busy the machine was
    settings = {"benchmark": "scenarios", **environment.describe(argv, args.reference),
                "placer": os.path.dirname(placer.__file__),
                "url": None if args.start else args.url,
                "version": scenarios.VERSION, "repeat": args.repeat,
                "reference_repeat": args.reference_repeat if args.reference else None,
                "only": args.only, "workers": args.workers,
                "max_candidates": args.max_candidates, "randomize": args.randomize,
                "cpus": os.cpu_count(),
                "load_average": [round(x, 2) for x in os.getloadavg()]}
    settings["scenarios"] = {}
    for name in names:
        built = scenarios.build(name)
        settings["scenarios"][name] = {"description": scenarios.BUILDERS[name].__doc__,
                                       "providers": len(built.providers),
                                       "consumers": len(built.allocations),
                                       "queries": len(built.queries)}
    results = [r for name in names for r in run_scenario(args, name)]
    settings["finished"] = environment.now()
    settings["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    print("GET /allocation_candidates: " + ", ".join(f"{k} {v}" for k, v in settings.items()))
    print()
    print(runner.markdown(results))
    if args.reference:
        print()
        print(runner.comparison(results, REFERENCE_RATIO))
    if args.json:
        with open(args.json, "w") as f:
            f.write(runner.to_json(results, settings))
    return 0


if __name__ == "__main__":
    sys.exit(main())

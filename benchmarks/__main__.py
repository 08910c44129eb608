"""python -m benchmarks SCENARIO [options]: run one benchmark and write its
results file (to --json PATH, or print it); ``report`` writes the results
page from such files. docs/contributor/profiling.md describes them."""

import argparse
import importlib
import json
import sys
from pathlib import Path

from benchmarks import report
from benchmarks.harness.databases import BACKENDS
from benchmarks.scenarios import DATA

FILL = DATA["fill"]
HELP = {  # sub-command -> (its module, what it times)
    "scenarios": ("fixed", "fixed clouds loaded through the API, their candidates queries"),
    "scale": ("scale", "N providers written with SQL, the requests at each size"),
    "fill": ("fill", "Nova's scheduler filling a cloud, for each candidate order"),
    "capacity": ("capacity", "GET and POST /capacity, the capacity gauges, the tools' scrapes"),
    "production": ("production", "Placer and the reference on the same database at once"),
    "claims": ("claims", "a claim's cost in process; --ab SRC: against another build"),
    "span": ("span", "how many hosts a limited candidates answer spans"),
    "profile": ("profile", "queries in process under cProfile, per layer"),
}


def _ints(text: str) -> list[int]:
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError("comma-separated integers") from None


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    commands = top.add_subparsers(dest="command", required=True, metavar="SCENARIO")
    json_out = argparse.ArgumentParser(add_help=False)
    json_out.add_argument("--json", metavar="PATH", help="write the results file there")
    ref = argparse.ArgumentParser(add_help=False)
    ref.add_argument("--reference", metavar="VENV", help="also time the reference installed "
                     "in VENV (openstack-placement and gunicorn) on the same database")
    timed = argparse.ArgumentParser(add_help=False, parents=[json_out, ref])
    timed.add_argument("--repeat", type=int, default=10, help="timed runs per query (10)")
    timed.add_argument("--reference-repeat", type=int, default=3,
                       help="the reference's timed runs per query (3)")
    timed.add_argument("--workers", type=int, default=1, help="server workers (1)")
    db = argparse.ArgumentParser(add_help=False)
    db.add_argument("--backend", choices=BACKENDS, default="sqlite")
    parents = {"scenarios": [timed], "scale": [timed, db], "fill": [json_out, ref],
               "capacity": [json_out, ref, db], "production": [timed, db], "claims": [],
               "span": [json_out], "profile": [db]}
    sub = {name: commands.add_parser(name, parents=parents[name], help=text)
           for name, (_, text) in HELP.items()}

    sub["scenarios"].add_argument("scenario", nargs="?", choices=["flat", "nested", "wide",
                                                                  "all"], default="all")
    p = sub["scale"]
    p.add_argument("--sizes", type=_ints, default=[1000, 10000, 100000],
                   help="providers per database (1000,10000,100000)")
    p.add_argument("--shape", choices=["flat", "nested", "all"], default="flat")
    p.add_argument("--candidate-order", choices=["id", "random", "spread", "pack"],
                   help="Placer's [placer] candidate_order (default: unset, the id order)")
    for name in ("scenarios", "scale"):
        sub[name].add_argument("--only", metavar="NAMES",
                               help="comma-separated queries (default: all)")
    p = sub["fill"]
    p.add_argument("--hosts", type=int, default=300, help="hosts of the cloud (300)")
    p.add_argument("--limit", type=int, default=30, help="of each candidates query (30)")
    p.add_argument("--schedulers", type=int, default=4, help="scheduler threads (4)")
    p.add_argument("--orders", type=lambda s: s.split(","), default=FILL["orders"],
                   help=f"Placer's candidate orders ({','.join(FILL['orders'])}); "
                        "--reference adds " + " and ".join(FILL["reference_orders"]))
    p.add_argument("--shape", choices=["flat", "nested", "all"], default="all")
    p.add_argument("--cloud", choices=list(FILL["clouds"]), default="identical")
    p.set_defaults(seed=0, workers=1)
    p = sub["capacity"]
    p.add_argument("--sizes", type=_ints, default=[10000, 100000])
    p.add_argument("--shape", choices=["flat", "nested"], default="flat")
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--tools-sizes", type=_ints, default=[10000],
                   help="sizes at which the tools' scrapes are timed (10000)")
    p = sub["production"]
    p.set_defaults(workers=2, reference_repeat=5, seed=0)
    p.add_argument("--sizes", type=_ints, default=[1000, 10000], help="flat sizes")
    p.add_argument("--nested-sizes", type=_ints, default=[1000], help="nested sizes")
    p.add_argument("--shape", choices=["flat", "nested", "all"], default="all")
    p.add_argument("--claims", type=int, default=400, help="per run of claims (400)")
    p.add_argument("--mix-size", type=int, help="size of the throughput runs (default: the "
                   "largest up to 10000; 0: none)")
    p = sub["claims"]
    p.add_argument("--backend", default="sqlite", help="(with --ab: comma-separated)")
    p.add_argument("--hosts", type=int, default=1000)
    p.add_argument("--claims", type=int, default=600)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--ab", metavar="SRC", help="the src/ directory of the build to compare")
    p.add_argument("--pairs", type=int, default=5)
    p = sub["span"]
    p.add_argument("--reference", metavar="VENV", required=True)
    p.add_argument("--hosts", type=int, default=20)
    p.add_argument("--limit", type=int, default=10)
    p.add_argument("--trials", type=int, default=5)
    p = sub["profile"]
    p.add_argument("scenario", choices=["flat", "nested", "wide", "scale"])
    p.add_argument("queries", nargs="*", help="query names (default: all)")
    p.add_argument("--size", type=int, default=1000, help="scale: flat providers (1000)")
    p.add_argument("--repeat", type=int, default=20, help="runs per query (20)")
    p.add_argument("--top", type=int, default=0, help="print the N costliest functions")
    p.add_argument("--sort", default="cumulative", help="pstats' sort key (cumulative)")
    p.add_argument("--out", metavar="FILE", help="write the raw profile there")
    p = commands.add_parser("report", help="write the results page from results files")
    p.add_argument("results", nargs="+", help="results files")
    p.add_argument("--out", default="docs/results", help="directory of the page (docs/results)")
    p.add_argument("--format", choices=["svg", "png"], default="svg", help="of the plots")
    p.add_argument("--note", action="append", default=[],
                   help="a paragraph for 'How they were measured' (repeatable)")
    return top


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parser().parse_args(argv)
    if args.command == "report":
        try:
            written = report.write(args.results, Path(args.out), argv[1:], args.format,
                                   args.note)
        except (OSError, ValueError, KeyError, report.ReportError) as exc:
            print(f"python -m benchmarks report: {exc}", file=sys.stderr)
            return 1
        print("\n".join(str(Path(args.out) / name) for name in written))
        return 0
    module = importlib.import_module(f"benchmarks.scenarios.{HELP[args.command][0]}")
    if args.command == "claims":
        print(module.ab(args) if args.ab else json.dumps(
            module.run(args.backend, args.hosts, args.claims, args.seed)))
    elif args.command == "profile":
        print(module.profile(args))
    elif getattr(args, "json", None):
        Path(args.json).write_text(json.dumps(module.run(args, argv), indent=2) + "\n")
    else:
        print(json.dumps(module.run(args, argv), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

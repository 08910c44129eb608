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
SHAPES = ["flat", "nested", "all"]
# An option: (flag or name, default, help, other keywords). Its type is its default's: an
# int, or a list (of comma-separated ints or names); its help ends with the default.
# (None, defaults): values without an option.
JSON = ("--json", None, "write the results file there", {"metavar": "PATH"})
REFERENCE = ("--reference", None, "also time the reference installed in VENV "
             "(openstack-placement and gunicorn) on the same database", {"metavar": "VENV"})
BACKEND = ("--backend", "sqlite", None, {"choices": BACKENDS})
ONLY = ("--only", None, "comma-separated queries (default: all)", {"metavar": "NAMES"})


def timed(repeat: int = 10, reference_repeat: int = 3, workers: int = 1) -> list[tuple]:
    return [JSON, REFERENCE, ("--repeat", repeat, "timed runs per query"),
            ("--reference-repeat", reference_repeat, "the reference's timed runs per query"),
            ("--workers", workers, "server workers")]


COMMANDS = {  # sub-command: (its module, what it times, its options)
    "scenarios": ("fixed", "fixed clouds loaded through the API, their candidates queries", [
        ("scenario", "all", None, {"nargs": "?", "choices": ["flat", "nested", "wide", "all"]}),
        *timed(), ONLY]),
    "scale": ("scale", "N providers written with SQL, the requests at each size", [
        *timed(), BACKEND, ("--sizes", [1000, 10000, 100000], "providers per database"),
        ("--shape", "flat", None, {"choices": SHAPES}),
        ("--candidate-order", None, "Placer's [placer] candidate_order (default: unset, the id "
         "order)", {"choices": ["id", "random", "spread", "pack"]}), ONLY]),
    "fill": ("fill", "Nova's scheduler filling a cloud, for each candidate order", [
        JSON, REFERENCE, ("--hosts", 300, "hosts of the cloud"),
        ("--limit", 30, "of each candidates query"), ("--schedulers", 4, "scheduler threads"),
        ("--orders", FILL["orders"], "Placer's candidate orders; --reference adds "
         + " and ".join(FILL["reference_orders"])),
        ("--shape", "all", None, {"choices": SHAPES}),
        ("--cloud", "identical", None, {"choices": list(FILL["clouds"])}),
        (None, {"seed": 0, "workers": 1})]),
    "capacity": ("capacity", "GET and POST /capacity, the capacity gauges, the tools' scrapes", [
        JSON, REFERENCE, BACKEND, ("--sizes", [10000, 100000], "providers per database"),
        ("--shape", "flat", None, {"choices": SHAPES[:2]}), ("--repeat", 5, "timed runs"),
        ("--tools-sizes", [10000], "sizes at which the tools' scrapes are timed")]),
    "audit": ("audit", "GET /audit against nova-manage's 1 + N requests, the same database", [
        JSON, REFERENCE, BACKEND, ("--sizes", [10000, 100000], "flat hosts per database"),
        ("--repeat", 3, "timed runs of GET /audit"), ("--workers", 2, "server workers"),
        ("--whole", 10000, "largest size whose 1 + N walk is timed whole"),
        ("--sample", 2000, "providers walked beyond it, the rest extrapolated")]),
    "production": ("production", "Placer and the reference on the same database at once", [
        *timed(reference_repeat=5, workers=2), BACKEND, ("--sizes", [100, 1000], "flat sizes"),
        ("--nested-sizes", [100, 1000], "nested sizes"),
        ("--shape", "all", None, {"choices": SHAPES}),
        ("--claims", 400, "per run of claims"),
        ("--mix-size", None, "size of the throughput runs (default: the largest up to 10000; "
         "0: none)", {"type": int}), (None, {"seed": 0})]),
    "claims": ("claims", "a claim's cost in process; --ab SRC: against another build", [
        ("--backend", "sqlite", "(with --ab: comma-separated)"), ("--hosts", 1000, "hosts"),
        ("--claims", 600, "claims"), ("--seed", 1, "of the hosts and claims"),
        ("--ab", None, "the src/ directory of the build to compare", {"metavar": "SRC"}),
        ("--pairs", 5, "runs of each build")]),
    "span": ("span", "how many hosts a limited candidates answer spans", [
        JSON, ("--reference", None, None, {"metavar": "VENV", "required": True}),
        ("--hosts", 20, "roots"), ("--limit", 10, "of the queries"), ("--trials", 5, "clouds")]),
    "profile": ("profile", "queries in process under cProfile, per layer", [
        BACKEND, ("scenario", None, None, {"choices": ["flat", "nested", "wide", "scale"]}),
        ("queries", None, "query names (default: all)", {"nargs": "*"}),
        ("--size", 1000, "scale: flat providers"), ("--repeat", 20, "runs per query"),
        ("--top", 0, "print the N costliest functions"),
        ("--sort", "cumulative", "pstats' sort key"),
        ("--out", None, "write the raw profile there", {"metavar": "FILE"})]),
    "report": (None, "write the results page from results files", [
        ("results", None, "results files", {"nargs": "+"}),
        ("--out", "docs/results", "directory of the page"),
        ("--format", "svg", "of the plots", {"choices": ["svg", "png"]}),
        ("--note", [], "a paragraph for 'How they were measured' (repeatable)",
         {"action": "append", "type": str})]),
}


def _ints(text: str) -> list[int]:
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError("comma-separated integers") from None


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    commands = top.add_subparsers(dest="command", required=True, metavar="SCENARIO")
    for name, (_, text, options) in COMMANDS.items():
        sub = commands.add_parser(name, help=text)
        for flag, default, *more in options:
            if flag is None:
                sub.set_defaults(**default)
                continue
            text, keywords = more[0], (more[1:] or [{}])[0]
            if isinstance(default, list):
                keywords = {"type": _ints if default and isinstance(default[0], int) else
                            lambda s: s.split(","), **keywords}
            elif isinstance(default, int):
                keywords = {"type": int, **keywords}
            shown = ",".join(map(str, default)) if isinstance(default, list) else default
            if text and default not in (None, []):
                text += f" ({shown})"
            sub.add_argument(flag, default=default, help=text, **keywords)
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
    module = importlib.import_module(f"benchmarks.scenarios.{COMMANDS[args.command][0]}")
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

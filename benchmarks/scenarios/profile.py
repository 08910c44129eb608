"""Where a request's time goes, in process, under cProfile, per layer
(cProfile's cumulative times, which overlap where one layer calls another):
docs/contributor/profiling.md."""

import cProfile
import io
import pstats
import tempfile
import time
from pathlib import Path

from benchmarks.harness.client import InProcessClient, placer_app
from benchmarks.harness.databases import ThrowAwayDatabase, engine_at
from benchmarks.scenarios import DATA, fixed, production, scale

LAYERS = DATA["profile"]["layers"]  # label, [(path suffix, function)]


def _queries(client: InProcessClient, args, url: str) -> list:
    """Load the scenario; its queries (of ``args.queries``, if named)."""
    if args.scenario == "scale":
        with engine_at(url) as engine:
            gen = scale.generate(engine, args.size, "flat")
        queries = production.requests_for(gen, args.size)
        queries = [q for q in queries if q.name != "unlimited"]
        queries += [q for q in scale.queries(gen) if q.name == "claim"]
    else:
        scenario = fixed.BUILDERS[args.scenario]()
        fixed.load(client, scenario)
        queries = scenario.queries
    if args.queries:
        queries = [q for q in queries if q.name in args.queries]
    return queries


def profile(args) -> str:
    with tempfile.TemporaryDirectory(prefix="placer-profile-") as directory:
        db = ThrowAwayDatabase("sqlite" if args.scenario != "scale" else args.backend,
                               directory=directory, prefix="placer_profile")
        with db as url:
            client = InProcessClient(placer_app(Path(directory), url, serving=True))
            plain, table, whole = {}, {}, cProfile.Profile()
            for q in _queries(client, args, url):
                def one(q=q):
                    path, body = q.request() if q.request else (q.url, None)
                    status, payload, _ = client.request(q.method, path, body, q.version)
                    if status >= 300:
                        raise RuntimeError(f"{q.method} {path}: {status} {payload[:300]}")
                for _ in range(3):
                    one()
                started = time.perf_counter()
                for _ in range(args.repeat):
                    one()
                plain[q.name] = (time.perf_counter() - started) / args.repeat * 1000
                prof = cProfile.Profile()
                for p in (prof, whole):
                    p.enable()
                    for _ in range(args.repeat):
                        one()
                    p.disable()
                stats = pstats.Stats(prof).stats  # type: ignore[attr-defined]
                table[q.name] = {label: sum(
                    ct for (path, _, func), (_, _, _, ct, _) in stats.items()
                    for suffix, name in specs if func == name and path.endswith(suffix)
                ) / args.repeat * 1000 for label, specs in LAYERS}
    names = list(table)
    lines = [f"{args.scenario} on {db.backend}: ms per request in process", "",
             "| layer | " + " | ".join(names) + " |", "|---|" + "---|" * len(names),
             "| without the profiler | " + " | ".join(f"{plain[q]:.1f}" for q in names) + " |"]
    lines += [f"| {label} | " + " | ".join(f"{table[q][label]:.2f}" for q in names) + " |"
              for label, _ in LAYERS]
    if args.out:
        whole.dump_stats(args.out)
    if args.top:
        out = io.StringIO()
        pstats.Stats(whole, stream=out).strip_dirs().sort_stats(args.sort).print_stats(args.top)
        lines += ["", out.getvalue()]
    return "\n".join(lines)

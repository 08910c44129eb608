"""Profile one benchmark query in-process, under cProfile.

    python -m benchmarks.profile_query wide "4 gpu groups isolate limit"
    python -m benchmarks.profile_query flat "small limit" --repeat 20 --sort tottime
    python -m benchmarks.profile_query nested "same_subtree numa limit" --out numa.prof

The scenario (see benchmarks/scenarios.py; no name: list its queries) is
loaded through the WSGI app into a SQLite file in a temporary directory, with
no server and no sockets; the app is configured as a serving process
(``collector.tune``). The query is sent once to warm up, then ``--repeat`` times
under cProfile, and the functions with the most cumulative time are printed
(``--out``: the raw profile too, for ``python -m pstats`` or snakeviz).
"""

import argparse
import cProfile
import json
import pstats
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path

import webob

from benchmarks import loader, scenarios
from placer import collector, wsgi
from placer import conf as placer_conf


class InProcessClient(loader.Client):
    """``loader.Client`` answered by a WSGI app instead of an HTTP server."""

    def __init__(self, app, version: str = scenarios.VERSION):
        self.app = app
        self.version = version

    def request(self, method: str, path: str, body=None, version: str | None = None):
        req = webob.Request.blank(path, method=method)
        req.headers["X-Auth-Token"] = "admin"
        req.headers["Accept"] = "application/json"
        req.headers["OpenStack-API-Version"] = f"placement {version or self.version}"
        if body is not None:
            req.content_type = "application/json"
            req.body = json.dumps(body).encode()
        start = time.perf_counter()
        resp = req.get_response(self.app)
        return resp.status_code, resp.body, time.perf_counter() - start


def build_app(directory: Path):
    """The whole WSGI app (noauth2) over a fresh SQLite file in ``directory``."""
    conf_file = directory / "placement.conf"
    conf_file.write_text(
        "[api]\nauth_strategy = noauth2\n"
        f"[placement_database]\nconnection = sqlite:///{directory}/placement.sqlite\n"
        "sync_on_startup = true\n")
    return wsgi.create_app(placer_conf.new_config(["--config-file", str(conf_file)]))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("scenario", choices=sorted(scenarios.BUILDERS))
    parser.add_argument("query", nargs="?", help="a query name of the scenario")
    parser.add_argument("--repeat", type=int, default=10, help="profiled runs (default 10)")
    parser.add_argument("--sort", default="cumulative", help="pstats sort key")
    parser.add_argument("--top", type=int, default=30, help="functions printed")
    parser.add_argument("--out", help="also write the raw profile to this file")
    args = parser.parse_args(argv)

    scenario = scenarios.build(args.scenario)
    queries = {q.name: q for q in scenario.queries}
    if args.query not in queries:
        if args.query is not None:
            print(f"no query named {args.query!r}", file=sys.stderr)
        print(f"queries of {args.scenario}:", *(f"  {name}" for name in queries), sep="\n")
        return 0 if args.query is None else 2
    query = queries[args.query]
    if query.request is not None:
        sys.exit(f"{query.name}: a query that changes per run is not supported here")
    path = query.path + ("?" + urllib.parse.urlencode(query.params) if query.params else "")

    with tempfile.TemporaryDirectory() as tmp:
        client = InProcessClient(build_app(Path(tmp)))
        start = time.perf_counter()
        loader.load(client, scenario)
        print(f"loaded {len(scenario.providers)} providers in "
              f"{time.perf_counter() - start:.1f} s", file=sys.stderr)
        collector.tune()
        status, payload, seconds = client.request(query.method, path)
        if not 200 <= status < 300:
            sys.exit(f"{query.name}: {status} {payload[:500].decode(errors='replace')}")
        print(f"{query.method} {path}: {len(payload) / 1024:.0f} KiB, warm-up "
              f"{seconds * 1000:.1f} ms", file=sys.stderr)
        profiler = cProfile.Profile()
        profiler.enable()
        for _ in range(args.repeat):
            client.request(query.method, path)
        profiler.disable()
    stats = pstats.Stats(profiler)
    if args.out:
        stats.dump_stats(args.out)
    stats.strip_dirs().sort_stats(args.sort).print_stats(args.top)
    return 0


if __name__ == "__main__":
    sys.exit(main())

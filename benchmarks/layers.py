"""Where a request's time goes, per layer, in process (cProfile's cumulative times).

    python -m benchmarks.layers --backend postgresql --size 1000

Writes the scale scenario's flat data set of --size providers into a
throw-away database (benchmarks/scale.py), builds the WSGI app on it (no
server, no sockets, noauth2), sends each production query (benchmarks/
production.py's) --repeat times without the profiler, then --repeat times
under cProfile, and prints a table: per query, the milliseconds per request
spent in each layer. The layers overlap where one calls another (the
candidate search includes the reads of the trees it loads; the handler
includes everything but the middleware), and the profiler's own overhead
inflates them: the first line gives the times without it.
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

from benchmarks import databases, scale

# label -> (path suffix, function) whose cumulative time is the layer's
LAYERS: list[tuple[str, list[tuple[str, str]]]] = [
    ("whole request", [("benchmarks/layers.py", "_send")]),
    ("handler (the rest: middleware, routing, microversion)", [("http/routing.py", "respond")]),
    ("auth and policy", [("placer/context.py", "can")]),
    ("connection checkout (pre-ping)", [("sqlalchemy/pool/base.py", "_checkout")]),
    ("transaction commit", [("sqlalchemy/engine/base.py", "_commit_impl")]),
    ("SQL in the driver (execute, fetch)", [
        ("psycopg/cursor.py", "execute"), ("psycopg/cursor.py", "fetchall"),
        ("psycopg/cursor.py", "fetchmany"), ("psycopg/cursor.py", "__iter__"),
        ("pymysql/cursors.py", "execute"), ("pymysql/cursors.py", "fetchall"),
        ("~", "<method 'execute' of 'sqlite3.Cursor' objects>"),
        ("~", "<method 'fetchall' of 'sqlite3.Cursor' objects>")]),
    ("candidate search, with its reads", [("candidates/search.py", "stream_candidates")]),
    ("rendering and JSON", [("candidates/render.py", "body"), ("http/util.py", "send_json")]),
]


def _requests(gen: scale.Generated) -> list[tuple[str, str, str | None, str]]:
    queries = {q.name: q for q in scale.queries(gen)}

    def path(base: str, name: str) -> str:
        return base + "?" + urllib.parse.urlencode(queries[name].params)

    usages = "/usages?" + urllib.parse.urlencode({"project_id": gen.project})
    return [("limit=1000", "GET", path("/allocation_candidates", "limit=1000"), "1.39"),
            ("limit=10", "GET", path("/allocation_candidates", "limit=10"), "1.39"),
            ("traits+member_of limit=1000", "GET",
             path("/allocation_candidates", "traits+member_of limit=1000"), "1.39"),
            ("providers?resources", "GET", path("/resource_providers", "providers?resources"),
             "1.39"),
            ("providers", "GET", "/resource_providers", "1.39"),
            ("usages 1.37", "GET", usages, "1.37"), ("usages 1.39", "GET", usages, "1.39"),
            ("claim", "PUT", None, "1.39")]


def _send(app, method: str, path: str, version: str, body=None) -> None:
    req = webob.Request.blank(path, method=method, headers={
        "X-Auth-Token": "admin", "OpenStack-API-Version": f"placement {version}",
        "Content-Type": "application/json"})
    if body is not None:
        req.body = json.dumps(body).encode()
    status = req.get_response(app).status_int
    if status >= 300:
        raise RuntimeError(f"{method} {path}: {status}")


def _layers(stats: dict, repeat: int) -> dict[str, float]:
    row = {}
    for label, specs in LAYERS:
        total = sum(ct for (path, _, func), (_, _, _, ct, _) in stats.items()
                    for suffix, name in specs if func == name and path.endswith(suffix))
        row[label] = total / repeat * 1000
    return row


def profile(backend: str, size: int, repeat: int) -> tuple[dict, dict]:
    """(ms per request without the profiler, {query: {layer: ms}})."""
    from placer import collector, wsgi
    from placer import conf as placer_conf
    from placer.db import engine as db_engine
    plain, table = {}, {}
    with tempfile.TemporaryDirectory(prefix="placer-layers-") as directory:
        throw_away = databases.ThrowAwayDatabase(backend, directory=directory,
                                                 prefix="placer_layers")
        url = throw_away.create()
        try:
            engine = db_engine.create_engine(url)
            gen = scale.generate(engine, size, "flat")
            engine.dispose()
            conf = Path(directory) / "placement.conf"
            conf.write_text(f"[api]\nauth_strategy = noauth2\n"
                            f"[placement_database]\nconnection = {url}\n")
            app = wsgi.create_app(placer_conf.new_config(["--config-file", str(conf)]))
            collector.tune()
            claim = next(q for q in scale.queries(gen) if q.name == "claim").request
            for name, method, path, version in _requests(gen):
                def one(method=method, path=path, version=version):
                    if method == "PUT":
                        claim_path, body = claim()
                        _send(app, "PUT", claim_path, version, body)
                    else:
                        _send(app, method, path, version)
                for _ in range(3):
                    one()
                started = time.perf_counter()
                for _ in range(repeat):
                    one()
                plain[name] = (time.perf_counter() - started) / repeat * 1000
                prof = cProfile.Profile()
                prof.enable()
                for _ in range(repeat):
                    one()
                prof.disable()
                table[name] = _layers(pstats.Stats(prof).stats, repeat)  # type: ignore[attr-defined]
        finally:
            throw_away.drop()
    return plain, table


def markdown(backend: str, size: int, plain: dict, table: dict) -> str:
    queries = list(table)
    lines = [f"{backend}, {size} flat providers: ms per request in process",
             "", "| layer | " + " | ".join(queries) + " |", "|---|" + "---|" * len(queries),
             "| without the profiler | " + " | ".join(f"{plain[q]:.1f}" for q in queries) + " |"]
    for label, _ in LAYERS:
        lines.append(f"| {label} | " + " | ".join(f"{table[q][label]:.2f}" for q in queries)
                     + " |")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.layers", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backend", default="sqlite", choices=["sqlite", *databases.SERVERS])
    parser.add_argument("--size", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args(argv)
    plain, table = profile(args.backend, args.size, args.repeat)
    print(markdown(args.backend, args.size, plain, table))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

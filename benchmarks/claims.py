"""What a claim costs, in process through the WSGI app: A/B between two builds.

One run loads --hosts compute nodes into a throw-away database (through the
API, not timed), then times --claims claims (``PUT /allocations``, each on a
random host) and their deletes, and prints one JSON line: wall seconds and
this process's CPU seconds for the claims and for the deletes. On SQLite the
CPU is all of it (the database runs in process); on PostgreSQL and MariaDB
the wall time counts the server too.

``--ab SRC`` runs pairs (--pairs, 5 by default) alternating this checkout's
build and the one whose ``src/`` directory is SRC (for example a
``git worktree`` of an older commit), each run a fresh process and
database, and prints the medians and the per-pair ratios (this build's
over SRC's), for each --backend:

    git worktree add /tmp/before aff55eb
    python -m benchmarks.claims --ab /tmp/before/src --backend sqlite,postgresql,mysql

Only the public entry points are used (``placer.conf.new_config``,
``placer.wsgi.create_app``), so an older build runs the same script.
"""

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from benchmarks import databases

ROOT = Path(__file__).resolve().parent.parent
HEADERS = {"X-Auth-Token": "admin", "OpenStack-API-Version": "placement 1.39",
           "Content-Type": "application/json"}


def _app(url: str, directory: str):
    from placer import conf as placer_conf
    from placer import wsgi
    path = Path(directory) / "placement.conf"
    path.write_text(f"[api]\nauth_strategy = noauth2\n[placement_database]\n"
                    f"connection = {url}\nsync_on_startup = True\n")
    return wsgi.create_app(placer_conf.new_config(["--config-file", str(path)]))


def _call(app, method: str, path: str, body: dict | None = None) -> int:
    import webob
    req = webob.Request.blank(path, method=method, headers=HEADERS)
    if body is not None:
        req.body = json.dumps(body).encode()
    status = req.get_response(app).status_int
    if status >= 400:
        raise RuntimeError(f"{method} {path}: {status}")
    return status


def run(backend: str, hosts: int, claims: int, seed: int) -> dict:
    """One run: load, then time the claims and the deletes."""
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="placer-claims-") as directory:
        throw_away = databases.ThrowAwayDatabase(backend, directory=directory,
                                                 prefix="placer_claims")
        url = throw_away.create()
        try:
            app = _app(url, directory)
            uuids = [str(uuid.UUID(int=rng.getrandbits(128))) for _ in range(hosts)]
            for n, rp in enumerate(uuids):
                _call(app, "POST", "/resource_providers", {"uuid": rp, "name": f"host{n}"})
                _call(app, "PUT", f"/resource_providers/{rp}/inventories", {
                    "resource_provider_generation": 0,
                    "inventories": {"VCPU": {"total": 64}, "MEMORY_MB": {"total": 262144},
                                    "DISK_GB": {"total": 2000}}})
            consumers = [str(uuid.UUID(int=rng.getrandbits(128))) for _ in range(claims)]
            targets = [rng.choice(uuids) for _ in range(claims)]
            figures = {}
            for phase in ("claims", "deletes"):
                wall, cpu = time.perf_counter(), time.process_time()
                for consumer, rp in zip(consumers, targets, strict=True):
                    if phase == "claims":
                        _call(app, "PUT", f"/allocations/{consumer}", {
                            "allocations": {rp: {"resources": {
                                "VCPU": 1, "MEMORY_MB": 2048, "DISK_GB": 20}}},
                            "project_id": "p", "user_id": "u", "consumer_generation": None,
                            "consumer_type": "INSTANCE"})
                    else:
                        _call(app, "DELETE", f"/allocations/{consumer}")
                figures[phase] = {"wall": time.perf_counter() - wall,
                                  "cpu": time.process_time() - cpu}
            return figures
        finally:
            throw_away.drop()


def _child(src: str, backend: str, args) -> dict:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([src, str(ROOT)]))
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks.claims", "--backend", backend,
         "--hosts", str(args.hosts), "--claims", str(args.claims), "--seed", str(args.seed)],
        env=env, cwd=ROOT, check=True, capture_output=True, text=True).stdout
    return json.loads(out.splitlines()[-1])


def ab(args) -> str:
    """Alternate this build (A) and SRC's (B); medians and per-pair ratios."""
    lines = [f"claims A/B: A = {ROOT / 'src'}, B = {args.ab}; {args.hosts} hosts, "
             f"{args.claims} claims then their deletes, {args.pairs} pairs (A then B)",
             "| backend | figure | A median (s) | B median (s) | A/B per pair: median (min-max) |",
             "| --- | --- | --- | --- | --- |"]
    for backend in args.backend.split(","):
        pairs = [(_child(str(ROOT / "src"), backend, args), _child(args.ab, backend, args))
                 for _ in range(args.pairs)]
        for phase in ("claims", "deletes"):
            for figure in ("wall", "cpu"):
                a = [p[0][phase][figure] for p in pairs]
                b = [p[1][phase][figure] for p in pairs]
                ratios = [x / y for x, y in zip(a, b, strict=True)]
                lines.append(f"| {backend} | {phase} {figure} | {statistics.median(a):.3f} | "
                             f"{statistics.median(b):.3f} | {statistics.median(ratios):.3f} "
                             f"({min(ratios):.3f}-{max(ratios):.3f}) |")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.claims", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backend", default="sqlite",
                        help="sqlite, postgresql or mysql (with --ab: comma-separated)")
    parser.add_argument("--hosts", type=int, default=1000)
    parser.add_argument("--claims", type=int, default=600)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ab", metavar="SRC", help="the src/ directory of the build to compare")
    parser.add_argument("--pairs", type=int, default=5)
    args = parser.parse_args(argv)
    if args.ab:
        print(ab(args))
    else:
        print(json.dumps(run(args.backend, args.hosts, args.claims, args.seed)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""What a claim costs, in process through the WSGI app: ``hosts`` compute
nodes loaded through the API, then ``claims`` claims on random hosts and
their deletes, wall and CPU seconds. ``--ab SRC`` alternates this build and
the one whose ``src/`` is SRC, each run a fresh process and database, and
prints medians and per-pair ratios (only public entry points are used)."""

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

from benchmarks.harness.client import InProcessClient, placer_app
from benchmarks.harness.databases import ThrowAwayDatabase
from benchmarks.scenarios.fixed import Provider, Scenario, load

ROOT = Path(__file__).resolve().parents[2]
HOST = {"VCPU": {"total": 64}, "MEMORY_MB": {"total": 262144}, "DISK_GB": {"total": 2000}}
CLAIM = {"VCPU": 1, "MEMORY_MB": 2048, "DISK_GB": 20}


def run(backend: str, hosts: int, claims: int, seed: int) -> dict:
    """One run: load, then time the claims and the deletes."""
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="placer-claims-") as directory, ThrowAwayDatabase(
            backend, directory=directory, prefix="placer_claims") as url:
        client = InProcessClient(placer_app(Path(directory), url))
        uuids = [str(uuid.UUID(int=rng.getrandbits(128))) for _ in range(hosts)]
        load(client, Scenario("claims", [Provider(f"host{n}", uuid=rp, inventories=HOST)
                                         for n, rp in enumerate(uuids)], {}, []), threads=1)
        consumers = [str(uuid.UUID(int=rng.getrandbits(128))) for _ in range(claims)]
        targets = [rng.choice(uuids) for _ in range(claims)]
        figures = {}
        for phase in ("claims", "deletes"):
            wall, cpu = time.perf_counter(), time.process_time()
            for consumer, rp in zip(consumers, targets, strict=True):
                if phase == "claims":
                    client.call("PUT", f"/allocations/{consumer}", {
                        "allocations": {rp: {"resources": CLAIM}}, "project_id": "p",
                        "user_id": "u", "consumer_generation": None,
                        "consumer_type": "INSTANCE"})
                else:
                    client.call("DELETE", f"/allocations/{consumer}")
            figures[phase] = {"wall": time.perf_counter() - wall,
                              "cpu": time.process_time() - cpu}
        return figures


def _child(src: str, backend: str, args) -> dict:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([src, str(ROOT)]))
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks", "claims", "--backend", backend,
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

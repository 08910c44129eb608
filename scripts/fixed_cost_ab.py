"""The fixed cost of a request, A/B over HTTP: Placer as built here, Placer
from another build's ``src/`` (``--base``, e.g. ``git archive <commit> src |
tar -x -C /tmp/base``) and the reference (``--reference VENV``), serving one
throw-away database side by side, 2 workers each. Rounds interleave the
servers in a random order; each round times ``--requests`` requests of each
path on a keep-alive connection, after 20 to warm up; the figures are the
median over rounds of each round's median, with the rounds' range.

    .venv/bin/python scripts/fixed_cost_ab.py postgresql --base /tmp/base/src \\
        --reference /tmp/refvenv --rounds 7
"""

import argparse
import os
import random
import statistics
import sys
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.harness.client import Client  # noqa: E402
from benchmarks.harness.databases import ThrowAwayDatabase  # noqa: E402
from benchmarks.harness.servers import Server  # noqa: E402

PATHS = {  # name: (path, microversion); the reference answers /usages at 1.39 with a 500
    "GET /resource_classes/VCPU": ("/resource_classes/VCPU", "1.39"),  # on PostgreSQL
    "GET /usages?project_id= (1.37)": ("/usages?project_id=p1", "1.37"),
    "GET / (no token, no database)": ("/", "1.39"),
}


def load(url: str) -> None:
    """20 providers with inventory, 60 consumers of project p1."""
    c = Client(url)
    for i in range(20):
        rp = str(uuid.uuid4())
        c.call("POST", "/resource_providers", {"name": f"h{i}", "uuid": rp})
        c.call("PUT", f"/resource_providers/{rp}/inventories", {
            "resource_provider_generation": 0,
            "inventories": {"VCPU": {"total": 64}, "MEMORY_MB": {"total": 65536}}})
        for _ in range(3):
            c.call("PUT", f"/allocations/{uuid.uuid4()}", {
                "allocations": {rp: {"resources": {"VCPU": 1, "MEMORY_MB": 512}}},
                "project_id": "p1", "user_id": "u1", "consumer_generation": None},
                version="1.36")


def median_ms(url: str, path: str, version: str, requests: int) -> float:
    c = Client(url, version=version)
    for _ in range(20):
        status, _, _ = c.request("GET", path)
        assert status == 200, (url, path, status)
    return statistics.median(c.request("GET", path)[2] for _ in range(requests)) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("backend", choices=["sqlite", "postgresql", "mysql"])
    parser.add_argument("--base", help="another build's src/ directory")
    parser.add_argument("--reference", help="a virtualenv with openstack-placement and gunicorn")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--requests", type=int, default=200)
    args = parser.parse_args()
    with ThrowAwayDatabase(args.backend) as url:
        servers: dict[str, Server] = {}
        try:
            servers["now"] = Server(2, url).__enter__()
            load(servers["now"].url)
            if args.base:
                os.environ["PYTHONPATH"] = args.base  # before the editable install
                servers["base"] = Server(2, url).__enter__()
                del os.environ["PYTHONPATH"]
            if args.reference:
                servers["reference"] = Server(2, url, reference=args.reference).__enter__()
            times: dict[str, dict[str, list[float]]] = {k: {p: [] for p in PATHS} for k in servers}
            for _ in range(args.rounds):
                for name in random.sample(list(servers), len(servers)):
                    for label, (path, version) in PATHS.items():
                        times[name][label].append(
                            median_ms(servers[name].url, path, version, args.requests))
        finally:
            for server in servers.values():
                server.__exit__(None, None, None)
    print(f"{args.backend}: {args.rounds} rounds of {args.requests} requests, ms "
          "(median of the rounds' medians [range])")
    for label in PATHS:
        cells = [f"{name} {statistics.median(t[label]):.2f} "
                 f"[{min(t[label]):.2f}-{max(t[label]):.2f}]" for name, t in times.items()]
        if "reference" in times:
            ref = statistics.median(times["reference"][label])
            cells += [f"{name}/reference {statistics.median(times[name][label]) / ref:.2f}"
                      for name in times if name != "reference"]
        print(f"{label}: " + "; ".join(cells))


if __name__ == "__main__":
    main()

"""How many hosts a limited candidates answer spans, Placer and the reference
serving the same database, side by side.

    python -m benchmarks.span --reference /tmp/refvenv --json tests/data/span-reference.json

Each trial loads a fresh cloud (``--hosts`` roots, each with two NUMA
children of 8 VCPU and 16384 MB; new uuids, so the reference's hash order
changes) into a throw-away SQLite file through Placer, then asks each query
with ``limit`` of each server, with ``randomize_allocation_candidates`` off
and on, and counts the distinct roots of the candidates' providers.
tests/functional/test_allocation_candidates_span.py holds Placer to at least
the most any trial of the reference spanned.
"""

import argparse
import json
import sys
import urllib.parse

from benchmarks import databases, environment, loader
from benchmarks.scenarios import Provider, Scenario
from benchmarks.server import Server

QUERIES = ("resources1=VCPU:1,MEMORY_MB:512", "resources=VCPU:1,MEMORY_MB:512")


def cloud(hosts: int) -> Scenario:
    """``hosts`` roots, each with two NUMA children (VCPU 8, MEMORY_MB 16384)."""
    providers = []
    for h in range(hosts):
        root = Provider(f"host{h:02d}")
        providers.append(root)
        providers += [Provider(f"{root.name}-numa{n}", root.uuid,
                               inventories={"VCPU": {"total": 8},
                                            "MEMORY_MB": {"total": 16384}})
                      for n in range(2)]
    return Scenario("span", providers, {}, [])


def spans(client: loader.Client, scenario: Scenario, limit: int) -> dict[str, int]:
    """Query -> distinct roots of its limited answer."""
    root_of = {p.uuid: p.parent or p.uuid for p in scenario.providers}
    found = {}
    for query in QUERIES:
        params = dict(urllib.parse.parse_qsl(query)) | {"limit": str(limit)}
        answer = client.call("GET", "/allocation_candidates?" + urllib.parse.urlencode(params))
        found[query] = len({root_of[rp] for request in answer["allocation_requests"]
                            for rp in request["allocations"]})
    return found


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.span",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--reference", metavar="VENV", required=True,
                        help="a virtualenv holding openstack-placement and gunicorn")
    parser.add_argument("--hosts", type=int, default=20)
    parser.add_argument("--limit", type=int, default=10)
    parser.add_argument("--trials", type=int, default=5)
    parser.add_argument("--json", metavar="PATH", help="write the results as JSON")
    args = parser.parse_args(argv)
    results: dict[str, dict[str, list[int]]] = {q: {} for q in QUERIES}
    for trial in range(args.trials):
        scenario = cloud(args.hosts)
        with databases.ThrowAwayDatabase("sqlite") as url:
            with Server(connection=url) as server:
                loader.load(loader.Client(server.url), scenario, threads=1)
            for label, venv in (("placer", None), ("reference", args.reference)):
                for randomize in (False, True):
                    with Server(connection=url, reference=venv, randomize=randomize) as server:
                        found = spans(loader.Client(server.url), scenario, args.limit)
                    name = label + (" randomize" if randomize else "")
                    for query, count in found.items():
                        results[query].setdefault(name, []).append(count)
        print(f"# trial {trial + 1}: " + json.dumps(results), file=sys.stderr, flush=True)
    report = {"benchmark": "span", **environment.describe(argv, args.reference, "benchmarks.span"),
              "hosts": args.hosts, "limit": args.limit, "trials": args.trials,
              "spans": results}
    for query, counts in results.items():
        print(f"{query}&limit={args.limit}: " + "; ".join(
            f"{name} {min(c)}-{max(c)}" for name, c in counts.items()))
    if args.json:
        with open(args.json, "w") as out:
            json.dump(report, out, indent=1)
            out.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

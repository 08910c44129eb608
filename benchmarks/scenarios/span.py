"""How many hosts a limited candidates answer spans, Placer and the
reference on the same database, randomized or not: ``trials`` fresh clouds
of ``hosts`` roots with two NUMA children each. The recorded run is
tests/data/span-reference.json (tests/functional/test_allocation_candidates_span.py)."""

import urllib.parse

from benchmarks.harness import machine
from benchmarks.harness.client import Client
from benchmarks.harness.databases import ThrowAwayDatabase
from benchmarks.harness.servers import Server
from benchmarks.scenarios import DATA, progress
from benchmarks.scenarios.fixed import Scenario, load, tree

QUERIES = ("resources1=VCPU:1,MEMORY_MB:512", "resources=VCPU:1,MEMORY_MB:512")


def cloud(hosts: int) -> Scenario:
    """``hosts`` roots, each with two NUMA children (data.toml's)."""
    return Scenario("span", [p for h in range(hosts)
                             for p in tree(f"host{h:02d}", DATA["span"]["levels"])], {}, [])


def spans(client: Client, scenario: Scenario, limit: int) -> dict[str, int]:
    """Query -> distinct roots of its limited answer."""
    root_of = {p.uuid: p.parent or p.uuid for p in scenario.providers}
    found = {}
    for query in QUERIES:
        params = dict(urllib.parse.parse_qsl(query)) | {"limit": str(limit)}
        answer = client.call("GET", "/allocation_candidates?" + urllib.parse.urlencode(params))
        found[query] = len({root_of[rp] for request in answer["allocation_requests"]
                            for rp in request["allocations"]})
    return found


def run(args, argv: list[str]) -> dict:
    results: dict[str, dict[str, list[int]]] = {q: {} for q in QUERIES}
    for trial in range(args.trials):
        scenario = cloud(args.hosts)
        with ThrowAwayDatabase("sqlite") as url:
            with Server(connection=url) as server:
                load(Client(server.url), scenario, threads=1)
            for label, venv in (("placer", None), ("reference", args.reference)):
                for randomize in (False, True):
                    with Server(connection=url, reference=venv, placement={
                            "randomize_allocation_candidates": randomize}) as server:
                        found = spans(Client(server.url), scenario, args.limit)
                    for query, count in found.items():
                        results[query].setdefault(
                            label + (" randomize" if randomize else ""), []).append(count)
        progress(f"trial {trial + 1}: {results}")
    return machine.header(args, argv, "hosts", "limit", "trials", spans=results)

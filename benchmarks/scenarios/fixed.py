"""Fixed clouds loaded through the API (flat, nested, wide: data.toml), and
their ``GET /allocation_candidates`` queries timed on a fresh Placer and,
with a reference, the limited ones on the reference serving the same file.
Loading uses the bulkiest calls the API offers, from a few threads."""

import dataclasses
import time
import uuid
from dataclasses import dataclass, field

from benchmarks.harness import machine
from benchmarks.harness.client import VERSION, Client
from benchmarks.harness.databases import ThrowAwayDatabase
from benchmarks.harness.servers import Server
from benchmarks.scenarios import DATA, Query, in_threads, progress, time_queries

ALLOCATION_BATCH = 500  # consumers per POST /allocations
THREADS = 4
LIMIT = "1000"
_OWNER = {"project_id": str(uuid.uuid4()), "user_id": str(uuid.uuid4())}


@dataclass
class Provider:
    name: str
    parent: str | None = None  # parent's uuid
    inventories: dict[str, dict] = field(default_factory=dict)  # class -> record
    traits: list[str] = field(default_factory=list)
    aggregates: list[str] = field(default_factory=list)
    uuid: str = field(default_factory=lambda: str(uuid.uuid4()))


@dataclass
class Scenario:
    name: str
    providers: list[Provider]  # parents before children
    allocations: dict[str, dict[str, dict[str, int]]]  # consumer -> provider -> class -> n
    queries: list[Query]


def tree(name: str, levels: list[dict], parent: str | None = None, **root) -> list[Provider]:
    """A provider and its descendants, depth first (data.toml's trees): each
    level gives each provider of the level above ``count`` children (1 by
    default) named ``<its name>-<name>``, {n} the child's number, with the
    level's traits and inventories."""
    top = Provider(name, parent, **root)
    out = [top]
    if levels:
        level = levels[0]
        for n in range(level.get("count", 1)):
            out += tree(f"{name}-{level['name'].format(n=n)}", levels[1:], top.uuid,
                        traits=[t.format(n=n) for t in level.get("traits", [])],
                        inventories=level.get("inventories", {}))
    return out


def every(traits: list[list], index: int) -> list[str]:
    """The traits ``[name, every, offset]`` of data.toml that the root of this
    index has: those with index % every == offset."""
    return [name for name, step, offset in traits if index % step == offset]


def load(client: Client, scenario: Scenario, threads: int = THREADS) -> None:
    """``threads=1`` creates the providers in their order, so their database
    ids (the reference's candidate order) follow it."""
    for kind, names in (("resource_classes", {rc for p in scenario.providers
                                              for rc in p.inventories}),
                        ("traits", {t for p in scenario.providers for t in p.traits})):
        for name in sorted(n for n in names if n.startswith("CUSTOM_")):
            client.call("PUT", f"/{kind}/{name}")
    depth: dict[str, int] = {}
    levels: list[list[Provider]] = []  # each level needs only the ones before
    for p in scenario.providers:
        d = depth[p.uuid] = depth[p.parent] + 1 if p.parent else 0
        levels += [[]] if d == len(levels) else []
        levels[d].append(p)
    for level in levels:
        in_threads(threads, lambda p: _create(client, p), level)
    consumers = list(scenario.allocations.items())
    in_threads(threads, lambda batch: client.call("POST", "/allocations", {
        consumer: {"allocations": {rp: {"resources": r} for rp, r in alloc.items()},
                   "consumer_generation": None, "consumer_type": "INSTANCE", **_OWNER}
        for consumer, alloc in batch}), [consumers[i:i + ALLOCATION_BATCH]
                                         for i in range(0, len(consumers), ALLOCATION_BATCH)])


def _create(client: Client, p: Provider) -> None:
    body = {"name": p.name, "uuid": p.uuid}
    if p.parent:
        body["parent_provider_uuid"] = p.parent
    generation = client.call("POST", "/resource_providers", body)["generation"]
    for key, value in (("inventories", p.inventories), ("traits", p.traits),
                       ("aggregates", p.aggregates)):
        if value:
            generation = client.call("PUT", f"/resource_providers/{p.uuid}/{key}", {
                key: value, "resource_provider_generation": generation,
            })["resource_provider_generation"]


def read_providers(client: Client, threads: int = 1) -> list[tuple[dict, dict, dict]]:
    """(provider, its inventories, its usages) of every provider, one request
    after another as the tools send them, or from ``threads`` threads."""
    def read(p: dict) -> tuple[dict, dict, dict]:
        base = f"/resource_providers/{p['uuid']}"
        return (p, client.call("GET", f"{base}/inventories")["inventories"],
                client.call("GET", f"{base}/usages")["usages"])

    return in_threads(threads, read, client.call("GET", "/resource_providers")[
        "resource_providers"])


def queries(name: str, **names) -> list[Query]:
    """The scenario's queries of data.toml, without and with limit=1000."""
    data, out = DATA["fixed"][name], []
    for q in data["queries"]:
        params = [(key, value.format(**names)) for key, value in q["params"]]
        expected = q.get("expected")
        if q.get("unlimited"):
            out.append(Query(q["name"], params, expected=expected))
        out.append(Query(f"{q['name']} limit", [*params, ("limit", LIMIT)], data["target_ms"],
                         None if expected is None else min(expected, int(LIMIT))))
    return out


def flat(nodes: int = 1000) -> Scenario:
    data = DATA["fixed"]["flat"]
    aggs = [str(uuid.uuid4()) for _ in range(data["aggregates"])]
    providers, allocations = [], {}
    for i in range(nodes):
        cn = Provider(f"flat-cn-{i:04d}", traits=every(data["traits"], i),
                      aggregates=[aggs[i % len(aggs)]], inventories=data["node"])
        providers.append(cn)
        # ~30% of each class: three instances (sizes vary by node so that big
        # requests fit on a few), the third with its disk on the shared pool
        for k in range(3):
            disk = {"DISK_GB": 300} if k < 2 else {}
            allocations[str(uuid.uuid4())] = {
                cn.uuid: {"VCPU": 16 + i % 21, "MEMORY_MB": 26000, **disk}}
    per_pool = len(aggs) // data["pools"]
    providers += [Provider(f"flat-disk-pool-{j:02d}", traits=["MISC_SHARES_VIA_AGGREGATE"],
                           aggregates=aggs[j * per_pool:(j + 1) * per_pool],
                           inventories=data["pool"]) for j in range(data["pools"])]
    pool_of = {a: p for p in providers[nodes:] for a in p.aggregates}
    for n, alloc in enumerate(allocations.values()):
        if n % 3 == 2:
            alloc[pool_of[providers[n // 3].aggregates[0]].uuid] = {"DISK_GB": 120}
    return Scenario("flat", providers, allocations, queries("flat", aggs=aggs))


def nested(hosts: int = 200) -> Scenario:
    """One instance per NUMA node, with one port on its first PF."""
    data = DATA["fixed"]["nested"]
    providers, allocations = [], {}
    for h in range(hosts):
        name = f"nested-host-{h:03d}"
        trees = tree(name, data["levels"], traits=every(data["traits"], h),
                     inventories=data["host"])
        providers += trees
        uuids = {p.name.removeprefix(name): p.uuid for p in trees}
        for n in range(2):
            allocations[str(uuid.uuid4())] = {
                uuids[where.format(n=n)]: amounts for where, amounts in data["instance"]}
    return Scenario("nested", providers, allocations, queries("nested"))


def wide(hosts: int = 50) -> Scenario:
    data = DATA["fixed"]["wide"]
    providers = [p for h in range(hosts)
                 for p in tree(f"wide-host-{h:02d}", data["levels"], inventories=data["host"])]
    gpus, out = data["levels"][0]["count"], []
    for groups in data["groups"]:
        params = [("resources", "VCPU:1,MEMORY_MB:1024")]
        params += [(f"resources{i}", "VGPU:1") for i in range(1, groups + 1)]
        params.append(("group_policy", "isolate"))
        per_host = 1
        for k in range(groups):
            per_host *= gpus - k
        name, expected = f"{groups} gpu groups isolate", per_host * hosts
        out += [Query(name, params, expected=expected),
                Query(f"{name} limit", [*params, ("limit", LIMIT)], data["target_ms"],
                      min(expected, int(LIMIT)))]
    return Scenario("wide", providers, {}, out)


BUILDERS = {"flat": flat, "nested": nested, "wide": wide}


def run(args, argv: list[str]) -> dict:
    """Each scenario on a fresh Placer; with a reference, its limited
    queries (of ``--only``) on the reference serving the same file, as
    "<name> (reference)", without targets (the targets are Placer's)."""
    data = machine.header(args, argv, "repeat", "reference_repeat", "only", "workers",
                          version=VERSION, scenarios={})
    results = []
    for name in list(BUILDERS) if args.scenario == "all" else [args.scenario]:
        scenario = BUILDERS[name]()
        data["scenarios"][name] = {"description": DATA["fixed"][name]["description"],
                                   "providers": len(scenario.providers),
                                   "consumers": len(scenario.allocations),
                                   "queries": len(scenario.queries)}
        with ThrowAwayDatabase("sqlite") as url:
            with Server(args.workers, connection=url) as server:
                client, started = Client(server.url), time.perf_counter()
                load(client, scenario)
                progress(f"{name}: loaded {len(scenario.providers)} providers and "
                         f"{len(scenario.allocations)} consumers in "
                         f"{time.perf_counter() - started:.1f}s")
                results += time_queries(client, server.measured(), name, scenario.queries,
                                        args.repeat)
            if args.reference:
                limited = [dataclasses.replace(q, target_ms=None) for q in scenario.queries
                           if q.limited]
                with Server(args.workers, connection=url, reference=args.reference) as server:
                    results += time_queries(Client(server.url), server.measured(),
                                            f"{name} (reference)", limited,
                                            args.reference_repeat, args.only)
    return machine.finished(data, results=[r.row() for r in results])

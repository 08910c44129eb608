"""Fixed clouds loaded through the API (flat, nested, wide: data.toml), and
their ``GET /allocation_candidates`` queries timed on a fresh Placer and,
with a reference, the limited ones on the reference serving the same file.
Loading uses the bulkiest calls the API offers, from a few threads."""

import dataclasses
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from benchmarks.harness import machine
from benchmarks.harness.client import VERSION, Client
from benchmarks.harness.databases import ThrowAwayDatabase
from benchmarks.harness.servers import Server
from benchmarks.scenarios import DATA, Query, progress, time_queries

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


def load(client: Client, scenario: Scenario, threads: int = THREADS) -> None:
    """``threads=1`` creates the providers in their order, so their database
    ids (the reference's candidate order) follow it."""
    for name in sorted({rc for p in scenario.providers for rc in p.inventories
                        if rc.startswith("CUSTOM_")}):
        client.call("PUT", f"/resource_classes/{name}")
    for name in sorted({t for p in scenario.providers for t in p.traits
                        if t.startswith("CUSTOM_")}):
        client.call("PUT", f"/traits/{name}")
    depth: dict[str, int] = {}
    levels: list[list[Provider]] = []  # each level needs only the ones before
    for p in scenario.providers:
        d = depth[p.uuid] = depth[p.parent] + 1 if p.parent else 0
        levels += [[]] if d == len(levels) else []
        levels[d].append(p)
    consumers = list(scenario.allocations.items())
    batches = [consumers[i:i + ALLOCATION_BATCH]
               for i in range(0, len(consumers), ALLOCATION_BATCH)]
    with ThreadPoolExecutor(threads) as pool:
        for level in levels:
            list(pool.map(lambda p: _create(client, p), level))
        list(pool.map(lambda batch: client.call("POST", "/allocations", {
            consumer: {"allocations": {rp: {"resources": r} for rp, r in alloc.items()},
                       "consumer_generation": None, "consumer_type": "INSTANCE", **_OWNER}
            for consumer, alloc in batch}), batches))


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


def flat(nodes: int = 1000, sharing: int = 10, aggregates: int = 20) -> Scenario:
    aggs = [str(uuid.uuid4()) for _ in range(aggregates)]
    providers, allocations = [], {}
    for i in range(nodes):
        traits = ["HW_CPU_X86_SSE42", "COMPUTE_VOLUME_MULTI_ATTACH"]
        traits += ["HW_CPU_X86_AVX2"] if i % 2 == 0 else []
        traits += ["CUSTOM_GOLD"] if i % 10 == 0 else []
        traits += ["COMPUTE_STATUS_DISABLED"] if i % 50 == 7 else []
        cn = Provider(f"flat-cn-{i:04d}", traits=traits, aggregates=[aggs[i % aggregates]],
                      inventories={"VCPU": {"total": 64, "allocation_ratio": 4.0},
                                   "MEMORY_MB": {"total": 262144, "reserved": 512},
                                   "DISK_GB": {"total": 2000}})
        providers.append(cn)
        # ~30% of each class: three instances (sizes vary by node so that big
        # requests fit on a few), the third with its disk on the shared pool
        for k in range(3):
            disk = {"DISK_GB": 300} if k < 2 else {}
            allocations[str(uuid.uuid4())] = {
                cn.uuid: {"VCPU": 16 + i % 21, "MEMORY_MB": 26000, **disk}}
    per_pool = aggregates // sharing
    providers += [Provider(f"flat-disk-pool-{j:02d}", traits=["MISC_SHARES_VIA_AGGREGATE"],
                           aggregates=aggs[j * per_pool:(j + 1) * per_pool],
                           inventories={"DISK_GB": {"total": 40000}}) for j in range(sharing)]
    # the third instance of each node takes its disk from the node's pool
    pool_of = {a: p for p in providers[nodes:] for a in p.aggregates}
    for n, alloc in enumerate(allocations.values()):
        if n % 3 == 2:
            alloc[pool_of[providers[n // 3].aggregates[0]].uuid] = {"DISK_GB": 120}
    return Scenario("flat", providers, allocations, queries("flat", aggs=aggs))


def nested(hosts: int = 200) -> Scenario:
    providers, allocations = [], {}
    for h in range(hosts):
        root_traits = ["COMPUTE_STATUS_DISABLED"] if h % 20 == 4 else []
        root_traits += ["CUSTOM_SRIOV_HOST"] if h % 2 == 0 else []
        host = Provider(f"nested-host-{h:03d}", traits=root_traits,
                        inventories={"DISK_GB": {"total": 2000}})
        providers.append(host)
        for n in range(2):
            numa = Provider(f"{host.name}-numa{n}", host.uuid, traits=["HW_NUMA_ROOT"],
                            inventories={"VCPU": {"total": 32, "allocation_ratio": 4.0},
                                         "MEMORY_MB": {"total": 131072}})
            nic = Provider(f"{numa.name}-nic", numa.uuid, traits=["CUSTOM_NIC_X710"])
            providers += [numa, nic]
            bandwidth = {"total": 10_000_000}
            providers += [Provider(
                f"{nic.name}-pf{f}", nic.uuid,
                traits=[f"CUSTOM_PHYSNET_NET{f}", "CUSTOM_VNIC_TYPE_DIRECT"],
                inventories={"SRIOV_NET_VF": {"total": 16},
                             "NET_BW_EGR_KILOBIT_PER_SEC": bandwidth,
                             "NET_BW_IGR_KILOBIT_PER_SEC": bandwidth}) for f in range(2)]
            # one instance per NUMA node, with one port on its first PF
            allocations[str(uuid.uuid4())] = {
                host.uuid: {"DISK_GB": 200},
                numa.uuid: {"VCPU": 24, "MEMORY_MB": 32768},
                providers[-2].uuid: {"SRIOV_NET_VF": 4, "NET_BW_EGR_KILOBIT_PER_SEC": 2_000_000,
                                     "NET_BW_IGR_KILOBIT_PER_SEC": 2_000_000},
            }
    return Scenario("nested", providers, allocations, queries("nested"))


def wide(hosts: int = 50, gpus: int = 8) -> Scenario:
    providers: list[Provider] = []
    for h in range(hosts):
        host = Provider(f"wide-host-{h:02d}",
                        inventories={"VCPU": {"total": 64}, "MEMORY_MB": {"total": 131072}})
        providers.append(host)
        providers += [Provider(f"{host.name}-gpu{g}", host.uuid,
                               inventories={"VGPU": {"total": 1}}) for g in range(gpus)]
    out = []
    for groups in DATA["fixed"]["wide"]["groups"]:
        params = [("resources", "VCPU:1,MEMORY_MB:1024")]
        params += [(f"resources{i}", "VGPU:1") for i in range(1, groups + 1)]
        params.append(("group_policy", "isolate"))
        per_host = 1
        for k in range(groups):
            per_host *= gpus - k
        name, expected = f"{groups} gpu groups isolate", per_host * hosts
        out += [Query(name, params, expected=expected),
                Query(f"{name} limit", [*params, ("limit", LIMIT)],
                      DATA["fixed"]["wide"]["target_ms"], min(expected, int(LIMIT)))]
    return Scenario("wide", providers, {}, out)


BUILDERS = {"flat": flat, "nested": nested, "wide": wide}


def _measure(client: Client, scenario: Scenario, server, repeat: int) -> list:
    started = time.perf_counter()
    load(client, scenario)
    progress(f"{scenario.name}: loaded {len(scenario.providers)} providers and "
             f"{len(scenario.allocations)} consumers in {time.perf_counter() - started:.1f}s")
    return time_queries(client, server.measured(), scenario.name, scenario.queries, repeat)


def run(args, argv: list[str]) -> dict:
    """Each scenario on a fresh Placer; with a reference, its limited
    queries (of ``--only``) on the reference serving the same file, as
    "<name> (reference)", without targets (the targets are Placer's)."""
    names = list(BUILDERS) if args.scenario == "all" else [args.scenario]
    data = {"benchmark": "scenarios", **machine.describe(argv, args.reference),
            "version": VERSION, "repeat": args.repeat,
            "reference_repeat": args.reference_repeat if args.reference else None,
            "only": args.only, "workers": args.workers, "scenarios": {}}
    results = []
    for name in names:
        scenario = BUILDERS[name]()
        data["scenarios"][name] = {"description": DATA["fixed"][name]["description"],
                                   "providers": len(scenario.providers),
                                   "consumers": len(scenario.allocations),
                                   "queries": len(scenario.queries)}
        with ThrowAwayDatabase("sqlite") as url:
            with Server(args.workers, connection=url) as server:
                results += _measure(Client(server.url), scenario, server, args.repeat)
            if args.reference:
                limited = [dataclasses.replace(q, target_ms=None) for q in scenario.queries
                           if q.limited]
                with Server(args.workers, connection=url, reference=args.reference) as server:
                    results += time_queries(Client(server.url), server.measured(),
                                            f"{name} (reference)", limited,
                                            args.reference_repeat, args.only)
    return {**data, "finished": machine.now(), "load_average_after": machine.load_average(),
            "results": [r.row() for r in results]}

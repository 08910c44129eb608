"""The benchmark scenarios: provider trees, existing allocations and queries.

Pure data, no I/O: ``build(name)`` returns a Scenario whose providers are in
creation order (parents before children) with fresh uuids. Queries use the
latest microversion; ``target_ms`` is the median to beat (None: no target),
``expected`` the number of candidates when it is known in advance (the runner
skips unbounded queries whose answer would be huge).
"""

import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

VERSION = "1.39"
LIMIT = "1000"


@dataclass
class Provider:
    name: str
    parent: str | None = None  # parent's uuid
    inventories: dict[str, dict] = field(default_factory=dict)  # class -> record
    traits: list[str] = field(default_factory=list)
    aggregates: list[str] = field(default_factory=list)
    uuid: str = field(default_factory=lambda: str(uuid.uuid4()))


@dataclass
class Query:
    name: str
    params: list[tuple[str, str]]
    target_ms: float | None = None
    expected: int | None = None
    path: str = "/allocation_candidates"
    method: str = "GET"
    items: str | None = "allocation_requests"  # the answer's list that is counted
    # a fresh (path, JSON body or None) per run, for requests that change per run
    request: Callable[[], tuple[str, dict | None]] | None = None

    @property
    def limited(self) -> bool:
        return any(key == "limit" for key, _ in self.params)


@dataclass
class Scenario:
    name: str
    providers: list[Provider]
    allocations: dict[str, dict[str, dict[str, int]]]  # consumer -> provider -> class -> n
    queries: list[Query]

    def custom_traits(self) -> list[str]:
        return sorted({t for p in self.providers for t in p.traits if t.startswith("CUSTOM_")})

    def custom_classes(self) -> list[str]:
        return sorted({rc for p in self.providers for rc in p.inventories
                       if rc.startswith("CUSTOM_")})

    def aggregates(self) -> list[str]:
        return sorted({a for p in self.providers for a in p.aggregates})


def _inv(total: int, **extra) -> dict:
    return {"total": total, **extra}


def _with_limit(query: Query, target_ms: float) -> list[Query]:
    """The query without limit, and with limit=1000 (which has the target)."""
    limited = Query(f"{query.name} limit", [*query.params, ("limit", LIMIT)], target_ms,
                    None if query.expected is None else min(query.expected, int(LIMIT)))
    return [query, limited]


def flat(nodes: int = 1000, sharing: int = 10, aggregates: int = 20) -> Scenario:
    """Compute nodes in aggregates, sharing disk pools, ~30% allocated."""
    aggs = [str(uuid.uuid4()) for _ in range(aggregates)]
    providers, allocations = [], {}
    for i in range(nodes):
        traits = ["HW_CPU_X86_SSE42", "COMPUTE_VOLUME_MULTI_ATTACH"]
        traits += ["HW_CPU_X86_AVX2"] if i % 2 == 0 else []
        traits += ["CUSTOM_GOLD"] if i % 10 == 0 else []
        traits += ["COMPUTE_STATUS_DISABLED"] if i % 50 == 7 else []
        cn = Provider(f"flat-cn-{i:04d}", traits=traits, aggregates=[aggs[i % aggregates]],
                      inventories={"VCPU": _inv(64, allocation_ratio=4.0),
                                   "MEMORY_MB": _inv(262144, reserved=512),
                                   "DISK_GB": _inv(2000)})
        providers.append(cn)
        # ~30% of each class: three instances (sizes vary by node so that big
        # requests fit on a few), the third with its disk on the shared pool
        for k in range(3):
            disk = {"DISK_GB": 300} if k < 2 else {}
            instance = {cn.uuid: {"VCPU": 16 + i % 21, "MEMORY_MB": 26000, **disk}}
            allocations[str(uuid.uuid4())] = instance
    per_pool = aggregates // sharing
    for j in range(sharing):
        pool = Provider(f"flat-disk-pool-{j:02d}", traits=["MISC_SHARES_VIA_AGGREGATE"],
                        aggregates=aggs[j * per_pool:(j + 1) * per_pool],
                        inventories={"DISK_GB": _inv(40000)})
        providers.append(pool)
    # the third instance of each node takes its disk from the node's pool
    pool_of = {a: p for p in providers[nodes:] for a in p.aggregates}
    for n, (_consumer, alloc) in enumerate(allocations.items()):
        if n % 3 == 2:
            cn = providers[n // 3]
            alloc[pool_of[cn.aggregates[0]].uuid] = {"DISK_GB": 120}

    small = [("resources", "VCPU:2,MEMORY_MB:4096,DISK_GB:20")]
    queries = _with_limit(Query("small", small, expected=2 * nodes), 100)
    queries += [
        Query("avx2, not disabled limit", [
            *small, ("required", "HW_CPU_X86_AVX2,!COMPUTE_STATUS_DISABLED"),
            ("limit", LIMIT)], 100),
        Query("member_of 2 aggs limit", [
            *small, ("member_of", f"in:{aggs[0]},{aggs[1]}"), ("limit", LIMIT)], 100),
        Query("gold in agg, !agg limit", [
            *small, ("required", "CUSTOM_GOLD"), ("member_of", f"in:{aggs[0]},{aggs[10]}"),
            ("member_of", f"!{aggs[1]}"), ("limit", LIMIT)], 100),
        Query("large (few fit) limit", [
            ("resources", "VCPU:200,MEMORY_MB:150000,DISK_GB:1000"), ("limit", LIMIT)], 100),
    ]
    queries += _with_limit(Query("granular disk from pool", [
        ("resources", "VCPU:2,MEMORY_MB:4096"),
        ("resources1", "DISK_GB:100"), ("required1", "MISC_SHARES_VIA_AGGREGATE")]), 100)
    return Scenario("flat", providers, allocations, queries)


def nested(hosts: int = 200) -> Scenario:
    """host (disk) -> 2 NUMA (cpu, memory) -> NIC -> 2 PFs (VFs, bandwidth)."""
    providers, allocations = [], {}
    for h in range(hosts):
        root_traits = ["COMPUTE_STATUS_DISABLED"] if h % 20 == 4 else []
        root_traits += ["CUSTOM_SRIOV_HOST"] if h % 2 == 0 else []
        host = Provider(f"nested-host-{h:03d}", traits=root_traits,
                        inventories={"DISK_GB": _inv(2000)})
        providers.append(host)
        for n in range(2):
            numa = Provider(f"{host.name}-numa{n}", host.uuid, traits=["HW_NUMA_ROOT"],
                            inventories={"VCPU": _inv(32, allocation_ratio=4.0),
                                         "MEMORY_MB": _inv(131072)})
            nic = Provider(f"{numa.name}-nic", numa.uuid, traits=["CUSTOM_NIC_X710"])
            providers += [numa, nic]
            for f in range(2):
                bandwidth = _inv(10_000_000)
                pf = Provider(f"{nic.name}-pf{f}", nic.uuid,
                              traits=[f"CUSTOM_PHYSNET_NET{f}", "CUSTOM_VNIC_TYPE_DIRECT"],
                              inventories={"SRIOV_NET_VF": _inv(16),
                                           "NET_BW_EGR_KILOBIT_PER_SEC": bandwidth,
                                           "NET_BW_IGR_KILOBIT_PER_SEC": bandwidth})
                providers.append(pf)
            # one instance per NUMA node, with one port on its first PF
            allocations[str(uuid.uuid4())] = {
                host.uuid: {"DISK_GB": 200},
                numa.uuid: {"VCPU": 24, "MEMORY_MB": 32768},
                providers[-2].uuid: {"SRIOV_NET_VF": 4, "NET_BW_EGR_KILOBIT_PER_SEC": 2_000_000,
                                     "NET_BW_IGR_KILOBIT_PER_SEC": 2_000_000},
            }

    compute = [("resources", "DISK_GB:10"), ("resources_CPU", "VCPU:4,MEMORY_MB:4096"),
               ("group_policy", "none")]
    port = [("resources_NET", "SRIOV_NET_VF:1,NET_BW_EGR_KILOBIT_PER_SEC:1000"),
            ("required_NET", "CUSTOM_PHYSNET_NET0,CUSTOM_VNIC_TYPE_DIRECT")]
    two_ports = [
        ("resources_P1", "SRIOV_NET_VF:1,NET_BW_EGR_KILOBIT_PER_SEC:1000"),
        ("required_P1", "CUSTOM_PHYSNET_NET0"),
        ("resources_P2", "SRIOV_NET_VF:1,NET_BW_IGR_KILOBIT_PER_SEC:1000"),
        ("required_P2", "CUSTOM_PHYSNET_NET1")]
    queries = _with_limit(Query("granular cpu + port", [*compute, *port],
                                expected=4 * hosts), 100)
    queries += _with_limit(Query("same_subtree numa", [
        *compute, *port, ("same_subtree", "_CPU,_NET")], expected=2 * hosts), 100)
    queries += _with_limit(Query("2 ports isolate + root_required", [
        *compute[:2], *two_ports, ("group_policy", "isolate"),
        ("root_required", "CUSTOM_SRIOV_HOST,!COMPUTE_STATUS_DISABLED"),
        ("same_subtree", "_CPU,_P1,_P2")], expected=2 * (hosts // 2 - hosts // 20)), 100)
    queries += _with_limit(Query("unsuffixed spread over tree", [
        ("resources", "VCPU:4,MEMORY_MB:4096,SRIOV_NET_VF:1")], expected=16 * hosts), 100)
    return Scenario("nested", providers, allocations, queries)


def wide(hosts: int = 50, gpus: int = 8, resource_class: str = "VGPU") -> Scenario:
    """Hosts with eight one-unit GPU children; 1..8 isolated one-unit groups."""
    providers: list[Provider] = []
    for h in range(hosts):
        host = Provider(f"wide-host-{h:02d}",
                        inventories={"VCPU": _inv(64), "MEMORY_MB": _inv(131072)})
        providers.append(host)
        providers += [Provider(f"{host.name}-gpu{g}", host.uuid,
                               inventories={resource_class: _inv(1)}) for g in range(gpus)]
    queries = []
    for groups in (1, 2, 4, 6, 8):
        params = [("resources", "VCPU:1,MEMORY_MB:1024")]
        params += [(f"resources{i}", f"{resource_class}:1") for i in range(1, groups + 1)]
        params.append(("group_policy", "isolate"))
        per_host = 1
        for k in range(groups):
            per_host *= gpus - k
        queries += _with_limit(Query(f"{groups} gpu groups isolate", params,
                                     expected=per_host * hosts), 200)
    return Scenario("wide", providers, {}, queries)


BUILDERS = {"flat": flat, "nested": nested, "wide": wide}


def build(name: str) -> Scenario:
    return BUILDERS[name]()

"""The fill scenario: Nova's scheduler filling a cloud, for each candidate order.

    python -m benchmarks --start --scenario fill --hosts 300 --limit 30 --reference VENV

Latency says how fast the answer is; this says how good it is for the cloud.
The order in which placement lists allocation candidates decides, under
``limit``, which hosts Nova's scheduler ever sees, and so how the cloud
fills: evenly (spread), onto as few hosts as possible (pack), or by
provider id. Each order gets its own fresh server and database, loaded with
the same cloud, and the same seeded stream of boots and deletes:

- **cloud**: ``hosts`` identical hosts of 32 VCPU (allocation ratio 4.0,
  Nova's initial_cpu_allocation_ratio: 128 vCPUs), 128 GiB of MEMORY_MB
  (4 GiB reserved for the host, ratio 1.0) and 2000 DISK_GB. RAM is what
  runs out first with the flavor mix below (about 12.6 instances per host;
  the vCPUs would take 29, the disk 22), as it does in most clouds, and it
  is what Nova's default weigher spreads. Nested: the root holds the disk,
  two NUMA children each hold half of the VCPU and MEMORY_MB (2 GiB
  reserved each, so the same capacity per host). ``--cloud generations``:
  three generations of hardware, a third of the hosts each, the oldest
  enrolled first: that host, one of 48 cores, 256 GiB and 4000 GB, one of
  64 cores, 512 GiB and 8000 GB. Nova's RAM weigher weighs free MiB, not
  a share of the host, so it alone fills the larger hosts first.
- **flavors**: OpenStack's classic m1.small to m1.xlarge (1 vCPU, 2 GiB,
  20 GB doubling up to 8 vCPU, 16 GiB, 160 GB) and ``huge`` (16 vCPU,
  48 GiB, 320 GB: one NUMA node of a nested host can hold it), drawn 20,
  30, 25, 18 and 7 times in 100. The mix leans to the larger flavors so
  that a host holds few instances and a run takes few steps (the
  reference takes some 50 ms a boot at 300 hosts). A host that still fits
  ``huge`` is not fragmented.
- **steps**: each step deletes a random live instance with probability
  DELETE_FRACTION (if there is one), else boots the next flavor of the mix.
  ``schedulers`` threads draw the steps from the one seeded stream, each on
  its own HTTP connection.
- **a boot** is what Nova's scheduler does: ``GET /allocation_candidates``
  (microversion 1.36, the flavor's resources in the unsuffixed group,
  ``limit``), the candidates weighed like Nova's default RAMWeigher (most
  free RAM of the host first: capacity minus used, from the
  provider_summaries, summed over the host's tree; ties keep placement's
  order, as Nova's stable sort does), then ``PUT /allocations/{consumer}``
  of the best; on 409 the next candidate; none left (or none returned):
  the boot fails, "no valid host".
- **phases**: fill until half of the cloud's RAM capacity is used, then
  read every provider's inventories and usages through the API (the
  snapshot: how evenly the RAM is used, empty hosts, hosts that still fit
  the largest flavor); go on until the first boot that fails although the
  cloud, summed over all its providers, has the free capacity of every
  resource class of the flavor (its failure is then fragmentation or
  contention, not a full cloud); ``max_boots`` bounds the run.

Orders: Placer's ``[placer] candidate_order`` (id, random, spread, pack;
random also sets ``randomize_allocation_candidates``); ``no-limit``, Placer
asked without ``limit``, so that Nova weighs every host that fits: what its
weigher does alone (with one scheduler, the evenest it can spread: an order
only hands it a subset of these hosts; with several, they all take the same
emptiest hosts); ``reference-id`` and
``reference-random`` are the reference without and with
``randomize_allocation_candidates``. The reference's order without it is
not the providers' ids: it lists the allocation requests of a Python set,
whose order follows hashes of the providers' ids and resource class names
(salted per process), so a limited answer is an arbitrary but
concentrated subset of the hosts.

The server runs one worker unless told otherwise: the schedulers still race
each other (a host chosen by two of them may have room for one). Two
workers gave the same picture at 60 hosts (within the run-to-run noise of
the threads' interleaving) and no faster runs on a two-core machine.
"""

import json
import random
import statistics
import threading
import time
import urllib.parse
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from benchmarks import databases, loader, scale
from benchmarks.scenarios import Provider, Scenario
from benchmarks.server import Server
from placer import conf as placer_conf
from placer.db import engine as db_engine

VERSION = "1.36"  # what Nova's scheduler sends
RAM = "MEMORY_MB"
HALF = 0.5  # fraction of the cloud's RAM capacity used at the snapshot
DELETE_FRACTION = 0.1  # steps that delete a live instance
BOOTS_PER_HOST = 20  # the default bound of a run: more than fill the cloud
SHAPES = ("flat", "nested")
ORDERS = ("id", "random", "spread", "pack", "no-limit")
NO_LIMIT = "no-limit"  # the id order, every candidate: Nova's weigher alone
REFERENCE_ORDERS = ("reference-id", "reference-random")


@dataclass(frozen=True)
class Flavor:
    name: str
    vcpus: int
    ram_mb: int
    disk_gb: int
    weight: int  # relative frequency in the boot stream

    @property
    def resources(self) -> dict[str, int]:
        return {"VCPU": self.vcpus, RAM: self.ram_mb, "DISK_GB": self.disk_gb}


FLAVORS = (  # weights in percent; mean: 4.5 vCPU, 9.8 GiB, 90 GB
    Flavor("small", 1, 2048, 20, 20),
    Flavor("medium", 2, 4096, 40, 30),
    Flavor("large", 4, 8192, 80, 25),
    Flavor("xlarge", 8, 16384, 160, 18),
    Flavor("huge", 16, 49152, 320, 7),
)
LARGEST = max(FLAVORS, key=lambda f: f.ram_mb)

@dataclass(frozen=True)
class Generation:
    """A kind of host: cores (VCPU at allocation ratio 4.0), GiB of RAM (4
    reserved; nested, two NUMA nodes with half the cores and RAM each, 2
    reserved each) and GB of disk (on the root)."""

    cores: int
    ram_gib: int
    disk_gb: int

    def flat(self) -> dict[str, dict]:
        return {"VCPU": {"total": self.cores, "allocation_ratio": 4.0},
                RAM: {"total": self.ram_gib * 1024, "reserved": 4096},
                "DISK_GB": {"total": self.disk_gb}}

    def numa_node(self) -> dict[str, dict]:
        return {"VCPU": {"total": self.cores // 2, "allocation_ratio": 4.0},
                RAM: {"total": self.ram_gib * 512, "reserved": 2048}}


HOST = Generation(32, 128, 2000)
FLAT_HOST, NUMA_NODE = HOST.flat(), HOST.numa_node()
# Clouds: identical hosts, or three generations of hardware bought over the
# years, a third of the hosts each, the oldest enrolled first (lowest ids).
CLOUDS = {"identical": (HOST,),
          "generations": (HOST, Generation(48, 256, 4000), Generation(64, 512, 8000))}


def cloud(hosts: int, shape: str, seed: int = 0, kind: str = "identical") -> Scenario:
    """The hosts, with uuids from the seed: the same cloud for every order."""
    if shape not in SHAPES:
        raise ValueError(f"unknown shape {shape!r}")
    generations = CLOUDS[kind]
    rng = random.Random(f"fill cloud {seed}")
    providers = []
    for i in range(hosts):
        generation = generations[i * len(generations) // hosts]
        root = Provider(f"fill-host-{i:04d}", uuid=_uuid(rng))
        providers.append(root)
        if shape == "flat":
            root.inventories = generation.flat()
            continue
        root.inventories = {"DISK_GB": generation.flat()["DISK_GB"]}
        providers += [Provider(f"{root.name}-numa{n}", parent=root.uuid, uuid=_uuid(rng),
                               inventories=generation.numa_node())
                      for n in range(2)]
    return Scenario(f"fill {shape} {kind}", providers, {}, [])


def _uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def capacity(inventory: dict) -> int:
    """What placement lets allocations use: (total - reserved) * ratio."""
    return int((inventory["total"] - inventory.get("reserved", 0))
               * inventory.get("allocation_ratio", 1.0))


# -- the hosts' state --------------------------------------------------------------

@dataclass
class Host:
    """A tree: provider -> class -> [capacity, used]."""

    uuid: str
    providers: dict[str, dict[str, list[int]]] = field(default_factory=dict)

    def total(self, rc: str, index: int) -> int:
        return sum(inv[rc][index] for inv in self.providers.values() if rc in inv)

    @property
    def ram_use(self) -> float:
        return self.total(RAM, 1) / self.total(RAM, 0)

    @property
    def empty(self) -> bool:
        return not any(used for inv in self.providers.values() for _, used in inv.values())

    def fits(self, flavor: Flavor) -> bool:
        """Each class from one provider of the tree, as the unsuffixed group
        is satisfied on a nested tree."""
        return all(any(rc in inv and inv[rc][0] - inv[rc][1] >= amount
                       for inv in self.providers.values())
                   for rc, amount in flavor.resources.items())


def hosts_of(scenario: Scenario) -> dict[str, Host]:
    """The cloud as loaded: nothing used."""
    roots: dict[str, str] = {}
    hosts: dict[str, Host] = {}
    for p in scenario.providers:
        root = roots[p.uuid] = roots[p.parent] if p.parent else p.uuid
        host = hosts.setdefault(root, Host(root))
        host.providers[p.uuid] = {rc: [capacity(inv), 0] for rc, inv in p.inventories.items()}
    return hosts


def read_hosts(client) -> dict[str, Host]:
    """Every provider's inventories and usages, as the API tells them."""
    providers = client.call("GET", "/resource_providers")["resource_providers"]

    def read(p):
        base = f"/resource_providers/{p['uuid']}"
        return (p, client.call("GET", f"{base}/inventories")["inventories"],
                client.call("GET", f"{base}/usages")["usages"])

    hosts: dict[str, Host] = {}
    with ThreadPoolExecutor(loader.THREADS) as pool:
        for p, inventories, usages in pool.map(read, providers):
            host = hosts.setdefault(p["root_provider_uuid"], Host(p["root_provider_uuid"]))
            host.providers[p["uuid"]] = {rc: [capacity(inv), usages.get(rc, 0)]
                                         for rc, inv in inventories.items()}
    return hosts


def snapshot(hosts: dict[str, Host]) -> dict:
    """How the RAM is spread over the hosts, and how fragmented they are."""
    use = [h.ram_use for h in hosts.values()]
    used = sum(h.total(RAM, 1) for h in hosts.values())
    return {"hosts": len(use),
            "ram_used_fraction": round(used / sum(h.total(RAM, 0) for h in hosts.values()), 4),
            "std_ram_use": round(statistics.pstdev(use), 4),
            "max_ram_use": round(max(use), 4),
            "empty_hosts": sum(h.empty for h in hosts.values()),
            "empty_most": empty_most(hosts.values(), used),
            "hosts_fitting_largest": sum(h.fits(LARGEST) for h in hosts.values()),
            "ram_use": sorted(round(u, 4) for u in use)}


def empty_most(hosts, used: int) -> int:
    """The most hosts that could be empty with ``used`` MiB of RAM in use:
    those left when the largest hosts hold it all (any packing leaves at
    most this many)."""
    capacities = sorted((h.total(RAM, 0) for h in hosts), reverse=True)
    needed = 0
    while used > 0 and needed < len(capacities):
        used -= capacities[needed]
        needed += 1
    return len(capacities) - needed


# -- Nova's scheduler ---------------------------------------------------------------

def weigh(answer: dict) -> list[dict]:
    """The allocation requests, most free RAM of their host first (stable)."""
    summaries = answer["provider_summaries"]
    free: dict[str, int] = {}
    for summary in summaries.values():
        ram = summary["resources"].get(RAM)
        if ram:
            root = summary["root_provider_uuid"]
            free[root] = free.get(root, 0) + ram["capacity"] - ram["used"]

    def host_free(request: dict) -> int:
        rp = next(iter(request["allocations"]))
        return free.get(summaries[rp]["root_provider_uuid"], 0)

    return sorted(answer["allocation_requests"], key=host_free, reverse=True)


def candidates_path(flavor: Flavor, limit: int | None) -> str:
    query = {"resources": ",".join(f"{rc}:{n}" for rc, n in flavor.resources.items())}
    if limit is not None:
        query["limit"] = str(limit)
    return "/allocation_candidates?" + urllib.parse.urlencode(query)


class Fill:
    """One order's run: the schedulers, the stream they share, what happened.

    Usage is tracked from the claims and deletes that succeeded (the only
    writers are ours), which decides the phases; the snapshot is read from
    the API and compared with it.
    """

    def __init__(self, client, scenario: Scenario, limit: int | None, seed: int = 0,
                 schedulers: int = 4, max_boots: int = 6000,
                 delete_fraction: float = DELETE_FRACTION):
        self.client, self.limit, self.schedulers = client, limit, schedulers
        self.max_boots, self.delete_fraction = max_boots, delete_fraction
        self.rng = random.Random(f"fill stream {seed}")
        self.owner = {"project_id": _uuid(self.rng), "user_id": _uuid(self.rng)}
        self.hosts = hosts_of(scenario)
        self.capacity_of = {rp: (h, inv) for h in self.hosts.values()
                            for rp, inv in h.providers.items()}
        self.ram_capacity = sum(h.total(RAM, 0) for h in self.hosts.values())
        self.ram_used = 0
        self.lock = threading.Lock()
        self.live: list[tuple[str, dict]] = []  # (consumer, allocations)
        self.boots = self.placed = self.deletes = self.conflicts = self.failures = 0
        self.candidates = 0  # allocation requests returned, summed over boots
        self.first_failure: dict | None = None
        self.latency: dict[str, list[float]] = {"candidates": [], "claim": [], "delete": []}

    def play(self) -> dict:
        started = time.perf_counter()
        self._phase(lambda: self.ram_used >= HALF * self.ram_capacity
                    or self.boots >= self.max_boots)
        read = read_hosts(self.client)
        # nothing is in flight: the API must tell the usage the claims and deletes made
        half = {"boots": self.boots, "placed": self.placed, "live": len(self.live),
                "usages_match": read == self.hosts, **snapshot(read)}
        self._phase(lambda: self.first_failure is not None or self.boots >= self.max_boots)
        seconds = time.perf_counter() - started
        return {
            "half": half, "first_failure": self.first_failure,
            "stopped": "first failure" if self.first_failure else "max boots",
            "boots": self.boots, "placed": self.placed, "deletes": self.deletes,
            "failures": self.failures, "conflicts": self.conflicts,
            "conflicts_per_placed": round(self.conflicts / self.placed, 4) if self.placed else None,
            "candidates_per_boot": round(self.candidates / self.boots, 1) if self.boots else None,
            "end_ram_used_fraction": round(self.ram_used / self.ram_capacity, 4),
            "latency": {kind: _latency(times) for kind, times in self.latency.items()},
            "seconds": round(seconds, 1)}

    def _phase(self, done) -> None:
        with ThreadPoolExecutor(self.schedulers) as pool:
            for future in [pool.submit(self._schedule, done) for _ in range(self.schedulers)]:
                future.result()

    def _schedule(self, done) -> None:
        while True:
            with self.lock:
                if done():
                    return
                if self.live and self.rng.random() < self.delete_fraction:
                    i = self.rng.randrange(len(self.live))
                    self.live[i], self.live[-1] = self.live[-1], self.live[i]
                    step = ("delete", self.live.pop())
                else:
                    self.boots += 1
                    flavor = self.rng.choices(FLAVORS, [f.weight for f in FLAVORS])[0]
                    step = ("boot", (flavor, _uuid(self.rng)))
            if step[0] == "delete":
                self._delete(*step[1])
            else:
                self._boot(*step[1])

    def _request(self, kind: str, method: str, path: str, body=None) -> tuple[int, bytes]:
        status, payload, seconds = self.client.request(method, path, body, version=VERSION)
        self.latency[kind].append(seconds * 1000)
        if not (200 <= status < 300 or (kind == "claim" and status == 409)):
            raise loader.HTTPError(f"{method} {path}: {status} "
                                   f"{payload[:500].decode(errors='replace')}")
        return status, payload

    def _boot(self, flavor: Flavor, consumer: str) -> None:
        _, payload = self._request("candidates", "GET", candidates_path(flavor, self.limit))
        answer = json.loads(payload)
        ranked = weigh(answer)
        for request in ranked:
            status, _ = self._request("claim", "PUT", f"/allocations/{consumer}", {
                "allocations": request["allocations"], "consumer_generation": None,
                **self.owner})
            with self.lock:
                if status == 409:
                    self.conflicts += 1
                    continue
                self._use(request["allocations"], 1)
                self.live.append((consumer, request["allocations"]))
                self.placed += 1
                self.candidates += len(ranked)
                return
        with self.lock:
            self.candidates += len(ranked)
            self.failures += 1
            self._failed(flavor, "conflicts" if ranked else "no candidates")

    def _failed(self, flavor: Flavor, reason: str) -> None:
        if self.first_failure is not None:
            return
        free = {rc: sum(h.total(rc, 0) - h.total(rc, 1) for h in self.hosts.values())
                for rc in flavor.resources}
        if any(free[rc] < n for rc, n in flavor.resources.items()):
            return  # the cloud is full for this flavor: not a failure of the order
        self.first_failure = {
            "flavor": flavor.name, "reason": reason, "boots": self.boots,
            "placed": self.placed, "live": len(self.live),
            "ram_used_fraction": round(self.ram_used / self.ram_capacity, 4),
            # by the tracked usage: False when no host had the room either
            "a_host_fits": any(h.fits(flavor) for h in self.hosts.values())}

    def _delete(self, consumer: str, allocations: dict) -> None:
        self._request("delete", "DELETE", f"/allocations/{consumer}")
        with self.lock:
            self._use(allocations, -1)
            self.deletes += 1

    def _use(self, allocations: dict, sign: int) -> None:
        for rp, alloc in allocations.items():
            _, inventories = self.capacity_of[rp]
            for rc, n in alloc["resources"].items():
                inventories[rc][1] += sign * n
                if rc == RAM:
                    self.ram_used += sign * n


def _latency(times: list[float]) -> dict:
    if not times:
        return {"count": 0, "median_ms": None, "p90_ms": None}
    p90 = (statistics.quantiles(times, n=10, method="inclusive")[-1] if len(times) > 1
           else times[0])
    return {"count": len(times), "median_ms": round(statistics.median(times), 2),
            "p90_ms": round(p90, 2)}


# -- one order on its own server ------------------------------------------------------

def order_known() -> bool:
    """Whether this Placer has ``[placer] candidate_order`` (spread and pack
    are served in id order by one that does not)."""
    return any(opt.name == "candidate_order" for opt in placer_conf.GROUPS["placer"])


def server_settings(order: str, pool: float | None = None, weights: str | None = None) -> dict:
    """Server keywords for an order: Placer's ``[placer] candidate_order``
    (and ``randomize_allocation_candidates`` for random, which is what the
    option's random means), the reference's randomize option."""
    if order in REFERENCE_ORDERS:
        return {"randomize": order == "reference-random"}
    if order not in ORDERS:
        raise ValueError(f"unknown order {order!r}")
    if order == NO_LIMIT:
        order = "id"
    placer = {"candidate_order": order}
    if pool is not None and order in ("spread", "pack"):
        placer["candidate_order_pool"] = pool
    if weights and order in ("spread", "pack"):
        placer["candidate_order_weights"] = weights
    return {"randomize": order == "random", "placer": placer}


def run(order: str, shape: str, hosts: int, limit: int, seed: int = 0, schedulers: int = 4,
        max_boots: int = 6000, workers: int = 1, reference: str | None = None,
        pool: float | None = None, weights: str | None = None,
        kind: str = "identical") -> dict:
    """Load the cloud on a fresh server for ``order`` and fill it."""
    scenario = cloud(hosts, shape, seed, kind)
    settings = server_settings(order, pool, weights)
    with databases.ThrowAwayDatabase("sqlite") as url:
        venv = None
        if order in REFERENCE_ORDERS:
            venv = reference
            engine = db_engine.create_engine(url)
            try:  # the reference serves a database made by Placer's migrations
                scale.prepare(engine)
            finally:
                engine.dispose()
        with Server(workers, connection=url, reference=venv, **settings) as server:
            client = loader.Client(server.url)
            started = time.perf_counter()
            loader.load(client, scenario, threads=1)  # ids in the hosts' order
            loaded = time.perf_counter() - started
            result = Fill(client, scenario, None if order == NO_LIMIT else limit, seed,
                          schedulers, max_boots).play()
    return {"order": order, "server": "reference" if venv else "placer", "shape": shape,
            "cloud": kind, "config": settings, "load_seconds": round(loaded, 1), **result}


# -- what the orders should show -----------------------------------------------------

def checks(results: list[dict]) -> list[dict]:
    """PASS/MISS per shape: spread evens the RAM use out (a third of
    random's standard deviation at most), pack keeps hosts empty and able to
    take the largest flavor (more than id), and neither pays for it with
    more claim conflicts than random. A check whose orders did not run is
    left out."""
    out = []
    for (cloud_, shape), rows in groups(results).items():
        by = {r["order"]: r for r in rows}
        out += [{"shape": shape, "cloud": cloud_, "check": name,
                 "result": "PASS" if passed else "MISS", "detail": detail}
                for name, passed, detail in _checks(by)]
    return out


def groups(results: list[dict]) -> dict[tuple[str, str], list[dict]]:
    """(cloud, shape) -> its results, in order (a result from before there
    were other clouds filled identical hosts)."""
    out: dict[tuple[str, str], list[dict]] = {}
    for r in results:
        out.setdefault((r.get("cloud", "identical"), r["shape"]), []).append(r)
    return out


def _checks(by: dict[str, dict]):
    """(name, passed, detail) of each check whose orders are in ``by``."""
    half = {order: r["half"] for order, r in by.items()}
    if {"spread", "random"} <= by.keys():
        spread, rand = half["spread"]["std_ram_use"], half["random"]["std_ram_use"]
        alone = (f"; Nova's weigher on every host: {half[NO_LIMIT]['std_ram_use']:.3f}"
                 if NO_LIMIT in half else "")
        yield ("spread: std dev of RAM use at most a third of random's", spread <= rand / 3,
               f"spread {spread:.3f}, random {rand:.3f}{alone}")
    if {"pack", "id"} <= by.keys():
        pack, id_ = half["pack"], half["id"]
        most = pack.get("empty_most")
        yield ("pack: more empty hosts and more hosts fitting the largest flavor than id",
               pack["empty_hosts"] > id_["empty_hosts"]
               and pack["hosts_fitting_largest"] > id_["hosts_fitting_largest"],
               f"empty {pack['empty_hosts']} vs {id_['empty_hosts']}"
               + (f" (at most {most} could be)" if most is not None else "")
               + f", fitting {pack['hosts_fitting_largest']} vs "
               f"{id_['hosts_fitting_largest']}")
    for order in ("spread", "pack"):
        if {order, "random"} <= by.keys():
            mine = by[order]["conflicts_per_placed"] or 0
            rand = by["random"]["conflicts_per_placed"] or 0
            yield (f"{order}: conflicts per placed instance at most random's", mine <= rand,
                   f"{order} {mine:.3f}, random {rand:.3f}")


COLUMNS = ("order", "std dev RAM use", "fullest host", "empty hosts", "fit largest",
           "placed before failure", "RAM used at failure", "failed boot", "conflicts/placed",
           "candidates ms", "claim ms", "delete ms")


def markdown(results: list[dict]) -> str:
    """One table per shape; latencies are median / p90."""
    lines = []
    for (cloud_, shape), rows in groups(results).items():
        if lines:
            lines.append("")
        lines += [f"fill, {shape}, {cloud_} hosts:", "", "| " + " | ".join(COLUMNS) + " |",
                  "|" + "---|" * len(COLUMNS)]
        lines += ["| " + " | ".join(row_cells(r)) + " |" for r in rows]
    return "\n".join(lines)


def row_cells(r: dict) -> list[str]:
    half, failure = r["half"], r["first_failure"]
    lat = r["latency"]
    return [r["order"], f"{half['std_ram_use']:.3f}", f"{half['max_ram_use']:.0%}",
            str(half["empty_hosts"]), str(half["hosts_fitting_largest"]),
            str(failure["placed"]) if failure else f"none in {r['boots']} boots",
            f"{failure['ram_used_fraction']:.0%}" if failure else "",
            f"{failure['flavor']}: {failure['reason']}" if failure else "",
            "" if r["conflicts_per_placed"] is None else f"{r['conflicts_per_placed']:.3f}",
            *(_ms(lat[k]) for k in ("candidates", "claim", "delete"))]


def _ms(latency: dict) -> str:
    if latency["median_ms"] is None:
        return ""
    return f"{latency['median_ms']:.1f} / {latency['p90_ms']:.1f}"

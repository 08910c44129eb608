"""Nova's scheduler filling a cloud, for each candidate order (the results
page tells how): each order gets a fresh server and database with the
same cloud (data.toml's hosts; nested: the root holds the disk, two NUMA
children half of the VCPU and MEMORY_MB each) and the same seeded stream
of boots and deletes, drawn by ``schedulers`` threads.
"""

import json
import random
import statistics
import threading
import time
import urllib.parse
from dataclasses import dataclass, field

from benchmarks.harness import machine
from benchmarks.harness.client import Client, HTTPError
from benchmarks.harness.databases import ThrowAwayDatabase, engine_at, prepare
from benchmarks.harness.servers import Server
from benchmarks.scenarios import DATA, Requests, in_threads, progress, seeded_uuid, shapes
from benchmarks.scenarios.fixed import THREADS, Provider, Scenario, load, read_providers
from placer.model import inventory

D = DATA["fill"]
RAM = "MEMORY_MB"
NO_LIMIT = "no-limit"  # the id order, every candidate: Nova's weigher alone
FLAVORS = D["flavors"]
LARGEST = max(FLAVORS, key=lambda f: f["ram_mb"])


def resources(flavor: dict) -> dict[str, int]:
    return {"VCPU": flavor["vcpus"], RAM: flavor["ram_mb"], "DISK_GB": flavor["disk_gb"]}


def inventories(cores: int, ram_gib: int, disk_gb: int) -> dict[str, dict]:
    """A host's ("flat"), and each of its two NUMA nodes' when nested: VCPU
    at allocation ratio 4.0 (Nova's initial), RAM with 4 GiB reserved (2 GiB
    per node); nested, the disk is the root's."""
    return {"flat": {"VCPU": {"total": cores, "allocation_ratio": 4.0},
                     RAM: {"total": ram_gib * 1024, "reserved": 4096},
                     "DISK_GB": {"total": disk_gb}},
            "numa_node": {"VCPU": {"total": cores // 2, "allocation_ratio": 4.0},
                          RAM: {"total": ram_gib * 512, "reserved": 2048}}}


def cloud(hosts: int, shape: str, seed: int = 0, kind: str = "identical") -> Scenario:
    """The hosts, with uuids from the seed: the same cloud for every order."""
    generations, rng = D["clouds"][kind], random.Random(f"fill cloud {seed}")
    providers = []
    for i in range(hosts):
        host = inventories(*generations[i * len(generations) // hosts])
        root = Provider(f"fill-host-{i:04d}", uuid=seeded_uuid(rng), inventories=host["flat"]
                        if shape == "flat" else {"DISK_GB": host["flat"]["DISK_GB"]})
        providers += [root] + [
            Provider(f"{root.name}-numa{n}", parent=root.uuid, uuid=seeded_uuid(rng),
                     inventories=host["numa_node"]) for n in range(2 if shape == "nested" else 0)]
    return Scenario(f"fill {shape} {kind}", providers, {}, [])


def capacity(inv: dict) -> int:
    return inventory.capacity(inv["total"], inv.get("reserved", 0),
                              inv.get("allocation_ratio", 1.0))


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

    def fits(self, flavor: dict) -> bool:
        """Each class from one provider of the tree, as the unsuffixed group
        is satisfied on a nested tree."""
        return all(any(rc in inv and inv[rc][0] - inv[rc][1] >= amount
                       for inv in self.providers.values())
                   for rc, amount in resources(flavor).items())


def hosts_of(scenario: Scenario) -> dict[str, Host]:
    """The cloud as loaded (a root and its children per tree): nothing used."""
    return _hosts((p.uuid, p.parent or p.uuid, p.inventories, {}) for p in scenario.providers)


def read_hosts(client) -> dict[str, Host]:
    """Every provider's inventories and usages, as the API tells them."""
    return _hosts((p["uuid"], p["root_provider_uuid"], inventories, usages)
                  for p, inventories, usages in read_providers(client, THREADS))


def _hosts(providers) -> dict[str, Host]:
    """Of (provider, its root, its inventories, its usages)."""
    hosts: dict[str, Host] = {}
    for rp, root, inventories, usages in providers:
        hosts.setdefault(root, Host(root)).providers[rp] = {
            rc: [capacity(inv), usages.get(rc, 0)] for rc, inv in inventories.items()}
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
    those left when the largest hosts hold it all."""
    capacities = sorted((h.total(RAM, 0) for h in hosts), reverse=True)
    needed = 0
    while used > 0 and needed < len(capacities):
        used -= capacities[needed]
        needed += 1
    return len(capacities) - needed


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


def candidates_path(flavor: dict, limit: int | None) -> str:
    query = {"resources": ",".join(f"{rc}:{n}" for rc, n in resources(flavor).items())}
    return "/allocation_candidates?" + urllib.parse.urlencode(
        query if limit is None else {**query, "limit": str(limit)})


class Fill:
    """One order's run: the schedulers, the stream they share, what happened.
    Usage is tracked from the claims and deletes that succeeded (the only
    writers are ours), which decides the phases; the snapshot is read from
    the API and compared with it."""

    def __init__(self, client, scenario: Scenario, limit: int | None, seed: int = 0,
                 schedulers: int = 4, max_boots: int = 6000):
        self.sent, self.limit, self.schedulers = Requests(client), limit, schedulers
        self.max_boots = max_boots
        self.rng = random.Random(f"fill stream {seed}")
        self.owner = {"project_id": seeded_uuid(self.rng), "user_id": seeded_uuid(self.rng)}
        self.hosts = hosts_of(scenario)
        self.capacity_of = {rp: inv for h in self.hosts.values()
                            for rp, inv in h.providers.items()}
        self.ram_capacity = sum(h.total(RAM, 0) for h in self.hosts.values())
        self.lock = threading.Lock()
        self.live: list[tuple[str, dict]] = []  # (consumer, allocations)
        self.boots = self.placed = self.failures = 0
        self.candidates = 0  # allocation requests returned, summed over boots
        self.first_failure: dict | None = None

    @property
    def ram_used(self) -> int:
        return sum(h.total(RAM, 1) for h in self.hosts.values())

    def play(self) -> dict:
        started = time.perf_counter()
        self._phase(lambda: self.ram_used >= D["half"] * self.ram_capacity
                    or self.boots >= self.max_boots)
        read = read_hosts(self.sent.client)
        # nothing is in flight: the API must tell the usage the claims and deletes made
        half = {"boots": self.boots, "placed": self.placed, "live": len(self.live),
                "usages_match": read == self.hosts, **snapshot(read)}
        self._phase(lambda: self.first_failure is not None or self.boots >= self.max_boots)
        latency = {kind: self.sent.latency(kind) for kind in ("candidates", "claim", "delete")}
        conflicts = self.sent.tally("claim")["conflicts"]
        return {
            "half": half, "first_failure": self.first_failure,
            "stopped": "first failure" if self.first_failure else "max boots",
            "boots": self.boots, "placed": self.placed, "deletes": latency["delete"]["count"],
            "failures": self.failures, "conflicts": conflicts,
            "conflicts_per_placed": round(conflicts / self.placed, 4) if self.placed else None,
            "candidates_per_boot": round(self.candidates / self.boots, 1) if self.boots else None,
            "end_ram_used_fraction": round(self.ram_used / self.ram_capacity, 4),
            "latency": latency,
            "seconds": round(time.perf_counter() - started, 1)}

    def _phase(self, done) -> None:
        in_threads(self.schedulers, lambda _: self._schedule(done))

    def _schedule(self, done) -> None:
        while True:
            with self.lock:
                if done():
                    return
                if self.live and self.rng.random() < D["delete_fraction"]:
                    i = self.rng.randrange(len(self.live))
                    self.live[i], self.live[-1] = self.live[-1], self.live[i]
                    step = ("delete", self.live.pop())
                else:
                    self.boots += 1
                    flavor = self.rng.choices(FLAVORS, [f["weight"] for f in FLAVORS])[0]
                    step = ("boot", (flavor, seeded_uuid(self.rng)))
            (self._delete if step[0] == "delete" else self._boot)(*step[1])

    def _request(self, kind: str, method: str, path: str, body=None) -> tuple[int, bytes]:
        status, payload = self.sent.send(kind, method, path, body, version=D["version"])
        if not (200 <= status < 300 or (kind == "claim" and status == 409)):
            raise HTTPError(f"{method} {path}: {status} {payload[:500].decode(errors='replace')}")
        return status, payload

    def _boot(self, flavor: dict, consumer: str) -> None:
        _, payload = self._request("candidates", "GET", candidates_path(flavor, self.limit))
        ranked = weigh(json.loads(payload))
        with self.lock:
            self.candidates += len(ranked)
        for request in ranked:
            status, _ = self._request("claim", "PUT", f"/allocations/{consumer}", {
                "allocations": request["allocations"], "consumer_generation": None,
                **self.owner})
            if status == 409:
                continue
            with self.lock:
                self._use(request["allocations"], 1)
                self.live.append((consumer, request["allocations"]))
                self.placed += 1
                return
        with self.lock:
            self.failures += 1
            self._failed(flavor, "conflicts" if ranked else "no candidates")

    def _failed(self, flavor: dict, reason: str) -> None:
        if self.first_failure is not None:
            return
        if any(sum(h.total(rc, 0) - h.total(rc, 1) for h in self.hosts.values()) < n
               for rc, n in resources(flavor).items()):
            return  # the cloud is full for this flavor: not a failure of the order
        self.first_failure = {
            "flavor": flavor["name"], "reason": reason, "boots": self.boots,
            "placed": self.placed, "live": len(self.live),
            "ram_used_fraction": round(self.ram_used / self.ram_capacity, 4),
            # by the tracked usage: False when no host had the room either
            "a_host_fits": any(h.fits(flavor) for h in self.hosts.values())}

    def _delete(self, consumer: str, allocations: dict) -> None:
        self._request("delete", "DELETE", f"/allocations/{consumer}")
        with self.lock:
            self._use(allocations, -1)

    def _use(self, allocations: dict, sign: int) -> None:
        for rp, alloc in allocations.items():
            for rc, n in alloc["resources"].items():
                self.capacity_of[rp][rc][1] += sign * n


def server_settings(order: str) -> dict:
    """Server keywords for an order (Placer's random is also randomized)."""
    if order in D["reference_orders"]:
        return {"placement": {"randomize_allocation_candidates": order == "reference-random"}}
    if order not in D["orders"]:
        raise ValueError(f"unknown order {order!r}")
    order = "id" if order == NO_LIMIT else order
    return {"placement": {"randomize_allocation_candidates": order == "random"},
            "placer": {"candidate_order": order}}


def run_order(order: str, shape: str, hosts: int, limit: int, seed: int = 0,
              schedulers: int = 4, max_boots: int = 6000, workers: int = 1,
              reference: str | None = None, kind: str = "identical") -> dict:
    """Load the cloud on a fresh server for ``order`` and fill it."""
    scenario = cloud(hosts, shape, seed, kind)
    settings = server_settings(order)
    venv = reference if order in D["reference_orders"] else None
    with ThrowAwayDatabase("sqlite") as url:
        if venv:  # the reference serves a database made by Placer's migrations
            with engine_at(url) as engine:
                prepare(engine)
        with Server(workers, connection=url, reference=venv, **settings) as server:
            client = Client(server.url)
            started = time.perf_counter()
            load(client, scenario, threads=1)  # ids in the hosts' order
            loaded = time.perf_counter() - started
            result = Fill(client, scenario, None if order == NO_LIMIT else limit, seed,
                          schedulers, max_boots).play()
    progress(f"fill {shape} {order}: {result['seconds']} s")
    return {"order": order, "server": "reference" if venv else "placer", "shape": shape,
            "cloud": kind, "config": settings, "load_seconds": round(loaded, 1), **result}


def checks(results: list[dict]) -> list[dict]:
    """PASS/MISS per shape and cloud, of the orders that ran."""
    groups: dict[tuple[str, str], dict[str, dict]] = {}
    for r in results:
        groups.setdefault((r.get("cloud", "identical"), r["shape"]), {})[r["order"]] = r
    out = []
    for (kind, shape), by in groups.items():
        half = {order: r["half"] for order, r in by.items()}
        found = []
        if {"spread", "random"} <= by.keys():
            spread, rand = half["spread"]["std_ram_use"], half["random"]["std_ram_use"]
            alone = (f"; Nova's weigher on every host: {half[NO_LIMIT]['std_ram_use']:.3f}"
                     if NO_LIMIT in half else "")
            found.append(("spread: std dev of RAM use at most a third of random's",
                          spread <= rand / 3, f"spread {spread:.3f}, random {rand:.3f}{alone}"))
        if {"pack", "id"} <= by.keys():
            (pack_empty, pack_fit), (id_empty, id_fit) = (
                (half[o]["empty_hosts"], half[o]["hosts_fitting_largest"]) for o in ("pack", "id"))
            most = half["pack"].get("empty_most")
            found.append((
                "pack: more empty hosts and more hosts fitting the largest flavor than id",
                pack_empty > id_empty and pack_fit > id_fit, f"empty {pack_empty} vs {id_empty}"
                + (f" (at most {most} could be)" if most is not None else "")
                + f", fitting {pack_fit} vs {id_fit}"))
        for order in ("spread", "pack"):
            if {order, "random"} <= by.keys():
                mine, rand = (by[o]["conflicts_per_placed"] or 0 for o in (order, "random"))
                found.append((f"{order}: conflicts per placed instance at most random's",
                              mine <= rand, f"{order} {mine:.3f}, random {rand:.3f}"))
        out += [{"shape": shape, "cloud": kind, "check": name,
                 "result": "PASS" if passed else "MISS", "detail": detail}
                for name, passed, detail in found]
    return out


def run(args, argv: list[str]) -> dict:
    orders = args.orders + (D["reference_orders"] if args.reference else [])
    boots = D["boots_per_host"] * args.hosts
    data = machine.header(
        args, argv, "hosts", "limit", "seed", "schedulers", "cloud", "workers",
        version=D["version"], shapes=list(shapes(args.shape)), orders=orders, max_boots=boots,
        delete_fraction=D["delete_fraction"], half=D["half"], flavors=FLAVORS,
        largest=LARGEST["name"], generations=[inventories(*g) for g in D["clouds"][args.cloud]],
        host=inventories(*D["clouds"]["identical"][0]))
    data["results"] = [run_order(order, shape, args.hosts, args.limit, args.seed,
                                 args.schedulers, boots, args.workers, args.reference, args.cloud)
                       for shape in data["shapes"] for order in orders]
    return machine.finished(data, checks=checks(data["results"]))

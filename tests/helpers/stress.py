"""The machinery of the concurrent allocation stress tests (a real placement-api,
writer threads with their ledgers, a monitor, and the final checks), shared by
tests/stress/test_concurrent_allocations.py and tests/stress/test_galera.py."""

import contextlib
import dataclasses
import http.client
import json
import os
import random
import re
import subprocess
import sys
import threading
import time
import traceback
import uuid
from collections import Counter

import pytest
import sqlalchemy as sa

from placer.db import engine as db_engine
from placer.db import schema_migrations, sync
from placer.db import tables as t
from tests.helpers.databases import ThrowAwayDatabase
from tests.helpers.processes import stop_process

VERSION = "1.38"
# Small providers, so writers run out of room and collide.
INVENTORIES = [
    {"VCPU": {"total": 16, "max_unit": 3},
     "MEMORY_MB": {"total": 2048, "max_unit": 512, "step_size": 128}},
    {"VCPU": {"total": 8, "reserved": 1, "allocation_ratio": 2.0, "max_unit": 3},
     "MEMORY_MB": {"total": 2048, "reserved": 256, "max_unit": 512, "step_size": 128}},
    {"VCPU": {"total": 12, "max_unit": 3},
     "MEMORY_MB": {"total": 1536, "max_unit": 512, "step_size": 128}},
]
WORKERS = 3
CLIENTS = 16
OWNED = 3  # consumers each client alone writes
SHARED = 4  # consumers every client writes
BURST_EVERY = 2  # every so many steps, all clients write the same target at once
STEPS = int(os.environ.get("PLACER_STRESS_STEPS", "30"))  # operations per client
TIME_LIMIT = 90.0  # seconds: a safety stop for slow machines, not an assertion
RETRIES = 50  # [placement] allocation_conflict_retry_count

Allocations = dict[str, dict[str, int]]  # provider uuid -> class -> amount


def capacity(spec: dict) -> float:
    return (spec["total"] - spec.get("reserved", 0)) * spec.get("allocation_ratio", 1.0)


# --- the server -------------------------------------------------------------------------

class Server:
    """placement-api in its own process group, on a loopback port the OS picks."""

    LISTENING = re.compile(r"Listening at: http://127\.0\.0\.1:(\d+)")

    def __init__(self, url: str, tmp_path, database_options: str = "", workers: int = WORKERS):
        conf = tmp_path / "placement.conf"
        conf.write_text("[api]\nauth_strategy = noauth2\n"
                        f"[placement]\nallocation_conflict_retry_count = {RETRIES}\n"
                        f"[placement_database]\nconnection = {url}\n{database_options}")
        self.port: int | None = None
        self.log_path = tmp_path / "placement-api.log"
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "placer.cli.api", "--config-file", str(conf),
                 "--bind", "127.0.0.1:0", "--workers", str(workers)],
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)

    def wait_ready(self, timeout: float = 60.0) -> None:
        """Until gunicorn has said which port it got and GET / answers there."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                pytest.fail(f"placement-api exited with {self.proc.returncode}:\n"
                            f"{self.log_excerpt()}")
            if self.port is None:
                found = self.LISTENING.search(self.log_path.read_text(errors="replace"))
                self.port = int(found.group(1)) if found else None
            if self.port is not None and self._answers():
                return
            time.sleep(0.1)
        pytest.fail(f"placement-api did not answer GET / in {timeout}s:\n{self.log_excerpt()}")

    def _answers(self) -> bool:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=5)
        try:
            conn.request("GET", "/")
            return conn.getresponse().status == 200
        except OSError:
            return False
        finally:
            conn.close()

    def stop(self) -> None:
        stop_process(self.proc)

    def log_excerpt(self, lines: int = 120) -> str:
        """The log without the one-line-per-request noise: errors and tracebacks."""
        text = self.log_path.read_text(errors="replace").splitlines()
        return "\n".join([line for line in text if "placement.requestlog" not in line][-lines:])


# --- the client side --------------------------------------------------------------------

@dataclasses.dataclass
class Response:
    status: int
    body: dict | None
    text: str

    def error(self) -> dict:
        return (self.body or {}).get("errors", [{}])[0]


class Stats:
    """What every thread saw, behind one lock."""

    def __init__(self):
        self._lock = threading.Lock()
        self.statuses: Counter = Counter()  # (method, status) -> count
        self.outcomes: Counter = Counter()  # acked, claims, refused_capacity, ...
        self.server_errors: list[str] = []
        self.anomalies: list[str] = []

    def response(self, method: str, path: str, body, result: Response) -> None:
        with self._lock:
            self.statuses[(method, result.status)] += 1
            if result.status >= 500:
                self.server_errors.append(f"{method} {path} -> {result.status}\n"
                                          f"  request: {json.dumps(body)}\n"
                                          f"  response: {result.text}")

    def count(self, outcome: str) -> None:
        with self._lock:
            self.outcomes[outcome] += 1

    def anomaly(self, message: str) -> None:
        with self._lock:
            self.anomalies.append(message)


class Client:
    """Placement requests on loopback; a connection per request, since gunicorn's
    sync workers close theirs after every response."""

    HEADERS = {"X-Auth-Token": "admin", "OpenStack-API-Version": f"placement {VERSION}",
               "Accept": "application/json", "Connection": "close"}

    def __init__(self, port: int, stats: Stats):
        self.port, self.stats = port, stats

    def call(self, method: str, path: str, body=None) -> Response:
        headers = dict(self.HEADERS)
        data = None
        if body is not None:
            headers["Content-Type"] = "application/json"
            data = json.dumps(body)
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            conn.request(method, path, data, headers)
            raw = conn.getresponse()
            status, text = raw.status, raw.read().decode()
        finally:
            conn.close()
        try:
            parsed = json.loads(text) if text else None
        except ValueError:
            parsed = None
        result = Response(status, parsed, text)
        self.stats.response(method, path, body, result)
        return result

    def consumer(self, consumer: str) -> tuple[Allocations, int | None]:
        """A consumer's allocations and generation, as the API shows them."""
        r = self.call("GET", f"/allocations/{consumer}")
        assert r.status == 200, r.text
        allocs = {rp: entry["resources"] for rp, entry in r.body["allocations"].items()}
        return allocs, r.body.get("consumer_generation")


# --- bookkeeping ------------------------------------------------------------------------

@dataclasses.dataclass
class Owned:
    """A consumer only one thread writes: its last acknowledged state."""

    uuid: str
    allocations: Allocations = dataclasses.field(default_factory=dict)
    generation: int | None = None  # None: no consumer record (nothing allocated)


class SharedLedger:
    """Acknowledged writes to consumers several clients write (the shared pool, and
    the new ones they race to create), as (generation sent, allocations)."""

    def __init__(self, count: int):
        self.uuids = [str(uuid.uuid4()) for _ in range(count)]
        self._acks: dict[str, list] = {u: [] for u in self.uuids}
        self._racers: dict[int, str] = {}
        self._lock = threading.Lock()

    def racer(self, step: int) -> str:
        """The new consumer every client tries to create at ``step``."""
        with self._lock:
            consumer = self._racers.setdefault(step, str(uuid.uuid4()))
            self._acks.setdefault(consumer, [])
            return consumer

    def consumers(self) -> list[str]:
        with self._lock:
            return list(self._acks)

    def acknowledge(self, consumer: str, sent: int | None, allocations: Allocations) -> None:
        with self._lock:
            self._acks[consumer].append((sent, allocations))

    def expected(self, consumer: str) -> tuple[Allocations, int | None, list[str]]:
        """Final allocations and generation, and any break in the generation chain:
        the first acknowledged write sent null, each later one the previous + 1."""
        acks = sorted(self._acks[consumer], key=lambda a: a[0] or 0)
        sent = [a[0] for a in acks]
        chain = [None, *range(1, len(acks))][:len(acks)]
        problems = [] if sent == chain else [
            f"shared consumer {consumer}: acknowledged generations {sent}, expected {chain}"]
        if not acks:
            return {}, None, problems
        return acks[-1][1], len(acks), problems


def next_generation(sent: int | None, allocations: Allocations) -> int | None:
    """The consumer generation after an acknowledged write (emptied: no consumer)."""
    return (sent or 0) + 1 if allocations else None


class Writer:
    """One client thread: claims, moves and releases with its own consumers, and
    writes the shared ones with whatever generation it last saw. Every few steps
    it joins the other writers in a burst on one target (see ``burst``)."""

    def __init__(self, index: int, client: Client, capacities: dict[str, dict[str, float]],
                 ledger: SharedLedger, seed: int, deadline: float, start_line: threading.Barrier):
        self.index, self.client, self.ledger = index, client, ledger
        self.capacities, self.providers = capacities, list(capacities)
        self.start_line = start_line
        self.stats = client.stats
        self.rng = random.Random(seed + index)
        self.deadline = deadline
        self.owned = [Owned(str(uuid.uuid4())) for _ in range(OWNED)]
        self.seen: dict[str, int | None] = {}  # shared consumer -> generation last seen
        self.step = 0
        self.error: str | None = None

    def run(self) -> None:
        try:
            for self.step in range(STEPS):
                if time.monotonic() > self.deadline:
                    break
                roll = self.rng.random()
                if self.step % BURST_EVERY == BURST_EVERY - 1:
                    self.burst(self.step // BURST_EVERY)
                elif roll < 0.45:
                    self.write_own()
                elif roll < 0.65:
                    self.write_many()
                elif roll < 0.9:
                    self.write_shared()
                else:
                    self.read_own(self.rng.choice(self.owned))
        except Exception:  # reported by the test after join
            self.error = f"writer {self.index}: {traceback.format_exc()}"
        finally:
            self.start_line.abort()  # nobody waits for a writer that stopped early

    def allocations(self, small: bool = False) -> Allocations:
        count = 1 if small or self.rng.random() < 0.7 else 2
        result = {}
        for rp in self.rng.sample(self.providers, count):
            resources = {"VCPU": 1 if small else self.rng.randint(1, 3)}
            if self.rng.random() < 0.4:
                resources["MEMORY_MB"] = self.rng.choice((128, 256))
            result[rp] = resources
        return result

    def body(self, allocations: Allocations, generation: int | None) -> dict:
        # Projects change every few steps, so threads race to create the same one.
        return {"allocations": {rp: {"resources": res} for rp, res in allocations.items()},
                "project_id": f"project-{self.step // 5}", "user_id": f"user-{self.index % 3}",
                "consumer_generation": generation,
                "consumer_type": self.rng.choice(("INSTANCE", "MIGRATION"))}

    def write_own(self) -> None:
        """Claim or move (PUT), or release (DELETE, or PUT {})."""
        consumer = self.rng.choice(self.owned)
        release = bool(consumer.allocations) and self.rng.random() < 0.5
        if release and self.rng.random() < 0.5:
            r = self.client.call("DELETE", f"/allocations/{consumer.uuid}")
            self.settle(r, [(consumer, {})], [])
            return
        wanted = {} if release else self.allocations()
        r = self.client.call("PUT", f"/allocations/{consumer.uuid}",
                             self.body(wanted, consumer.generation))
        self.settle(r, [(consumer, wanted)], [])

    def write_many(self) -> None:
        """POST /allocations: two own consumers, and sometimes a shared one, at once."""
        own = [(c, {} if c.allocations and self.rng.random() < 0.3 else self.allocations())
               for c in self.rng.sample(self.owned, 2)]
        shared = []
        if self.rng.random() < 0.5:
            consumer = self.rng.choice(self.ledger.uuids)
            shared.append((consumer, self.seen.get(consumer), self.allocations(small=True)))
        body = {c.uuid: self.body(wanted, c.generation) for c, wanted in own}
        body.update({c: self.body(wanted, sent) for c, sent, wanted in shared})
        self.settle(self.client.call("POST", "/allocations", body), own, shared)

    def write_shared(self) -> None:
        consumer = self.rng.choice(self.ledger.uuids)
        sent, wanted = self.seen.get(consumer), self.allocations(small=True)
        r = self.client.call("PUT", f"/allocations/{consumer}", self.body(wanted, sent))
        self.settle(r, [], [(consumer, sent, wanted)])

    def burst(self, n: int) -> None:
        """All writers at once, so several workers hold transactions on one target:
        - create: PUT the same new consumer with generation null: one may win;
        - overwrite: PUT a shared consumer with the generation all just read: one may win;
        - fill: own consumers onto one provider: it must not end up oversubscribed."""
        kind = ("fill", "create", "fill", "overwrite")[n % 4]
        provider = self.providers[n // 2 % len(self.providers)]
        if kind == "fill":
            own = self.rng.choice(self.owned)
            target, sent = own.uuid, own.generation
            wanted = {provider: {"VCPU": self.rng.randint(1, 3)}}
            booking = ([(own, wanted)], [])
        else:
            if kind == "create":
                target, sent = self.ledger.racer(self.step), None
            else:
                target = self.ledger.uuids[n // 4 % SHARED]
                sent = self.client.consumer(target)[1]
            wanted = self.allocations(small=True)
            booking = ([], [(target, sent, wanted)])
        self.together()
        r = self.client.call("PUT", f"/allocations/{target}", self.body(wanted, sent))
        self.settle(r, *booking)
        self.together()
        if kind == "fill" and self.index == 0:
            r = self.client.call("GET", f"/resource_providers/{provider}/usages")
            for rc, used in r.body["usages"].items():
                if used > self.capacities[provider][rc]:
                    self.stats.anomaly(f"fill burst left provider {provider} {rc} at {used} > "
                                       f"capacity {self.capacities[provider][rc]}")

    def together(self) -> None:
        try:
            self.start_line.wait(timeout=60)
        except threading.BrokenBarrierError:
            pass  # a writer stopped early: carry on unsynchronised

    def read_own(self, consumer: Owned) -> None:
        """Read-your-writes: the API shows this thread's last acknowledged write."""
        allocs, generation = self.client.consumer(consumer.uuid)
        if (allocs, generation) != (consumer.allocations, consumer.generation):
            self.stats.anomaly(f"consumer {consumer.uuid} reads {allocs} generation "
                               f"{generation}; last acknowledged {consumer.allocations} "
                               f"generation {consumer.generation}")
            consumer.allocations, consumer.generation = allocs, generation  # carry on

    def settle(self, r: Response, own: list, shared: list) -> None:
        """Book an answer: 204 applies the write, 409 is a refusal, anything else is wrong."""
        if r.status == 204:
            for consumer, wanted in own:
                consumer.generation = next_generation(consumer.generation, wanted)
                consumer.allocations = wanted
            for consumer, sent, wanted in shared:
                self.ledger.acknowledge(consumer, sent, wanted)
                self.seen[consumer] = next_generation(sent, wanted)
            self.stats.count("acknowledged")
            if any(w for _, w in own) or shared:
                self.stats.count("claims")
            return
        error = r.error()
        if r.status == 409 and error.get("code") == "placement.concurrent_update":
            self.stats.count("refused_generation")
            if not shared:  # nobody else writes these: out of step, or retries exhausted
                self.stats.anomaly(f"concurrent_update on own consumers only: {r.text}")
            # A refused write changed nothing; re-read generations, as a real client must.
            for consumer, _ in own:
                self.read_own(consumer)
            for consumer, _, _ in shared:
                self.seen[consumer] = self.client.consumer(consumer)[1]
        elif r.status == 409 and "would exceed the capacity" in error.get("detail", ""):
            self.stats.count("refused_capacity")
        elif r.status < 500:  # 5xx are already on the stats' list
            self.stats.anomaly(f"unexpected {r.status}: {r.text}")


class Monitor:
    """Samples every provider while the writers run: generations never go back,
    usage never exceeds capacity."""

    def __init__(self, client: Client, capacities: dict[str, dict[str, float]]):
        self.client, self.capacities = client, capacities
        self.highest = {rp: 0 for rp in capacities}
        self.samples = 0
        self.done = threading.Event()
        self.error: str | None = None

    def run(self) -> None:
        try:
            while not self.done.is_set():
                for rp in self.capacities:
                    self.sample(rp)
        except Exception:
            self.error = f"monitor: {traceback.format_exc()}"

    def sample(self, rp: str) -> None:
        r = self.client.call("GET", f"/resource_providers/{rp}/allocations")
        if r.status != 200:
            self.client.stats.anomaly(f"monitor got {r.status}: {r.text}")
            return
        generation = r.body["resource_provider_generation"]
        if generation < self.highest[rp]:
            self.client.stats.anomaly(f"provider {rp} generation went from "
                                      f"{self.highest[rp]} back to {generation}")
        self.highest[rp] = max(self.highest[rp], generation)
        used: Counter = Counter()
        for entry in r.body["allocations"].values():
            used.update(entry["resources"])
        for rc, amount in used.items():
            if amount > self.capacities[rp][rc]:
                self.client.stats.anomaly(f"provider {rp} {rc} used {amount} > capacity "
                                          f"{self.capacities[rp][rc]} (generation {generation})")
        self.samples += 1


# --- final checks -----------------------------------------------------------------------

def expected_state(writers: list[Writer], ledger: SharedLedger):
    """consumer -> (allocations, generation) the acknowledged writes left, and any
    broken generation chain of a shared consumer."""
    expected, problems = {}, []
    for writer in writers:
        for c in writer.owned:
            expected[c.uuid] = (c.allocations, c.generation)
    for consumer in ledger.consumers():
        allocs, generation, broken = ledger.expected(consumer)
        expected[consumer] = (allocs, generation)
        problems += broken
    return expected, problems


def api_problems(client: Client, expected: dict, monitor: Monitor) -> list[str]:
    problems = []
    for consumer, want in expected.items():
        got = client.consumer(consumer)
        if got != want:
            problems.append(f"API: consumer {consumer} has {got}, acknowledged {want}")
    for rp, caps in monitor.capacities.items():
        r = client.call("GET", f"/resource_providers/{rp}/usages")
        for rc, used in r.body["usages"].items():
            if used > caps[rc]:
                problems.append(f"API: provider {rp} {rc} usage {used} > capacity {caps[rc]}")
        if r.body["resource_provider_generation"] < monitor.highest[rp]:
            problems.append(f"API: provider {rp} generation went back")
    return problems


def table_problems(engine: sa.Engine, expected: dict, monitor: Monitor) -> list[str]:
    """The same invariants straight from the tables, plus what only SQL can see:
    duplicate rows, orphan allocations, consumers left without allocations."""
    rp, rc, a = t.resource_providers, t.resource_classes, t.allocations
    with engine.connect() as conn:
        rows = conn.execute(
            sa.select(a.c.consumer_id, rp.c.uuid, rc.c.name, a.c.used)
            .select_from(a.join(rp, a.c.resource_provider_id == rp.c.id)
                         .join(rc, a.c.resource_class_id == rc.c.id))).all()
        inventory = conn.execute(
            sa.select(rp.c.uuid, rc.c.name, t.inventories)
            .select_from(t.inventories.join(rp, t.inventories.c.resource_provider_id == rp.c.id)
                         .join(rc, t.inventories.c.resource_class_id == rc.c.id))).all()
        generations = dict(conn.execute(sa.select(rp.c.uuid, rp.c.generation)).all())
        consumers = dict(conn.execute(sa.select(t.consumers.c.uuid,
                                                t.consumers.c.generation)).all())
    problems = []
    by_consumer: dict[str, Allocations] = {}
    usage: Counter = Counter()
    for consumer, provider, name, used in rows:
        resources = by_consumer.setdefault(consumer, {}).setdefault(provider, {})
        if name in resources:
            problems.append(f"SQL: consumer {consumer} has two {name} rows on {provider}")
        resources[name] = resources.get(name, 0) + used
        usage[(provider, name)] += used
    for row in inventory:
        limit = (row.total - row.reserved) * row.allocation_ratio
        if usage[(row.uuid, row.name)] > limit:
            problems.append(f"SQL: provider {row.uuid} {row.name} usage "
                            f"{usage[(row.uuid, row.name)]} > capacity {limit}")
    for consumer in sorted(set(consumers) - set(by_consumer)):
        problems.append(f"SQL: consumer {consumer} exists without allocations")
    for consumer in sorted(set(by_consumer) - set(consumers)):
        problems.append(f"SQL: allocations of {consumer} have no consumer row")
    for consumer, (allocs, generation) in expected.items():
        got = (by_consumer.get(consumer, {}), consumers.get(consumer))
        if got != (allocs, generation):
            problems.append(f"SQL: consumer {consumer} has {got}, acknowledged "
                            f"{(allocs, generation)}")
    for consumer in sorted(set(by_consumer) - set(expected)):
        problems.append(f"SQL: allocations of unknown consumer {consumer}")
    for provider, highest in monitor.highest.items():
        if generations[provider] < highest:
            problems.append(f"SQL: provider {provider} generation {generations[provider]} "
                            f"< {highest} seen earlier")
    return problems


# --- running ---------------------------------------------------------------------------

def run_threads(targets: list, timeout: float) -> list[str]:
    threads = [threading.Thread(target=target, daemon=True) for target in targets]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout)
    return [f"thread {th.name} still running after {timeout}s"
            for th in threads if th.is_alive()]


def figures(backend: str, stats: Stats, elapsed: float, monitor: Monitor) -> dict:
    writes = sum(n for (method, _), n in stats.statuses.items() if method != "GET")
    refused = sum(n for (method, status), n in stats.statuses.items()
                  if method != "GET" and status == 409)
    return {
        "backend": backend,
        "seconds": round(elapsed, 2),
        "requests": sum(stats.statuses.values()),
        "writes": writes,
        "acknowledged": stats.outcomes["acknowledged"],
        "claims": stats.outcomes["claims"],
        "claims_per_second": round(stats.outcomes["claims"] / elapsed, 1),
        "conflict_rate": round(refused / writes, 3) if writes else 0.0,
        "refused_capacity": stats.outcomes["refused_capacity"],
        "refused_generation": stats.outcomes["refused_generation"],
        "monitor_samples": monitor.samples,
    }


@contextlib.contextmanager
def served_database(backend: str, tmp_path, populate):
    """(server, engine, what ``populate(db)`` made): a migrated throw-away
    database on ``backend``, filled by ``populate``, served by a real
    placement-api, all torn down afterwards (skips if the server is
    unreachable)."""
    throw_away = ThrowAwayDatabase(backend, tmp_path)
    engine = server = None
    try:
        engine = db_engine.create_engine(throw_away.url)
        schema_migrations.upgrade(engine)
        db = db_engine.Database(engine)
        db.write(sync.sync_standard_names)
        made = populate(db)
        server = Server(throw_away.url, tmp_path)
        server.wait_ready()
        yield server, engine, made
    finally:
        if server is not None:
            server.stop()
        if engine is not None:
            engine.dispose()
        throw_away.drop()

"""Placer on a 3-node MariaDB Galera cluster, one placement-api per node.

A throw-away cluster (tests/stress/galera.py) is started once for the module;
three placement-api servers each use a different node, with
``[placement_database] mysql_wsrep_sync_wait = 1``, and clients send each
request to the next server in turn, as a round-robin load balancer would.

- Causal reads: what one node committed is visible at once through another,
  both through the option alone (engines) and through the API (a provider
  created through node 1 is found, and given inventory, through node 2 next).
- Certification conflicts (Galera refusing at commit a transaction another
  node's commit overtook, error 1213 "Deadlock found") are retried like
  deadlocks: shown directly, then under the concurrent writers.
- Concurrent writers across the nodes keep the invariants of
  test_concurrent_allocations: no over-commit, every acknowledged write
  present, every deleted one absent, generations only grow, no 5xx.

Without the binaries (mariadbd, galera-4, rsync) or when the cluster cannot
start, the tests are skipped with the reason, except with CI=true, where they
fail. They run when the mysql backend is selected (PLACER_TEST_BACKENDS).
Knobs: PLACER_STRESS_STEPS, PLACER_STRESS_SEED (as the other stress test).
"""

import os
import random
import threading
import time
import uuid

import pytest
import sqlalchemy as sa

from placer.db import engine as db_engine
from placer.db import schema_migrations
from placer.db import tables as t
from tests.helpers import factories, galera, stress
from tests.helpers.api import make_conf
from tests.helpers.databases import BACKENDS, IN_CI

pytestmark = [pytest.mark.stress, pytest.mark.processes]

DATABASE = "placement"
WORKERS = 2  # per placement-api; three of them share this machine with three servers
WRITERS = 8
TIME_LIMIT = 60.0  # seconds of writing: a safety stop, not an assertion
SYNC_WAIT = 1  # causal reads: SELECT (and BEGIN, SHOW) wait for the cluster's writes


def _unavailable(message: str):
    if IN_CI:
        pytest.fail(message)
    pytest.skip(message)


@pytest.fixture(scope="module")
def cluster():
    if "mysql" not in BACKENDS:  # as the other tests: only the backends asked for
        pytest.skip("mysql backend not selected (PLACER_TEST_BACKENDS)")
    absent = galera.missing()
    if absent:
        _unavailable(f"no Galera cluster: {', '.join(absent)} not found on this machine")
    cluster = galera.GaleraCluster(size=3)
    try:
        try:
            cluster.start()
        except Exception as exc:
            _unavailable(f"the Galera cluster did not start: {exc}\n{cluster.logs()}")
        cluster.create_database(DATABASE)
        yield cluster
    finally:
        cluster.stop()


def engine_on(node: galera.Node, tmp_path, sync_wait: int | None = SYNC_WAIT) -> sa.Engine:
    options = {} if sync_wait is None else {"mysql_wsrep_sync_wait": sync_wait}
    url = node.url(DATABASE)
    conf = make_conf(tmp_path, url, placement_database=options)
    return db_engine.create_engine(url, conf.placement_database)


@pytest.fixture(scope="module")
def migrated(cluster, tmp_path_factory):
    """The schema, migrated once through node 1 (as ``placement-manage db sync``);
    the standard classes and traits are left to the servers' start-up."""
    engine = engine_on(cluster.nodes[0], tmp_path_factory.mktemp("migrate"))
    try:
        schema_migrations.upgrade(engine)
    finally:
        engine.dispose()
    return cluster


class Server(stress.Server):
    """placement-api on one node, with causal reads."""

    def __init__(self, url: str, tmp_path):
        super().__init__(url, tmp_path, f"mysql_wsrep_sync_wait = {SYNC_WAIT}\n", WORKERS)


@pytest.fixture(scope="module")
def servers(migrated, tmp_path_factory):
    """One placement-api per node, started at once: their workers insert the
    missing standard classes and traits concurrently through different nodes,
    so Galera refuses some of those transactions at commit (retried)."""
    started = []
    try:
        for node in migrated.nodes:
            started.append(Server(node.url(DATABASE), tmp_path_factory.mktemp(node.name)))
        for server in started:
            server.wait_ready()
        yield started
    finally:
        for server in started:
            server.stop()


class RoundRobinClient(stress.Client):
    """Each request to the next server: what HAProxy's ``balance roundrobin`` does."""

    def __init__(self, ports: list[int], stats: stress.Stats, first: int = 0):
        super().__init__(ports[0], stats)
        self.ports, self.turn = ports, first

    def call(self, method: str, path: str, body=None) -> stress.Response:
        self.port = self.ports[self.turn % len(self.ports)]
        self.turn += 1
        return super().call(method, path, body)


def wsrep_counters(cluster: galera.GaleraCluster) -> dict[str, int]:
    """Certification failures and brute-force aborts, summed over the nodes."""
    names = ("wsrep_local_cert_failures", "wsrep_local_bf_aborts")
    totals = dict.fromkeys(names, 0)
    for status in cluster.status():
        for name in names:
            totals[name] += int(status.get(name, 0))
    return totals


# --- causal reads -----------------------------------------------------------------------

def test_causal_reads_between_nodes(migrated, tmp_path):
    """A row committed through node 1 is read at once through node 2 with the
    option; without it the read may miss it (counted, not asserted)."""
    writer = engine_on(migrated.nodes[0], tmp_path)
    causal = engine_on(migrated.nodes[1], tmp_path)
    plain = engine_on(migrated.nodes[1], tmp_path, sync_wait=None)
    table = t.traits
    try:
        with causal.connect() as conn:
            assert conn.exec_driver_sql("SELECT @@session.wsrep_sync_wait").scalar() == SYNC_WAIT
        misses = {"causal": 0, "plain": 0}
        for kind, reader in (("causal", causal), ("plain", plain)):
            with writer.connect() as w, reader.connect() as r:
                for i in range(100):
                    name = f"CUSTOM_CAUSAL_{kind.upper()}_{i}"
                    with w.begin():
                        w.execute(table.insert().values(name=name))
                    with r.begin():
                        found = r.execute(sa.select(table.c.id)
                                          .where(table.c.name == name)).first()
                    misses[kind] += found is None
        print(f"\n[galera] reads through node 2 missing a row just committed through node 1 "
              f"(of 100): with wsrep_sync_wait={SYNC_WAIT}: {misses['causal']}, "
              f"without: {misses['plain']}")
        assert misses["causal"] == 0
    finally:
        with writer.begin() as w:
            w.execute(table.delete().where(table.c.name.like("CUSTOM\\_CAUSAL\\_%", escape="\\")))
        for engine in (writer, causal, plain):
            engine.dispose()


def test_provider_created_through_one_node_is_found_through_the_next(servers):
    """The issue's 404: create through node 1, use through node 2 and 3 at once."""
    stats = stress.Stats()
    one, two, three = (stress.Client(s.port, stats) for s in servers)
    for i in range(20):
        rp = str(uuid.uuid4())
        r = one.call("POST", "/resource_providers", {"name": f"causal-{i}", "uuid": rp})
        assert r.status == 200, r.text
        r = two.call("PUT", f"/resource_providers/{rp}/inventories",
                     {"resource_provider_generation": 0,
                      "inventories": {"VCPU": {"total": 4}}})
        assert r.status == 200, r.text
        r = three.call("GET", f"/resource_providers/{rp}/inventories")
        assert r.status == 200, r.text
        assert r.body["resource_provider_generation"] == 1
        assert r.body["inventories"]["VCPU"]["total"] == 4
        r = two.call("DELETE", f"/resource_providers/{rp}")
        assert r.status == 204, r.text
        r = one.call("GET", f"/resource_providers/{rp}")
        assert r.status == 404, r.text
    assert not stats.server_errors


# --- certification conflicts ------------------------------------------------------------

def test_certification_conflict_is_retried(migrated, tmp_path):
    """A write whose commit loses certification to another node's commit is
    run again whole, like a deadlock."""
    first, second = (engine_on(node, tmp_path) for node in migrated.nodes[:2])
    db = db_engine.Database(second)
    name = f"CUSTOM_CERT_{uuid.uuid4().hex[:8].upper()}"
    attempts = []
    try:
        with first.begin() as conn:
            conn.execute(t.traits.insert().values(name=name))

        def rename(conn):
            attempts.append(1)
            conn.execute(t.traits.update().where(t.traits.c.name.like(f"{name}%"))
                         .values(name=f"{name}_B"))
            if len(attempts) == 1:  # node 1 commits a conflicting change meanwhile
                with first.begin() as other:
                    other.execute(t.traits.update().where(t.traits.c.name == name)
                                  .values(name=f"{name}_A"))
            return len(attempts)

        # Directly: the error Galera raises is one we call a deadlock.
        with pytest.raises(sa.exc.DBAPIError) as raised:
            with second.begin() as conn:
                rename(conn)
        assert db_engine._is_deadlock(raised.value), repr(raised.value)
        print(f"\n[galera] certification conflict raises: {raised.value.orig!r}")

        attempts.clear()
        with first.begin() as conn:
            conn.execute(t.traits.update().where(t.traits.c.name.like(f"{name}%"))
                         .values(name=name))
        assert db.write(rename) == 2
        with first.connect() as conn:
            names = conn.execute(sa.select(t.traits.c.name)
                                 .where(t.traits.c.name.like(f"{name}%"))).scalars().all()
        assert names == [f"{name}_B"]  # the retry ran on node 1's committed change
    finally:
        with first.begin() as conn:
            conn.execute(t.traits.delete().where(t.traits.c.name.like(f"{name}%")))
        first.dispose()
        second.dispose()


# --- concurrent writers -----------------------------------------------------------------

def test_concurrent_writers_across_nodes(servers, migrated, tmp_path, record_property):
    cluster = migrated
    setup = engine_on(cluster.nodes[0], tmp_path)
    db = db_engine.Database(setup)
    providers = [factories.provider(db, f"galera-stress-{i}-{uuid.uuid4().hex[:6]}",
                                    inventory=inv)
                 for i, inv in enumerate(stress.INVENTORIES)]
    setup.dispose()
    before = wsrep_counters(cluster)

    seed = int(os.environ.get("PLACER_STRESS_SEED", random.randrange(2**31)))
    stats = stress.Stats()
    ports = [s.port for s in servers]
    ledger = stress.SharedLedger(stress.SHARED)
    capacities = {rp: {rc: stress.capacity(spec) for rc, spec in inv.items()}
                  for rp, inv in zip(providers, stress.INVENTORIES, strict=True)}
    start_line = threading.Barrier(WRITERS)
    deadline = time.monotonic() + TIME_LIMIT
    writers = [stress.Writer(i, RoundRobinClient(ports, stats, first=i), capacities, ledger,
                             seed, deadline, start_line) for i in range(WRITERS)]
    monitor = stress.Monitor(RoundRobinClient(ports, stats), capacities)

    started = time.monotonic()
    monitor_thread = threading.Thread(target=monitor.run, daemon=True)
    monitor_thread.start()
    problems = stress.run_threads([w.run for w in writers], TIME_LIMIT + 60)
    elapsed = time.monotonic() - started
    monitor.done.set()
    monitor_thread.join(60)

    problems += [e for e in [w.error for w in writers] + [monitor.error] if e]
    problems += stats.server_errors + stats.anomalies
    expected, broken_chains = stress.expected_state(writers, ledger)
    problems += broken_chains
    checker = RoundRobinClient(ports, stats)
    for _ in ports:  # every node must tell the same story
        problems += stress.api_problems(checker, expected, monitor)
    for node in cluster.nodes:
        engine = engine_on(node, tmp_path)
        try:
            problems += [f"{node.name}: {p}"
                         for p in stress.table_problems(engine, expected, monitor)]
        finally:
            engine.dispose()
    conflicts = {k: v - before[k] for k, v in wsrep_counters(cluster).items()}

    numbers = stress.figures("galera", stats, elapsed, monitor)
    numbers.update(conflicts)
    print(f"\n[stress galera, 3 nodes, {WRITERS} writers] seed={seed} "
          + " ".join(f"{k}={v}" for k, v in numbers.items()))
    for key, value in numbers.items():
        record_property(key, value)
    if problems:
        logs = "\n".join(f"--- {s.log_path} ---\n{s.log_excerpt(40)}" for s in servers)
        pytest.fail(f"{len(problems)} problem(s) on Galera (seed {seed}):\n"
                    + "\n".join(problems[:40]) + "\n" + logs)
    assert all(s["wsrep_local_state_comment"] == "Synced" for s in cluster.status())
    assert numbers["claims"] > 0
    assert 0 < numbers["conflict_rate"] < 1
    assert numbers["monitor_samples"] > 0

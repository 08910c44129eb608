"""Allocation writes stay safe under concurrent writers, on every backend.

A real ``placement-api`` (gunicorn, several worker processes) serves a
throw-away database. Client threads claim, move and release small allocations
on a few small providers (PUT, POST /allocations, DELETE, PUT {}). Each thread
owns some consumers, so it knows the last acknowledged write of each exactly;
all threads also write a few shared consumers, guarded only by consumer
generations (never emptied, so their acknowledged writes must form one chain
of generations). Every few steps all threads hit one target at once: create the
same new consumer, overwrite a shared one at the generation all just read, or
fill one provider. A monitor samples provider generations and usage meanwhile.
Afterwards the API and the tables must agree with every acknowledged write, no
provider may be oversubscribed, and no response may have been a 5xx.

Knobs: PLACER_STRESS_STEPS (operations per client), PLACER_STRESS_SEED.
"""

import os
import random
import threading
import time

import pytest

from tests.helpers import factories
from tests.helpers.databases import BACKENDS
from tests.helpers.stress import (
    CLIENTS,
    INVENTORIES,
    SHARED,
    TIME_LIMIT,
    Client,
    Monitor,
    SharedLedger,
    Stats,
    Writer,
    api_problems,
    capacity,
    expected_state,
    figures,
    run_threads,
    served_database,
    table_problems,
)

pytestmark = [pytest.mark.stress, pytest.mark.processes]


# --- the test ---------------------------------------------------------------------------

@pytest.fixture
def stack(request, tmp_path):
    """(server, engine, providers): a migrated throw-away database with small
    providers, served by a real placement-api, all torn down afterwards."""
    def populate(db):
        return [factories.provider(db, f"stress-{i}", inventory=inv)
                for i, inv in enumerate(INVENTORIES)]

    with served_database(request.param, tmp_path, populate) as stacked:
        yield stacked


@pytest.mark.parametrize("stack", BACKENDS, indirect=True)
def test_concurrent_allocation_writes(stack, record_property):
    server, engine, providers = stack
    backend = engine.dialect.name
    seed = int(os.environ.get("PLACER_STRESS_SEED", random.randrange(2**31)))
    stats = Stats()
    client = Client(server.port, stats)
    ledger = SharedLedger(SHARED)
    capacities = {rp: {rc: capacity(spec) for rc, spec in inv.items()}
                  for rp, inv in zip(providers, INVENTORIES, strict=True)}
    start_line = threading.Barrier(CLIENTS)
    writers = [Writer(i, client, capacities, ledger, seed, time.monotonic() + TIME_LIMIT,
                      start_line) for i in range(CLIENTS)]
    monitor = Monitor(client, capacities)

    started = time.monotonic()
    monitor_thread = threading.Thread(target=monitor.run, daemon=True)
    monitor_thread.start()
    problems = run_threads([w.run for w in writers], TIME_LIMIT + 60)
    elapsed = time.monotonic() - started
    monitor.done.set()
    monitor_thread.join(60)

    problems += [e for e in [w.error for w in writers] + [monitor.error] if e]
    problems += stats.server_errors + stats.anomalies
    expected, broken_chains = expected_state(writers, ledger)
    problems += broken_chains
    problems += api_problems(client, expected, monitor)
    problems += table_problems(engine, expected, monitor)

    numbers = figures(backend, stats, elapsed, monitor)
    print(f"\n[stress {backend}] seed={seed} "
          + " ".join(f"{k}={v}" for k, v in numbers.items()))
    for key, value in numbers.items():
        record_property(key, value)
    if problems:
        pytest.fail(f"{len(problems)} problem(s) on {backend} (seed {seed}):\n"
                    + "\n".join(problems[:40])
                    + f"\n--- {server.log_path}, excerpt ---\n{server.log_excerpt()}")
    # The run must have exercised what it claims to.
    assert numbers["claims"] > 0
    assert 0 < numbers["conflict_rate"] < 1
    assert numbers["monitor_samples"] > 0

"""Claims racing an inventory shrink, on every backend (issue 38).

A real ``placement-api`` (several worker processes) serves one provider.
Client threads claim one VCPU at a time for new consumers while another
thread shrinks the provider's inventory step by step (PUT all, at the
generation it read; a 409 makes it read again). Nothing is released, and
every claim and every shrink moves the provider's generation by exactly
one, so the generation a shrink answered with says how many claims
committed before it: the claims between two shrinks all saw the earlier
one's inventory, and each of them must have fitted it (its capacity with
reserved and allocation_ratio). A shrink below the usage is allowed (the
reference warns); claims after it must then all have been refused. No
response may be a 5xx.
"""

import threading
import time
import uuid

import pytest

from tests.helpers import factories
from tests.helpers.databases import BACKENDS
from tests.helpers.stress import Client, Stats, run_threads, served_database

pytestmark = [pytest.mark.stress, pytest.mark.processes]

CLAIMERS = 8
TIME_LIMIT = 20.0  # seconds of claiming at most
RESERVED, RATIO = 1, 1.5
TOTALS = list(range(41, 9, -1))  # capacities 60 down to 13, one step at a time


def capacity(total: int) -> int:
    return int((total - RESERVED) * RATIO)


@pytest.fixture
def served(request, tmp_path):
    def populate(db):
        return factories.provider(db, "racing", inventory={"VCPU": {
            "total": TOTALS[0], "reserved": RESERVED, "allocation_ratio": RATIO}})

    with served_database(request.param, tmp_path, populate) as (server, _, rp):
        yield server, rp


@pytest.mark.parametrize("served", BACKENDS, indirect=True)
def test_claims_racing_an_inventory_shrink(served):
    server, rp = served
    stats = Stats()
    client = Client(server.port, stats)
    first = client.call("GET", f"/resource_providers/{rp}").body["generation"]
    deadline = time.monotonic() + TIME_LIMIT
    done = threading.Event()
    lock = threading.Lock()
    acked: list[str] = []
    shrinks: list[tuple[int, int]] = []  # (generation answered, total)
    odd: list[str] = []

    def claimer() -> None:
        while time.monotonic() < deadline and not done.is_set():
            consumer = str(uuid.uuid4())
            r = client.call("PUT", f"/allocations/{consumer}", {
                "allocations": {rp: {"resources": {"VCPU": 1}}}, "project_id": "p",
                "user_id": "u", "consumer_generation": None, "consumer_type": "INSTANCE"})
            if r.status == 204:
                with lock:
                    acked.append(consumer)
            elif r.status != 409:
                odd.append(f"claim -> {r.status}: {r.text}")

    def shrinker() -> None:
        try:
            for total in TOTALS[1:]:
                while time.monotonic() < deadline:
                    generation = client.call(
                        "GET", f"/resource_providers/{rp}").body["generation"]
                    r = client.call("PUT", f"/resource_providers/{rp}/inventories", {
                        "resource_provider_generation": generation,
                        "inventories": {"VCPU": {"total": total, "reserved": RESERVED,
                                                 "allocation_ratio": RATIO}}})
                    if r.status == 200:
                        shrinks.append((r.body["resource_provider_generation"], total))
                        break
                    if r.status != 409:
                        odd.append(f"shrink -> {r.status}: {r.text}")
                        return
                time.sleep(0.05)
        finally:
            time.sleep(0.5)  # claims after the last shrink, refused or fitting
            done.set()

    problems = run_threads([claimer] * CLAIMERS + [shrinker], TIME_LIMIT + 60)
    problems += odd + stats.server_errors

    final = client.call("GET", f"/resource_providers/{rp}").body["generation"]
    used = client.call("GET", f"/resource_providers/{rp}/usages").body["usages"].get("VCPU", 0)
    if final - first != len(acked) + len(shrinks):
        problems.append(f"generation moved {final - first} times for {len(acked)} claims "
                        f"and {len(shrinks)} shrinks")
    if used != len(acked):
        problems.append(f"{used} VCPU used after {len(acked)} acknowledged claims")
    # the claims committed under each inventory: between its shrink and the
    # next (a shrink's generation less the events before it: the claims)
    bounds = [(generation - first - 1 - i, total)
              for i, (generation, total) in enumerate(shrinks)] + [(len(acked), None)]
    committed, total = 0, TOTALS[0]
    for claims_before, next_total in bounds:
        if claims_before > committed and claims_before > capacity(total):
            problems.append(f"{claims_before} claims committed under total {total} "
                            f"(capacity {capacity(total)})")
        committed = max(committed, claims_before)
        total = next_total
    if problems:
        pytest.fail(f"{len(problems)} problem(s):\n" + "\n".join(problems[:40])
                    + f"\n--- {server.log_path}, excerpt ---\n{server.log_excerpt()}")
    # the run raced what it claims to: claims were refused and shrinks went through
    assert acked and len(shrinks) > len(TOTALS) // 2, (len(acked), len(shrinks))
    assert stats.statuses[("PUT", 409)] > 0

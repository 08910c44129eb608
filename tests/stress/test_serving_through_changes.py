"""A real two-worker ``placement-api`` through what changes under it while
it serves: the policy file edited (each worker's memoised decisions follow
at the next request), and the database restarted under load (requests
during the outage get 503, every request after it succeeds, though no
pooled connection is pinged before use)."""

import http.client
import itertools
import os
import threading
import time

import pytest

from placer.db import engine as db_engine
from placer.db import schema_migrations, sync
from tests.helpers.databases import BACKENDS
from tests.helpers.faults import Outage
from tests.helpers.processes import TIME_LIMIT
from tests.helpers.processes import PlacementApi as Server

pytestmark = [pytest.mark.stress, pytest.mark.processes]

NETWORK_BACKENDS = [b for b in BACKENDS if b != "sqlite"]
REQUESTS = 16  # per check: each on a new connection, so both workers answer
_AHEAD = itertools.count(1)  # seconds: each edit later than the last


def _status(port: int, path: str, token: str = "admin", roles: str | None = None) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    headers = {"X-Auth-Token": token, "OpenStack-API-Version": "placement 1.39"}
    if roles is not None:
        headers["X-Roles"] = roles
    try:
        conn.request("GET", path, headers=headers)
        resp = conn.getresponse()
        resp.read()
        return resp.status
    finally:
        conn.close()


def _started(tmp_path, url: str, workers: int = 2) -> Server:
    s = Server(tmp_path, url, workers, sync_on_startup=True)
    s.wait_for("two workers answering",
               lambda: s.status("/resource_classes/VCPU") == 200 and len(s.workers()) == workers)
    return s


def _rewrite(path, text: str) -> None:
    """An edit with an mtime past the last one (file times move in clock
    ticks: two same-sized writes in one tick look alike to oslo.policy too)."""
    stamp = time.time_ns() + next(_AHEAD) * 10**9
    path.write_text(text)
    os.utime(path, ns=(stamp, stamp))


def test_policy_file_edited_while_serving(tmp_path):
    """The policy file sits beside placement.conf (where oslo.policy looks
    for ``policy.yaml``): created, edited both ways and removed while two
    workers serve, each change decides every worker's next answer."""
    s = _started(tmp_path, f"sqlite:///{tmp_path}/placement.sqlite")
    path = tmp_path / "policy.yaml"
    rule = '"placement:resource_classes:show": "%s"\n'

    def answers() -> set[tuple[int, int]]:
        return {(_status(s.port, "/resource_classes/VCPU"),
                 _status(s.port, "/resource_classes/VCPU", "alice:p", "member"))
                for _ in range(REQUESTS)}

    try:
        assert answers() == {(200, 403)}  # the defaults: no file yet
        _rewrite(path, rule % "role:member")
        assert answers() == {(403, 200)}
        _rewrite(path, rule % "!")
        assert answers() == {(403, 403)}
        _rewrite(path, rule % "@")
        assert answers() == {(200, 200)}
        path.unlink()
        assert answers() == {(200, 403)}
    finally:
        s.stop()


@pytest.mark.parametrize("backend", NETWORK_BACKENDS, indirect=True)
def test_database_restarted_under_load(backend, tmp_path):
    """Four clients read and write without pause while the database goes
    away and comes back: meanwhile 503s, and once it is back every request
    sent succeeds, on each worker's pooled connections that the outage
    killed."""
    outage = Outage(backend, tmp_path)
    engine = db_engine.create_engine(outage.url)
    schema_migrations.upgrade(engine)
    db_engine.Database(engine).write(sync.sync_standard_names)
    engine.dispose()
    s = _started(tmp_path, outage.url)
    phase = {"now": "before"}  # before, during, after
    seen: dict[str, list[int]] = {"before": [], "during": [], "after": []}
    stop = threading.Event()
    lock = threading.Lock()

    def client(n: int) -> None:
        paths = ["/resource_classes/VCPU", "/usages?project_id=p", "/resource_providers",
                 "/traits?name=startswith:HW_CPU"]
        i = n
        while not stop.is_set():
            sent_in = phase["now"]
            status = _status(s.port, paths[i % len(paths)])
            i += 1
            with lock:
                if sent_in != "before" or phase["now"] == "before":  # answered before the cut
                    seen[sent_in].append(status)

    threads = [threading.Thread(target=client, args=(n,)) for n in range(4)]
    try:
        for t in threads:
            t.start()
        deadline = time.monotonic() + TIME_LIMIT
        while len(seen["before"]) < 40 and time.monotonic() < deadline:
            time.sleep(0.05)
        outage.cut()
        phase["now"] = "during"
        while seen["during"].count(503) < 20 and time.monotonic() < deadline:
            time.sleep(0.05)
        outage.restore()
        time.sleep(0.05)  # requests sent before the restore may still be answered 503
        phase["now"] = "after"
        while len(seen["after"]) < 200 and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        stop.set()
        for t in threads:
            t.join(TIME_LIMIT)
        s.stop()
        outage.close()
    assert set(seen["before"]) == {200}
    assert 503 in seen["during"] and set(seen["during"]) <= {200, 503}
    assert len(seen["after"]) >= 200 and set(seen["after"]) == {200}, (seen["after"], s.excerpt())
    assert "unexpected error" not in s.log(), s.excerpt()  # no 500 (the pool may log
    # a traceback for a connection cut in the middle of a request: SQLAlchemy's own)

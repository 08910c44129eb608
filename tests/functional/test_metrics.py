"""GET /metrics ([placer] metrics_enabled): off by default and then a 404 like
any unknown path; when on, admin-only (placement:metrics:show), Prometheus
text whose counters move with the requests, labelled by route template.

The metrics are process-wide (as in a real worker), so tests compare values
before and after what they do.
"""

import http.client
import os
import re
import shutil
import subprocess
import sys
import threading
import time
import uuid

import pytest
import sqlalchemy as sa
from prometheus_client.parser import text_string_to_metric_families

from placer import wsgi
from placer.db import allocations as allocations_db
from placer.db import engine as db_engine
from placer.http import metrics
from tests.helpers.api import Api, assert_error, make_conf
from tests.helpers.processes import stop_process
from tests.helpers.providers import make

RP = "/resource_providers/{uuid}"


pytestmark = pytest.mark.usefixtures("fresh_policy")


@pytest.fixture
def mapi(db, tmp_path):
    """A client on an app with metrics enabled."""
    return Api(wsgi.create_app(make_conf(tmp_path, placer={"metrics_enabled": "True"}), db))


def scrape(api, **kw) -> dict:
    """{(sample name, frozenset of labels): value} from GET /metrics."""
    result = api.get("/metrics", **kw)
    assert result.status_code == 200, result.text
    assert result.content_type == "text/plain"
    return parse(result.text)


def parse(text: str) -> dict:
    return {(s.name, frozenset(s.labels.items())): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def value(samples: dict, name: str, **labels) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def requests(samples, route, method, version, status) -> float:
    return value(samples, "placer_http_requests_total", route=route, method=method,
                 microversion=version, status=status)


# -- off by default ---------------------------------------------------------------------

def test_disabled_by_default_and_404_like_any_unknown_path(api, conf):
    assert conf.placer.metrics_enabled is False
    for version in (None, "1.39"):
        unknown = api.get("/no-such-thing", version=version)
        result = api.get("/metrics", version=version)
        assert result.status_code == unknown.status_code == 404
        assert result.headers["Content-Type"] == unknown.headers["Content-Type"]
        bodies = [result.json, unknown.json]
        for body in bodies:
            del body["errors"][0]["request_id"]
        assert bodies[0] == bodies[1]


# -- on ---------------------------------------------------------------------------------

def test_requests_counted_by_route_template_method_microversion_status(mapi):
    before = scrape(mapi)
    rp = make(mapi, "rp", version="1.0")
    assert mapi.get(f"/resource_providers/{rp}", version="1.39").status_code == 200
    assert mapi.get(f"/resource_providers/{rp}", version="1.39").status_code == 200
    missing = str(uuid.uuid4())
    assert mapi.get(f"/resource_providers/{missing}", version="1.20").status_code == 404
    assert mapi.get("/no-such-thing/at/all").status_code == 404
    assert mapi.get(f"/resource_providers/{rp}", token=None).status_code == 401
    after = scrape(mapi)

    def delta(*labels):
        return requests(after, *labels) - requests(before, *labels)

    assert delta("/resource_providers", "POST", "1.0", "201") == 1
    assert delta(RP, "GET", "1.39", "200") == 2
    assert delta(RP, "GET", "1.20", "404") == 1
    assert delta("unmatched", "GET", "1.0", "404") == 1
    # refused before microversion negotiation, still under its route template
    assert delta(RP, "GET", "none", "401") == 1
    # one latency observation per request, with the same labels
    hist = "placer_http_request_duration_seconds_count"
    labels = dict(route=RP, method="GET", microversion="1.39", status="200")
    assert value(after, hist, **labels) - value(before, hist, **labels) == 2
    buckets = [v for (name, lbl), v in after.items()
               if name == "placer_http_request_duration_seconds_bucket"
               and labels.items() <= dict(lbl).items()]
    assert len(buckets) == len(metrics.LATENCY_BUCKETS) + 1 and max(buckets) >= 2
    # never a raw path
    routes = {dict(lbl).get("route") for _, lbl in after}
    assert not any(rp in r or missing in r for r in routes if r)


def test_unknown_method_names_share_one_label(mapi):
    """A client can send any method name, before any token is checked: each
    must not add a series (the server's memory and files would grow)."""
    before = scrape(mapi)
    for junk in ("ZZ000", "ZZ001", "BREW"):
        assert mapi.request(junk, "/", token=None).status_code >= 400
    after = scrape(mapi)
    methods = {dict(lbl).get("method") for _, lbl in after}
    assert not methods & {"ZZ000", "ZZ001", "BREW"}
    others = sum(v - before.get(key, 0.0) for key, v in after.items()
                 if key[0] == "placer_http_requests_total"
                 and dict(key[1]).get("method") == metrics.OTHER_METHOD)
    assert others == 3


def test_metrics_is_admin_only(mapi):
    assert_error(mapi.get("/metrics", token="someone:project"), 403,
                 "Policy does not allow placement:metrics:show to be performed.")
    assert mapi.get("/metrics", token=None).status_code == 401
    assert mapi.get("/metrics", token="someone:project",
                    headers={"X-Roles": "admin"}).status_code == 200


@pytest.mark.parametrize("method", ["POST", "DELETE", "OPTIONS", "HEAD"])
def test_other_methods_of_metrics_are_405_with_allow(mapi, method):
    """/metrics is a route of the table like any other: a method it does not
    have is a 405 listing GET."""
    result = mapi.request(method, "/metrics", version="1.39")
    assert result.status_code == 405
    assert result.headers["Allow"] == "GET"
    if method != "HEAD":
        assert_error(result, 405, f"The method {method} is not allowed for this resource.")


def test_policy_file_can_open_metrics(db, tmp_path):
    path = tmp_path / "policy.yaml"
    path.write_text('"placement:metrics:show": "role:reader"\n')
    conf = make_conf(tmp_path, placer={"metrics_enabled": "True"},
                     oslo_policy={"policy_file": str(path)})
    api = Api(wsgi.create_app(conf, db))
    assert api.get("/metrics", token="prom:monitoring",
                   headers={"X-Roles": "reader"}).status_code == 200


def test_openmetrics_on_request(mapi):
    result = mapi.get("/metrics", headers={"Accept": "application/openmetrics-text"})
    assert result.status_code == 200
    assert result.content_type == "application/openmetrics-text"
    assert result.text.endswith("# EOF\n")


def test_candidate_queries_by_groups_with_candidates_and_times(mapi):
    for n in range(3):
        make(mapi, f"host{n}", inventory={"VCPU": 8, "MEMORY_MB": 4096})
    before = scrape(mapi)
    ok = mapi.get("/allocation_candidates?resources=VCPU:1", version="1.39")
    assert len(ok.json["allocation_requests"]) == 3
    assert mapi.get("/allocation_candidates?resources=VCPU:1&limit=2",
                    version="1.39").status_code == 200
    two = mapi.get("/allocation_candidates?resources1=VCPU:1&resources2=MEMORY_MB:512"
                   "&group_policy=none", version="1.39")
    assert len(two.json["allocation_requests"]) == 3  # one per tree
    assert mapi.get("/allocation_candidates?resources=VCPU:100",
                    version="1.39").json["allocation_requests"] == []
    after = scrape(mapi)

    def delta(name, **labels):
        return value(after, name, **labels) - value(before, name, **labels)

    returned = "placer_allocation_candidates_returned"
    assert delta(f"{returned}_count", groups="1") == 3
    assert delta(f"{returned}_sum", groups="1") == 3 + 2 + 0
    assert delta(f"{returned}_count", groups="2") == 1
    assert delta(f"{returned}_sum", groups="2") == 3
    assert delta(f"{returned}_bucket", groups="1", le="0.0") == 1
    seconds = "placer_allocation_candidates_seconds"
    for phase in ("load", "search"):
        assert delta(f"{seconds}_count", groups="1", phase=phase) == 3
        assert delta(f"{seconds}_count", groups="2", phase=phase) == 1
        assert delta(f"{seconds}_sum", groups="1", phase=phase) > 0
    assert requests(after, "/allocation_candidates", "GET", "1.39", "200") >= 4


def test_generation_conflicts_counted(mapi):
    rp = make(mapi, "rp", inventory={"VCPU": 8})
    before = scrape(mapi)
    stale = mapi.put(f"/resource_providers/{rp}/inventories", version="1.39",
                     json={"resource_provider_generation": 0,
                           "inventories": {"VCPU": {"total": 4}}})
    assert_error(stale, 409, code="placement.concurrent_update")
    # a 409 of another kind is not a generation conflict
    dup = mapi.post("/resource_providers", json={"name": "rp"})
    assert_error(dup, 409)
    after = scrape(mapi)
    name = "placer_generation_conflicts_total"
    labels = dict(route=f"{RP}/inventories", method="PUT")
    assert value(after, name, **labels) - value(before, name, **labels) == 1
    assert sum(v for (n, _), v in after.items() if n == name) - sum(
        v for (n, _), v in before.items() if n == name) == 1


def test_server_side_retries_and_database_errors(mapi, db):
    before = scrape(mapi)
    lost = []

    def loses_once(conn):
        if not lost:
            lost.append(1)
            raise allocations_db.ProviderGenerationConflict()
        return "done"

    assert db.write_retrying(allocations_db.ProviderGenerationConflict, 3, loses_once) == "done"

    deadlocked = []

    def deadlocks_once(conn):
        if not deadlocked:
            deadlocked.append(1)
            raise sa.exc.OperationalError("UPDATE ...", {}, Exception(1213, "Deadlock found"))
        return "done"

    assert db.write(deadlocks_once) == "done"
    after = scrape(mapi)

    def delta(name, **labels):
        return value(after, name, **labels) - value(before, name, **labels)

    assert delta("placer_db_retries_total", reason="generation_conflict") == 1
    assert delta("placer_db_retries_total", reason="deadlock") == 1
    assert delta("placer_db_errors_total", error="OperationalError") == 1


def test_database_outage_counted(tmp_path, db):
    """A database that cannot be opened: every request is a 503, and counted."""
    conf = make_conf(tmp_path, placer={"metrics_enabled": "True"})
    away = db_engine.Database(db_engine.create_engine(
        f"sqlite:///{tmp_path}/no-such-dir/placement.sqlite"))
    broken = Api(wsgi.create_app(conf, away))
    working = Api(wsgi.create_app(conf, db))
    before = scrape(working)
    assert_error(broken.get("/resource_providers", version="1.39"), 503)
    assert_error(broken.get("/traits", version="1.39"), 503)
    after = scrape(working)
    assert (value(after, "placer_db_unavailable_total")
            - value(before, "placer_db_unavailable_total")) == 2
    assert (requests(after, "/resource_providers", "GET", "1.39", "503")
            - requests(before, "/resource_providers", "GET", "1.39", "503")) == 1
    away.dispose()


# -- process set-up ---------------------------------------------------------------------

def test_multiprocess_directory_created_emptied_and_removed(tmp_path, monkeypatch):
    monkeypatch.delenv(metrics.MULTIPROC_ENV, raising=False)
    made = metrics.prepare_multiprocess()
    try:
        assert made and os.path.isdir(made) and os.environ[metrics.MULTIPROC_ENV] == made
    finally:
        metrics.cleanup(made)
    assert not os.path.exists(made) and metrics.MULTIPROC_ENV not in os.environ

    given = tmp_path / "prom"
    given.mkdir()
    (given / "counter_12345.db").write_bytes(b"stale")
    (given / "keep.txt").write_text("not ours")
    monkeypatch.setenv(metrics.MULTIPROC_ENV, str(given))
    assert metrics.prepare_multiprocess() is None  # the operator's: kept, emptied of .db
    assert sorted(p.name for p in given.iterdir()) == ["keep.txt"]


# -- a real server with two workers -----------------------------------------------------

LISTENING = re.compile(r"Listening at: http://127\.0\.0\.1:(\d+)")
BOOTED = re.compile(r"Booting worker with pid: (\d+)")


class _Server:
    def __init__(self, tmp_path, prom_dir):
        conf = tmp_path / "placement.conf"
        conf.write_text("[api]\nauth_strategy = noauth2\n[placer]\nmetrics_enabled = True\n"
                        "[placement_database]\nsync_on_startup = True\n"
                        f"connection = sqlite:///{tmp_path}/placement.sqlite\n")
        self.log = tmp_path / "placement-api.log"
        env = dict(os.environ, **{metrics.MULTIPROC_ENV: str(prom_dir)})
        with open(self.log, "wb") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "placer.cli.api", "--config-file", str(conf),
                 "--bind", "127.0.0.1:0", "--workers", "2"],
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True, env=env)
        self.port = None

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def wait_ready(self, timeout=60.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.proc.poll() is None, self.text()
            found = LISTENING.search(self.text())
            if found and len(BOOTED.findall(self.text())) >= 2:
                self.port = int(found.group(1))
                try:
                    if self.get("/")[0] == 200:
                        return
                except OSError:
                    pass
            time.sleep(0.1)
        pytest.fail(f"placement-api did not start:\n{self.text()}")

    def get(self, path: str) -> tuple[int, str]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            conn.request("GET", path, headers={"X-Auth-Token": "admin", "Connection": "close"})
            response = conn.getresponse()
            return response.status, response.read().decode()
        finally:
            conn.close()


def _count_in(files, tmp_path) -> float:
    """The requests counted in one worker's files, read as /metrics reads them."""
    from prometheus_client import CollectorRegistry, generate_latest
    from prometheus_client.multiprocess import MultiProcessCollector

    alone = tmp_path / f"alone-{uuid.uuid4().hex[:6]}"
    alone.mkdir()
    for f in files:
        shutil.copy(f, alone)
    registry = CollectorRegistry()
    MultiProcessCollector(registry, path=str(alone))
    samples = parse(generate_latest(registry).decode())
    return requests(samples, "/resource_providers", "GET", "1.0", "200")


@pytest.mark.processes
def test_two_workers_metrics_are_summed(tmp_path):
    prom = tmp_path / "prom"
    prom.mkdir()
    (prom / "counter_999999.db").write_bytes(b"left over from an earlier run")
    server = _Server(tmp_path, prom)
    try:
        server.wait_ready()
        workers = {int(pid) for pid in BOOTED.findall(server.text())}
        assert len(workers) == 2
        sent, lock = [0], threading.Lock()

        def client():
            for _ in range(10):
                status, _body = server.get("/resource_providers")
                assert status == 200
                with lock:
                    sent[0] += 1

        def files_of(pid):
            return list(prom.glob(f"*_{pid}.db"))

        # concurrent clients until both workers have answered some
        for _ in range(20):
            threads = [threading.Thread(target=client) for _ in range(6)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            per_worker = {pid: _count_in(files_of(pid), tmp_path) for pid in workers}
            if all(per_worker.values()):
                break
        assert all(per_worker.values()), per_worker
        assert not (prom / "counter_999999.db").exists()  # emptied at start

        status, text = server.get("/metrics")
        assert status == 200, text
        samples = parse(text)
        total = requests(samples, "/resource_providers", "GET", "1.0", "200")
        assert total == sent[0] == sum(per_worker.values())
        assert all(0 < n < total for n in per_worker.values())
        assert value(samples, "placer_http_request_duration_seconds_count",
                     route="/resource_providers", method="GET", microversion="1.0",
                     status="200") == total
    finally:
        stop_process(server.proc)

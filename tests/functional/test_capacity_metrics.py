"""The capacity gauges of GET /metrics ([placer] capacity_metrics): the
exporter's placement gauges equal what its per-provider GETs read, and the
free capacity gauges equal GET /capacity, for a generated cloud of flat
hosts, NUMA trees and a shared pool."""

import random

import pytest
from oslo_config import cfg
from prometheus_client.parser import text_string_to_metric_families

from placer import conf as placer_conf
from placer import wsgi
from placer.db import engine as db_engine
from tests.helpers.api import Api
from tests.helpers.candidates import SHARING, Env

pytestmark = pytest.mark.usefixtures("fresh_policy")

SHAPES = {"small": "resources=VCPU:1,MEMORY_MB:512",
          "numa.pinned": "resources1=VCPU:2,MEMORY_MB:1024",
          "with-disk": "resources=VCPU:1,DISK_GB:50"}


def conf_for(tmp_path, db_url="sqlite://", **placer):
    """A configuration with metrics and capacity metrics on, the shapes above."""
    lines = ["[api]", "auth_strategy = noauth2", "[placement_database]",
             f"connection = {db_url}", "[placer]", "metrics_enabled = True",
             "capacity_metrics = True"]
    lines += [f"capacity_shapes = {name}={query}" for name, query in SHAPES.items()]
    lines += [f"{k} = {v}" for k, v in placer.items()]
    path = tmp_path / "placement.conf"
    path.write_text("\n".join(lines) + "\n")
    return placer_conf.new_config(["--config-file", str(path)])


def samples(api) -> dict:
    """{(name, frozenset of labels): value} of the capacity gauges."""
    r = api.get("/metrics")
    assert r.status_code == 200, r.text
    return {(s.name, frozenset(s.labels.items())): s.value
            for family in text_string_to_metric_families(r.text) for s in family.samples
            if s.name.startswith(("openstack_placement", "openstack_free_capacity"))}


EAST = "aaaaaaaa-0000-0000-0000-000000000000"  # an availability zone's aggregate
GOLD = "bbbbbbbb-0000-0000-0000-000000000000"  # a project-filtering aggregate


@pytest.fixture
def cloud(db, tmp_path):
    env = Env(Api(wsgi.create_app(conf_for(
        tmp_path, capacity_az_aggregates=f"{EAST}:nova-east",
        capacity_project_aggregates=f"{GOLD}:gold"), db)))
    env.uuid.update(east=EAST, gold=GOLD)
    rng = random.Random(4)
    for h in range(6):
        aggs = ["east", "rack"] + (["gold"] if h % 3 == 0 else [])
        env.rp(f"flat{h}", inv={"VCPU": {"total": rng.choice([8, 16]), "reserved": h % 2,
                                         "allocation_ratio": rng.choice([1.0, 4.0])},
                                "MEMORY_MB": {"total": 4096 * rng.randint(1, 4),
                                              "reserved": 512}},
               aggs=aggs)
        if h % 2:
            env.consume({f"flat{h}": {"VCPU": rng.randint(1, 6), "MEMORY_MB": 1024}})
    for h in range(3):
        env.rp(f"numa{h}", inv={"DISK_GB": 100})
        for n in range(2):
            env.rp(f"numa{h}_{n}", parent=f"numa{h}",
                   inv={"VCPU": rng.choice([4, 6]), "MEMORY_MB": 4096})
        env.consume({f"numa{h}_0": {"VCPU": h + 1}})
    env.rp("pool", inv={"DISK_GB": 180}, traits=[SHARING], aggs=["rack"])
    return env


def test_exporter_gauges_are_the_per_provider_reads(cloud):
    got = samples(cloud.api)
    expected = {("openstack_placement_up", frozenset()): 1.0}
    listed = cloud.api.get("/resource_providers", version="1.39").json["resource_providers"]
    assert len(listed) == 6 + 9 + 1
    for rp in listed:  # what the exporter asks, 1 + 2N requests
        base = f"/resource_providers/{rp['uuid']}"
        inventories = cloud.api.get(f"{base}/inventories", version="1.39").json["inventories"]
        usages = cloud.api.get(f"{base}/usages", version="1.39").json["usages"]
        for rc, inv in inventories.items():
            labels = frozenset({"hostname": rp["name"], "resourcetype": rc}.items())
            expected["openstack_placement_resource_total", labels] = inv["total"]
            expected["openstack_placement_resource_allocation_ratio", labels] = \
                inv["allocation_ratio"]
            expected["openstack_placement_resource_reserved", labels] = inv["reserved"]
        for rc, used in usages.items():
            labels = frozenset({"hostname": rp["name"], "resourcetype": rc}.items())
            expected["openstack_placement_resource_usage", labels] = used
    exporter = {k: v for k, v in got.items() if k[0].startswith("openstack_placement")}
    assert exporter == pytest.approx(expected)


def test_free_capacity_gauges_are_the_capacity_answers(cloud):
    got = samples(cloud.api)
    for name, query in SHAPES.items():
        answer = cloud.api.get(f"/capacity?{query}", version="1.39").json
        assert answer["total"] >= 1
        assert got["openstack_free_capacity_by_flavor_total", frozenset(
            {"flavor_name": name, "public": ""}.items())] == answer["total"]
        per_root = {dict(labels)["hypervisor"]: (value, dict(labels))
                    for (metric, labels), value in got.items()
                    if metric == "openstack_free_capacity_hypervisor_by_flavor"
                    and dict(labels)["flavor_name"] == name}
        assert {host: v for host, (v, _) in per_root.items()} == {
            r["name"]: r["fits"] for r in answer["roots"]}
        for host, (_, labels) in per_root.items():
            assert labels["az_aggregate"] == ("nova-east" if host.startswith("flat") else "")
            gold = host.startswith("flat") and int(host[4:]) % 3 == 0
            assert labels["project_aggregate"] == ("gold" if gold else "")


def test_off_by_default_and_a_dead_database_is_down(db, tmp_path):
    api = Api(wsgi.create_app(conf_for(tmp_path, capacity_metrics="False"), db))
    assert samples(api) == {}
    dead = db_engine.Database(db_engine.create_engine(
        "postgresql+psycopg://nobody@127.0.0.1:1/none?connect_timeout=1"))
    api = Api(wsgi.create_app(conf_for(tmp_path), dead))
    assert samples(api) == {("openstack_placement_up", frozenset()): 0.0}


@pytest.mark.parametrize("value, message", [
    ("nameonly", "is not NAME=QUERY"),
    ("a=required=HW_CPU_X86_AVX2", "a shape asks for resources"),
    ("a=resources=VCPU:x", "Shape 'a': Requested resource VCPU expected positive integer"),
])
def test_bad_shapes_fail_at_start(tmp_path, value, message):
    path = tmp_path / "placement.conf"
    path.write_text(f"[placement_database]\nconnection = sqlite://\n[placer]\n"
                    f"capacity_shapes = {value}\n")
    with pytest.raises(cfg.ConfigFileValueError, match=message):
        wsgi.create_app(placer_conf.new_config(["--config-file", str(path)]))


def test_metrics_open_serves_a_static_scrape(db, tmp_path):
    closed = Api(wsgi.create_app(conf_for(tmp_path), db))
    assert closed.get("/metrics", token=None).status_code == 401
    member = {"token": "alice:proj", "headers": {"X-Roles": "member"}}
    assert closed.get("/metrics", **member).status_code == 403
    opened = Api(wsgi.create_app(conf_for(tmp_path, metrics_open="True"), db))
    for kw in ({"token": None}, member):
        r = opened.get("/metrics", **kw)
        assert r.status_code == 200, r.text
        assert "openstack_placement_up 1.0" in r.text
    # only /metrics opens: the API still wants its token
    assert opened.get("/capacity", token=None).status_code == 401


def test_openmetrics_and_odd_names(db, tmp_path):
    env = Env(Api(wsgi.create_app(conf_for(tmp_path), db)))
    env.rp('rack "7" \\ host', inv={"VCPU": 4, "MEMORY_MB": 4096})
    r = env.api.get("/metrics", headers={"Accept": "application/openmetrics-text; "
                                                   "version=1.0.0; charset=utf-8"})
    assert r.status_code == 200, r.text
    assert r.text.endswith("# EOF\n") and r.text.count("# EOF") == 1
    from prometheus_client.openmetrics.parser import text_string_to_metric_families as om
    found = {(s.name, frozenset(s.labels.items())): s.value
             for family in om(r.text) for s in family.samples}
    labels = frozenset({"hostname": 'rack "7" \\ host', "resourcetype": "VCPU"}.items())
    assert found["openstack_placement_resource_total", labels] == 4
    assert found["openstack_free_capacity_hypervisor_by_flavor", frozenset({
        "hypervisor": 'rack "7" \\ host', "flavor_name": "small", "az_aggregate": "",
        "project_aggregate": ""}.items())] == 4


@pytest.mark.processes
def test_two_workers_answer_one_cloud(tmp_path):
    """Whichever worker answers a scrape, the capacity gauges are the same:
    read from the database, never summed per worker."""
    import http.client
    import threading

    from placer.db import schema_migrations, sync
    from tests.helpers.api import make_conf
    from tests.helpers.processes import PlacementApi

    url = f"sqlite:///{tmp_path}/placement.sqlite"
    engine = db_engine.create_engine(url)
    schema_migrations.upgrade(engine)
    database = db_engine.Database(engine)
    database.write(sync.sync_standard_names)
    env = Env(Api(wsgi.create_app(make_conf(tmp_path, url), database)))
    for h in range(3):
        env.rp(f"host{h}", inv={"VCPU": 8 * (h + 1), "MEMORY_MB": 16384})
    engine.dispose()
    extra = tmp_path / "capacity.conf"
    # a budget no loaded test machine runs out of: a count cut short by
    # the budget is a lower bound, and would differ between the scrapes
    extra.write_text("[placer]\nmetrics_enabled = True\ncapacity_metrics = True\n"
                     f"capacity_shapes = small={SHAPES['small']}\n"
                     "capacity_time_budget = 120\n")
    server = PlacementApi(tmp_path, url, 2, args=("--config-file", str(extra)))
    try:
        server.wait_for("two workers answering",
                        lambda: server.status("/") == 200 and len(server.workers()) == 2)
        answers, lock = [], threading.Lock()

        def scrape():
            for _ in range(5):
                conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
                conn.request("GET", "/metrics", headers={"X-Auth-Token": "admin",
                                                         "Connection": "close"})
                text = conn.getresponse().read().decode()
                conn.close()
                lines = sorted(line for line in text.splitlines()
                               if line.startswith(("openstack_placement",
                                                   "openstack_free_capacity")))
                with lock:
                    answers.append(lines)

        threads = [threading.Thread(target=scrape) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(answers) == 20
        differing = [sorted(set(a) ^ set(answers[0])) for a in answers if a != answers[0]]
        assert not differing, differing[0]
        assert ('openstack_free_capacity_by_flavor_total{flavor_name="small",public=""} 48.0'
                in answers[0])  # 8 + 16 + 24 VCPU, one each
        assert "Traceback" not in server.log()
    finally:
        server.stop()

"""placement-manage audit --nova (cli/audit_nova.py, placer/nova.py) against
Nova's own compute API (tests/helpers/nova_api.py): each kind found and nothing
sound flagged, a partial answer refused (a cell down, a page failed, an
older Nova), and the fixes through the consumer generation check."""

import os

import pytest

from placer.cli import audit_nova, manage
from tests.helpers import cli
from tests.helpers import nova_api as nova
from tests.helpers.api import make_conf
from tests.helpers.nova_api import (
    AGGREGATE,
    M_CONFIRMED,
    M_RESIZE,
    N1,
    N2,
    N3,
    O_INSTANCE,
    O_OTHER_TYPE,
    O_UNTYPED,
    S_BARE,
    S_CELL2,
    S_EVAC,
    S_EVAC_MOVING,
    S_OK,
    S_RESIZE,
    S_SHARED,
    S_TASK,
    SHARE,
)

pytestmark = pytest.mark.processes

PROJECT, USER = "project", "user"


@pytest.fixture(scope="session")
def nova_build(tmp_path_factory):
    base = tmp_path_factory.getbasetemp()
    shared = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    return nova.built(shared)


@pytest.fixture(scope="session")
def nova_api(nova_build, tmp_path_factory):
    """``nova_api(variant)``: that deployment's API, started on first use."""
    python, dirs = nova_build
    logs = tmp_path_factory.mktemp("nova-logs")
    started: dict[str, nova.NovaApi] = {}

    def get(variant: str = "up") -> nova.NovaApi:
        if variant not in started:
            started[variant] = nova.NovaApi(python, dirs[variant], logs / f"{variant}.log")
        return started[variant]

    yield get
    for api in started.values():
        api.stop()


@pytest.fixture
def proxy(nova_api):
    """A proxy in front of the deployment with every cell up."""
    p = nova.Proxy(nova_api("up").port)
    yield p
    p.stop()


def _conf(tmp_path, endpoint: str):
    return make_conf(tmp_path, nova={"auth_type": "admin_token", "endpoint": endpoint,
                                     "token": "admin"})


def _provider(api, uuid: str, name: str, inventory: dict, traits=(), aggregates=()):
    assert api.post("/resource_providers", version="1.20",
                    json={"uuid": uuid, "name": name}).status_int == 200
    generation = api.put(f"/resource_providers/{uuid}/inventories", json={
        "resource_provider_generation": 0,
        "inventories": {rc: {"total": total} for rc, total in inventory.items()},
    }).json["resource_provider_generation"]
    if traits:
        generation = api.put(f"/resource_providers/{uuid}/traits", version="1.6", json={
            "traits": list(traits), "resource_provider_generation": generation,
        }).json["resource_provider_generation"]
    if aggregates:
        assert api.put(f"/resource_providers/{uuid}/aggregates", version="1.19", json={
            "aggregates": list(aggregates), "resource_provider_generation": generation,
        }).status_int == 200


def _allocate(api, consumer: str, allocations: dict, consumer_type: str | None = "INSTANCE",
              generation=None):
    body = {"allocations": {rp: {"resources": res} for rp, res in allocations.items()},
            "project_id": PROJECT, "user_id": USER, "consumer_generation": generation}
    if consumer_type is None:  # before consumer types: Nova's older allocations
        resp = api.put(f"/allocations/{consumer}", version="1.28", json=body)
    else:
        resp = api.put(f"/allocations/{consumer}", version="1.38",
                       json={**body, "consumer_type": consumer_type})
    assert resp.status_int == 204, resp.text


ONE = {"VCPU": 1, "MEMORY_MB": 256}


@pytest.fixture
def cloud(api):
    """Placement's side of tests/helpers/nova_api.py's WORLD."""
    for uuid, name in ((N1, "node1"), (N2, "node2"), (N3, "node3")):
        _provider(api, uuid, name, {"VCPU": 16, "MEMORY_MB": 16384},
                  aggregates=[AGGREGATE] if uuid == N1 else [])
    _provider(api, SHARE, "shared-disk", {"DISK_GB": 1000},
              traits=["MISC_SHARES_VIA_AGGREGATE"], aggregates=[AGGREGATE])
    _allocate(api, S_OK, {N1: ONE})
    _allocate(api, S_EVAC, {N1: ONE, N2: ONE})  # the source's never removed
    _allocate(api, S_EVAC_MOVING, {N1: ONE, N2: ONE})  # evacuation in progress
    _allocate(api, S_RESIZE, {N2: ONE})
    _allocate(api, M_RESIZE, {N1: ONE}, "MIGRATION")  # the resize's source
    _allocate(api, S_SHARED, {N1: ONE, SHARE: {"DISK_GB": 10}})
    _allocate(api, S_TASK, {N1: ONE, N2: ONE})  # a live migration under way
    _allocate(api, S_CELL2, {N3: ONE})
    _allocate(api, O_INSTANCE, {N1: ONE})  # a server deleted while host1 was down
    _allocate(api, O_UNTYPED, {N2: ONE}, None)
    _allocate(api, M_CONFIRMED, {N2: ONE}, "MIGRATION")  # confirmed, never cleaned
    _allocate(api, O_OTHER_TYPE, {N1: ONE}, "ZUN_CONTAINER")  # not Nova's
    return api


def _consumers(result, kind):
    return [item["consumer"] for item in result.findings[kind]["items"]]


def _state(api):
    consumers = [S_OK, S_EVAC, S_EVAC_MOVING, S_RESIZE, M_RESIZE, S_SHARED, S_TASK, S_CELL2,
                 O_INSTANCE, O_UNTYPED, M_CONFIRMED, O_OTHER_TYPE]
    state = {}
    for c in consumers:  # what each holds (providers' generations move with the fixes)
        body = api.get(f"/allocations/{c}", version="1.38").json
        state[c] = {**body, "allocations": {rp: a["resources"]
                                            for rp, a in body["allocations"].items()}}
    for rp in (N1, N2, N3, SHARE):
        state[rp] = api.get(f"/resource_providers/{rp}/usages").json
    return state


def test_each_kind_is_found_and_nothing_sound(cloud, db, nova_api, tmp_path):
    result = audit_nova.run(_conf(tmp_path, nova_api("up").endpoint), db, fix=False)
    assert _consumers(result, "orphaned") == sorted([O_INSTANCE, O_UNTYPED, M_CONFIRMED])
    assert _consumers(result, "source_leftovers") == [S_EVAC]
    assert _consumers(result, "unallocated_servers") == [S_BARE]
    assert {k: v["count"] for k, v in result.findings.items()} == {
        "orphaned": 3, "source_leftovers": 1, "unallocated_servers": 1}
    (leftover,) = result.findings["source_leftovers"]["items"]
    assert leftover["host"] == "host2" and leftover["node_provider"] == N2
    assert leftover["roots"] == [{"uuid": N1, "name": "node1", "resources": ONE}]
    orphan = {i["consumer"]: i for i in result.findings["orphaned"]["items"]}
    assert orphan[O_UNTYPED]["consumer_type"] is None
    assert orphan[M_CONFIRMED]["consumer_type"] == "MIGRATION"
    assert orphan[O_INSTANCE]["roots"] == [{"uuid": N1, "name": "node1", "resources": ONE}]
    assert result.fixed == {}


def test_the_listings_are_paged(cloud, db, proxy, tmp_path):
    audit_nova.run(_conf(tmp_path, proxy.endpoint), db, fix=False)
    details = [p for p in proxy.seen if p.startswith("/v2.1/servers/detail")]
    # ten servers at Nova's max_limit of 3: four pages, each after the last's marker
    assert len(details) == 4 and all("marker=" in p for p in details[1:])
    assert sum(p.startswith("/v2.1/os-migrations") for p in proxy.seen) == 2


def test_fix_removes_orphans_and_leftovers_only(cloud, db, nova_api, tmp_path):
    conf = _conf(tmp_path, nova_api("up").endpoint)
    before = _state(cloud)
    result = audit_nova.run(conf, db, fix=True)
    assert sorted(result.fixed["orphaned"]) == sorted([O_INSTANCE, O_UNTYPED, M_CONFIRMED])
    assert result.fixed["source_leftovers"] == [S_EVAC]
    assert result.left_alone == {"orphaned": [], "source_leftovers": []}
    after = _state(cloud)
    for orphan in (O_INSTANCE, O_UNTYPED, M_CONFIRMED):
        assert after[orphan]["allocations"] == {}
    assert after[S_EVAC]["allocations"] == {N2: ONE}  # the server keeps its node
    for consumer in (S_OK, S_EVAC_MOVING, S_RESIZE, M_RESIZE, S_SHARED, S_TASK, S_CELL2,
                     O_OTHER_TYPE):
        assert after[consumer] == before[consumer], consumer
    freed = {N1: 2, N2: 2}  # VCPUs: O_INSTANCE + S_EVAC's source; O_UNTYPED + M_CONFIRMED
    for rp, n in freed.items():
        assert after[rp]["usages"]["VCPU"] == before[rp]["usages"]["VCPU"] - n
    assert after[N3] == before[N3] and after[SHARE] == before[SHARE]
    again = audit_nova.run(conf, db, fix=True)
    assert again.findings["orphaned"]["count"] == 0
    assert again.findings["source_leftovers"]["count"] == 0
    assert again.fixed == {"orphaned": [], "source_leftovers": []}


def test_a_consumer_written_meanwhile_is_left_alone(cloud, db, proxy, tmp_path):
    # Placement is read first; while Nova is read, O_INSTANCE is written again
    # and S_EVAC's allocations change (its generation moves)
    def write():
        _allocate(cloud, O_INSTANCE, {N1: {"VCPU": 2}}, generation=1)
        _allocate(cloud, S_EVAC, {N1: ONE, N2: {"VCPU": 2, "MEMORY_MB": 256}}, generation=1)

    proxy.before(r"^/v2\.1/os-migrations", write)
    result = audit_nova.run(_conf(tmp_path, proxy.endpoint), db, fix=True)
    assert sorted(result.fixed["orphaned"]) == sorted([O_UNTYPED, M_CONFIRMED])
    assert result.fixed["source_leftovers"] == []
    left = {kind: [i["consumer"] for i in items] for kind, items in result.left_alone.items()}
    assert left == {"orphaned": [O_INSTANCE], "source_leftovers": [S_EVAC]}
    assert "generation" in result.left_alone["orphaned"][0]["reason"]
    held = cloud.get(f"/allocations/{O_INSTANCE}", version="1.38").json
    assert held["allocations"][N1]["resources"] == {"VCPU": 2}
    assert set(cloud.get(f"/allocations/{S_EVAC}", version="1.38").json["allocations"]) \
        == {N1, N2}


def _refused(conf, db, cloud) -> str:
    before = _state(cloud)
    with pytest.raises(audit_nova.Refused) as refused:
        audit_nova.run(conf, db, fix=True)
    assert _state(cloud) == before  # nothing fixed
    return refused.value.reason


def test_a_down_cell_refuses_by_its_services(cloud, db, nova_api, tmp_path):
    down = nova_api("cell2-down")
    # what Nova itself answers: a paged listing skips the down cell, and the
    # unpaged one is full (max_limit) before the down cell's records come
    for path in ("/servers/detail?all_tenants=1&limit=1000", "/servers?all_tenants=1"):
        servers = down.get(path)["servers"]
        assert len(servers) == nova.MAX_LIMIT
        assert not [s for s in servers if s.get("status") == "UNKNOWN"], path
    reason = _refused(_conf(tmp_path, down.endpoint), db, cloud)
    assert "os-services" in reason and "host3" in reason


def test_a_down_cell_without_hosts_refuses_by_its_servers(cloud, db, nova_api, tmp_path):
    down = nova_api("cell3-down")
    reason = _refused(_conf(tmp_path, down.endpoint), db, cloud)
    assert "GET /servers shows 1 server(s) as UNKNOWN" in reason


def test_a_failed_page_refuses(cloud, db, proxy, tmp_path):
    proxy.fail(r"^/v2\.1/servers/detail", after=1)
    reason = _refused(_conf(tmp_path, proxy.endpoint), db, cloud)
    assert "/servers/detail answered 500" in reason


def test_a_nova_older_than_2_69_refuses(cloud, db, proxy, tmp_path):
    proxy.max_version = "2.68"
    reason = _refused(_conf(tmp_path, proxy.endpoint), db, cloud)
    assert "up to 2.68" in reason and "2.69" in reason


def test_no_credentials_refuse(cloud, db, tmp_path):
    reason = _refused(make_conf(tmp_path), db, cloud)
    assert "auth_type" in reason


def test_the_command_exits_1_with_why(backend, tmp_path, nova_api, capsys):
    down = nova_api("cell2-down")
    with cli.cloud(backend, tmp_path) as (env, url):
        conf = tmp_path / "placement.conf"
        conf.write_text(f"[placement_database]\nconnection = {url}\n[nova]\n"
                        f"auth_type = admin_token\nendpoint = {down.endpoint}\n"
                        "token = admin\n")
        code, _, err = cli.runner(manage.main)(capsys, "--config-file", str(conf), "audit",
                                               "--nova")
    assert code == 1 and "host3" in err


def test_nova_options_are_keystoneauths_with_novas_defaults(tmp_path):
    from placer import conf as placer_conf

    conf = make_conf(tmp_path, nova={"auth_type": "password", "region_name": "RegionTwo",
                                     "endpoint_override": "http://127.0.0.1:1/v2.1"})
    assert conf.nova.service_type == "compute"
    assert conf.nova.valid_interfaces == ["internal", "public"]
    assert (conf.nova.region_name, conf.nova.endpoint_override) == (
        "RegionTwo", "http://127.0.0.1:1/v2.1")
    listed = {opt.dest for opt in dict(placer_conf.list_opts())["nova"]}
    assert {"auth_type", "auth_url", "region_name", "valid_interfaces", "endpoint_override",
            "timeout", "cafile", "username", "password"} <= listed

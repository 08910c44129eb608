"""The fill benchmark's scheduler, in-process: a tiny cloud filled through
the WSGI app, and its pure parts (weighing, fitting, checks)."""

import pytest

from benchmarks.harness.client import InProcessClient
from benchmarks.harness.databases import prepare
from benchmarks.harness.servers import conf_text
from benchmarks.scenarios import SHAPES, fill
from benchmarks.scenarios.fixed import load
from placer import wsgi
from placer.db import engine as db_engine
from tests.helpers.api import make_conf


@pytest.fixture
def app_client(tmp_path):
    url = f"sqlite:///{tmp_path}/fill.sqlite"
    engine = db_engine.create_engine(url)
    prepare(engine)
    yield InProcessClient(wsgi.create_app(make_conf(tmp_path, url), db_engine.Database(engine)))
    engine.dispose()


@pytest.mark.parametrize("shape", SHAPES)
def test_a_tiny_cloud_fills_and_its_numbers_agree(app_client, shape):
    cloud = fill.cloud(4, shape, seed=3)
    load(app_client, cloud, threads=1)
    run = fill.Fill(app_client, cloud, limit=3, seed=3, schedulers=1, max_boots=120)
    result = run.play()

    half = result["half"]
    assert half["usages_match"]  # the API's usages are the claims and deletes made
    assert half["hosts"] == 4 and len(half["ram_use"]) == 4
    assert 0.5 <= half["ram_used_fraction"] < 0.5 + fill.LARGEST["ram_mb"] / (4 * 126976)
    assert half["max_ram_use"] == max(half["ram_use"])
    # 4 hosts of 12 instances or so fill up well before 120 boots
    failure = result["first_failure"]
    assert result["stopped"] == "first failure" and failure["placed"] == result["placed"]
    assert failure["boots"] == result["boots"] < 120
    assert not failure["a_host_fits"] and failure["reason"] == "no candidates"

    # the live instances are what the API counts, at the end too
    hosts = fill.read_hosts(app_client)
    assert hosts == run.hosts
    ram = sum(alloc["resources"].get(fill.RAM, 0) for _, allocations in run.live
              for alloc in allocations.values())
    assert ram == sum(h.total(fill.RAM, 1) for h in hosts.values()) == run.ram_used
    assert result["end_ram_used_fraction"] == round(ram / (4 * 126976), 4)
    assert result["placed"] - result["deletes"] == len(run.live)
    assert result["failures"] >= 1
    lat = result["latency"]
    assert lat["candidates"]["count"] == result["boots"]
    assert lat["claim"]["count"] == result["placed"] + result["conflicts"]
    assert lat["delete"]["count"] == result["deletes"] > 0
    assert result["conflicts"] == 0  # one scheduler races nobody
    # the tracked hosts were built from the cloud as defined
    assert {h.total(fill.RAM, 0) for h in hosts.values()} == {126976}


def test_the_same_seed_plays_the_same_run(tmp_path):
    """One scheduler: the stream, and so the outcome, follows from the seed."""
    results = []
    for n in range(2):
        url = f"sqlite:///{tmp_path}/fill{n}.sqlite"
        engine = db_engine.create_engine(url)
        prepare(engine)
        client = InProcessClient(wsgi.create_app(make_conf(tmp_path, url),
                                           db_engine.Database(engine)))
        cloud = fill.cloud(3, "flat", seed=5)
        load(client, cloud, threads=1)
        result = fill.Fill(client, cloud, limit=2, seed=5, schedulers=1, max_boots=20).play()
        engine.dispose()
        results.append({k: v for k, v in result.items() if k not in ("latency", "seconds")})
    assert results[0] == results[1]
    assert results[0]["stopped"] == "max boots" and results[0]["boots"] == 20


def test_the_cloud_is_the_same_for_the_same_seed():
    a, b = fill.cloud(5, "nested", 1), fill.cloud(5, "nested", 1)
    assert [p.uuid for p in a.providers] == [p.uuid for p in b.providers]
    assert [p.uuid for p in fill.cloud(5, "nested", 2).providers] != [p.uuid for p in a.providers]
    assert len(a.providers) == 15 and sum(p.parent is None for p in a.providers) == 5
    assert len(fill.cloud(5, "flat").providers) == 5
    host = fill.hosts_of(a)[a.providers[0].uuid]
    assert host.total(fill.RAM, 0) == fill.hosts_of(fill.cloud(1, "flat"))[
        fill.cloud(1, "flat").providers[0].uuid].total(fill.RAM, 0) == 126976


def test_a_cloud_of_generations_enrolls_the_oldest_first():
    for shape in SHAPES:
        scenario = fill.cloud(6, shape, seed=1, kind="generations")
        hosts = fill.hosts_of(scenario)
        roots = [p.uuid for p in scenario.providers if p.parent is None]
        assert [hosts[r].total(fill.RAM, 0) for r in roots] == [
            126976] * 2 + [258048] * 2 + [520192] * 2
        assert [hosts[r].total("VCPU", 0) for r in roots] == [128] * 2 + [192] * 2 + [256] * 2
    # the same uuids as the identical cloud: only the inventories differ
    assert [p.uuid for p in fill.cloud(6, "flat", 1, "generations").providers] == [
        p.uuid for p in fill.cloud(6, "flat", 1).providers]


def _summary(root, ram_capacity, ram_used):
    return {"root_provider_uuid": root,
            "resources": {fill.RAM: {"capacity": ram_capacity, "used": ram_used}}}


def test_weigh_puts_the_host_with_most_free_ram_first_and_keeps_ties_in_order():
    answer = {
        "allocation_requests": [{"allocations": {rp: {"resources": {}}}}
                                for rp in ("a", "b", "c1", "d")],
        "provider_summaries": {
            "a": _summary("a", 100, 50), "b": _summary("b", 100, 10),
            # c's tree: two NUMA nodes, 60 free in all
            "c": {"root_provider_uuid": "c", "resources": {}},
            "c1": _summary("c", 50, 20), "c2": _summary("c", 50, 20),
            "d": _summary("d", 100, 50)}}
    ranked = [next(iter(r["allocations"])) for r in fill.weigh(answer)]
    assert ranked == ["b", "c1", "a", "d"]


def test_a_host_fits_a_flavor_when_each_class_fits_one_provider():
    host = fill.Host("h", {"root": {"DISK_GB": [1000, 0]},
                           "n0": {"VCPU": [64, 0], fill.RAM: [63488, 40000]},
                           "n1": {"VCPU": [64, 60], fill.RAM: [63488, 0]}})
    assert host.fits(fill.LARGEST)  # VCPU from n0, RAM from n1
    host.providers["n1"][fill.RAM][1] = 20000
    assert not host.fits(fill.LARGEST)  # 66976 MiB free, but no node has 48 GiB
    assert not host.empty and fill.Host("e", {"r": {"VCPU": [1, 0]}}).empty


def _result(shape, order, std, empty, fitting, conflicts):
    return {"shape": shape, "order": order, "conflicts_per_placed": conflicts,
            "half": {"std_ram_use": std, "empty_hosts": empty,
                     "hosts_fitting_largest": fitting}}


def test_checks():
    results = [_result("flat", "id", 0.4, 10, 20, 0.01),
               _result("flat", "random", 0.09, 0, 30, 0.01),
               _result("flat", "spread", 0.03, 0, 40, 0.0),
               _result("flat", "pack", 0.5, 12, 25, 0.02),
               _result("nested", "id", 0.4, 10, 20, 0.01)]
    checks = fill.checks(results)
    assert [(c["shape"], c["check"].split(":")[0], c["result"]) for c in checks] == [
        ("flat", "spread", "PASS"),  # 0.03 <= 0.09 / 3
        ("flat", "pack", "PASS"),  # 12 > 10 empty hosts, 25 > 20 fitting
        ("flat", "spread", "PASS"),  # conflicts 0.0 <= 0.01
        ("flat", "pack", "MISS")]  # conflicts 0.02 > 0.01; nested: id alone, no check
    assert checks[1]["detail"] == "empty 12 vs 10, fitting 25 vs 20"
    # with the bounds: Nova's weigher on every host, the most hosts that could be empty
    results[3]["half"]["empty_most"] = 14
    results.append(_result("flat", fill.NO_LIMIT, 0.025, 0, 40, 0.0))
    checks = fill.checks(results)
    assert checks[0]["detail"] == "spread 0.030, random 0.090; Nova's weigher on every host: 0.025"
    assert checks[1]["detail"] == "empty 12 vs 10 (at most 14 could be), fitting 25 vs 20"
    # each cloud is checked on its own
    other = [{**r, "cloud": "generations"} for r in results if r["shape"] == "flat"]
    other[1]["half"] = {**other[1]["half"], "std_ram_use": 0.3}  # random, there
    checks = fill.checks(results + other)
    assert [(c["cloud"], c["result"]) for c in checks if c["check"].startswith(
        "spread: std")] == [("identical", "PASS"), ("generations", "PASS")]
    assert checks[4]["detail"].startswith("spread 0.030, random 0.300")


def test_empty_most_is_what_the_largest_hosts_leave():
    hosts = [fill.Host(str(i), {"r": {fill.RAM: [ram, 0]}}) for i, ram in
             enumerate([100, 400, 200, 100])]
    assert fill.empty_most(hosts, 0) == 4
    assert fill.empty_most(hosts, 400) == 3  # the 400 one holds it
    assert fill.empty_most(hosts, 401) == 2
    assert fill.empty_most(hosts, 800) == 0


def test_no_limit_asks_for_every_candidate():
    assert "limit" not in fill.candidates_path(fill.LARGEST, None)
    assert "limit=30" in fill.candidates_path(fill.LARGEST, 30)


def test_orders_configure_the_server():
    assert fill.server_settings("spread") == {
        "placement": {"randomize_allocation_candidates": False},
        "placer": {"candidate_order": "spread"}}
    assert fill.server_settings("random")["placement"] == {
        "randomize_allocation_candidates": True}
    assert fill.server_settings("reference-random") == {
        "placement": {"randomize_allocation_candidates": True}}
    assert fill.server_settings(fill.NO_LIMIT) == fill.server_settings("id")
    with pytest.raises(ValueError):
        fill.server_settings("sideways")
    assert conf_text({"placer": {"candidate_order": "pack", "flag": True}, "empty": {}}) == (
        "[placer]\ncandidate_order = pack\nflag = true\n")

"""[placer] candidate_order over HTTP: id (the default, unchanged), random
(and randomize_allocation_candidates, which it wins over), spread, pack,
the weights, the herd pool, the order inside a tree, explain; and the
stored scores kept exact by every kind of write the API makes."""

import random

import pytest
from oslo_config import cfg

from placer import wsgi
from placer.db import scores
from placer.db import tables as t
from tests.helpers.api import Api, make_conf
from tests.helpers.candidates import Env

Q = "resources=VCPU:1,MEMORY_MB:64&limit={}"


@pytest.fixture
def configured(db, tmp_path):
    """An Env on an app built with the given [placer] (and [placement])
    options; the Envs share their names (the same database)."""
    names: tuple[dict, dict] = ({}, {})

    def build(placement=None, **placer):
        conf = make_conf(tmp_path, placer={k: str(v) for k, v in placer.items()},
                         placement=placement or {})
        env = Env(Api(wsgi.create_app(conf, db)))
        env.uuid, env._name = names
        return env
    return build


def hosts(env, used_vcpus: list[int]) -> list[str]:
    """Hosts of 16 VCPU and 1600 MB, each using that many VCPUs (and 100 MB
    per VCPU), claimed through the API."""
    names = []
    for i, used in enumerate(used_vcpus):
        name = f"h{i:02d}"
        env.rp(name, inv={"VCPU": 16, "MEMORY_MB": 1600})
        if used:
            env.consume({name: {"VCPU": used, "MEMORY_MB": 100 * used}})
        names.append(name)
    return names


def order_of(env, limit: int, query: str = Q) -> list[str]:
    """The hosts of the answer's candidates, in answer order."""
    return [name for allocations, _ in env.ok(query.format(limit)).named
            for name in sorted({a[0] for a in allocations})]


USED = [8, 2, 12, 16, 0, 6, 2, 10]  # h03 is full, h04 empty; h01 and h06 tie


def test_id_is_the_default_and_unchanged(api, configured):
    default = Env(api)
    hosts(default, USED)
    assert order_of(default, 3) == ["h00", "h01", "h02"]
    explicit = configured(candidate_order="id")
    assert explicit.ok(Q.format(3)).json == default.ok(Q.format(3)).json


def test_spread_gives_the_most_free_first(configured):
    env = configured(candidate_order="spread", candidate_order_pool=1.0)
    hosts(env, USED)
    # ties by id: h01 before h06
    assert order_of(env, 4) == ["h04", "h01", "h06", "h05"]


def test_pack_gives_the_least_free_that_fit_first(configured):
    env = configured(candidate_order="pack", candidate_order_pool=1.0)
    hosts(env, USED)
    assert order_of(env, 3) == ["h02", "h07", "h00"]  # h03 (full) does not fit
    assert order_of(env, 3, "resources=VCPU:5,MEMORY_MB:64&limit={}") == ["h07", "h00", "h05"]


def test_unlimited_answers_hold_every_tree_in_order(configured):
    env = configured(candidate_order="spread")  # the pool only draws under a limit
    hosts(env, USED)
    assert order_of(env, 0, "resources=VCPU:1,MEMORY_MB:64") == [
        "h04", "h01", "h06", "h05", "h00", "h07", "h02"]


def test_order_follows_claims_and_deletes(configured):
    env = configured(candidate_order="spread", candidate_order_pool=1.0)
    hosts(env, [0, 0, 0])
    assert order_of(env, 1) == ["h00"]
    consumer = env.consume({"h00": {"VCPU": 4, "MEMORY_MB": 400}})
    assert order_of(env, 1) == ["h01"]
    r = env.api.delete(f"/allocations/{consumer}", version="1.12")
    assert r.status_code == 204
    assert order_of(env, 1) == ["h00"]


def test_pool_draws_among_the_best(configured):
    env = configured(candidate_order="spread", candidate_order_pool=2.0)
    names = hosts(env, [15, 14, 13, 12, 11, 10, 9, 8, 7, 6])  # h09 the most free
    best = set(names[-4:])
    seen = set()
    for _ in range(30):
        got = order_of(env, 2)
        assert len(got) == 2 and set(got) <= best
        seen |= set(got)
    assert seen == best  # 30 draws of 2 of 4 missing one: 4 * (3/6)**30


def test_weights_pick_the_class_that_counts(configured):
    env = configured(candidate_order="spread", candidate_order_pool=1.0,
                     candidate_order_weights="MEMORY_MB:0")
    env.rp("cpu-free", inv={"VCPU": 16, "MEMORY_MB": 1600})
    env.rp("ram-free", inv={"VCPU": 16, "MEMORY_MB": 1600})
    env.consume({"cpu-free": {"MEMORY_MB": 1500}})
    env.consume({"ram-free": {"VCPU": 15}})
    assert order_of(env, 1) == ["cpu-free"]
    ram = configured(candidate_order="spread", candidate_order_pool=1.0,
                     candidate_order_weights="VCPU:0,MEMORY_MB:2.5")
    assert order_of(ram, 1) == ["ram-free"]


def test_inside_a_tree_the_numa_node_with_most_free_comes_first(configured):
    spread = configured(candidate_order="spread", candidate_order_pool=1.0)
    spread.rp("host")
    spread.rp("numa0", parent="host", inv={"VCPU": 8})
    spread.rp("numa1", parent="host", inv={"VCPU": 8})
    spread.consume({"numa0": {"VCPU": 6}})
    first = spread.ok("resources=VCPU:1&limit=1").named[0][0]
    assert first == frozenset({("numa1", "VCPU", 1)})
    pack = configured(candidate_order="pack", candidate_order_pool=1.0)
    assert pack.ok("resources=VCPU:1&limit=1").named[0][0] == frozenset({("numa0", "VCPU", 1)})
    by_id = configured()
    assert by_id.ok("resources=VCPU:1&limit=1").named[0][0] == frozenset({("numa0", "VCPU", 1)})


def test_random_option_and_the_new_one_wins(configured):
    env = configured(placement={"randomize_allocation_candidates": "true"})
    hosts(env, [0] * 8)
    assert len({tuple(order_of(env, 1)) for _ in range(40)}) > 1
    # set, candidate_order wins over randomize_allocation_candidates
    ordered = configured(placement={"randomize_allocation_candidates": "true"},
                         candidate_order="id")
    assert {tuple(order_of(ordered, 2)) for _ in range(10)} == {("h00", "h01")}
    chosen = configured(candidate_order="random")
    assert len({tuple(order_of(chosen, 1)) for _ in range(40)}) > 1


def test_explain_shows_the_order_and_the_ranks(configured):
    env = configured(candidate_order="pack", candidate_order_pool=1.5,
                     candidate_order_weights="VCPU:2")
    hosts(env, [8, 12, 16])
    r = env.api.get("/allocation_candidates/explain?" + Q.format(5), version="1.39")
    assert r.status_code == 200, r.text
    order = r.json["order"]
    assert order["name"] == "pack" and order["pool"] == 1.5 and order["weights"] == {"VCPU": 2.0}
    # h01: 4 of 16 VCPU free (250 per mille), as much memory: 2 x 250 + 250
    assert [(t["name"], t["rank"], t["free"], t["candidates"]) for t in order["trees"]] == [
        ("h01", 2000 * 250 + 1000 * 250, {"MEMORY_MB": 250, "VCPU": 250}, 1),
        ("h00", 2000 * 500 + 1000 * 500, {"MEMORY_MB": 500, "VCPU": 500}, 1)]
    plain = configured()
    assert plain.api.get("/allocation_candidates/explain?" + Q.format(5),
                         version="1.39").json["order"] == {"name": "id"}


@pytest.mark.parametrize("value", ["VCPU:-1", "VCPU:many", "VCPU:nan"])
def test_bad_weights_stop_the_start(tmp_path, value):
    with pytest.raises(cfg.ConfigFileValueError, match="candidate_order_weights"):
        wsgi.create_app(make_conf(tmp_path, placer={"candidate_order_weights": value}))


def test_bad_order_stops_the_start(tmp_path):
    with pytest.raises(cfg.ConfigFileValueError):
        make_conf(tmp_path, placer={"candidate_order": "best"})


def _rows(conn):
    return (sorted(tuple(r) for r in conn.execute(t.tree_scores.select())),
            sorted(tuple(r) for r in conn.execute(t.tree_versions.select())))


def test_under_id_writes_leave_the_scores_alone(db, configured):
    """The default order reads no scores, so its writes keep none."""
    env = configured()
    before = db.read(_rows)
    hosts(env, [0, 3])
    env.api.delete(f"/resource_providers/{env.uuid['h00']}", version="1.39")
    assert db.read(_rows) == before
    assert db.read(scores.stale) == 1  # h01: created, claimed on, never scored


def test_spread_started_on_stale_scores_makes_them_exact_first(db, configured, tmp_path,
                                                               caplog):
    """Hosts written under id, then a server started with spread: its first
    request rebuilds the scores (once), and the answer is in spread order."""
    env = configured()
    hosts(env, USED)
    assert db.read(scores.stale) == len(USED)
    url = db.engine.url.render_as_string(hide_password=False)
    started = Env(Api(wsgi.create_app(make_conf(
        tmp_path, url=url, placer={"candidate_order": "spread",
                                   "candidate_order_pool": "1.0"}))))
    started.uuid, started._name = env.uuid, env._name
    with caplog.at_level("INFO", logger="placement.db"):
        assert order_of(started, 4) == ["h04", "h01", "h06", "h05"]
    assert db.read(scores.stale) == 0
    assert f"Rebuilt the scores of {len(USED)} provider trees" in caplog.text
    # its writes keep them; a second start finds nothing to rebuild
    started.consume({"h04": {"VCPU": 12, "MEMORY_MB": 1200}})
    assert db.read(scores.stale) == 0
    assert order_of(started, 1) == ["h01"]
    caplog.clear()
    again = Env(Api(wsgi.create_app(make_conf(tmp_path, url=url,
                                              placer={"candidate_order": "pack",
                                                      "candidate_order_pool": "1.0"}))))
    again.uuid, again._name = env.uuid, env._name
    with caplog.at_level("INFO", logger="placement.db"):
        assert order_of(again, 1) == ["h02"]
    assert "Rebuilt" not in caplog.text


def _put_with_generation(api, uuid: str, what: str, body: dict) -> None:
    """PUT a provider's inventories or traits at its current generation."""
    generation = api.get(f"/resource_providers/{uuid}", version="1.39").json["generation"]
    r = api.put(f"/resource_providers/{uuid}/{what}", version="1.39",
                json={"resource_provider_generation": generation, **body})
    assert r.status_code == 200, r.text


def test_every_write_keeps_the_scores_exact(db, configured):
    """Random API writes of every kind; after each, the stored rows are
    what a rebuild computes, and nothing is stale."""
    env = configured(candidate_order="spread")
    rng = random.Random(4)
    consumers: list[str] = []
    env.rp("a", inv={"VCPU": 8, "MEMORY_MB": 800})
    env.rp("b", inv={"VCPU": 4})
    env.rp("b1", parent="b", inv={"MEMORY_MB": 400})
    env.rp("c")
    api = env.api
    for step in range(40):
        kind = rng.choice(["claim", "claim", "delete", "inventory", "reparent", "provider",
                           "traits"])
        if kind == "claim":
            target = rng.choice(["a", "b1"])
            consumers.append(env.consume({target: {"MEMORY_MB": rng.randint(1, 50)}}))
        elif kind == "delete" and consumers:
            assert api.delete(f"/allocations/{consumers.pop(0)}",
                              version="1.12").status_code == 204
        elif kind == "inventory":
            _put_with_generation(api, env.uuid["c"], "inventories",
                                 {"inventories": {"VCPU": {"total": rng.randint(1, 9)}}})
        elif kind == "reparent":
            # c moves under a or b, or back to being a root (1.37)
            parent = rng.choice([None, env.uuid["a"], env.uuid["b"]])
            r = api.put(f"/resource_providers/{env.uuid['c']}", version="1.39",
                        json={"name": "c", "parent_provider_uuid": parent})
            assert r.status_code == 200, r.text
        elif kind == "provider":
            name = f"p{step}"
            env.rp(name, inv={"VCPU": 2})
            if rng.random() < 0.5:
                assert api.delete(f"/resource_providers/{env.uuid[name]}",
                                  version="1.39").status_code == 204
        elif kind == "traits":
            _put_with_generation(api, env.uuid["a"], "traits", {"traits": ["HW_CPU_X86_AVX2"]})
        kept = db.read(_rows)
        assert db.read(scores.stale) == 0, (step, kind)
        db.write(scores.rebuild)
        assert db.read(_rows) == kept, (step, kind)

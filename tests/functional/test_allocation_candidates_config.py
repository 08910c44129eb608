"""[placement] options that shape GET /allocation_candidates:
max_allocation_candidates, allocation_candidates_generation_strategy and
randomize_allocation_candidates."""

import collections
import gc

import pytest

from placer import wsgi
from placer.candidates import service
from tests.helpers.api import Api, make_conf
from tests.helpers.candidates import Env


@pytest.fixture
def configured(db, tmp_path):
    """An Env on an app built with the given [placement] options."""
    def build(**placement):
        conf = make_conf(tmp_path, placement={k: str(v) for k, v in placement.items()})
        return Env(Api(wsgi.create_app(conf, db)))
    return build


def hosts(env, count, numas=2):
    """``count`` roots, each with ``numas`` children of 4 VCPU: one candidate
    per child for resources=VCPU:1."""
    for h in range(count):
        env.rp(f"CN{h}")
        for n in range(numas):
            env.rp(f"CN{h}_NUMA{n}", parent=f"CN{h}", inv={"VCPU": 4})


def roots(answer) -> collections.Counter:
    """How many candidates use each root."""
    return collections.Counter(name.split("_")[0] for candidate in answer.allocs
                               for name, _, _ in candidate)


def test_max_allocation_candidates_caps_the_answer(configured):
    env = configured(max_allocation_candidates=3)
    hosts(env, 4)
    assert len(env.ok("resources=VCPU:1").requests) == 3
    assert len(env.ok("resources=VCPU:1&limit=2").requests) == 2
    assert len(env.ok("resources=VCPU:1&limit=5").requests) == 3


def test_default_has_no_cap(api):
    env = Env(api)
    hosts(env, 4)
    assert len(env.ok("resources=VCPU:1").requests) == 8


def test_depth_first_takes_all_of_one_root_first(configured):
    env = configured(max_allocation_candidates=3)  # depth-first is the default
    hosts(env, 3)
    answer = env.ok("resources=VCPU:1")
    assert sorted(roots(answer).values()) == [1, 2]
    # the summaries follow the candidates: two trees
    assert {name.split("_")[0] for name in answer.names} == set(roots(answer))


def test_breadth_first_takes_one_candidate_per_root_in_turn(configured):
    env = configured(max_allocation_candidates=3,
                     allocation_candidates_generation_strategy="breadth-first")
    hosts(env, 3)
    assert sorted(roots(env.ok("resources=VCPU:1")).values()) == [1, 1, 1]
    env.rp("CN3")
    env.rp("CN3_NUMA0", parent="CN3", inv={"VCPU": 4})
    # four roots now, one candidate from each of the first three
    assert sorted(roots(env.ok("resources=VCPU:1")).values()) == [1, 1, 1]


def test_breadth_first_gives_every_candidate_without_a_cap(configured):
    env = configured(allocation_candidates_generation_strategy="breadth-first")
    hosts(env, 3)
    assert sorted(roots(env.ok("resources=VCPU:1")).values()) == [2, 2, 2]


def test_order_is_stable_without_randomize(api):
    env = Env(api)
    hosts(env, 4)
    first = env.ok("resources=VCPU:1").requests
    assert all(env.ok("resources=VCPU:1").requests == first for _ in range(3))
    limited = env.ok("resources=VCPU:1&limit=1").requests
    assert all(env.ok("resources=VCPU:1&limit=1").requests == limited for _ in range(3))


def test_randomize_samples_under_limit(configured):
    env = configured(randomize_allocation_candidates=True)
    hosts(env, 8, numas=1)
    # 40 draws of 1 out of 8 all alike: probability 8 ** -39
    seen = {frozenset(env.ok("resources=VCPU:1&limit=1").allocs) for _ in range(40)}
    assert len(seen) > 1
    everything = env.ok("resources=VCPU:1")
    assert len(everything.requests) == 8 and len(roots(everything)) == 8


def test_randomize_keeps_summaries_for_the_sample(configured):
    env = configured(randomize_allocation_candidates=True)
    hosts(env, 4, numas=1)
    for _ in range(5):
        answer = env.ok("resources=VCPU:1&limit=2")
        assert len(answer.requests) == 2
        assert {name.split("_")[0] for name in answer.names} == set(roots(answer))


def test_the_collector_is_off_while_candidates_are_found_and_rendered(api, monkeypatch):
    seen = []
    find, body = service.find, service.candidates_body

    def spy(real):
        def call(*args, **kwargs):
            seen.append((real.__name__, gc.isenabled()))
            return real(*args, **kwargs)
        return call

    monkeypatch.setattr(service, "find", spy(find))
    monkeypatch.setattr(service, "candidates_body", spy(body))
    env = Env(api)
    hosts(env, 2)
    gc.enable()
    assert len(env.ok("resources=VCPU:1").requests) == 4
    assert seen == [("find", False), ("body", False)]
    assert gc.isenabled()

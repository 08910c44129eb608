"""A limited answer spans at least as many hosts as the reference's, on the
cloud where it first showed: 20 hosts, each with two NUMA children.

tests/data/span-reference.json records the reference (openstack-placement
16.0.0) serving the same cloud, made by the command it names
(benchmarks/scenarios/span.py); Placer is asked here through the WSGI app, with
randomize_allocation_candidates off and on."""

import json
import pathlib

import pytest

from placer import wsgi
from tests.helpers.api import Api, make_conf
from tests.helpers.candidates import Env

RECORDED = json.loads((pathlib.Path(__file__).parents[1] / "data" / "span-reference.json")
                      .read_text())


@pytest.mark.parametrize("randomize", [False, True])
@pytest.mark.parametrize("query", sorted(RECORDED["spans"]))
def test_limited_answer_spans_at_least_the_reference_hosts(db, tmp_path, query, randomize):
    conf = make_conf(tmp_path, placement={"randomize_allocation_candidates": str(randomize)})
    env = Env(Api(wsgi.create_app(conf, db)))
    for h in range(RECORDED["hosts"]):
        env.rp(f"host{h}")
        for n in range(2):
            env.rp(f"host{h}-numa{n}", parent=f"host{h}", inv={"VCPU": 8, "MEMORY_MB": 16384})
    limit = RECORDED["limit"]
    answer = env.ok(f"{query}&limit={limit}")
    hosts = {name.split("-")[0] for candidate in answer.allocs for name, _, _ in candidate}
    reference = RECORDED["spans"][query]
    name = "reference randomize" if randomize else "reference"
    assert len(answer.requests) == limit
    assert len(hosts) == limit >= max(reference[name])
    # the reference's default answer spans fewer than its limit (a hash order)
    assert min(reference["reference"]) < limit

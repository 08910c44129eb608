"""A limited answer spans as many roots as it can, on every backend.

Generated clouds of the shapes where a root holds several candidates (NUMA
pairs, PFs with VFs, wide GPU trees, hosts taking disk from a sharing
pool), answered through the candidate service in every order and with
both strategies: the answer spans min(limit, roots that fit) roots, every
candidate is one the unlimited answer holds, and no root's second
candidate comes before another root's first.
"""

import dataclasses
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from placer.candidates import search, service
from placer.candidates.order import Order
from placer.db.candidates import CandidateStore
from placer.schemas.allocation_candidates import parse_query
from tests.helpers import stored_worlds
from tests.helpers.floors import answered, at_least, examples
from tests.helpers.snapshots import World
from tests.helpers.worlds import engine_key

ORDERS = ("id", "random", "spread", "pack")

# per shape: the queries asked of it (each root holds several candidates)
QUERIES = {
    "numa": ["resources1=VCPU:1,MEMORY_MB:512",
             "resources=VCPU:1,MEMORY_MB:512",
             "resources1=VCPU:1&resources2=MEMORY_MB:512&group_policy=isolate"],
    "pf": ["resources=VCPU:1&resources1=SRIOV_NET_VF:1",
           "resources=VCPU:1&resources1=SRIOV_NET_VF:1&resources2=SRIOV_NET_VF:1"
           "&group_policy=isolate"],
    "wide": ["resources=VCPU:1&resources1=VGPU:1",
             "resources=VCPU:1&resources1=VGPU:1&resources2=VGPU:1&group_policy=isolate"],
    "sharing": ["resources=VCPU:1,DISK_GB:10",
                "resources=VCPU:1&resources1=DISK_GB:10&group_policy=none"],
}


@st.composite
def clouds(draw):
    """(shape, World): 2 to 8 hosts of one shape, some of them partly used."""
    shape = draw(st.sampled_from(sorted(QUERIES)))
    w = World()
    hosts = draw(st.integers(2, 8))
    for h in range(hosts):
        host = f"h{h}"
        used = draw(st.sampled_from([0, 0, 1, 3]))  # units taken from each child
        if shape == "numa":
            w.add(host)
            for n in range(2):
                w.add(f"{host}n{n}", parent=host, inv={"VCPU": 4, "MEMORY_MB": 2048},
                      used={"VCPU": used})
        elif shape == "pf":
            w.add(host, inv={"VCPU": 8})
            for f in range(draw(st.integers(1, 3))):
                w.add(f"{host}pf{f}", parent=host, inv={"SRIOV_NET_VF": 4},
                      used={"SRIOV_NET_VF": used})
        elif shape == "wide":
            w.add(host, inv={"VCPU": 8})
            for g in range(draw(st.integers(1, 4))):
                w.add(f"{host}g{g}", parent=host, inv={"VGPU": 1},
                      used={"VGPU": 1} if used == 3 and g == 0 else {})
        else:
            w.add(host, inv={"VCPU": 4}, used={"VCPU": used}, aggs=[f"a{h % 2}"])
    if shape == "sharing":
        for s in range(2):
            w.add(f"pool{s}", inv={"DISK_GB": 100}, aggs=["a0", "a1"], sharing=True)
    return shape, w


def _roots_in_turn(answer: list) -> bool:
    """No root's second candidate before another root's first."""
    met: set = set()
    later = False  # a root's second candidate was seen
    for candidate in answer:
        if candidate.anchor.id in met:
            later = True
        elif later:
            return False
        met.add(candidate.anchor.id)
    return True


@at_least(20)
@settings(max_examples=examples(40),
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_limited_answer_spans_the_roots(store, data):
    shape, world = data.draw(clouds())
    query = data.draw(st.sampled_from(QUERIES[shape]))
    limit = data.draw(st.integers(1, 20))
    order = Order(data.draw(st.sampled_from(ORDERS)), pool=data.draw(st.sampled_from([1.0, 2.0])))
    strategy = data.draw(st.sampled_from(search.STRATEGIES))
    request = parse_query([tuple(p.split("=", 1)) for p in query.split("&")], (1, 39))
    stored_worlds.store(store, world.snapshot())

    def answers(conn):
        every, _ = service.find(CandidateStore(conn), request)
        limited = dataclasses.replace(request, limit=limit)
        got, _ = service.find(CandidateStore(conn), limited, order=order, strategy=strategy,
                              rng=random.Random(data.draw(st.integers(0, 9))), batch=(1, 2))
        return every, got

    every, got = store.read(answers)
    fitting = {c.anchor.id for c in answered(every)}
    assert len(got) == min(limit, len(every))
    assert len({c.anchor.id for c in got}) == min(limit, len(fitting))
    assert {engine_key(c) for c in got} <= {engine_key(c) for c in every}
    assert _roots_in_turn(got)


def _numa_hosts(db, count: int) -> None:
    w = World()
    for h in range(count):
        w.add(f"h{h}")
        for n in range(2):
            w.add(f"h{h}n{n}", parent=f"h{h}", inv={"VCPU": 8, "MEMORY_MB": 16384})
    stored_worlds.store(db, w.snapshot())


def _anchors(db, query: str, **options) -> list[str]:
    request = parse_query([tuple(p.split("=", 1)) for p in query.split("&")], (1, 39))
    found, _ = db.read(lambda conn: service.find(CandidateStore(conn), request, **options))
    return [c.anchor.name for c in found]


def test_fewer_roots_than_the_limit_fill_round_by_round(db):
    _numa_hosts(db, 3)
    # two candidates a root: all firsts, then all seconds
    assert _anchors(db, "resources1=VCPU:1,MEMORY_MB:512&limit=5") == [
        "h0", "h1", "h2", "h0", "h1"]
    # unlimited: the strategy's order, depth-first by default
    assert _anchors(db, "resources1=VCPU:1,MEMORY_MB:512") == [
        "h0", "h0", "h1", "h1", "h2", "h2"]


def test_max_candidates_keeps_what_the_strategy_generates(db):
    _numa_hosts(db, 3)
    query = "resources1=VCPU:1,MEMORY_MB:512&limit=3"
    # depth-first, the first three candidates generated are h0's two and
    # h1's first: the limit takes across those
    assert _anchors(db, query, max_candidates=3) == ["h0", "h1", "h0"]
    # breadth-first, they are one per root
    assert _anchors(db, query, max_candidates=3, strategy="breadth-first") == [
        "h0", "h1", "h2"]
    # a bound of 1 still lets one through, as upstream
    assert _anchors(db, query, max_candidates=0) == ["h0"]

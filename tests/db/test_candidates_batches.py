"""The database's batched walk gives exactly the answer of one whole snapshot.

Random worlds (tests/helpers/worlds.py) are written to each backend, then
every query is answered twice: as before batching (the whole snapshot the
loader used to read, searched at once) and through the candidate service's ``find``
with batches of one or two roots, so that limits fall inside trees, sharing
providers serve roots of different batches and breadth-first rounds span
batches. Candidates, their order and the provider summaries must be equal.
"""

import collections
import dataclasses
import random
from unittest import mock

import sqlalchemy as sa
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from placer.candidates import batches, search, service
from placer.candidates.order import Order
from placer.candidates.snapshot import SHARING_TRAIT
from placer.db import tables as t
from placer.db import trees
from placer.db.candidates import CandidateStore
from placer.schemas.allocation_candidates import parse_query
from tests.helpers import factories, stored_worlds
from tests.helpers.floors import answered, at_least, examples
from tests.helpers.worlds import engine_key, queries, worlds

FLOOR = 8  # examples with candidates each property test must see (14 to 29 of 60 seen)


def _find(conn, request, **options):
    if "rng" in options:  # a random walk
        options.setdefault("order", Order("random"))
    return service.find(CandidateStore(conn), request, **options)


def _key(candidate):
    return (candidate.anchor.uuid, candidate.allocations(), candidate.mappings())


@at_least(FLOOR)
@settings(max_examples=examples(60),
          suppress_health_check=[HealthCheck.filter_too_much,
                                 HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_batches_answer_as_one_snapshot(store, data):
    snap = data.draw(worlds())
    request = data.draw(queries(snap))
    request = dataclasses.replace(request, limit=data.draw(st.sampled_from([None, 1, 2, 3])))
    strategy = data.draw(st.sampled_from(search.STRATEGIES))
    max_candidates = data.draw(st.sampled_from([-1, -1, 1, 4]))
    # None: the production sizes (pages, then batches sized by the yield so
    # far), scaled down to these small worlds
    batch = data.draw(st.sampled_from([(1, 1), (1, 2), (2, 3), None]))
    stored_worlds.store(store, snap)

    def both(conn):
        expected = stored_worlds.whole(conn, request, strategy=strategy,
                                       max_candidates=max_candidates)
        got = _find(conn, request, strategy=strategy, max_candidates=max_candidates,
                    batch=batch)
        return expected, got

    with mock.patch.multiple(batches, FIRST_PAGE=(1, 3), LARGEST_PAGE=4,
                             SMALLEST_BATCH=1):
        (expected, expected_summary), (got, got_summary) = store.read(both)
    assert [_key(c) for c in got] == [_key(c) for c in answered(expected)]
    assert [p.uuid for p in got_summary] == [p.uuid for p in expected_summary]


@at_least(FLOOR)
@settings(max_examples=examples(60),
          suppress_health_check=[HealthCheck.filter_too_much,
                                 HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_random_batches_give_valid_candidates(store, data):
    snap = data.draw(worlds())
    request = data.draw(queries(snap))
    limit = data.draw(st.integers(1, 4))
    strategy = data.draw(st.sampled_from(search.STRATEGIES))
    stored_worlds.store(store, snap)

    def both(conn):
        everything, _ = stored_worlds.whole(conn, request, limit=None)
        got, _ = _find(conn, dataclasses.replace(request, limit=limit),
                                    rng=random.Random(data.draw(st.integers(0, 9))),
                                    strategy=strategy, batch=(1, 2))
        return everything, got

    everything, got = store.read(both)
    every = {engine_key(c) for c in answered(everything)}
    found = [engine_key(c) for c in got]
    assert len(found) == len(set(found)) == min(limit, len(every))
    assert set(found) <= every



# -- the cases where batching could change an answer, one root per batch -------

AGG = "00000000-0000-0000-0000-0000000000ab"


def _query(pairs, version=(1, 39)):
    return parse_query(pairs, version)


def _batched_and_whole(db, request, **options):
    def both(conn):
        whole = stored_worlds.whole(conn, request, **options)
        batched = _find(conn, request, batch=(1, 1), **options)
        return whole, batched

    (whole, whole_summary), (batched, batched_summary) = db.read(both)
    assert [_key(c) for c in batched] == [_key(c) for c in whole]
    assert [p.uuid for p in batched_summary] == [p.uuid for p in whole_summary]
    return batched


def _hosts(db, count, children=2):
    """Roots each with ``children`` one-VGPU children, in id order."""
    hosts = []
    for h in range(count):
        root = factories.provider(db, f"host{h}", inventory={"VCPU": 4})
        kids = [factories.provider(db, f"host{h}-gpu{g}", parent=root, inventory={"VGPU": 1})
                for g in range(children)]
        hosts.append((root, kids))
    return hosts


def test_limit_falling_inside_a_round(db):
    # a limited answer takes each root's first candidate before a second
    hosts = _hosts(db, 2)
    found = _batched_and_whole(db, _query([("resources", "VGPU:1"), ("limit", "3")]))
    assert [list(c.allocations()) for c in found] == [
        [hosts[0][1][0]], [hosts[1][1][0]], [hosts[0][1][1]]]


def test_breadth_first_rounds_span_batches(db):
    hosts = _hosts(db, 3)
    found = _batched_and_whole(db, _query([("resources", "VGPU:1")]),
                               strategy="breadth-first")
    order = [list(c.allocations())[0] for c in found]
    assert order == [kids[g] for g in range(2) for _root, kids in hosts]
    limited = _batched_and_whole(db, _query([("resources", "VGPU:1"), ("limit", "4")]),
                                 strategy="breadth-first")
    assert [list(c.allocations())[0] for c in limited] == order[:4]


def test_sharing_provider_serves_roots_of_every_batch(db):
    roots = [factories.provider(db, f"cn{i}", inventory={"VCPU": 4}, aggregates=[AGG])
             for i in range(3)]
    pool = factories.provider(db, "pool", inventory={"DISK_GB": 100},
                              traits=[SHARING_TRAIT], aggregates=[AGG])
    found = _batched_and_whole(db, _query([("resources", "VCPU:1,DISK_GB:10")]))
    assert [c.allocations() for c in found] == [
        {root: {"VCPU": 1}, pool: {"DISK_GB": 10}} for root in roots]
    # the pool alone: one candidate, though every batch's root is served by it
    alone = _batched_and_whole(db, _query([("resources", "DISK_GB:10")]))
    assert [c.allocations() for c in alone] == [{pool: {"DISK_GB": 10}}]


def test_randomized_walk_gives_valid_candidates_without_repeats(db):
    hosts = _hosts(db, 4)
    every = {kid for _root, kids in hosts for kid in kids}
    request = _query([("resources", "VGPU:1"), ("limit", "5")])
    found = db.read(lambda conn: _find(conn, request, batch=(1, 2),
                                                    rng=random.Random(3)))[0]
    used = [list(c.allocations())[0] for c in found]
    assert len(used) == len(set(used)) == 5 and set(used) <= every



# -- randomize_allocation_candidates --------------------------------------------------


def test_randomized_walk_gives_each_fitting_root_alike(db):
    """Fitting roots among full ones, with children's ids between them: with
    limit=1 each fitting root comes first about as often as the others (the
    ids that fail the filter must not favour the roots after them)."""
    fitting = []
    for h in range(6):
        root = factories.provider(db, f"host{h}", inventory={"VCPU": 4})
        for c in range(h % 3):
            factories.provider(db, f"host{h}-gpu{c}", parent=root, inventory={"VGPU": 1})
        if h % 2:
            factories.allocation(db, root, "VCPU", 4)
        else:
            fitting.append(root)
    request = _query([("resources", "VCPU:1"), ("limit", "1")])

    def firsts(conn):
        return collections.Counter(
            next(iter(_find(conn, request, rng=random.Random(seed))[0][0]
                      .allocations()))
            for seed in range(300))

    counts = db.read(firsts)
    assert set(counts) == set(fitting)
    # 100 each expected; the standard deviation is 8
    assert all(70 <= n <= 130 for n in counts.values()), counts


def test_randomized_limited_walk_filters_and_loads_only_a_slice(db):
    for h in range(40):
        factories.provider(db, f"host{h}", inventory={"VCPU": 4})
    request = _query([("resources", "VCPU:1"), ("limit", "2")])

    def find(conn):
        with (mock.patch.object(trees, "where_in", wraps=trees.where_in) as roots,
              mock.patch.object(trees, "_load", wraps=trees._load) as loads):
            found, _ = _find(conn, request, rng=random.Random(5))
        return found, [(call.args[1], list(call.args[2])) for call in
                       roots.call_args_list + loads.call_args_list]

    found, statements = db.read(find)
    assert len(found) == 2
    filtered = [ids for sql, ids in statements if "parent_provider_id IS NULL" in sql]
    loaded = [ids for query, ids in statements if query in ("providers", "providers_sqlite")]
    # the first page: 16 drawn ids, filtered, and their trees loaded, of 40 roots
    assert filtered and loaded
    assert all(len(ids) <= 16 for ids in filtered + loaded), statements


def test_randomized_walk_with_in_tree_stays_in_that_tree(db):
    hosts = _hosts(db, 4)
    root, kids = hosts[2]
    request = _query([("resources", "VGPU:1"), ("in_tree", root)])
    found = db.read(lambda conn: _find(conn, request, rng=random.Random(1)))[0]
    assert sorted(next(iter(c.allocations())) for c in found) == sorted(kids)


# -- the tree loader ------------------------------------------------------------------


def test_trees_load_usage_summed_per_class_and_aggregates_on_request(db):
    root = factories.provider(db, "cn", inventory={"VCPU": 8, "MEMORY_MB": 4096},
                              traits=["HW_CPU_X86_AVX2"], aggregates=[AGG])
    child = factories.provider(db, "gpu", parent=root, inventory={"VGPU": 2})
    for rc, used in (("VCPU", 2), ("VCPU", 3), ("VGPU", 1)):  # two consumers of VCPU
        factories.allocation(db, root if rc == "VCPU" else child, rc, used)

    def load(conn, aggregates):
        root_id = conn.execute(sa.select(t.resource_providers.c.id)
                               .where(t.resource_providers.c.uuid == root)).scalar_one()
        return {p.uuid: p for p in trees.load_trees(conn, [root_id],
                                                            aggregates=aggregates)}

    tree = db.read(load, True)
    assert set(tree) == {root, child}
    assert tree[root].usages == {"VCPU": 5}  # no allocation of MEMORY_MB: no usage
    assert set(tree[root].inventories) == {"VCPU", "MEMORY_MB"}
    assert tree[root].inventories["VCPU"].capacity == 8
    assert tree[child].usages == {"VGPU": 1}
    assert tree[root].traits == {"HW_CPU_X86_AVX2"} and tree[root].aggregates == {AGG}
    assert tree[child].parent_id == tree[root].id == tree[child].root_id
    bare = db.read(load, False)
    assert bare[root].aggregates == frozenset() and bare[root].usages == {"VCPU": 5}



def test_loader_statements_on_sqlite_do_not_carry_the_ids(db, backend):
    """Python's sqlite3 keeps every distinct statement it prepared, with its
    literals: there the ids are one parameter, and the text is the same."""
    roots = [factories.provider(db, f"cn{i}", inventory={"VCPU": 1}) for i in range(3)]

    def statements(conn, uuids):
        ids = conn.execute(sa.select(t.resource_providers.c.id)
                           .where(t.resource_providers.c.uuid.in_(uuids))).scalars().all()
        with mock.patch.object(conn, "exec_driver_sql", wraps=conn.exec_driver_sql) as spy:
            loaded = trees.load_trees(conn, ids, aggregates=True)
        return {call.args[0] for call in spy.call_args_list}, {p.uuid for p in loaded}

    first, one = db.read(statements, roots[:1])
    second, two = db.read(statements, roots[1:])
    assert one == set(roots[:1]) and two == set(roots[1:])
    assert (first == second) == (backend == "sqlite")

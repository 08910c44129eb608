"""What the engine's shortcuts must keep beyond the set of answers: the order
of the candidates and of the keys in each one's allocations and mappings
(the JSON body follows both), and the agreement of a candidate's views."""

import itertools
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from placer.candidates import domains, render, search, solver
from placer.schemas.allocation_candidates import parse_query
from tests.helpers.brute_force import answers, key, root_ok, valid
from tests.helpers.floors import answered, at_least, examples
from tests.helpers.snapshots import World
from tests.helpers.worlds import engine_key, queries, worlds

FLOOR = 25  # examples with candidates each property test must see (55 to 66 of 150 seen)


def lexicographic(request, snap):
    """Every answer once, in the order of (anchor, provider of each slot), ids
    ascending: slots are the unsuffixed classes, then the suffixed groups."""
    if any(g.in_tree and g.in_tree not in snap.by_uuid for g in request.groups):
        return []
    slots = [(g, {rc: n}) for g in request.groups if not g.suffix for rc, n in g.resources.items()]
    slots += [(g, dict(g.resources)) for g in request.groups if g.suffix]
    providers = sorted(snap.providers.values(), key=lambda p: p.id)
    found: dict = {}
    for anchor in providers:
        if anchor.parent_id is not None or not root_ok(request, anchor):
            continue
        for combo in itertools.product(providers, repeat=len(slots)):
            if valid(request, snap, anchor, slots, combo):
                found.setdefault(key(request, slots, combo), None)
    return list(found)


@at_least(FLOOR)
@settings(max_examples=examples(150))
@given(st.data())
def test_depth_first_order_is_lexicographic(data):
    snap = data.draw(worlds())
    request = data.draw(queries(snap))
    assert answered(answers(request, snap)) == lexicographic(request, snap)


@at_least(FLOOR)
@settings(max_examples=examples(150))
@given(st.data())
def test_views_of_a_candidate_agree(data):
    snap = data.draw(worlds())
    request = data.draw(queries(snap))
    for candidate in answered(list(search.find_candidates(request, snap, limit=None))):
        groups = candidate.groups
        assert list(groups) == [g.suffix for g in request.groups]
        summed: dict = {}
        for assigned in groups.values():
            for provider, resources in assigned:
                into = summed.setdefault(provider.uuid, {}) if resources else {}
                for rc, amount in resources.items():
                    into[rc] = into.get(rc, 0) + amount
        assert list(candidate.allocations().items()) == list(summed.items())
        assert candidate.mappings() == {s: [p.uuid for p, _ in a] for s, a in groups.items()}
        giving = {p.id: p for a in groups.values() for p, res in a if res}
        assert candidate.resource_providers() == list(giving.values())


def test_keys_follow_the_request_order_of_groups():
    w = World()
    w.add("cn", inv={"VCPU": 4, "MEMORY_MB": 64})
    w.add("numa", parent="cn", inv={"VCPU": 4})
    query = [
        ("resources1", "VCPU:1"),
        ("resources", "VCPU:1,MEMORY_MB:8"),
        ("resources2", "VCPU:2"),
        ("group_policy", "none"),
    ]
    found = list(search.find_candidates(parse_query(query, (1, 39)), w.snapshot()))
    cn, numa = w.uuid("cn"), w.uuid("numa")
    names = {cn: "cn", numa: "numa"}
    # slots searched: unsuffixed VCPU, MEMORY_MB (cn only), then groups 1 and 2; cn first
    assert [
        [[names[u] for u in c.mappings()[sfx]] for sfx in ("", "1", "2")] for c in found
    ] == [
        [[a] if a == "cn" else [a, "cn"], [b], [c]]
        for a in ("cn", "numa")
        for b in ("cn", "numa")
        for c in ("cn", "numa")
    ]
    body = render.allocation_request(found[5], (1, 39))  # VCPU numa, group 1 cn, group 2 numa
    assert list(body["mappings"].items()) == [("1", [cn]), ("", [numa, cn]), ("2", [numa])]
    assert list(body["allocations"].items()) == [
        (cn, {"resources": {"VCPU": 1, "MEMORY_MB": 8}}),
        (numa, {"resources": {"VCPU": 3}}),
    ]
    old = render.allocation_request(found[5], (1, 11))["allocations"]
    assert [(a["resource_provider"]["uuid"], list(a["resources"])) for a in old] == [
        (cn, ["VCPU", "MEMORY_MB"]),
        (numa, ["VCPU"]),
    ]


def _walked(request, snap):
    """The candidates as the solver's walk gives them, never its shortcut for
    slots no rule ties together."""
    plan_init = solver.Plan.__init__

    def walk_only(self, *args):
        plan_init(self, *args)
        self.independent = False

    with mock.patch.object(solver.Plan, "__init__", walk_only):
        return answers(request, snap)


@at_least(FLOOR)
@settings(max_examples=examples(150))
@given(st.data())
def test_independent_slots_give_the_walks_answers_in_its_order(data):
    snap = data.draw(worlds())
    request = data.draw(queries(snap))
    assert answered(answers(request, snap)) == _walked(request, snap)


def test_independent_slots_are_every_combination_of_their_options():
    w = World()
    w.add("cn", inv={"VCPU": 8, "MEMORY_MB": 64})
    for n in range(3):
        w.add(f"gpu{n}", parent="cn", inv={"VGPU": 1})
    w.add("used", parent="cn", inv={"VGPU": 1}, used={"VGPU": 1})
    request = parse_query([("resources", "VCPU:1,MEMORY_MB:8"), ("resources1", "VGPU:1"),
                           ("group_policy", "isolate")], (1, 39))
    snap = w.snapshot()
    layout = domains.Layout(request)
    assert solver.Plan(layout, request, snap).independent  # one suffixed group: isolate is moot
    found = list(search.find_candidates(request, snap, limit=None))
    assert [c.mappings()["1"] for c in found] == [[w.uuid(f"gpu{n}")] for n in range(3)]
    assert [engine_key(c) for c in found] == _walked(request, snap)
    # two suffixed groups under isolate, or a class asked twice, need the walk
    for query in ([("resources1", "VGPU:1"), ("resources2", "VGPU:1"), ("group_policy", "isolate")],
                  [("resources", "VCPU:1"), ("resources1", "VCPU:1"), ("group_policy", "none")]):
        tied = parse_query(query, (1, 39))
        assert not solver.Plan(domains.Layout(tied), tied, snap).independent

"""Property tests: the engine equals a brute-force reading of the rules.

The brute force tries every provider for every slot (one per unsuffixed
class, one per suffixed group) under every root, keeps what satisfies the
rules as written in search.py's docstring, and deduplicates on
(allocations, mappings). It shares no code with the engine.
"""

import itertools
import random

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from placer import exceptions
from placer.candidates import search
from placer.candidates.request import parse_query
from placer.candidates.snapshot import SHARING_TRAIT, Inventory, Provider, Snapshot

RCS = ("VCPU", "DISK_GB")
TRAITS = ("CUSTOM_A", "CUSTOM_B")
AGGS = ("00000000-0000-0000-0000-00000000000a", "00000000-0000-0000-0000-00000000000b")


# -- random worlds and queries ---------------------------------------------------------


@st.composite
def inventories(draw):
    result = {}
    for rc in RCS:
        # Hypothesis leans to the first/smallest values: make those the rich ones.
        if draw(st.integers(0, 3)) != 3:
            total = 5 - draw(st.integers(0, 4))
            result[rc] = Inventory(
                total=total,
                reserved=draw(st.sampled_from([0, 0, 0, 1])),
                min_unit=draw(st.sampled_from([1, 1, 1, 1, 2])),
                max_unit=draw(st.sampled_from([total, total, total, 1, 2])),
                step_size=draw(st.sampled_from([1, 1, 1, 1, 2])),
                allocation_ratio=draw(st.sampled_from([1.0, 1.0, 1.5])),
            )
    return result


@st.composite
def worlds(draw):
    count = 7 - draw(st.integers(0, 6))
    providers = []
    for pid in range(1, count + 1):
        sharing = pid > 1 and draw(st.integers(0, 4)) == 4
        parent = None
        if pid > 1 and not sharing and draw(st.integers(0, 2)) != 2:
            parent = draw(st.sampled_from([p for p in providers if not p.is_sharing]))
        traits = set(draw(st.sets(st.sampled_from(TRAITS + TRAITS[:1]))))
        if sharing:
            traits.add(SHARING_TRAIT)
        invs = draw(inventories())
        usages = {rc: draw(st.integers(1, 2)) for rc in invs if draw(st.integers(0, 3)) == 3}
        providers.append(
            Provider(
                id=pid,
                uuid=f"00000000-0000-0000-0000-{pid:012d}",
                name=f"p{pid}",
                parent_id=parent.id if parent else None,
                root_id=parent.root_id if parent else pid,
                traits=frozenset(traits),
                aggregates=frozenset(draw(st.sets(st.sampled_from(AGGS)))),
                inventories=invs,
                usages=usages,
            )
        )
    return Snapshot(providers)


@st.composite
def queries(draw, snapshot):
    pairs = []
    suffixes = draw(st.sampled_from([[""], ["", "1"], ["1"], ["1", "2"], ["", "1", "2"]]))
    uuids = [p.uuid for p in snapshot.providers.values()]
    for suffix in suffixes:
        resourceless = suffix and draw(st.integers(0, 4)) == 4
        if not resourceless:
            rcs = draw(st.lists(st.sampled_from(RCS), min_size=1, max_size=2, unique=True))
            amounts = ",".join(f"{rc}:{draw(st.sampled_from([1, 1, 2]))}" for rc in rcs)
            pairs.append(("resources" + suffix, amounts))
        traits = draw(
            st.sampled_from(
                ["", "", "", "", "CUSTOM_A", "!CUSTOM_B", "in:CUSTOM_A,CUSTOM_B", "CUSTOM_B"]
            )
        )
        if traits or resourceless:
            pairs.append(("required" + suffix, traits or "CUSTOM_A"))
        member = draw(
            st.sampled_from(["", "", "", AGGS[0], f"in:{AGGS[0]},{AGGS[1]}", "!" + AGGS[1]])
        )
        if member:
            pairs.append(("member_of" + suffix, member))
        if draw(st.integers(0, 6)) == 6:
            pairs.append(("in_tree" + suffix, draw(st.sampled_from(uuids))))
    pairs.append(("group_policy", draw(st.sampled_from(["isolate", "none"]))))
    granular = [s for s in suffixes if s]
    if granular and draw(st.integers(0, 2)) == 2:
        pairs.append(("same_subtree", ",".join(granular)))
    if draw(st.integers(0, 4)) == 4:
        pairs.append(("root_required", draw(st.sampled_from(["CUSTOM_A", "!CUSTOM_A"]))))
    version = draw(st.sampled_from([(1, 39), (1, 36), (1, 28)]))
    try:
        return parse_query(pairs, version)
    except exceptions.BadRequest:
        assume(False)


# -- the brute force ---------------------------------------------------------------------


def brute_force(request, snap):
    providers = list(snap.providers.values())
    if any(g.in_tree and g.in_tree not in snap.by_uuid for g in request.groups):
        return set()
    slots = [(g, {rc: n}) for g in request.groups if not g.suffix for rc, n in g.resources.items()]
    slots += [(g, dict(g.resources)) for g in request.groups if g.suffix]
    found = set()
    for anchor in providers:
        if anchor.parent_id is not None or not root_ok(request, anchor):
            continue
        for combo in itertools.product(providers, repeat=len(slots)):
            if valid(request, snap, anchor, slots, combo):
                found.add(key(request, slots, combo))
    return found


def root_ok(request, root):
    return request.root_required <= root.traits and not request.root_forbidden & root.traits


def serves(snap, p, anchor):
    if p.root_id == anchor.id:
        return True
    return p.is_sharing and any(
        q.root_id == anchor.id and q.aggregates & p.aggregates for q in snap.providers.values()
    )


def members(snap, group):
    return {
        p.id
        for p in snap.providers.values()
        if all(p.aggregates & any_of for any_of in group.member_of)
    }


def unit_ok(p, rc, n):
    inv = p.inventories.get(rc)
    return inv is not None and inv.min_unit <= n <= inv.max_unit and n % inv.step_size == 0


def has_traits(traits, group):
    return all(c & traits for c in group.trait_clauses)


def slot_ok(request, snap, anchor, group, demand, p):
    if not serves(snap, p, anchor) or group.forbidden & p.traits:
        return False
    if not all(unit_ok(p, rc, n) for rc, n in demand.items()):
        return False
    tree = snap.by_uuid[group.in_tree].root_id if group.in_tree else None
    m = members(snap, group)
    if not group.suffix:
        if tree is not None and p.root_id != tree:
            return False
        if p.root_id != anchor.id and (tree is not None or (group.member_of and p.id not in m)):
            return False
        if group.member_of and p.id not in m and anchor.id not in m:
            return False
        return not group.forbidden_aggs & (p.aggregates | anchor.aggregates)
    if not has_traits(p.traits, group) or group.forbidden_aggs & p.aggregates:
        return False
    if group.member_of and p.id not in m:
        return False
    if not demand:
        return bool(group.trait_clauses or group.member_of)
    return tree is None or p.root_id == tree


def valid(request, snap, anchor, slots, combo):
    for (group, demand), p in zip(slots, combo, strict=True):
        if not slot_ok(request, snap, anchor, group, demand, p):
            return False
    totals = {}
    for (_, demand), p in zip(slots, combo, strict=True):
        for rc, n in demand.items():
            totals[(p, rc)] = totals.get((p, rc), 0) + n
    for (p, rc), n in totals.items():
        inv = p.inventories[rc]
        if n > inv.max_unit or p.usages.get(rc, 0) + n > inv.capacity:
            return False
    unsuffixed = [p for (g, _), p in zip(slots, combo, strict=True) if not g.suffix]
    for group in request.groups:
        if not group.suffix and not has_traits(set().union(*(p.traits for p in unsuffixed)), group):
            return False
    by_suffix = {g.suffix: p for (g, _), p in zip(slots, combo, strict=True) if g.suffix}
    if request.isolate and len(set(by_suffix.values())) != len(by_suffix):
        return False
    for names in request.same_subtree:
        chosen = {by_suffix[s] for s in names}
        if not any(all(snap.is_ancestor_or_self(top.id, p.id) for p in chosen) for top in chosen):
            return False
    if not request.nested_aware:
        giving = {p for p, _ in totals}
        if len({p.root_id for p in giving}) != len(giving):
            return False
    return True


def key(request, slots, combo):
    allocations = {}
    mappings = {}
    for (group, demand), p in zip(slots, combo, strict=True):
        mappings.setdefault(group.suffix, set()).add(p.uuid)
        for rc, n in demand.items():
            allocations[(p.uuid, rc)] = allocations.get((p.uuid, rc), 0) + n
    return (
        frozenset((u, rc, n) for (u, rc), n in allocations.items()),
        frozenset((s, frozenset(u)) for s, u in mappings.items()),
    )


def engine_key(candidate):
    return (
        frozenset(
            (u, rc, n) for u, res in candidate.allocations().items() for rc, n in res.items()
        ),
        frozenset((s, frozenset(u)) for s, u in candidate.mappings().items()),
    )


# -- the properties ----------------------------------------------------------------------

SETTINGS = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.filter_too_much]
)


@SETTINGS
@given(st.data())
def test_engine_equals_brute_force(data):
    snap = data.draw(worlds())
    request = data.draw(queries(snap))
    found = [engine_key(c) for c in search.find_candidates(request, snap, limit=None)]
    assert len(found) == len(set(found)), "duplicate candidates"
    assert set(found) == brute_force(request, snap)


@SETTINGS
@given(st.data())
def test_every_candidate_is_valid_and_limits_hold(data):
    snap = data.draw(worlds())
    request = data.draw(queries(snap))
    everything = brute_force(request, snap)
    limit = data.draw(st.integers(1, 4))
    strategy = data.draw(st.sampled_from(search.STRATEGIES))
    rng = random.Random(data.draw(st.integers(0, 3))) if data.draw(st.booleans()) else None
    found = [
        engine_key(c)
        for c in search.find_candidates(request, snap, limit=limit, strategy=strategy, rng=rng)
    ]
    assert len(found) == min(limit, len(everything))
    assert len(set(found)) == len(found)
    assert set(found) <= everything
    unlimited = search.find_candidates(request, snap, limit=None, strategy=strategy, rng=rng)
    assert {engine_key(c) for c in unlimited} == everything


@SETTINGS
@given(st.data())
def test_summaries_cover_the_trees_used(data):
    snap = data.draw(worlds())
    request = data.draw(queries(snap))
    candidates = list(search.find_candidates(request, snap, limit=None))
    summary = search.summary_providers(candidates, snap, request.nested_aware)
    giving = {p.id for c in candidates for p in c.resource_providers()}
    if request.nested_aware:
        roots = {snap.get(pid).root_id for pid in giving}
        assert {p.id for p in summary} == {
            p.id for p in snap.providers.values() if p.root_id in roots
        }
    else:
        assert {p.id for p in summary} == giving

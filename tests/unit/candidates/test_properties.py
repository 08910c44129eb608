"""Property tests: the engine equals a brute-force reading of the rules.

The brute force tries every provider for every slot (one per unsuffixed
class, one per suffixed group) under every root, keeps what satisfies the
rules as written in search.py's docstring, and deduplicates on
(allocations, mappings). It shares no code with the engine.
"""

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from placer.candidates import search
from tests.helpers.brute_force import answers, brute_force
from tests.helpers.floors import answered, at_least, examples
from tests.helpers.worlds import engine_key, queries, worlds

# -- the properties ----------------------------------------------------------------------

FLOOR = 25  # examples with candidates each test must see (65 to 93 of 150 seen)
@at_least(FLOOR)
@settings(max_examples=examples(150))
@given(st.data())
def test_engine_equals_brute_force(data):
    snap = data.draw(worlds())
    request = data.draw(queries(snap))
    found = answered(answers(request, snap))
    assert len(found) == len(set(found)), "duplicate candidates"
    assert set(found) == brute_force(request, snap)


@at_least(FLOOR)
@settings(max_examples=examples(150))
@given(st.data())
def test_every_candidate_is_valid_and_limits_hold(data):
    snap = data.draw(worlds())
    request = data.draw(queries(snap))
    everything = answered(brute_force(request, snap))
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


@at_least(FLOOR)
@settings(max_examples=examples(150))
@given(st.data())
def test_summaries_cover_the_trees_used(data):
    snap = data.draw(worlds())
    request = data.draw(queries(snap))
    candidates = answered(list(search.find_candidates(request, snap, limit=None)))
    summary = search.summary_providers(candidates, request.nested_aware)
    giving = {p.id for c in candidates for p in c.resource_providers()}
    if request.nested_aware:
        roots = {snap.get(pid).root_id for pid in giving}
        assert {p.id for p in summary} == {
            p.id for p in snap.providers.values() if p.root_id in roots
        }
    else:
        assert {p.id for p in summary} == giving

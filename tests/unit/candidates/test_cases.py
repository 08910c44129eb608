"""Every case of tests/helpers/candidate_cases run against the engine: the
world built as a snapshot, each query parsed at its microversion and
searched, the answer compared by provider names."""

import pytest

from placer.candidates import search
from placer.schemas import query_string
from placer.schemas.allocation_candidates import parse_query
from tests.helpers import candidate_cases
from tests.helpers.candidate_cases.model import version_tuple
from tests.helpers.snapshots import World, agg, named


class _Uuids(dict):
    """``{name}``: a provider's uuid, or else an aggregate's."""

    def __init__(self, world: World):
        super().__init__()
        self.world = world

    def __missing__(self, name):
        return self.world.uuid(name) if name in self.world.providers else agg(name)


def answer(world: World, q: candidate_cases.Q) -> candidate_cases.Seen:
    text = q.query.format_map(_Uuids(world))
    request = parse_query(query_string.parse(text.encode()), version_tuple(q.version))
    found = list(search.find_candidates(request, world.snapshot()))
    summaries = search.summary_providers(found, request.nested_aware)
    assert [p.id for p in summaries] == sorted(p.id for p in summaries)
    return candidate_cases.Seen([named(c) for c in found],
                                {p.name: p.traits for p in summaries})


@pytest.mark.parametrize("case", candidate_cases.params(candidate_cases.CASES, "engine"))
def test_case(case: candidate_cases.Case):
    world = World()
    for rp in case.world:
        world.add(rp.name, rp.parent, rp.inv, rp.traits, rp.aggs, rp.used, rp.sharing)
    for q in case.queries:
        candidate_cases.check(q, answer(world, q))

"""Every case of tests/helpers/candidate_cases over HTTP: the world built
through the API, each query sent at its microversion, the answer compared by
provider names."""

import pytest

from tests.helpers import candidate_cases
from tests.helpers.candidates import SHARING, Env


@pytest.mark.parametrize("case", candidate_cases.params(candidate_cases.CASES, "http"))
def test_case(api, case: candidate_cases.Case):
    env = Env(api)
    env.traits(*case.known_traits)
    for rp in case.world:
        env.rp(rp.name, rp.parent, dict(rp.inv),
               traits=rp.traits + ((SHARING,) if rp.sharing else ()), aggs=rp.aggs)
    for rp in case.world:
        if rp.used:
            env.consume({rp.name: dict(rp.used)})
    for q in case.queries:
        answer = env.ok(q.query, q.version)
        candidate_cases.check(q, candidate_cases.Seen(answer.named, answer.summary_traits))

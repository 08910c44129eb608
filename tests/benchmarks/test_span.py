"""benchmarks/scenarios/span.py: its cloud and its count of the hosts a limited
answer spans, through the app in process (the reference's side is the
recorded file that tests/functional/test_allocation_candidates_span.py
reads)."""

from benchmarks.harness.client import InProcessClient, placer_app
from benchmarks.scenarios import span
from benchmarks.scenarios.fixed import load


def test_cloud_and_spans(tmp_path):
    scenario = span.cloud(6)
    assert len(scenario.providers) == 18
    assert sum(1 for p in scenario.providers if p.parent is None) == 6
    client = InProcessClient(placer_app(tmp_path, f"sqlite:///{tmp_path}/span.sqlite"))
    load(client, scenario, threads=1)
    assert span.spans(client, scenario, 4) == {query: 4 for query in span.QUERIES}
    # more than the roots: every root, each candidate counted once per root
    assert span.spans(client, scenario, 50) == {query: 6 for query in span.QUERIES}

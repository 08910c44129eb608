"""benchmarks/span.py: its cloud and its count of the hosts a limited
answer spans, through the app in process (the reference's side is the
recorded file that tests/functional/test_allocation_candidates_span.py
reads)."""

from benchmarks import loader, span
from benchmarks.profile_query import InProcessClient, build_app


def test_cloud_and_spans(tmp_path):
    scenario = span.cloud(6)
    assert len(scenario.providers) == 18
    assert sum(1 for p in scenario.providers if p.parent is None) == 6
    client = InProcessClient(build_app(tmp_path))
    loader.load(client, scenario, threads=1)
    assert span.spans(client, scenario, 4) == {query: 4 for query in span.QUERIES}
    # more than the roots: every root, each candidate counted once per root
    assert span.spans(client, scenario, 50) == {query: 6 for query in span.QUERIES}

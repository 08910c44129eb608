"""GET /allocation_candidates under random, mostly valid queries (every
group form, traits, aggregates, in_tree, same_subtree, root_required, limits,
unknown names) on a small world with nested trees and a sharing provider:
never a 5xx, whatever the SQL filter and the batches make of them.

PLACER_FUZZ_EXAMPLES / PLACER_FUZZ_RANDOM=1 widen the search, as for test_fuzz.
"""

import urllib.parse
import uuid

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from placer import wsgi
from placer.candidates.snapshot import SHARING_TRAIT
from tests.helpers import factories
from tests.helpers.api import Api, make_conf
from tests.helpers.floors import examples

AGGS = ["00000000-0000-0000-0000-00000000000a", "00000000-0000-0000-0000-00000000000b",
        "00000000-0000-0000-0000-0000000000ff"]  # the last one holds no provider
CLASSES = ["VCPU", "DISK_GB", "VGPU", "CUSTOM_NOPE"]
TRAITS = ["CUSTOM_A", "!CUSTOM_A", "in:CUSTOM_A,CUSTOM_B", "CUSTOM_B,!CUSTOM_A", "CUSTOM_NOPE",
          SHARING_TRAIT]
MEMBER_OF = [AGGS[0], f"in:{AGGS[0]},{AGGS[1]}", "!" + AGGS[1], AGGS[2],
             f"!in:{AGGS[0]},{AGGS[2]}"]

@pytest.fixture(scope="module")
def world(migrated_db, tmp_path_factory):
    """Four hosts (two children each) in two aggregates, and a disk pool
    shared with both; names are unique, so earlier tests' rows do no harm."""
    db, tag = migrated_db, uuid.uuid4().hex[:6]
    uuids = []
    for h in range(4):
        root = factories.provider(db, f"fz{tag}-h{h}", inventory={"VCPU": 8, "DISK_GB": 50},
                                  traits=["CUSTOM_A"] if h % 2 else ["CUSTOM_B"],
                                  aggregates=[AGGS[h % 2]])
        uuids.append(root)
        for k in range(2):
            uuids.append(factories.provider(db, f"fz{tag}-h{h}n{k}", parent=root,
                                            inventory={"VGPU": 1, "VCPU": 4},
                                            traits=["CUSTOM_A"] if k else []))
    uuids.append(factories.provider(db, f"fz{tag}-pool", inventory={"DISK_GB": 100},
                                    traits=[SHARING_TRAIT, "CUSTOM_B"], aggregates=AGGS[:2]))
    api = Api(wsgi.create_app(make_conf(tmp_path_factory.mktemp("conf")), db))
    return api, uuids + ["00000000-0000-0000-0000-000000000999"]


@settings(max_examples=examples(200), suppress_health_check=list(HealthCheck))
@given(data=st.data())
def test_no_server_error(world, data):
    api, uuids = world
    suffixes = data.draw(st.lists(st.sampled_from(["", "1", "2", "_x"]), min_size=1,
                                  max_size=3, unique=True))
    query = []
    for s in suffixes:
        if not s or data.draw(st.booleans()):
            classes = data.draw(st.lists(st.sampled_from(CLASSES), min_size=1, max_size=3,
                                         unique=True))
            query.append((f"resources{s}", ",".join(
                f"{rc}:{data.draw(st.integers(0, 60))}" for rc in classes)))
        if data.draw(st.booleans()):
            query.append((f"required{s}", data.draw(st.sampled_from(TRAITS))))
        if data.draw(st.booleans()):
            query.append((f"member_of{s}", data.draw(st.sampled_from(MEMBER_OF))))
        if data.draw(st.integers(0, 4)) == 0:
            query.append((f"in_tree{s}", data.draw(st.sampled_from(uuids))))
    if data.draw(st.booleans()):
        query.append(("group_policy", data.draw(st.sampled_from(["isolate", "none"]))))
    if data.draw(st.integers(0, 3)) == 0:
        query.append(("same_subtree", ",".join(s for s in suffixes if s) or "1"))
    if data.draw(st.integers(0, 3)) == 0:
        query.append(("root_required", data.draw(st.sampled_from(
            ["CUSTOM_A", "!CUSTOM_B", "CUSTOM_NOPE"]))))
    if data.draw(st.booleans()):
        query.append(("limit", str(data.draw(st.integers(1, 5)))))
    version = data.draw(st.sampled_from(["1.39", "1.36", "1.29", "1.25", "1.21", "1.10"]))
    r = api.get("/allocation_candidates?" + urllib.parse.urlencode(query), version=version)
    assert r.status_code < 500, (query, r.text)
    if r.status_code == 200:
        body = r.json
        assert set(body) == {"allocation_requests", "provider_summaries"}

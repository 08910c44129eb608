"""Capacity in GET /allocation_candidates: existing usage, reserved and
allocation_ratio, min_unit/max_unit/step_size per group, and what one
candidate takes from one provider over several groups."""

import pytest

from tests.helpers.candidates import SHARING, Env, alloc


@pytest.fixture
def env(api):
    return Env(api)


def fits(env, query, name="CN") -> bool:
    allocs = env.ok(query).allocs
    return any(name in {n for n, _, _ in candidate} for candidate in allocs)


def test_existing_usage_counts(env):
    env.rp("CN", inv={"VCPU": 4})
    env.consume({"CN": {"VCPU": 2}})
    env.consume({"CN": {"VCPU": 1}})
    assert fits(env, "resources=VCPU:1")
    assert not fits(env, "resources=VCPU:2")


def test_reserved_and_allocation_ratio(env):
    env.rp("CN", inv={"VCPU": {"total": 4, "reserved": 1, "allocation_ratio": 2.0}})
    assert fits(env, "resources=VCPU:6")  # (4 - 1) * 2
    assert not fits(env, "resources=VCPU:7")
    env.consume({"CN": {"VCPU": 4}})
    env.consume({"CN": {"VCPU": 1}})
    assert fits(env, "resources=VCPU:1")
    assert not fits(env, "resources=VCPU:2")


def test_allocation_ratio_below_one(env):
    env.rp("CN", inv={"MEMORY_MB": {"total": 1000, "allocation_ratio": 0.5}})
    assert fits(env, "resources=MEMORY_MB:500")
    assert not fits(env, "resources=MEMORY_MB:501")


@pytest.mark.parametrize("amount, ok", [(1, False), (2, True), (3, False), (4, True),
                                        (6, True), (8, False)])
def test_min_unit_max_unit_step_size(env, amount, ok):
    env.rp("CN", inv={"VCPU": {"total": 16, "min_unit": 2, "max_unit": 6, "step_size": 2}})
    assert fits(env, f"resources=VCPU:{amount}") is ok
    assert fits(env, f"resources1=VCPU:{amount}") is ok


def test_groups_add_up_on_one_provider(env):
    env.rp("CN", inv={"VCPU": 4})
    env.consume({"CN": {"VCPU": 1}})
    assert env.ok("resources=VCPU:1&resources1=VCPU:1&resources2=VCPU:1"
                  "&group_policy=none").allocs == {alloc(CN={"VCPU": 3})}
    assert env.ok("resources=VCPU:2&resources1=VCPU:1&resources2=VCPU:1"
                  "&group_policy=none").allocs == set()


def test_groups_add_up_against_max_unit(env):
    env.rp("CN")
    for numa in ("NUMA0", "NUMA1"):
        env.rp(numa, parent="CN", inv={"VCPU": {"total": 8, "max_unit": 2}})
    answer = env.ok("resources1=VCPU:2&resources2=VCPU:1&group_policy=none")
    # 3 from one NUMA would exceed its max_unit of 2
    assert answer.allocs == {alloc(NUMA0={"VCPU": 2}, NUMA1={"VCPU": 1}),
                             alloc(NUMA1={"VCPU": 2}, NUMA0={"VCPU": 1})}


def test_each_group_meets_min_unit_and_step_size_alone(env):
    env.rp("CN", inv={"VCPU": {"total": 16, "min_unit": 2, "step_size": 2}})
    # 1 + 1 would be 2, but each group asks for less than min_unit
    assert env.ok("resources1=VCPU:1&resources2=VCPU:1&group_policy=none").allocs == set()
    assert env.ok("resources1=VCPU:2&resources2=VCPU:2&group_policy=none").allocs == {
        alloc(CN={"VCPU": 4})}


def test_unsuffixed_and_suffixed_groups_share_capacity(env):
    env.rp("CN", inv={"VCPU": 4, "MEMORY_MB": 1024})
    env.rp("NUMA", parent="CN", inv={"VCPU": 2})
    answer = env.ok("resources=VCPU:3,MEMORY_MB:1&resources1=VCPU:2&group_policy=none")
    assert answer.allocs == {alloc(CN={"VCPU": 3, "MEMORY_MB": 1}, NUMA={"VCPU": 2})}
    answer = env.ok("resources=VCPU:2,MEMORY_MB:1&resources1=VCPU:2&group_policy=none")
    assert answer.allocs == {alloc(CN={"VCPU": 4, "MEMORY_MB": 1}),
                             alloc(CN={"VCPU": 2, "MEMORY_MB": 1}, NUMA={"VCPU": 2})}


@pytest.mark.parametrize("policy", ["", "&group_policy=isolate"])
def test_reference_bug_one_class_in_two_groups_without_policy_none(env, policy):
    # The reference shares one amount object between candidates unless
    # group_policy=none, so that merging groups inflates later candidates
    # (it answers NUMA VCPU:4 out of 2, or drops the candidates). Placer
    # answers what group_policy=none answers; not checked against the reference.
    env.rp("CN", inv={"VCPU": 4, "MEMORY_MB": 1024})
    env.rp("NUMA", parent="CN", inv={"VCPU": 2})
    answer = env.ok("resources=VCPU:2,MEMORY_MB:1&resources1=VCPU:2" + policy)
    assert answer.allocs == {alloc(CN={"VCPU": 4, "MEMORY_MB": 1}),
                             alloc(CN={"VCPU": 2, "MEMORY_MB": 1}, NUMA={"VCPU": 2})}
    assert env.ok("resources=VCPU:3,MEMORY_MB:1&resources1=VCPU:2" + policy).allocs == {
        alloc(CN={"VCPU": 3, "MEMORY_MB": 1}, NUMA={"VCPU": 2})}


def test_sharing_provider_capacity_over_groups(env):
    env.rp("CN", inv={"VCPU": 4}, aggs=["agg"])
    env.rp("SS", inv={"DISK_GB": 10}, traits=[SHARING], aggs=["agg"])
    env.consume({"SS": {"DISK_GB": 4}})
    assert env.ok("resources=VCPU:1,DISK_GB:3&resources1=DISK_GB:3").allocs == {
        alloc(CN={"VCPU": 1}, SS={"DISK_GB": 6})}
    assert env.ok("resources=VCPU:1,DISK_GB:4&resources1=DISK_GB:3").allocs == set()


def test_full_provider_is_skipped_but_its_tree_is_not(env):
    env.rp("CN", inv={"MEMORY_MB": 1024})
    env.rp("NUMA0", parent="CN", inv={"VCPU": 2})
    env.rp("NUMA1", parent="CN", inv={"VCPU": 2})
    env.consume({"NUMA0": {"VCPU": 2}})
    assert env.ok("resources=VCPU:1,MEMORY_MB:1").allocs == {
        alloc(NUMA1={"VCPU": 1}, CN={"MEMORY_MB": 1})}
    env.consume({"NUMA1": {"VCPU": 1}})
    assert env.ok("resources=VCPU:2,MEMORY_MB:1").allocs == set()

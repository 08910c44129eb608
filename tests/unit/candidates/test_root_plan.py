"""The roots' plan, without a database: what each group asks of a root, in
ids, and which sharing providers may serve instead of the tree."""

from placer.candidates.explanation.unit_rules import RULES
from placer.candidates.root_plan import RootPlan
from placer.candidates.store import Names
from placer.model import inventory
from placer.schemas.allocation_candidates import parse_query
from tests.helpers.snapshots import World, agg

NAMES = Names(classes={"VCPU": 1, "DISK_GB": 2}, traits={"CUSTOM_A": 10, "CUSTOM_B": 11},
              aggregates={agg("A"): 100})


def plan(query, sharing=(), targets=None):
    pairs = [tuple(p.split("=", 1)) for p in query.split("&")]
    return RootPlan(parse_query(pairs, (1, 39)), NAMES, targets or {}, list(sharing)).plan()


def test_each_class_and_trait_becomes_a_condition_with_ids():
    assert plan("resources=VCPU:2&required=CUSTOM_A&root_required=CUSTOM_B") == (
        ("root_has", (11,)),
        ("traits", (10,), None),
        ("class", 1, 2, (), (), None),
    )


def test_a_sharing_provider_that_fits_may_serve_instead_of_the_tree():
    w = World()
    pool = w.add("pool", inv={"DISK_GB": 100}, sharing=True)
    small = w.add("small", inv={"DISK_GB": 5}, sharing=True)
    found = plan("resources=VCPU:1,DISK_GB:10", sharing=[pool, small])
    assert found[-1] == ("class", 2, 10, (), (), ((pool.id,), (pool.root_id,)))
    assert found[0] == ("class", 1, 1, (), (), None)


def test_granular_groups_carry_everything_one_provider_needs():
    found = plan(f"resources1=VCPU:1,DISK_GB:1&required1=CUSTOM_A&member_of1={agg('A')}"
                 f"&member_of1={agg('unknown')}&in_tree1={agg('T')}", targets={agg("T"): 7})
    # an unknown aggregate has no member: its set is empty
    assert found == (("granular", ((1, 1), (2, 1)), ((10,),), (), ((100,), ()), (), 7, None),)


def test_resourceless_granular_groups_add_no_condition():
    assert plan("resources=VCPU:1&required2=CUSTOM_A&same_subtree=_a,2&resources_a=VCPU:1"
                "&group_policy=none")[:1] == (("class", 1, 1, (), (), None),)


def test_explain_reports_each_part_of_the_inventory_rule():
    assert tuple(rule.kind for rule in RULES) == tuple(inventory.RULE_PARTS)

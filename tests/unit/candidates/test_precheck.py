"""Unknown names: 400 or an empty answer, in the reference's order."""

import pytest

from placer import exceptions
from placer.candidates.precheck import check_names, satisfiable_alone
from placer.schemas.allocation_candidates import parse_query
from tests.helpers.snapshots import World, agg

CLASSES = {"VCPU", "DISK_GB"}
TRAITS = {"CUSTOM_A", "HW_NUMA_ROOT"}


def run(world, pairs, version=(1, 39)):
    return check_names(parse_query(pairs, version), world.snapshot(), CLASSES, TRAITS)


def test_a_group_without_candidates_hides_later_unknown_names():
    empty = World()
    pairs = [("resources", "VCPU:1"), ("resources1", "VCPU:1"), ("required1", "NOPE")]
    assert run(empty, pairs + [("group_policy", "none")]) is False
    # the same groups the other way round: the unknown trait comes first
    with pytest.raises(exceptions.BadRequest) as info:
        run(empty, pairs[1:] + pairs[:1] + [("group_policy", "none")])
    assert info.value.detail == "No such trait(s): NOPE."


def test_root_required_names_come_first():
    with pytest.raises(exceptions.BadRequest) as info:
        run(World(), [("resources", "NOPE:1"), ("root_required", "NOPE")])
    assert info.value.detail == "No such trait(s): NOPE."


def test_unknown_class():
    with pytest.raises(exceptions.BadRequest) as info:
        run(World(), [("resources", "VCPU:1,vcpu:1")])
    assert info.value.detail == (
        "Invalid resource class in resources parameter: No such resource class vcpu."
    )


def test_member_of_matching_nothing_ends_before_traits():
    pairs = [("resources", "VCPU:1"), ("member_of", agg("X")), ("required", "NOPE")]
    assert run(World(), pairs) is False


def test_known_names_and_a_fitting_request():
    w = World()
    w.add("cn", inv={"VCPU": 2}, traits=["CUSTOM_A"])
    assert run(w, [("resources", "VCPU:1"), ("required", "CUSTOM_A")]) is True
    assert run(w, [("resources", "VCPU:3")]) is False
    request = parse_query([("resources", "VCPU:1"), ("resources1", "VCPU:2")], (1, 39))
    # each group fits alone even though together they do not
    assert all(satisfiable_alone(request, w.snapshot(), g) for g in request.groups)

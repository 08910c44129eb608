"""Provider trees: parent_provider_uuid on create (1.14), setting a parent on a
root (1.14), re-parenting and un-parenting (1.37), loops, and roots kept right."""

import pytest

from tests.helpers.api import assert_error
from tests.helpers.providers import MISSING, RPS, U1, U2, make


def tree_of(api, uuid):
    """{name: (parent name, root name)} for the tree holding ``uuid``."""
    rps = api.get(f"{RPS}?in_tree={uuid}", version="1.14").json["resource_providers"]
    names = {rp["uuid"]: rp["name"] for rp in rps}
    everyone = {rp["uuid"]: rp["name"]
                for rp in api.get(RPS, version="1.14").json["resource_providers"]}
    return {rp["name"]: (everyone.get(rp["parent_provider_uuid"]),
                         everyone[rp["root_provider_uuid"]]) for rp in rps if rp["uuid"] in names}


def save_error(uuid, reason, action="update"):
    return (f"Unable to save resource provider {uuid}: Object action {action} failed "
            f"because: {reason}")


def test_create_with_parent_from_1_14(api):
    make(api, "root", U1)
    r = api.post(RPS, version="1.20", json={"name": "child", "uuid": U2,
                                            "parent_provider_uuid": U1})
    assert r.status_code == 200
    assert (r.json["parent_provider_uuid"], r.json["root_provider_uuid"]) == (U1, U1)
    grandchild = make(api, "grandchild", parent=U2)
    shown = api.get(f"{RPS}/{grandchild}", version="1.14").json
    assert (shown["parent_provider_uuid"], shown["root_provider_uuid"]) == (U2, U1)
    # a null parent makes a root
    r = api.post(RPS, version="1.14", json={"name": "r2", "parent_provider_uuid": None})
    assert r.status_code == 201


def test_create_with_parent_before_1_14_is_400(api):
    make(api, "root", U1)
    assert_error(api.post(RPS, version="1.13", json={"name": "c", "parent_provider_uuid": U1}),
                 400, "Additional properties are not allowed ('parent_provider_uuid' was "
                      "unexpected)")


def test_create_with_unknown_or_own_parent_is_400(api):
    assert_error(api.post(RPS, version="1.14", json={"name": "c", "uuid": U2,
                                                     "parent_provider_uuid": MISSING}),
                 400, f'Unable to create resource provider "c", {U2}: Object action create '
                      "failed because: parent provider UUID does not exist.")
    assert_error(api.post(RPS, version="1.39", json={"name": "c", "uuid": U2,
                                                     "parent_provider_uuid": U2}),
                 400, f'Unable to create resource provider "c", {U2}: Object action create '
                      "failed because: parent provider UUID cannot be same as UUID. Please set "
                      "parent provider UUID to None if there is no parent.",
                 "placement.undefined_code")
    assert_error(api.post(RPS, version="1.14", json={"name": "c", "parent_provider_uuid": "x"}),
                 400, "JSON does not validate: 'x' is not a 'uuid'")
    assert api.get(RPS, version="1.0").json == {"resource_providers": []}


def test_parent_errors_come_before_duplicate_errors(api):
    make(api, "taken", U1)
    assert_error(api.post(RPS, version="1.14", json={"name": "taken", "uuid": U1,
                                                     "parent_provider_uuid": MISSING}),
                 400, "parent provider UUID does not exist.")


def test_setting_a_parent_on_a_root_from_1_14(api):
    make(api, "root", U1)
    make(api, "lone", U2)
    below = make(api, "below", parent=U2)
    r = api.put(f"{RPS}/{U2}", version="1.14", json={"name": "lone",
                                                     "parent_provider_uuid": U1})
    assert r.status_code == 200
    assert (r.json["parent_provider_uuid"], r.json["root_provider_uuid"]) == (U1, U1)
    assert r.json["generation"] == 0
    # the moved provider's subtree follows it into the new tree
    assert tree_of(api, U1) == {"root": (None, "root"), "lone": ("root", "root"),
                                "below": ("lone", "root")}
    assert api.get(f"{RPS}/{below}", version="1.14").json["root_provider_uuid"] == U1


def test_put_keeps_the_parent_when_not_given(api):
    make(api, "root", U1)
    make(api, "child", U2, parent=U1)
    for version in ("1.0", "1.14", "1.37"):
        r = api.put(f"{RPS}/{U2}", version=version, json={"name": f"c{version}"})
        assert r.status_code == 200
    assert api.get(f"{RPS}/{U2}", version="1.14").json["parent_provider_uuid"] == U1
    # naming the current parent again is fine before 1.37 too
    r = api.put(f"{RPS}/{U2}", version="1.14", json={"name": "c", "parent_provider_uuid": U1})
    assert r.status_code == 200


def test_reparenting_and_unparenting_before_1_37_are_400(api):
    make(api, "r1", U1)
    other = make(api, "r2")
    make(api, "child", U2, parent=U1)
    for version in ("1.14", "1.36"):
        assert_error(api.put(f"{RPS}/{U2}", version=version,
                             json={"name": "child", "parent_provider_uuid": other}),
                     400, save_error(U2, "re-parenting a provider is not currently allowed."))
        assert_error(api.put(f"{RPS}/{U2}", version=version,
                             json={"name": "child", "parent_provider_uuid": None}),
                     400, save_error(U2, "un-parenting a provider is not currently allowed."))
    assert tree_of(api, U1) == {"r1": (None, "r1"), "child": ("r1", "r1")}


def test_parent_must_exist(api):
    make(api, "r1", U1)
    assert_error(api.put(f"{RPS}/{U1}", version="1.14",
                         json={"name": "r1", "parent_provider_uuid": MISSING}),
                 400, save_error(U1, "parent provider UUID does not exist.", action="create"))


@pytest.mark.parametrize("version", ["1.14", "1.37", "1.39"])
def test_loops_are_refused(api, version):
    make(api, "top", U1)
    mid = make(api, "mid", parent=U1)
    low = make(api, "low", parent=mid)
    loop = save_error(U1, "creating loop in the provider tree is not allowed.")
    assert_error(api.put(f"{RPS}/{U1}", version=version,
                         json={"name": "top", "parent_provider_uuid": low}), 400, loop)
    assert_error(api.put(f"{RPS}/{U1}", version=version,
                         json={"name": "top", "parent_provider_uuid": U1}), 400, loop)
    if version >= "1.37":
        assert_error(api.put(f"{RPS}/{mid}", version=version,
                             json={"name": "mid", "parent_provider_uuid": low}), 400,
                     save_error(mid, "creating loop in the provider tree is not allowed."))
    assert tree_of(api, U1) == {"top": (None, "top"), "mid": ("top", "top"),
                                "low": ("mid", "top")}


def test_reparenting_moves_the_subtree_from_1_37(api):
    make(api, "r1", U1)
    make(api, "r2", U2)
    a = make(api, "a", parent=U1)
    b = make(api, "b", parent=a)
    make(api, "c", parent=b)
    make(api, "side", parent=U1)
    r = api.put(f"{RPS}/{a}", version="1.37", json={"name": "a", "parent_provider_uuid": U2})
    assert r.status_code == 200
    assert (r.json["parent_provider_uuid"], r.json["root_provider_uuid"]) == (U2, U2)
    assert r.json["generation"] == 0
    assert tree_of(api, U2) == {"r2": (None, "r2"), "a": ("r2", "r2"), "b": ("a", "r2"),
                                "c": ("b", "r2")}
    assert tree_of(api, U1) == {"r1": (None, "r1"), "side": ("r1", "r1")}
    # within one tree: only parents change
    r = api.put(f"{RPS}/{b}", version="1.39", json={"name": "b", "parent_provider_uuid": U2})
    assert r.status_code == 200
    assert tree_of(api, U2) == {"r2": (None, "r2"), "a": ("r2", "r2"), "b": ("r2", "r2"),
                                "c": ("b", "r2")}


def test_unparenting_makes_a_new_root_from_1_37(api):
    make(api, "r1", U1)
    a = make(api, "a", parent=U1)
    make(api, "b", parent=a)
    r = api.put(f"{RPS}/{a}", version="1.37", json={"name": "a", "parent_provider_uuid": None})
    assert r.status_code == 200
    assert (r.json["parent_provider_uuid"], r.json["root_provider_uuid"]) == (None, a)
    assert tree_of(api, a) == {"a": (None, "a"), "b": ("a", "a")}
    assert tree_of(api, U1) == {"r1": (None, "r1")}
    # a root stays a root when the body says so
    assert api.put(f"{RPS}/{a}", version="1.14",
                   json={"name": "a", "parent_provider_uuid": None}).status_code == 200


def test_rename_conflict_comes_after_parent_checks(api):
    make(api, "r1", U1)
    make(api, "r2", U2)
    assert_error(api.put(f"{RPS}/{U1}", version="1.14",
                         json={"name": "r2", "parent_provider_uuid": MISSING}), 400,
                 "parent provider UUID does not exist.")
    assert_error(api.put(f"{RPS}/{U1}", version="1.14",
                         json={"name": "r2", "parent_provider_uuid": U2}), 409,
                 "Conflicting resource provider r2 already exists.")
    # the failed request left nothing behind
    assert tree_of(api, U1) == {"r1": (None, "r1")}


def test_deleting_a_leaf_keeps_the_tree(api):
    make(api, "r1", U1)
    a = make(api, "a", parent=U1)
    b = make(api, "b", parent=a)
    assert api.delete(f"{RPS}/{b}", version="1.14").status_code == 204
    assert tree_of(api, U1) == {"r1": (None, "r1"), "a": ("r1", "r1")}

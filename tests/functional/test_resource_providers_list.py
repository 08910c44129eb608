"""GET /resource_providers: every filter at its microversion boundaries, and the
reference's 400s for bad query strings."""

import email.utils

import pytest

from placer.model.inventory import InventoryRecord, amount_within_units
from tests.helpers import factories
from tests.helpers.api import assert_error
from tests.helpers.providers import (
    RPS,
    links,
    make,
)

AGG1 = "aaaaaaaa-0000-0000-0000-000000000001"
AGG2 = "aaaaaaaa-0000-0000-0000-000000000002"
AGG3 = "aaaaaaaa-0000-0000-0000-000000000003"
AGG_UNUSED = "aaaaaaaa-0000-0000-0000-000000000004"
AGG_UNKNOWN = "aaaaaaaa-0000-0000-0000-000000000009"
QUERY_ERROR = "Invalid query string parameters: "


def names(r) -> list[str]:
    assert r.status_code == 200, r.text
    return [rp["name"] for rp in r.json["resource_providers"]]


def listed(api, query, version="1.39") -> list[str]:
    return names(api.get(f"{RPS}?{query}", version=version))


# -- plain listing ----------------------------------------------------------------

def test_empty_list(api):
    r = api.get(RPS, version="1.15")
    assert r.json == {"resource_providers": []}
    assert r.headers["Cache-Control"] == "no-cache"
    assert email.utils.parsedate_to_datetime(r.headers["Last-Modified"])


def test_list_representation_by_microversion(api):
    uuid = make(api, "one")
    r = api.get(RPS, version="1.0")
    assert r.json == {"resource_providers": [
        {"uuid": uuid, "name": "one", "generation": 0,
         "links": links(uuid, "inventories", "usages")}]}
    assert "Last-Modified" not in r.headers
    rp = api.get(RPS, version="1.14").json["resource_providers"][0]
    assert rp["links"] == links(uuid, "inventories", "usages", "aggregates", "traits",
                                "allocations")
    assert (rp["parent_provider_uuid"], rp["root_provider_uuid"]) == (None, uuid)
    assert "Last-Modified" not in api.get(RPS, version="1.14").headers
    assert "Last-Modified" in api.get(RPS, version="1.15").headers


def test_list_is_in_creation_order(api):
    for name in ("c", "a", "b"):
        make(api, name)
    assert listed(api, "", "1.0") == ["c", "a", "b"]


def test_list_refuses_non_json_accept(api):
    r = api.get(RPS, version="1.0", headers={"Accept": "text/html"})
    assert r.status_code == 406


# -- name and uuid (1.0) ---------------------------------------------------------

def test_name_and_uuid_filters(api):
    one = make(api, "one")
    make(api, "two words")
    assert listed(api, "name=one", "1.0") == ["one"]
    assert listed(api, "name=two+words", "1.0") == ["two words"]
    assert listed(api, "name=two%20words", "1.0") == ["two words"]
    assert listed(api, "name=nobody", "1.0") == []
    assert listed(api, "name=", "1.0") == ["one", "two words"]  # empty name: no filter
    assert listed(api, "name=nobody&name=one", "1.0") == ["one"]  # the last one counts
    assert listed(api, f"uuid={one}", "1.0") == ["one"]
    assert listed(api, f"uuid={one}&name=one") == ["one"]
    assert listed(api, f"uuid={one}&name=two+words") == []
    assert listed(api, "uuid=99999999-9999-9999-9999-999999999999") == []


@pytest.mark.parametrize("value", ["abc", "", "0123456789abcdef0123456789abcdef",
                                   "{12345678-1234-1234-1234-123456789012}"])
def test_bad_uuid_filter_is_400(api, value):
    error = assert_error(api.get(f"{RPS}?uuid={value}", version="1.0"), 400,
                         f"{QUERY_ERROR}'{value}' is not a 'uuid'")
    assert "Failed validating 'format' in schema['properties']['uuid']" in error["detail"]


def test_unknown_query_parameter_is_400(api):
    error = assert_error(api.get(f"{RPS}?foo=1", version="1.39"), 400,
                         f"{QUERY_ERROR}Additional properties are not allowed ('foo' was "
                         "unexpected)", "placement.undefined_code")
    assert "On instance:     {'foo': '1'}" in error["detail"]
    assert_error(api.get(f"{RPS}?foo=1&bar&uuid=x", version="1.0"), 400,
                 "Additional properties are not allowed ('bar', 'foo' were unexpected)")


def test_undecodable_query_is_400(api):
    assert_error(api.get(f"{RPS}?name=%ff", version="1.0"), 400,
                 f"{QUERY_ERROR}'utf-8' codec can't decode byte 0xff in position 0: "
                 "invalid start byte")


def test_semicolon_separates_parameters_like_the_reference(api):
    assert_error(api.get(f"{RPS}?name=a;uuid=x", version="1.0"), 400, "'x' is not a 'uuid'")


# -- member_of (1.3, 1.24, 1.32) -----------------------------------------------------

@pytest.fixture
def aggs(api, db):
    """r1 in AGG1; r2 in AGG2; r3 in AGG1 and AGG2; r4 in AGG3; r5 in none.
    AGG_UNUSED exists but has no provider."""
    uuids = {name: make(api, name) for name in ("r1", "r2", "r3", "r4", "r5")}
    factories.aggregates(db, uuids["r1"], AGG1)
    factories.aggregates(db, uuids["r2"], AGG2)
    factories.aggregates(db, uuids["r3"], AGG1, AGG2)
    factories.aggregates(db, uuids["r4"], AGG3)
    factories.aggregates(db, None, AGG_UNUSED)
    return uuids


def test_member_of_is_unknown_before_1_3(api, aggs):
    assert_error(api.get(f"{RPS}?member_of={AGG1}", version="1.2"), 400,
                 "Additional properties are not allowed ('member_of' was unexpected)")


def test_member_of_from_1_3(api, aggs):
    assert listed(api, f"member_of={AGG1}", "1.3") == ["r1", "r3"]
    assert listed(api, f"member_of=in:{AGG1},{AGG3}", "1.3") == ["r1", "r3", "r4"]
    assert listed(api, f"member_of=in:{AGG_UNKNOWN},{AGG2}", "1.3") == ["r2", "r3"]
    assert listed(api, f"member_of={AGG_UNKNOWN}", "1.3") == []
    assert listed(api, f"member_of={AGG_UNUSED}", "1.3") == []


def test_repeated_member_of_from_1_24(api, aggs):
    query = f"member_of={AGG1}&member_of={AGG2}"
    assert_error(api.get(f"{RPS}?{query}", version="1.23"), 400,
                 "Multiple member_of parameters are not supported")
    assert listed(api, query, "1.24") == ["r3"]
    assert listed(api, f"member_of={AGG1}&member_of=in:{AGG2},{AGG3}", "1.24") == ["r3"]
    assert listed(api, f"member_of=in:{AGG1},{AGG3}&member_of=in:{AGG2},{AGG3}") == ["r3", "r4"]
    assert listed(api, f"member_of={AGG1}&member_of={AGG_UNKNOWN}") == []


def test_forbidden_member_of_from_1_32(api, aggs):
    assert_error(api.get(f"{RPS}?member_of=!{AGG1}", version="1.31"), 400,
                 "Forbidden member_of parameters are not supported in the specified "
                 "microversion", "placement.undefined_code")
    assert_error(api.get(f"{RPS}?member_of=!in:{AGG1},{AGG2}", version="1.31"), 400,
                 "Forbidden member_of parameters are not supported")
    assert listed(api, f"member_of=!{AGG1}", "1.32") == ["r2", "r4", "r5"]
    assert listed(api, f"member_of=!in:{AGG1},{AGG2}", "1.32") == ["r4", "r5"]
    assert listed(api, f"member_of=!in:{AGG1},{AGG_UNKNOWN}") == ["r2", "r4", "r5"]
    assert listed(api, f"member_of=!{AGG_UNKNOWN}") == ["r1", "r2", "r3", "r4", "r5"]
    assert listed(api, f"member_of={AGG1}&member_of=!{AGG2}") == ["r1"]


@pytest.mark.parametrize("version,value,message", [
    ("1.3", "x", "Invalid query string parameters: Expected 'member_of' parameter to contain "
                 "valid UUID(s). Got: x"),
    ("1.3", "", "Expected 'member_of' parameter to contain valid UUID(s). Got: "),
    ("1.3", "in:", "Expected 'member_of' parameter to contain valid UUID(s). Got: "),
    ("1.3", f"in:{AGG1},nope", "contain valid UUID(s). Got: nope"),
    ("1.39", "!x", "contain valid UUID(s). Got: x"),
    ("1.3", f"{AGG1},{AGG2}", "Multiple values for 'member_of' must be prefixed with the 'in:' "
                              f"or '!in:' keyword using the valid microversion. Got: "
                              f"{AGG1},{AGG2}"),
    ("1.39", f"!{AGG1},{AGG2}", "Multiple values for 'member_of' must be prefixed"),
])
def test_bad_member_of_is_400(api, version, value, message):
    assert_error(api.get(f"{RPS}?member_of={value}", version=version), 400, message)


# -- resources (1.4) ---------------------------------------------------------------

@pytest.fixture
def stocked(api, db):
    """big: VCPU 8 reserved 2 ratio 2.0 (capacity 12) with 8 used, MEMORY_MB 1024
    in 256-steps of at most 512; small: VCPU 4 with 3 used, DISK_GB all reserved;
    capped: VCPU 2 with max_unit 1, MEMORY_MB 2048 with 1024 used; bare: nothing."""
    uuids = {name: make(api, name) for name in ("big", "small", "capped", "bare")}
    factories.inventory(db, uuids["big"], "VCPU", 8, reserved=2, allocation_ratio=2.0)
    factories.inventory(db, uuids["big"], "MEMORY_MB", 1024, min_unit=256, max_unit=512,
                  step_size=256)
    factories.inventory(db, uuids["small"], "VCPU", 4)
    factories.inventory(db, uuids["small"], "DISK_GB", 100, reserved=100)
    factories.inventory(db, uuids["capped"], "VCPU", 2, max_unit=1)
    factories.inventory(db, uuids["capped"], "MEMORY_MB", 2048)
    factories.allocation(db, uuids["big"], "VCPU", 6)
    factories.allocation(db, uuids["big"], "VCPU", 2)
    factories.allocation(db, uuids["small"], "VCPU", 3)
    factories.allocation(db, uuids["capped"], "MEMORY_MB", 1024)
    return uuids


def test_resources_is_unknown_before_1_4(api, stocked):
    assert_error(api.get(f"{RPS}?resources=VCPU:1", version="1.3"), 400,
                 "Additional properties are not allowed ('resources' was unexpected)")


@pytest.mark.parametrize("query,expected", [
    ("VCPU:1", ["big", "small", "capped"]),
    ("VCPU:2", ["big"]),          # small has 1 left, capped allows 1 at a time
    ("VCPU:4", ["big"]),          # (8 - 2) * 2.0 = 12, 8 used
    ("VCPU:5", []),
    ("MEMORY_MB:256", ["big", "capped"]),
    ("MEMORY_MB:512", ["big", "capped"]),
    ("MEMORY_MB:768", ["capped"]),   # above big's max_unit
    ("MEMORY_MB:300", ["capped"]),   # not a multiple of big's step_size
    ("MEMORY_MB:1024", ["capped"]),  # 2048 - 1024 used
    ("MEMORY_MB:1025", []),
    ("DISK_GB:1", []),               # everything reserved
    ("VCPU:1,MEMORY_MB:256", ["big", "capped"]),
    ("VCPU:2,MEMORY_MB:768", []),
    ("VCPU:1,VCPU:9", []),           # a repeated class: the last amount counts
    ("VCPU:9,VCPU:1", ["big", "small", "capped"]),
    ("VCPU:+1", ["big", "small", "capped"]),
    ("VCPU:1_0", []),
    ("VCPU:2147483648", []),
    ("VCPU:99999999999999999999", []),  # the reference fails with a 500 here
])
def test_resources_filter_by_capacity(api, stocked, query, expected):
    assert listed(api, f"resources={query}", "1.4") == expected


def test_resources_agrees_with_the_capacity_rules(api, stocked):
    # big's VCPU as the model sees it: capacity 12, 8 used
    inv = InventoryRecord("VCPU", total=8, reserved=2, allocation_ratio=2.0)
    assert inv.capacity == 12
    for amount in range(1, 7):
        fits = amount_within_units(inv, amount) and 8 + amount <= inv.capacity
        assert fits == ("big" in listed(api, f"resources=VCPU:{amount}"))


@pytest.mark.parametrize("value,message", [
    ("", "Badly formed resources parameter. Expected resources query string parameter in "
         "form: ?resources=VCPU:2,MEMORY_MB:1024. Got: empty string."),
    ("VCPU", "Expected resources query string parameter in form: "
             "?resources=VCPU:2,MEMORY_MB:1024. Got: VCPU."),
    ("VCPU:1:1", "Got: VCPU:1:1."),
    ("VCPU:1,", "?resources=VCPU:2,MEMORY_MB:1024. Got: ."),
    ("VCPU:x", "Requested resource VCPU expected positive integer amount. Got: x."),
    ("VCPU:0", "Requested resource VCPU requires amount >= 1. Got: 0."),
    ("VCPU:-2", "Requested resource VCPU requires amount >= 1. Got: -2."),
    ("FOO:1", "Invalid resource class in resources parameter: No such resource class FOO."),
    ("vcpu:1", "No such resource class vcpu."),
    ("VCPU:1,CUSTOM_NOPE:1,BAR:1", "No such resource class CUSTOM_NOPE."),
])
def test_bad_resources_are_400(api, stocked, value, message):
    assert_error(api.get(f"{RPS}?resources={value}", version="1.4"), 400, message)


def test_unknown_class_is_not_reported_when_an_earlier_filter_matches_nothing(api, aggs):
    # the reference answers [] before it looks the class up
    assert listed(api, f"resources=FOO:1&member_of={AGG_UNKNOWN}", "1.4") == []
    assert listed(api, f"resources=FOO:1&member_of={AGG_UNUSED}", "1.4") == []
    assert_error(api.get(f"{RPS}?resources=FOO:1&member_of={AGG1}", version="1.4"), 400,
                 "No such resource class FOO.")


# -- in_tree (1.14) ----------------------------------------------------------------

@pytest.fixture
def trees(api):
    root = make(api, "root")
    child = make(api, "child", parent=root)
    make(api, "grandchild", parent=child)
    other = make(api, "other")
    return {"root": root, "child": child, "other": other}


def test_in_tree(api, trees):
    assert_error(api.get(f"{RPS}?in_tree={trees['child']}", version="1.13"), 400,
                 "Additional properties are not allowed ('in_tree' was unexpected)")
    for member in ("root", "child"):
        assert listed(api, f"in_tree={trees[member]}", "1.14") == ["root", "child",
                                                                   "grandchild"]
    assert listed(api, f"in_tree={trees['other']}") == ["other"]
    assert listed(api, "in_tree=99999999-9999-9999-9999-999999999999") == []
    assert listed(api, f"in_tree={trees['root']}&name=child") == ["child"]


@pytest.mark.parametrize("value", ["x", "", "99999999999999999999999999999999"])
def test_bad_in_tree_is_400(api, value):
    error = assert_error(api.get(f"{RPS}?in_tree={value}", version="1.14"), 400,
                         f"{QUERY_ERROR}'{value}' is not a 'uuid'")
    assert "schema['properties']['in_tree']" in error["detail"]


def test_unknown_in_tree_answers_before_name_checks(api):
    query = "in_tree=99999999-9999-9999-9999-999999999999&resources=FOO:1&required=BAR"
    assert listed(api, query, "1.18") == []


# -- required (1.18, 1.22, 1.39) ------------------------------------------------------

@pytest.fixture
def traited(api, db):
    """t1: CUSTOM_A, HW_CPU_X86_AVX; t2: CUSTOM_B; t3: CUSTOM_A, CUSTOM_B;
    t4: CUSTOM_C; t5: none. CUSTOM_UNUSED exists on no provider."""
    uuids = {name: make(api, name) for name in ("t1", "t2", "t3", "t4", "t5")}
    factories.traits(db, uuids["t1"], "CUSTOM_A", "HW_CPU_X86_AVX")
    factories.traits(db, uuids["t2"], "CUSTOM_B")
    factories.traits(db, uuids["t3"], "CUSTOM_A", "CUSTOM_B")
    factories.traits(db, uuids["t4"], "CUSTOM_C")
    factories.trait_row(db, "CUSTOM_UNUSED")
    return uuids


def test_required_is_unknown_before_1_18(api, traited):
    assert_error(api.get(f"{RPS}?required=CUSTOM_A", version="1.17"), 400,
                 "Additional properties are not allowed ('required' was unexpected)")


def test_required_from_1_18(api, traited):
    assert listed(api, "required=CUSTOM_A", "1.18") == ["t1", "t3"]
    assert listed(api, "required=CUSTOM_A,CUSTOM_B", "1.18") == ["t3"]
    assert listed(api, "required=CUSTOM_A,HW_CPU_X86_AVX", "1.18") == ["t1"]
    assert listed(api, "required=+CUSTOM_A+", "1.18") == ["t1", "t3"]
    assert listed(api, "required=CUSTOM_UNUSED", "1.18") == []


def test_forbidden_traits_from_1_22(api, traited):
    assert_error(api.get(f"{RPS}?required=!CUSTOM_A", version="1.21"), 400,
                 f"{QUERY_ERROR}Expected 'required' parameter value of the form: "
                 "HW_CPU_X86_VMX,CUSTOM_MAGIC. Got: !CUSTOM_A")
    assert listed(api, "required=!CUSTOM_A", "1.22") == ["t2", "t4", "t5"]
    assert listed(api, "required=!!CUSTOM_A", "1.22") == ["t2", "t4", "t5"]
    assert listed(api, "required=CUSTOM_B,!CUSTOM_A", "1.22") == ["t2"]
    assert listed(api, "required=CUSTOM_A,!CUSTOM_A", "1.22") == []


def test_repeated_required_from_1_39(api, traited):
    query = "required=CUSTOM_A&required=CUSTOM_B"
    assert listed(api, query, "1.38") == ["t2", "t3"]  # the last one counts
    assert listed(api, query, "1.39") == ["t3"]


def test_any_of_traits_from_1_39(api, traited):
    assert_error(api.get(f"{RPS}?required=in:CUSTOM_A,CUSTOM_C", version="1.38"), 400,
                 f"{QUERY_ERROR}The format 'in:HW_CPU_X86_VMX,CUSTOM_MAGIC' only supported "
                 "since microversion 1.39. Got: in:CUSTOM_A,CUSTOM_C")
    assert listed(api, "required=in:CUSTOM_A,CUSTOM_C", "1.39") == ["t1", "t3", "t4"]
    assert listed(api, "required=in:CUSTOM_A,CUSTOM_C&required=CUSTOM_B") == ["t3"]
    assert listed(api, "required=in:CUSTOM_A,CUSTOM_C&required=!CUSTOM_B") == ["t1", "t4"]
    assert listed(api, "required=in:CUSTOM_A,+CUSTOM_C+") == ["t1", "t3", "t4"]


_FORM = "Expected 'required' parameter value of the form: "


@pytest.mark.parametrize("version,value,message", [
    ("1.18", "", f"{_FORM}HW_CPU_X86_VMX,CUSTOM_MAGIC. Got an empty trait in: "),
    ("1.21", "A,,B", f"{_FORM}HW_CPU_X86_VMX,CUSTOM_MAGIC. Got an empty trait in: A,,B"),
    ("1.22", "A,,B", f"{_FORM}HW_CPU_X86_VMX,!CUSTOM_MAGIC. Got an empty trait in: A,,B"),
    ("1.22", "!", f"{_FORM}HW_CPU_X86_VMX,!CUSTOM_MAGIC. Got an empty trait in: !"),
    ("1.39", "in:", f"{_FORM}in:HW_CPU_X86_VMX,CUSTOM_MAGIC. Got an empty trait in: in:"),
    ("1.39", "in:CUSTOM_A,,CUSTOM_C",
     f"{_FORM}in:HW_CPU_X86_VMX,CUSTOM_MAGIC. Got an empty trait in: in:CUSTOM_A,,CUSTOM_C"),
    ("1.39", "in:CUSTOM_A,!CUSTOM_C", "The format 'in:HW_CPU_X86_VMX,CUSTOM_MAGIC' does not "
                                      "support forbidden traits. Got: in:CUSTOM_A,!CUSTOM_C"),
])
def test_bad_required_is_400(api, traited, version, value, message):
    assert_error(api.get(f"{RPS}?required={value}", version=version), 400,
                 f"{QUERY_ERROR}{message}")


@pytest.mark.parametrize("value,unknown", [
    ("CUSTOM_FOO", "CUSTOM_FOO"),
    ("custom_a", "custom_a"),
    ("CUSTOM_FOO,CUSTOM_BAR", "CUSTOM_FOO"),
    ("!CUSTOM_FOO", "CUSTOM_FOO"),
    ("CUSTOM_A,!CUSTOM_FOO", "CUSTOM_FOO"),
    ("in:CUSTOM_A,CUSTOM_FOO", "CUSTOM_FOO"),
])
def test_unknown_traits_are_400(api, traited, value, unknown):
    assert_error(api.get(f"{RPS}?required={value}", version="1.39"), 400,
                 f'Invalid trait(s) in "required" parameter: No such trait(s): {unknown}.')


def test_unknown_names_are_not_reported_when_required_matches_nothing(api, traited):
    # the reference answers [] as soon as the required traits match no provider
    assert listed(api, "required=CUSTOM_UNUSED,!CUSTOM_FOO", "1.22") == []
    assert listed(api, "required=CUSTOM_UNUSED&resources=FOO:1", "1.18") == []
    assert_error(api.get(f"{RPS}?required=CUSTOM_A&resources=FOO:1", version="1.18"), 400,
                 "No such resource class FOO.")


# -- combinations and order of checks ----------------------------------------------------

def test_filters_combine(api, db, traited):
    factories.aggregates(db, traited["t1"], AGG1)
    factories.aggregates(db, traited["t3"], AGG1)
    factories.inventory(db, traited["t1"], "VCPU", 1)
    factories.inventory(db, traited["t3"], "VCPU", 4)
    assert listed(api, f"required=CUSTOM_A&member_of={AGG1}&resources=VCPU:2") == ["t3"]
    assert listed(api, f"required=!CUSTOM_B&member_of={AGG1}&resources=VCPU:1") == ["t1"]
    assert listed(api, f"required=CUSTOM_A&member_of=!{AGG1}") == []
    assert listed(api, f"name=t1&required=CUSTOM_A&member_of={AGG1}") == ["t1"]


def test_query_is_validated_before_values_are_parsed(api):
    # schema first (unknown key), then member_of, then required, then resources
    assert_error(api.get(f"{RPS}?resources=x&foo=1", version="1.39"), 400,
                 "Additional properties are not allowed")
    assert_error(api.get(f"{RPS}?required=CUSTOM_A&member_of=bad&resources=x",
                         version="1.39"), 400, "Got: bad")
    assert_error(api.get(f"{RPS}?resources=x&required=!A", version="1.21"), 400,
                 "Got: !A")

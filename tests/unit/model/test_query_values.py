"""Parsers of placer.model.query_values: results and the reference's error texts."""

import pytest

from placer import exceptions
from placer.model import query_values
from placer.model.query_values import parse_in_tree, parse_member_of, parse_resources, parse_traits

U1 = "11111111-2222-4333-8444-555555555555"
U2 = "66666666-7777-4888-9999-aaaaaaaaaaaa"
_FORM = ("Badly formed resources parameter. Expected resources query string parameter in "
         "form: ?resources=VCPU:2,MEMORY_MB:1024. Got: {}.")
_PREFIX = "Invalid query string parameters: "


def _bad(func, *args) -> exceptions.BadRequest:
    with pytest.raises(exceptions.BadRequest) as info:
        func(*args)
    assert info.value.status == 400
    assert info.value.code == exceptions.DEFAULT_CODE
    return info.value


# --- resources -------------------------------------------------------------

@pytest.mark.parametrize(("value", "expected"), [
    ("VCPU:2", {"VCPU": 2}),
    ("VCPU:2,MEMORY_MB:1024", {"VCPU": 2, "MEMORY_MB": 1024}),
    ("VCPU:1", {"VCPU": 1}),                       # minimum amount
    ("VCPU: 1", {"VCPU": 1}),                      # int() tolerates spaces
    ("VCPU:+1", {"VCPU": 1}),
    ("VCPU:1_0", {"VCPU": 10}),
    ("VCPU:2147483648", {"VCPU": 2147483648}),     # no upper bound here
    ("vcpu:1", {"vcpu": 1}),                        # names are not checked here
])
def test_parse_resources(value, expected):
    assert parse_resources(value) == expected


def test_parse_resources_repeated_class_keeps_first_position_last_amount():
    result = parse_resources("VCPU:1,DISK_GB:5,VCPU:3")
    assert list(result.items()) == [("VCPU", 3), ("DISK_GB", 5)]


@pytest.mark.parametrize(("value", "detail"), [
    ("", _FORM.format("empty string")),
    ("   ", _FORM.format("empty string")),
    ("VCPU", _FORM.format("VCPU")),
    ("VCPU:1:2", _FORM.format("VCPU:1:2")),
    ("VCPU:1,", _FORM.format("")),
    ("VCPU:1,,DISK_GB:1", _FORM.format("")),
    ("VCPU:one", "Requested resource VCPU expected positive integer amount. Got: one."),
    ("VCPU:", "Requested resource VCPU expected positive integer amount. Got: ."),
    ("VCPU:1.5", "Requested resource VCPU expected positive integer amount. Got: 1.5."),
    ("VCPU:0", "Requested resource VCPU requires amount >= 1. Got: 0."),
    ("VCPU:-1", "Requested resource VCPU requires amount >= 1. Got: -1."),
    ("VCPU:1,DISK_GB:0", "Requested resource DISK_GB requires amount >= 1. Got: 0."),
    ("VCPU:-0", "Requested resource VCPU requires amount >= 1. Got: 0."),
])
def test_parse_resources_errors(value, detail):
    assert _bad(parse_resources, value).detail == detail


def test_parse_resources_reports_first_bad_item_in_order():
    assert _bad(parse_resources, "A:0,B:x").detail == \
        "Requested resource A requires amount >= 1. Got: 0."


# --- required (traits) -----------------------------------------------------

@pytest.mark.parametrize(("value", "allow_forbidden", "allow_any", "expected"), [
    ("A", False, False, ([["A"]], [])),
    ("A,B", False, False, ([["A"], ["B"]], [])),
    (" A , B ", False, False, ([["A"], ["B"]], [])),
    ("A,A,B", False, False, ([["A"], ["B"]], [])),
    ("A,!B", True, False, ([["A"]], ["B"])),
    ("!B", True, False, ([], ["B"])),
    ("!!B,!B", True, False, ([], ["B"])),           # every leading '!' stripped
    ("A,!B", True, True, ([["A"]], ["B"])),
    ("in:A,B", False, True, ([["A", "B"]], [])),
    ("in: A ,B,A", True, True, ([["A", "B"]], [])),
    ("in:A", True, True, ([["A"]], [])),
])
def test_parse_traits(value, allow_forbidden, allow_any, expected):
    assert parse_traits(value, allow_forbidden, allow_any) == expected


_ANY = "in:HW_CPU_X86_VMX,CUSTOM_MAGIC"


@pytest.mark.parametrize(("value", "allow_forbidden", "allow_any", "detail"), [
    ("in:A,B", True, False,
     f"{_PREFIX}The format '{_ANY}' only supported since microversion 1.39. Got: in:A,B"),
    ("in:A,", True, True,
     f"{_PREFIX}Expected 'required' parameter value of the form: {_ANY}. "
     "Got an empty trait in: in:A,"),
    ("in:", True, True,
     f"{_PREFIX}Expected 'required' parameter value of the form: {_ANY}. "
     "Got an empty trait in: in:"),
    ("in:A,!B", True, True,
     f"{_PREFIX}The format '{_ANY}' does not support forbidden traits. Got: in:A,!B"),
    ("A,", True, True,
     f"{_PREFIX}Expected 'required' parameter value of the form: HW_CPU_X86_VMX,!CUSTOM_MAGIC. "
     "Got an empty trait in: A,"),
    ("A,", False, False,
     f"{_PREFIX}Expected 'required' parameter value of the form: HW_CPU_X86_VMX,CUSTOM_MAGIC. "
     "Got an empty trait in: A,"),
    ("", False, False,
     f"{_PREFIX}Expected 'required' parameter value of the form: HW_CPU_X86_VMX,CUSTOM_MAGIC. "
     "Got an empty trait in: "),
    ("A,!", True, False,
     f"{_PREFIX}Expected 'required' parameter value of the form: HW_CPU_X86_VMX,!CUSTOM_MAGIC. "
     "Got an empty trait in: A,!"),
    ("A,!B", False, False,
     f"{_PREFIX}Expected 'required' parameter value of the form: HW_CPU_X86_VMX,CUSTOM_MAGIC. "
     "Got: A,!B"),
])
def test_parse_traits_errors(value, allow_forbidden, allow_any, detail):
    assert _bad(parse_traits, value, allow_forbidden, allow_any).detail == detail


# --- member_of -------------------------------------------------------------

@pytest.mark.parametrize(("value", "expected"), [
    (U1, ([U1], [])),
    (f"in:{U1},{U2}", ([U1, U2], [])),
    (f"in:{U1},{U1}", ([U1], [])),
    (f"in:{U1}", ([U1], [])),
    (f"!{U1}", ([], [U1])),
    (f"!in:{U1},{U2},{U1}", ([], [U1, U2])),
    (U1.replace("-", ""), ([U1.replace("-", "")], [])),   # uuid-like without dashes
])
def test_parse_member_of(value, expected):
    assert parse_member_of(value) == expected


_MULTI = ("Multiple values for 'member_of' must be prefixed with the 'in:' or '!in:' "
          "keyword using the valid microversion. Got: {}")
_NOT_UUID = f"{_PREFIX}Expected 'member_of' parameter to contain valid UUID(s). Got: {{}}"


@pytest.mark.parametrize(("value", "detail"), [
    (f"{U1},{U2}", _MULTI.format(f"{U1},{U2}")),
    (f"!{U1},{U2}", _MULTI.format(f"!{U1},{U2}")),
    ("nope", _NOT_UUID.format("nope")),
    ("", _NOT_UUID.format("")),
    ("in:", _NOT_UUID.format("")),
    (f"in:{U1},nope", _NOT_UUID.format("nope")),
    (f"in:{U1},", _NOT_UUID.format("")),
    ("!nope", _NOT_UUID.format("nope")),
    (f"!in:{U1},bad", _NOT_UUID.format("bad")),
    (f"in:!{U1}", _NOT_UUID.format(f"!{U1}")),
])
def test_parse_member_of_errors(value, detail):
    assert _bad(parse_member_of, value).detail == detail


# --- in_tree ---------------------------------------------------------------

@pytest.mark.parametrize(("value", "expected"), [
    (U1, U1),
    (f"  {U1} ", U1),
    (U1.upper(), U1.upper()),
])
def test_parse_in_tree(value, expected):
    assert parse_in_tree(value) == expected


@pytest.mark.parametrize("value", ["", "nope", U1 + "0", " x "])
def test_parse_in_tree_errors(value):
    assert _bad(parse_in_tree, value).detail == (
        f"{_PREFIX}Expected 'in_tree' parameter to be a format of uuid. Got: {value}")


# -- whole keys: grouping, 'required' and 'member_of' across microversions ---

def test_group_keeps_every_value_and_the_dict_view_the_schema_sees():
    values, last = query_values.group([("a", "1"), ("b", "2"), ("a", "3"), ("c", "")])
    assert values == {"a": ["1", "3"], "b": ["2"], "c": [""]}
    assert last == {"a": "3", "b": "2", "c": ""}
    assert list(last) == ["a", "b", "c"]  # first position, last value


@pytest.mark.parametrize("raw,version,expected", [
    (["A,B"], (1, 18), ([["A"], ["B"]], [])),
    (["A", "B"], (1, 38), ([["B"]], [])),                    # before 1.39: the last one wins
    (["A", "B"], (1, 39), ([["A"], ["B"]], [])),
    (["A,!B", "!B,!C"], (1, 39), ([["A"]], ["B", "C"])),     # forbidden kept once, in order
    (["in:A,B", "C"], (1, 39), ([["A", "B"], ["C"]], [])),
])
def test_read_required(raw, version, expected):
    assert query_values.read_required(raw, version) == expected


@pytest.mark.parametrize("raw,version,detail", [
    (["!A"], (1, 21), "Expected 'required' parameter value of the form: "
                      "HW_CPU_X86_VMX,CUSTOM_MAGIC. Got: !A"),
    (["in:A,B"], (1, 38), "The format 'in:HW_CPU_X86_VMX,CUSTOM_MAGIC' only supported "
                          "since microversion 1.39. Got: in:A,B"),
])
def test_read_required_errors(raw, version, detail):
    assert _bad(query_values.read_required, raw, version).detail == _PREFIX + detail


@pytest.mark.parametrize("raw,version,expected", [
    ([U1], (1, 3), ([[U1]], [])),
    ([f"in:{U1},{U2}", U2], (1, 24), ([[U1, U2], [U2]], [])),
    ([f"!{U1}", f"!in:{U1},{U2}", U2], (1, 32), ([[U2]], [U1, U2])),
])
def test_read_member_of(raw, version, expected):
    assert query_values.read_member_of(raw, version) == expected


@pytest.mark.parametrize("raw,version,suffix,detail", [
    ([U1, U2], (1, 23), "", "Multiple member_of parameters are not supported"),
    ([U1, U2], (1, 23), "1", "Multiple member_of1 parameters are not supported"),
    ([f"!{U1}"], (1, 31), "_X", "Forbidden member_of_X parameters are not supported in the "
                                "specified microversion"),
])
def test_read_member_of_errors(raw, version, suffix, detail):
    assert _bad(query_values.read_member_of, raw, version, suffix).detail == detail


@pytest.mark.parametrize("value,expected", [
    ("in:A,B", {"name_in": ["A", "B"]}),
    ("startswith:CUSTOM_", {"prefix": "CUSTOM_"}),
    ("in:", {"name_in": [""]}),
    ("other:A", {}),  # ignored, as the reference does
])
def test_parse_name_filter(value, expected):
    assert query_values.parse_name_filter(value) == expected


def test_parse_name_filter_needs_an_operator():
    assert _bad(query_values.parse_name_filter, "CUSTOM_A").detail == (
        "Badly formatted name parameter. Expected name query string parameter in form: "
        '?name=[in|startswith]:[name1,name2|prefix]. Got: "CUSTOM_A"')


@pytest.mark.parametrize("value,expected", [("true", True), ("False", False), ("TRUE", True)])
def test_parse_associated(value, expected):
    assert query_values.parse_associated(value) is expected


def test_parse_associated_errors():
    assert _bad(query_values.parse_associated, "yes").detail == (
        'The query parameter "associated" only accepts "true" or "false"')

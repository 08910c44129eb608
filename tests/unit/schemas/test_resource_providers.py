"""/resource_providers: the POST/PUT body schemas (parent from 1.14) and
parse_list_query, the GET query parser, across its microversion windows."""

import pytest
from jsonschema.exceptions import best_match

from placer import exceptions
from placer.route_table import ROUTES
from placer.schemas import resource_providers as rp
from placer.schemas.resource_providers import parse_list_query

U1 = "11111111-2222-4333-8444-555555555555"
U2 = "66666666-7777-4888-9999-aaaaaaaaaaaa"
U3 = "bbbbbbbb-cccc-4ddd-8eee-ffffffffffff"
PREFIX = "Invalid query string parameters: "


def problem(validator, body):
    error = best_match(validator.iter_errors(body))
    return None if error is None else (error.validator, error.message, list(error.path))


def bad(pairs, version) -> str:
    with pytest.raises(exceptions.BadRequest) as info:
        parse_list_query(pairs, version)
    return info.value.detail


# --- bodies ----------------------------------------------------------------

@pytest.mark.parametrize(("version", "create", "update"), [
    ((1, 0), rp.POST, rp.PUT),
    ((1, 13), rp.POST, rp.PUT),
    ((1, 14), rp.POST_1_14, rp.PUT_1_14),
    ((1, 39), rp.POST_1_14, rp.PUT_1_14),
])
def test_body_schema_by_version(version, create, update):
    assert ROUTES.route("/resource_providers", "POST").at(version).body is create
    assert ROUTES.route("/resource_providers/{uuid}", "PUT").at(version).body is update


@pytest.mark.parametrize("body", [
    {"name": "n"},
    {"name": ""},
    {"name": "x" * 200},
    {"name": "n", "uuid": U1},
    {"name": "n", "uuid": U1.replace("-", "")},   # bodies take undashed uuids
])
def test_post_accepts(body):
    assert problem(rp.POST, body) is None
    assert problem(rp.POST_1_14, body) is None


@pytest.mark.parametrize(("body", "expected"), [
    ({}, ("required", "'name' is a required property", [])),
    ({"uuid": U1}, ("required", "'name' is a required property", [])),
    ({"name": "x" * 201}, ("maxLength", f"'{'x' * 201}' is too long", ["name"])),
    ({"name": None}, ("type", "None is not of type 'string'", ["name"])),
    ({"name": "n", "uuid": "nope"}, ("format", "'nope' is not a 'uuid'", ["uuid"])),
    ({"name": "n", "generation": 1},
     ("additionalProperties",
      "Additional properties are not allowed ('generation' was unexpected)", [])),
])
def test_post_rejects(body, expected):
    assert problem(rp.POST, body) == expected
    assert problem(rp.POST_1_14, body) == expected


@pytest.mark.parametrize("parent", [U1, None])
def test_parent_provider_uuid_only_from_1_14(parent):
    body = {"name": "n", "parent_provider_uuid": parent}
    unexpected = ("additionalProperties",
                  "Additional properties are not allowed ('parent_provider_uuid' was unexpected)",
                  [])
    assert problem(rp.POST, body) == unexpected
    assert problem(rp.PUT, body) == unexpected
    assert problem(rp.POST_1_14, body) is None
    assert problem(rp.PUT_1_14, body) is None


@pytest.mark.parametrize("validator", [rp.POST_1_14, rp.PUT_1_14])
def test_parent_provider_uuid_must_be_a_uuid_or_null(validator):
    error = best_match(validator.iter_errors({"name": "n", "parent_provider_uuid": "x"}))
    assert error.validator == "format"
    assert error.message == "'x' is not a 'uuid'"
    assert problem(validator, {"name": "n", "parent_provider_uuid": 5}) is not None


def test_put_refuses_uuid():
    assert problem(rp.PUT, {"name": "n", "uuid": U1}) == (
        "additionalProperties", "Additional properties are not allowed ('uuid' was unexpected)",
        [])


# --- GET query: which parameters exist when ---------------------------------

@pytest.mark.parametrize(("key", "value", "since", "filters"), [
    ("member_of", U1, (1, 3), {"member_of": [[U1]], "forbidden_aggs": []}),
    ("resources", "VCPU:1", (1, 4), {"resources": {"VCPU": 1}}),
    ("in_tree", U1, (1, 14), {"in_tree": U1}),
    ("required", "A", (1, 18), {"required": [["A"]], "forbidden_traits": []}),
])
def test_query_parameter_appears_at_its_microversion(key, value, since, filters):
    before = (1, since[1] - 1)
    detail = bad([(key, value)], before)
    assert detail.startswith(
        f"{PREFIX}Additional properties are not allowed ('{key}' was unexpected)\n")
    assert parse_list_query([(key, value)], since) == filters
    assert parse_list_query([(key, value)], (1, 39)) == filters


def test_query_error_quotes_the_schema_of_the_version():
    assert bad([("member_of", U1)], (1, 2)) == (
        f"{PREFIX}Additional properties are not allowed ('member_of' was unexpected)\n\n"
        "Failed validating 'additionalProperties' in schema:\n"
        "    {'type': 'object',\n"
        "     'properties': {'name': {'type': 'string'},\n"
        "                    'uuid': {'type': 'string', 'format': 'uuid'}},\n"
        "     'additionalProperties': False}\n\n"
        "On instance:\n"
        f"    {{'member_of': '{U1}'}}")


def test_empty_query_has_no_filters():
    assert parse_list_query([], (1, 0)) == {}
    assert parse_list_query([], (1, 39)) == {}


def test_name_and_uuid_take_the_last_value():
    pairs = [("name", "a"), ("uuid", U1), ("name", "b"), ("uuid", U2)]
    assert parse_list_query(pairs, (1, 0)) == {"name": "b", "uuid": U2}


@pytest.mark.parametrize("key", ["uuid", "in_tree"])
def test_query_uuids_must_be_dashed(key):
    undashed = U1.replace("-", "")
    detail = bad([(key, undashed)], (1, 39))
    assert detail.startswith(f"{PREFIX}'{undashed}' is not a 'uuid'\n")
    assert f"schema['properties']['{key}']" in detail


def test_resources_take_the_last_value_and_are_parsed():
    pairs = [("resources", "VCPU:0"), ("resources", "VCPU:2,DISK_GB:10")]
    assert parse_list_query(pairs, (1, 4)) == {"resources": {"VCPU": 2, "DISK_GB": 10}}
    assert bad([("resources", "VCPU:0")], (1, 4)) == \
        "Requested resource VCPU requires amount >= 1. Got: 0."


# --- member_of windows: multiple (1.24), forbidden (1.32) ---------------------

def test_multiple_member_of_from_1_24():
    pairs = [("member_of", U1), ("member_of", f"in:{U2},{U3}")]
    assert bad(pairs, (1, 23)) == "Multiple member_of parameters are not supported"
    assert parse_list_query(pairs, (1, 24)) == {
        "member_of": [[U1], [U2, U3]], "forbidden_aggs": []}


def test_in_prefix_is_accepted_from_1_3():
    assert parse_list_query([("member_of", f"in:{U1},{U2}")], (1, 3)) == {
        "member_of": [[U1, U2]], "forbidden_aggs": []}


@pytest.mark.parametrize("value", [f"!{U1}", f"!in:{U1},{U2}"])
def test_forbidden_member_of_from_1_32(value):
    assert bad([("member_of", value)], (1, 31)) == (
        "Forbidden member_of parameters are not supported in the specified microversion")
    result = parse_list_query([("member_of", value)], (1, 32))
    assert result["member_of"] == []
    assert result["forbidden_aggs"][0] == U1


def test_forbidden_member_of_is_merged_without_repeats():
    pairs = [("member_of", f"!{U1}"), ("member_of", f"!in:{U2},{U1}"), ("member_of", U3)]
    assert parse_list_query(pairs, (1, 39)) == {
        "member_of": [[U3]], "forbidden_aggs": [U1, U2]}


def test_member_of_value_errors_come_from_the_parser():
    assert bad([("member_of", "nope")], (1, 3)) == (
        f"{PREFIX}Expected 'member_of' parameter to contain valid UUID(s). Got: nope")
    assert bad([("member_of", f"{U1},{U2}")], (1, 39)).startswith(
        "Multiple values for 'member_of' must be prefixed")


# --- required windows: forbidden (1.22), repeated and in: (1.39) --------------

def test_forbidden_traits_from_1_22():
    pairs = [("required", "A,!B")]
    assert bad(pairs, (1, 21)) == (
        f"{PREFIX}Expected 'required' parameter value of the form: HW_CPU_X86_VMX,CUSTOM_MAGIC. "
        "Got: A,!B")
    assert parse_list_query(pairs, (1, 22)) == {"required": [["A"]], "forbidden_traits": ["B"]}


def test_repeated_required_before_1_39_uses_the_last_value():
    pairs = [("required", "A"), ("required", "B,!C")]
    assert parse_list_query(pairs, (1, 38)) == {"required": [["B"]], "forbidden_traits": ["C"]}
    # the first value is never read, even when it would be refused
    assert parse_list_query([("required", "in:X"), ("required", "B")], (1, 38)) == {
        "required": [["B"]], "forbidden_traits": []}


def test_repeated_required_from_1_39_combines_all_values():
    pairs = [("required", "A,!C"), ("required", "in:B,D"), ("required", "!C,!E")]
    assert parse_list_query(pairs, (1, 39)) == {
        "required": [["A"], ["B", "D"]], "forbidden_traits": ["C", "E"]}


def test_any_of_traits_from_1_39():
    assert bad([("required", "in:A,B")], (1, 38)) == (
        f"{PREFIX}The format 'in:HW_CPU_X86_VMX,CUSTOM_MAGIC' only supported since "
        "microversion 1.39. Got: in:A,B")
    assert parse_list_query([("required", "in:A,B")], (1, 39)) == {
        "required": [["A", "B"]], "forbidden_traits": []}


def test_schema_is_checked_before_values():
    # an unknown key is reported even though 'resources' is also bad
    detail = bad([("resources", "VCPU:0"), ("foo", "1")], (1, 39))
    assert detail.startswith(f"{PREFIX}Additional properties are not allowed ('foo' was")

"""Parsing GET /allocation_candidates queries, per microversion.

Expected texts were read off the reference server (placement 16.0.0); there
newlines of the detail show as spaces, hence the ``flat`` helper.
"""

import pytest

from placer import exceptions
from placer.schemas.allocation_candidates import parse_query

AGG1 = "11111111-1111-1111-1111-111111111111"
AGG2 = "22222222-2222-2222-2222-222222222222"
R = ("resources", "VCPU:1")
UNDEFINED = exceptions.DEFAULT_CODE
BAD_VALUE = exceptions.QUERYPARAM_BAD_VALUE


def v(text: str) -> tuple[int, int]:
    major, minor = text.split(".")
    return int(major), int(minor)


def error(pairs, version):
    with pytest.raises(exceptions.BadRequest) as info:
        parse_query(pairs, v(version))
    return info.value


def flat(exc) -> str:
    return exc.detail.replace("\n", " ")


# -- JSON Schema: which parameters exist at which microversion -------------------

SCHEMA_1_39_UNKNOWN = (
    "Invalid query string parameters: 'foo' does not match any of the regexes: "
    "'^in_tree([a-zA-Z0-9_-]{1,64})?$', '^member_of([a-zA-Z0-9_-]{1,64})?$', "
    "'^required([a-zA-Z0-9_-]{1,64})?$', '^resources([a-zA-Z0-9_-]{1,64})?$'  "
    "Failed validating 'additionalProperties' in schema:     {'type': 'object',      "
    "'properties': {'limit': {'type': ['integer', 'string'],                               "
    "'pattern': '^[1-9][0-9]*$',                               'minimum': 1,              "
    "                 'minLength': 1},                     'group_policy': {'type': "
    "'string',                                      'enum': ['none', 'isolate']},        "
    "             'root_required': {'type': ['string']},                     "
    "'same_subtree': {'type': ['string']}},      'additionalProperties': False,      "
    "'patternProperties': {'^resources([a-zA-Z0-9_-]{1,64})?$': {'type': 'string'},      "
    "                      '^required([a-zA-Z0-9_-]{1,64})?$': {'type': 'string'},       "
    "                     '^member_of([a-zA-Z0-9_-]{1,64})?$': {'type': 'string'},       "
    "                     '^in_tree([a-zA-Z0-9_-]{1,64})?$': {'type': 'string'}}}  On "
    "instance:     {'resources': 'VCPU:1', 'foo': 'bar'}"
)

SCHEMA_1_10_MISSING = (
    "Invalid query string parameters: 'resources' is a required property  Failed "
    "validating 'required' in schema:     {'type': 'object',      'properties': "
    "{'resources': {'type': 'string'}},      'required': ['resources'],      "
    "'additionalProperties': False}  On instance:     {}"
)

SCHEMA_1_16_LIMIT = (
    "Invalid query string parameters: '0' does not match '^[1-9][0-9]*$'  Failed "
    "validating 'pattern' in schema['properties']['limit']:     {'type': ['integer', "
    "'string'],      'pattern': '^[1-9][0-9]*$',      'minimum': 1,      'minLength': 1}  "
    "On instance['limit']:     '0'"
)


def test_schema_message_is_the_reference_text():
    assert flat(error([R, ("foo", "bar")], "1.39")) == SCHEMA_1_39_UNKNOWN
    assert flat(error([], "1.10")) == SCHEMA_1_10_MISSING
    assert flat(error([R, ("limit", "0")], "1.16")) == SCHEMA_1_16_LIMIT
    assert error([], "1.10").code == UNDEFINED


@pytest.mark.parametrize(
    "key, value, first",
    [
        ("limit", "5", "1.16"),
        ("required", "CUSTOM_A", "1.17"),
        ("member_of", AGG1, "1.21"),
        ("resources1", "VCPU:1", "1.25"),
        ("group_policy", "none", "1.25"),
        ("in_tree", AGG1, "1.31"),
        ("in_tree1", AGG1, "1.31"),  # (with resources1, see below)
        ("resources_X", "VCPU:1", "1.33"),
        ("root_required", "CUSTOM_A", "1.35"),
    ],
)
def test_parameter_exists_from_its_microversion(key, value, first):
    major, minor = v(first)
    before = f"{major}.{minor - 1}"
    pairs = [R, (key, value)] + ([("resources1", "VCPU:1")] if key.endswith("1") else [])
    exc = error(pairs, before)
    assert exc.detail.startswith("Invalid query string parameters: ")
    assert repr(key) in exc.detail
    parse_query(pairs, (major, minor))


def test_same_subtree_exists_from_1_36():
    pairs = [R, ("resources_A", "VCPU:1"), ("same_subtree", "_A")]
    assert "'same_subtree' does not match" in error(pairs, "1.35").detail
    assert parse_query(pairs, (1, 36)).same_subtree == (("_A",),)


def test_suffix_syntax_by_microversion():
    for key in ("resources0", "resources01", "resources_A"):
        assert f"'{key}' does not match" in error([(key, "VCPU:1")], "1.32").detail
    assert parse_query([("resources0", "VCPU:1")], (1, 33)).groups[0].suffix == "0"
    too_long = "resources" + "x" * 65
    assert "does not match any of the regexes" in error([(too_long, "VCPU:1")], "1.39").detail


# -- resources ---------------------------------------------------------------------

_FORM = (
    "Badly formed resources parameter. Expected resources query string parameter in "
    "form: ?resources=VCPU:2,MEMORY_MB:1024. Got: {}."
)


@pytest.mark.parametrize(
    "value, detail",
    [
        ("", _FORM.format("empty string")),
        (" ", _FORM.format("empty string")),
        ("VCPU", _FORM.format("VCPU")),
        ("VCPU:1:2", _FORM.format("VCPU:1:2")),
        ("VCPU:1,", _FORM.format("")),
        ("VCPU:x", "Requested resource VCPU expected positive integer amount. Got: x."),
        ("VCPU:1.5", "Requested resource VCPU expected positive integer amount. Got: 1.5."),
        ("VCPU:0", "Requested resource VCPU requires amount >= 1. Got: 0."),
        ("VCPU:-1", "Requested resource VCPU requires amount >= 1. Got: -1."),
    ],
)
def test_bad_resources(value, detail):
    exc = error([("resources", value)], "1.39")
    assert (exc.detail, exc.code) == (detail, UNDEFINED)


def test_resources_quirks_kept():
    group = parse_query([("resources", "VCPU: 1,DISK_GB:+2,MEMORY_MB:1_0")], (1, 39)).groups[0]
    assert dict(group.resources) == {"VCPU": 1, "DISK_GB": 2, "MEMORY_MB": 10}
    # a repeated class: first position, last amount; a repeated key: the last one
    group = parse_query([("resources", "VCPU:1,DISK_GB:1,VCPU:3")], (1, 39)).groups[0]
    assert list(group.resources.items()) == [("VCPU", 3), ("DISK_GB", 1)]
    group = parse_query([("resources", "VCPU:1"), ("resources", "DISK_GB:2")], (1, 10)).groups[0]
    assert dict(group.resources) == {"DISK_GB": 2}
    # every occurrence is still validated, in order
    exc = error([("resources", "VCPU:1"), ("resources", "MEMORY_MB:x")], "1.24")
    assert exc.detail == "Requested resource MEMORY_MB expected positive integer amount. Got: x."


def test_names_are_not_checked_here():
    request = parse_query(
        [("resources", " vcpu:1"), ("required", "nope"), ("root_required", "!!X")], (1, 39)
    )
    assert request.resource_classes() == [" vcpu"]
    assert request.trait_names() == ["X", "nope"]


# -- required traits -------------------------------------------------------------------


def _empty(value, form="HW_CPU_X86_VMX,!CUSTOM_MAGIC"):
    return (
        "Invalid query string parameters: Expected 'required' parameter value of the form: "
        f"{form}. Got an empty trait in: {value}"
    )


@pytest.mark.parametrize(
    "version, values, detail",
    [
        ("1.39", [""], _empty("")),
        ("1.39", ["A,,B"], _empty("A,,B")),
        ("1.39", ["!"], _empty("!")),
        ("1.21", ["A,"], _empty("A,", "HW_CPU_X86_VMX,CUSTOM_MAGIC")),
        (
            "1.21",
            ["!A"],
            "Invalid query string parameters: Expected 'required' parameter value of the "
            "form: HW_CPU_X86_VMX,CUSTOM_MAGIC. Got: !A",
        ),
        (
            "1.17",
            ["A", "!B"],  # before 1.39 only the last value counts
            "Invalid query string parameters: Expected 'required' parameter value of the "
            "form: HW_CPU_X86_VMX,CUSTOM_MAGIC. Got: !B",
        ),
        (
            "1.38",
            ["in:A,B"],
            "Invalid query string parameters: The format 'in:HW_CPU_X86_VMX,CUSTOM_MAGIC' "
            "only supported since microversion 1.39. Got: in:A,B",
        ),
        ("1.39", ["in:A,"], _empty("in:A,", "in:HW_CPU_X86_VMX,CUSTOM_MAGIC")),
        ("1.39", ["in:"], _empty("in:", "in:HW_CPU_X86_VMX,CUSTOM_MAGIC")),
        (
            "1.39",
            ["in:A,!B"],
            "Invalid query string parameters: The format 'in:HW_CPU_X86_VMX,CUSTOM_MAGIC' "
            "does not support forbidden traits. Got: in:A,!B",
        ),
        (
            "1.22",
            ["A,!A"],
            "Conflicting required and forbidden traits found in the following traits keys: "
            "required: (A)",
        ),
        (
            "1.39",
            ["in:A,B", "!A,!B"],
            "Conflicting required and forbidden traits found in the following traits keys: "
            "required: (A, B)",
        ),
    ],
)
def test_bad_required(version, values, detail):
    exc = error([R] + [("required", value) for value in values], version)
    assert (exc.detail, exc.code) == (detail, UNDEFINED)


def test_required_parsing():
    group = parse_query(
        [R, ("required", "A,!B"), ("required", "in:C,D"), ("required", " !!E ")], (1, 39)
    ).groups[0]
    assert group.required == {"A"}
    assert group.forbidden == {"B", "E"}
    assert group.any_of == (frozenset({"C", "D"}),)
    assert group.trait_clauses == (frozenset({"A"}), frozenset({"C", "D"}))
    # an in: clause with one forbidden member is satisfiable: no conflict
    parse_query([R, ("required", "in:A,B"), ("required", "!A")], (1, 39))
    # before 1.39 a repeated key keeps only the last value
    group = parse_query([R, ("required", "A"), ("required", "B")], (1, 38)).groups[0]
    assert group.required == {"B"}


# -- member_of ------------------------------------------------------------------------

_NOT_UUID = (
    "Invalid query string parameters: Expected 'member_of' parameter to contain valid "
    "UUID(s). Got: {}"
)


@pytest.mark.parametrize(
    "version, values, detail",
    [
        ("1.21", ["x"], _NOT_UUID.format("x")),
        ("1.21", [f"in:{AGG1},x"], _NOT_UUID.format("x")),
        ("1.32", [""], _NOT_UUID.format("")),
        ("1.32", ["in:"], _NOT_UUID.format("")),
        ("1.32", ["!"], _NOT_UUID.format("")),
        ("1.32", [f"in:!{AGG1},{AGG2}"], _NOT_UUID.format("!" + AGG1)),
        (
            "1.21",
            [f"{AGG1},{AGG2}"],
            "Multiple values for 'member_of' must be prefixed with the 'in:' or '!in:' "
            f"keyword using the valid microversion. Got: {AGG1},{AGG2}",
        ),
        ("1.23", [AGG1, AGG2], "Multiple member_of parameters are not supported"),
        (
            "1.31",
            ["!" + AGG1],
            "Forbidden member_of parameters are not supported in the specified microversion",
        ),
    ],
)
def test_bad_member_of(version, values, detail):
    exc = error([R] + [("member_of", value) for value in values], version)
    assert (exc.detail, exc.code) == (detail, UNDEFINED)


def test_member_of_parsing():
    group = parse_query(
        [R, ("member_of", f"in:{AGG1},{AGG2}"), ("member_of", AGG1), ("member_of", "!" + AGG2)],
        (1, 32),
    ).groups[0]
    assert group.member_of == (frozenset({AGG1, AGG2}), frozenset({AGG1}))
    assert group.forbidden_aggs == {AGG2}
    group = parse_query([R, ("member_of", f"!in:{AGG1},{AGG2}")], (1, 32)).groups[0]
    assert (group.member_of, group.forbidden_aggs) == ((), {AGG1, AGG2})
    # uuid-like, as upstream: any case, no dashes
    parse_query([R, ("member_of", AGG1.upper()), ("member_of", AGG2.replace("-", ""))], (1, 24))


# -- in_tree --------------------------------------------------------------------------


def test_in_tree():
    assert parse_query([R, ("in_tree", " " + AGG1)], (1, 31)).groups[0].in_tree == AGG1
    expected = (
        "Invalid query string parameters: Expected 'in_tree' parameter to be a format of "
        "uuid. Got: {}"
    )
    assert error([R, ("in_tree", "x")], "1.31").detail == expected.format("x")
    assert error([R, ("in_tree", "")], "1.31").detail == expected.format("")
    assert error([R, ("in_tree", "x"), ("in_tree", AGG1)], "1.31").detail == expected.format("x")


# -- limit and group_policy ---------------------------------------------------------------


def test_limit():
    assert parse_query([R, ("limit", "7")], (1, 16)).limit == 7
    assert "'abc' does not match" in error([R, ("limit", "abc")], "1.16").detail
    # upstream validates the last value but uses the first (and fails with a 500)
    assert "'abc' does not match" in error([R, ("limit", "abc"), ("limit", "5")], "1.16").detail
    assert parse_query([R, ("limit", "5"), ("limit", "6")], (1, 16)).limit == 5


def test_group_policy():
    two = [("resources1", "VCPU:1"), ("resources2", "VCPU:1")]
    exc = error(two, "1.25")
    assert exc.detail == (
        'The "group_policy" parameter is required when specifying more than one '
        '"resources{N}" parameter.'
    )
    assert (
        "'bad' is not one of ['none', 'isolate']"
        in error(two + [("group_policy", "bad")], "1.25").detail
    )
    # validated on the last value, used from the first: 'bad' isolates nothing
    request = parse_query(two + [("group_policy", "bad"), ("group_policy", "none")], (1, 25))
    assert (request.group_policy, request.isolate) == ("bad", False)
    assert parse_query(two + [("group_policy", "isolate")], (1, 25)).isolate
    # one suffixed group plus the unsuffixed one needs no policy
    parse_query([R, ("resources1", "VCPU:1")], (1, 25))
    # resourceless suffixed groups count too (1.36)
    exc = error([("resources1", "VCPU:1"), ("required2", "A"), ("same_subtree", "1,2")], "1.36")
    assert exc.detail.startswith('The "group_policy" parameter is required')


# -- groups without resources -------------------------------------------------------------


@pytest.mark.parametrize(
    "pairs, detail",
    [
        (
            [R, ("required1", "A")],
            "All traits parameters must be associated with resources.  Found the following "
            "orphaned traits keys: required1",
        ),
        (
            [R, ("member_of2", AGG1), ("required1", "B"), ("required3", "C")],
            "All traits parameters must be associated with resources.  Found the following "
            "orphaned traits keys: required1, required3",
        ),
        (
            [R, ("member_of1", AGG1)],
            "All member_of parameters must be associated with resources. Found the "
            "following orphaned member_of keys: member_of1",
        ),
        ([R, ("required1", "!A")], "All request groups must specify resources."),
        ([R, ("in_tree1", AGG1)], "All request groups must specify resources."),
        ([("required", "A")], None),
        ([], "At least one request group (`resources` or `resources{$S}`) is required."),
        (
            [("limit", "5")],
            "At least one request group (`resources` or `resources{$S}`) is required.",
        ),
    ],
)
def test_resourceless_before_1_36(pairs, detail):
    exc = error(pairs, "1.35")
    if detail is None:
        detail = (
            "All traits parameters must be associated with resources.  Found the following "
            "orphaned traits keys: required"
        )
    assert (exc.detail, exc.code) == (detail, UNDEFINED)


def test_resourceless_from_1_36():
    exc = error([("required2", "A"), ("required1", "B")], "1.36")
    assert exc.detail == "There must be at least one resources or resources[$S] parameter."
    assert exc.code == exceptions.QUERYPARAM_MISSING_VALUE
    assert error([], "1.36").code == exceptions.QUERYPARAM_MISSING_VALUE

    exc = error(
        [("required", "A"), ("resources1", "VCPU:1"), ("required_b", "X"), ("same_subtree", "1")],
        "1.36",
    )
    assert exc.detail == (
        "Resourceless suffixed group request should be specified in `same_subtree` query "
        "param: bad group(s) - ['', '_b']."
    )
    assert exc.code == BAD_VALUE

    pairs = [
        R,
        ("resources_a", "VCPU:1"),
        ("required_b", "A"),
        ("required_c", "B"),
        ("same_subtree", "_a,_b"),
        ("same_subtree", "_c,_x,_y"),
    ]
    exc = error(pairs, "1.36")
    assert exc.detail == (
        "Real suffixes should be specified in `same_subtree`: ['_x', '_y'] not found in "
        "['', '_a', '_b', '_c']."
    )
    assert exc.code == BAD_VALUE

    for value in ("", "_a,"):
        exc = error([R, ("same_subtree", value)], "1.36")
        assert exc.detail == (
            "Empty string (unsuffixed group) can not be specified in `same_subtree` "
        )
        assert exc.code == BAD_VALUE

    request = parse_query(
        [
            R,
            ("resources_a", "VCPU:1"),
            ("required_b", "!A"),
            ("in_tree_b", AGG1),
            ("same_subtree", " _a , _b"),
            ("group_policy", "none"),
        ],
        (1, 36),
    )
    assert request.same_subtree == (("_a", "_b"),)
    assert [g.suffix for g in request.groups] == ["", "_a", "_b"]
    assert not request.groups[2].resources


# -- root_required --------------------------------------------------------------------


def test_root_required():
    request = parse_query([R, ("root_required", "A,!B,!!C")], (1, 35))
    assert (request.root_required, request.root_forbidden) == ({"A"}, {"B", "C"})

    exc = error([R, ("root_required", "A"), ("root_required", "B")], "1.35")
    assert exc.detail == "Query parameter 'root_required' may be specified only once."
    assert exc.code == exceptions.ILLEGAL_DUPLICATE_QUERYPARAM

    exc = error([R, ("root_required", "A,!A,B,!B")], "1.35")
    assert exc.detail == "Conflicting required and forbidden traits found in root_required: A, B"
    assert exc.code == BAD_VALUE

    # no any-traits for root_required, even at 1.39
    assert (
        "only supported since microversion 1.39"
        in error([R, ("root_required", "in:A,B")], "1.39").detail
    )
    assert error([R, ("root_required", "A,")], "1.35").detail == _empty("A,")


def test_request_wide_errors_come_before_group_errors():
    exc = error([("required", "!B,B"), ("root_required", "A,!A")], "1.35")
    assert exc.detail == "Conflicting required and forbidden traits found in root_required: A"
    exc = error([("required_x", "B"), ("same_subtree", "")], "1.36")
    assert exc.detail.startswith("Empty string (unsuffixed group)")


def test_groups_keep_query_order():
    request = parse_query(
        [
            ("required2", "A"),
            ("resources1", "VCPU:1"),
            ("resources2", "DISK_GB:1"),
            R,
            ("group_policy", "isolate"),
        ],
        (1, 29),
    )
    assert [g.suffix for g in request.groups] == ["2", "1", ""]
    assert request.resource_classes() == ["DISK_GB", "VCPU"]
    assert (request.nested_aware, parse_query([R], (1, 28)).nested_aware) == (True, False)

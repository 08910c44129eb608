"""Malformed and contradictory GET /allocation_candidates queries: each gets
a 400 with the reference's exact detail and code (texts probed on the
reference server), and which error wins when a query has several."""

import pytest

from tests.helpers.api import assert_error
from tests.helpers.candidates import BAD_REQUEST, Env

AGG = "1a5c6e0e-5a4c-4b0b-8d3e-3b7c5e6a1f00"
UNDEFINED = "placement.undefined_code"
BAD_VALUE = "placement.query.bad_value"
MISSING = "placement.query.missing_value"
DUPLICATE = "placement.query.duplicate_key"
FORM = "?resources=VCPU:2,MEMORY_MB:1024"
BADLY_FORMED = f"Badly formed resources parameter. Expected resources query string parameter in form: {FORM}. Got: "  # noqa: E501
REQUIRED_FORM = "Invalid query string parameters: Expected 'required' parameter value of the form: "
EMPTY_TRAIT = REQUIRED_FORM + "HW_CPU_X86_VMX,!CUSTOM_MAGIC. Got an empty trait in: "
EMPTY_ANY_TRAIT = REQUIRED_FORM + "in:HW_CPU_X86_VMX,CUSTOM_MAGIC. Got an empty trait in: "
BAD_AGG = ("Invalid query string parameters: Expected 'member_of' parameter to contain valid "
           "UUID(s). Got: ")
MULTI_AGG = ("Multiple values for 'member_of' must be prefixed with the 'in:' or '!in:' keyword "
             "using the valid microversion. Got: ")
BAD_TREE = "Invalid query string parameters: Expected 'in_tree' parameter to be a format of uuid. Got: "  # noqa: E501
NO_CLASS = "Invalid resource class in resources parameter: No such resource class "
CONFLICT = "Conflicting required and forbidden traits found in the following traits keys: "
POLICY = ('The "group_policy" parameter is required when specifying more than one '
          '"resources{N}" parameter.')
RESOURCELESS = ("Resourceless suffixed group request should be specified in `same_subtree` "
                "query param: bad group(s) - ")
REAL_SUFFIXES = "Real suffixes should be specified in `same_subtree`: "
NO_RESOURCES = "There must be at least one resources or resources[$S] parameter."


@pytest.fixture
def env(api):
    """A host with some of everything, so that an empty answer is never the
    reason a check is skipped."""
    e = Env(api)
    e.rp("CN", inv={"VCPU": 8, "MEMORY_MB": 1024, "DISK_GB": 100},
         traits=["HW_CPU_X86_AVX"], aggs=["agg"])
    e.rp("NUMA", parent="CN", inv={"VCPU": 8}, traits=["HW_CPU_X86_AVX2"])
    return e


CASES = [
    # -- resources
    ("1.39", "resources=", BADLY_FORMED + "empty string.", UNDEFINED),
    ("1.39", "resources=%20", BADLY_FORMED + "empty string.", UNDEFINED),
    ("1.39", "resources=VCPU", BADLY_FORMED + "VCPU.", UNDEFINED),
    ("1.39", "resources=VCPU:1:2", BADLY_FORMED + "VCPU:1:2.", UNDEFINED),
    ("1.39", "resources=VCPU:1,,MEMORY_MB:1", BADLY_FORMED + ".", UNDEFINED),
    ("1.39", "resources=VCPU:1,", BADLY_FORMED + ".", UNDEFINED),
    ("1.39", "resources=VCPU:x",
     "Requested resource VCPU expected positive integer amount. Got: x.", UNDEFINED),
    ("1.39", "resources=VCPU:1.5",
     "Requested resource VCPU expected positive integer amount. Got: 1.5.", UNDEFINED),
    ("1.39", "resources=VCPU:0", "Requested resource VCPU requires amount >= 1. Got: 0.",
     UNDEFINED),
    ("1.39", "resources=VCPU:-1", "Requested resource VCPU requires amount >= 1. Got: -1.",
     UNDEFINED),
    ("1.39", "resources_X=VCPU:-1", "Requested resource VCPU requires amount >= 1. Got: -1.",
     UNDEFINED),
    ("1.10", "resources=VCPU:0", "Requested resource VCPU requires amount >= 1. Got: 0.", None),
    ("1.39", "resources=:1", NO_CLASS + ".", UNDEFINED),
    ("1.39", "resources=vcpu:1", NO_CLASS + "vcpu.", UNDEFINED),
    ("1.39", "resources=%20VCPU:1", NO_CLASS + " VCPU.", UNDEFINED),
    ("1.39", "resources=CUSTOM_NOPE:1", NO_CLASS + "CUSTOM_NOPE.", UNDEFINED),
    ("1.39", "resources_A=VCPU:1&resources_B=CUSTOM_NOPE:1&group_policy=none",
     NO_CLASS + "CUSTOM_NOPE.", UNDEFINED),
    ("1.39", "resources=%ff", "Invalid query string parameters: 'utf-8' codec can't decode "
     "byte 0xff in position 0: invalid start byte", UNDEFINED),
    ("1.39", "res%ffources=VCPU:1", "Invalid query string parameters: 'utf-8' codec can't "
     "decode byte 0xff in position 3: invalid start byte", UNDEFINED),
    # -- no resources at all
    ("1.39", "", NO_RESOURCES, MISSING),
    ("1.39", "required=HW_CPU_X86_AVX", NO_RESOURCES, MISSING),
    ("1.39", f"member_of={AGG}", NO_RESOURCES, MISSING),
    ("1.39", "in_tree={CN}", NO_RESOURCES, MISSING),
    ("1.39", "required_A=HW_CPU_X86_AVX&same_subtree=_A", NO_RESOURCES, MISSING),
    ("1.35", "", "At least one request group (`resources` or `resources{$S}`) is required.",
     UNDEFINED),
    ("1.25", "", "At least one request group (`resources` or `resources{$S}`) is required.",
     UNDEFINED),
    # -- groups without resources before 1.36
    ("1.35", "required1=HW_CPU_X86_AVX", "All traits parameters must be associated with "
     "resources.  Found the following orphaned traits keys: required1", UNDEFINED),
    ("1.25", "resources=VCPU:1&required1=HW_CPU_X86_AVX", "All traits parameters must be "
     "associated with resources.  Found the following orphaned traits keys: required1",
     UNDEFINED),
    ("1.35", f"resources=VCPU:1&member_of1={AGG}", "All member_of parameters must be associated "
     "with resources. Found the following orphaned member_of keys: member_of1", UNDEFINED),
    ("1.35", f"resources=VCPU:1&required1=HW_CPU_X86_AVX&member_of1={AGG}", "All traits "
     "parameters must be associated with resources.  Found the following orphaned traits keys: "
     "required1", UNDEFINED),
    ("1.35", "resources=VCPU:1&in_tree1={CN}", "All request groups must specify resources.",
     UNDEFINED),
    # -- resourceless groups from 1.36
    ("1.39", "resources_A=VCPU:1&required_B=HW_CPU_X86_AVX", RESOURCELESS + "['_B'].",
     BAD_VALUE),
    ("1.39", f"resources_A=VCPU:1&member_of_B={AGG}", RESOURCELESS + "['_B'].", BAD_VALUE),
    ("1.39", "resources_A=VCPU:1&in_tree_B={CN}", RESOURCELESS + "['_B'].", BAD_VALUE),
    ("1.39", "resources_A=VCPU:1&required=HW_CPU_X86_AVX", RESOURCELESS + "[''].", BAD_VALUE),
    # -- same_subtree
    ("1.39", "resources=VCPU:1&same_subtree=",
     "Empty string (unsuffixed group) can not be specified in `same_subtree` ", BAD_VALUE),
    ("1.39", "resources_A=VCPU:1&same_subtree=_A,",
     "Empty string (unsuffixed group) can not be specified in `same_subtree` ", BAD_VALUE),
    ("1.39", "resources=VCPU:1&same_subtree=_A", REAL_SUFFIXES + "['_A'] not found in [''].",
     BAD_VALUE),
    ("1.39", "resources_A=VCPU:1&same_subtree=_A,_B",
     REAL_SUFFIXES + "['_B'] not found in ['_A'].", BAD_VALUE),
    ("1.39", "resources_A=VCPU:1&same_subtree=A", REAL_SUFFIXES + "['A'] not found in ['_A'].",
     BAD_VALUE),
    ("1.39", "resources_A=VCPU:1&same_subtree=_A&same_subtree=_A,_C",
     REAL_SUFFIXES + "['_C'] not found in ['_A'].", BAD_VALUE),
    # -- required
    ("1.39", "resources=VCPU:1&required=", EMPTY_TRAIT, UNDEFINED),
    ("1.39", "resources=VCPU:1&required=,HW_CPU_X86_AVX", EMPTY_TRAIT + ",HW_CPU_X86_AVX",
     UNDEFINED),
    ("1.39", "resources=VCPU:1&required=!", EMPTY_TRAIT + "!", UNDEFINED),
    ("1.21", "resources=VCPU:1&required=", REQUIRED_FORM + "HW_CPU_X86_VMX,CUSTOM_MAGIC. "
     "Got an empty trait in: ", None),
    ("1.21", "resources=VCPU:1&required=!", REQUIRED_FORM + "HW_CPU_X86_VMX,CUSTOM_MAGIC. "
     "Got an empty trait in: !", None),
    ("1.39", "resources=VCPU:1&required=in:", EMPTY_ANY_TRAIT + "in:", UNDEFINED),
    ("1.39", "resources=VCPU:1&required=in:HW_CPU_X86_AVX,",
     EMPTY_ANY_TRAIT + "in:HW_CPU_X86_AVX,", UNDEFINED),
    ("1.39", "resources=VCPU:1&required=in:HW_CPU_X86_AVX,!HW_CPU_X86_AVX2",
     "Invalid query string parameters: The format 'in:HW_CPU_X86_VMX,CUSTOM_MAGIC' does not "
     "support forbidden traits. Got: in:HW_CPU_X86_AVX,!HW_CPU_X86_AVX2", UNDEFINED),
    ("1.39", "resources=VCPU:1&required=CUSTOM_NOPE", "No such trait(s): CUSTOM_NOPE.",
     UNDEFINED),
    ("1.39", "resources=VCPU:1&required=!CUSTOM_NOPE", "No such trait(s): CUSTOM_NOPE.",
     UNDEFINED),
    ("1.39", "resources=VCPU:1&required=in:CUSTOM_NOPE,HW_CPU_X86_AVX",
     "No such trait(s): CUSTOM_NOPE.", UNDEFINED),
    ("1.39", "resources=VCPU:1&required=lower_case", "No such trait(s): lower_case.", UNDEFINED),
    ("1.17", "resources=VCPU:1&required=CUSTOM_NOPE", "No such trait(s): CUSTOM_NOPE.", None),
    # -- conflicts
    ("1.39", "resources=VCPU:1&required=HW_CPU_X86_AVX,!HW_CPU_X86_AVX",
     CONFLICT + "required: (HW_CPU_X86_AVX)", UNDEFINED),
    ("1.39", "resources=VCPU:1&required=in:HW_CPU_X86_AVX&required=!HW_CPU_X86_AVX",
     CONFLICT + "required: (HW_CPU_X86_AVX)", UNDEFINED),
    ("1.39", "resources=VCPU:1&required=in:HW_CPU_X86_AVX,HW_CPU_X86_AVX2"
     "&required=!HW_CPU_X86_AVX,!HW_CPU_X86_AVX2",
     CONFLICT + "required: (HW_CPU_X86_AVX, HW_CPU_X86_AVX2)", UNDEFINED),
    ("1.39", "resources1=VCPU:1&required1=HW_CPU_X86_AVX,!HW_CPU_X86_AVX&resources2=VCPU:1"
     "&required2=HW_CPU_X86_AVX2,!HW_CPU_X86_AVX2&group_policy=none",
     CONFLICT + "required1: (HW_CPU_X86_AVX), required2: (HW_CPU_X86_AVX2)", UNDEFINED),
    # -- member_of
    ("1.39", "resources=VCPU:1&member_of=", BAD_AGG, UNDEFINED),
    ("1.39", "resources=VCPU:1&member_of=foo", BAD_AGG + "foo", UNDEFINED),
    ("1.39", "resources=VCPU:1&member_of=in:", BAD_AGG, UNDEFINED),
    ("1.39", "resources=VCPU:1&member_of=!", BAD_AGG, UNDEFINED),
    ("1.39", f"resources=VCPU:1&member_of=in:{AGG},,{AGG}", BAD_AGG, UNDEFINED),
    ("1.39", f"resources=VCPU:1&member_of=!in:{AGG},foo", BAD_AGG + "foo", UNDEFINED),
    ("1.39", f"resources=VCPU:1&member_of=in:{AGG},!{AGG}", BAD_AGG + "!" + AGG, UNDEFINED),
    ("1.39", f"resources=VCPU:1&member_of={AGG},{AGG}", MULTI_AGG + f"{AGG},{AGG}", UNDEFINED),
    ("1.39", f"resources=VCPU:1&member_of=!{AGG},{AGG}", MULTI_AGG + f"!{AGG},{AGG}",
     UNDEFINED),
    ("1.21", f"resources=VCPU:1&member_of={AGG},{AGG}", MULTI_AGG + f"{AGG},{AGG}", None),
    ("1.39", f"resources_X=VCPU:1&member_of_X={AGG}&member_of_X=foo", BAD_AGG + "foo",
     UNDEFINED),
    # -- in_tree
    ("1.39", "resources=VCPU:1&in_tree=", BAD_TREE, UNDEFINED),
    ("1.39", "resources=VCPU:1&in_tree=foo", BAD_TREE + "foo", UNDEFINED),
    ("1.39", "resources=VCPU:1&in_tree=%20foo%20", BAD_TREE + " foo ", UNDEFINED),
    ("1.39", "resources=VCPU:1&in_tree1=foo", BAD_TREE + "foo", UNDEFINED),
    ("1.39", "resources=VCPU:1&in_tree={CN}&in_tree=foo", BAD_TREE + "foo", UNDEFINED),
    ("1.39", "resources=VCPU:1&in_tree=foo&in_tree={CN}", BAD_TREE + "foo", UNDEFINED),
    # -- group_policy
    ("1.39", "resources1=VCPU:1&resources2=VCPU:1", POLICY, UNDEFINED),
    ("1.25", "resources1=VCPU:1&resources2=VCPU:1", POLICY, UNDEFINED),
    ("1.39", "resources_A=VCPU:1&required_B=HW_CPU_X86_AVX&same_subtree=_A,_B", POLICY,
     UNDEFINED),
    # -- root_required
    ("1.39", "resources=VCPU:1&root_required=", EMPTY_TRAIT, UNDEFINED),
    ("1.39", "resources=VCPU:1&root_required=!", EMPTY_TRAIT + "!", UNDEFINED),
    ("1.39", "resources=VCPU:1&root_required=in:HW_CPU_X86_AVX",
     "Invalid query string parameters: The format 'in:HW_CPU_X86_VMX,CUSTOM_MAGIC' only "
     "supported since microversion 1.39. Got: in:HW_CPU_X86_AVX", UNDEFINED),
    ("1.39", "resources=VCPU:1&root_required=HW_CPU_X86_AVX&root_required=HW_CPU_X86_AVX2",
     "Query parameter 'root_required' may be specified only once.", DUPLICATE),
    ("1.39", "resources=VCPU:1&root_required=HW_CPU_X86_AVX,!HW_CPU_X86_AVX",
     "Conflicting required and forbidden traits found in root_required: HW_CPU_X86_AVX",
     BAD_VALUE),
    ("1.39", "resources=VCPU:1&root_required=CUSTOM_NOPE", "No such trait(s): CUSTOM_NOPE.",
     UNDEFINED),
    ("1.39", "resources=VCPU:1&root_required=!CUSTOM_NOPE", "No such trait(s): CUSTOM_NOPE.",
     UNDEFINED),
]


@pytest.mark.parametrize("version, query, message, code", CASES,
                         ids=[f"{c[0]}:{c[1][:60]}" for c in CASES])
def test_bad_query(env, version, query, message, code):
    env.bad(query, version, message, code)


# -- schema errors: the message, then jsonschema's account -------------------

def schema_error(env, query, version, message, validator):
    error = assert_error(env.get(query, version), 400, code="placement.undefined_code")
    detail = error["detail"]
    assert detail.startswith(BAD_REQUEST + "Invalid query string parameters: " + message), detail
    assert f"  Failed validating '{validator}' in schema" in detail, detail


LIMIT = "does not match '^[1-9][0-9]*$'"
SCHEMA_CASES = [
    ("resources=VCPU:1&limit=0", f"'0' {LIMIT}", "pattern"),
    ("resources=VCPU:1&limit=-1", f"'-1' {LIMIT}", "pattern"),
    ("resources=VCPU:1&limit=x", f"'x' {LIMIT}", "pattern"),
    ("resources=VCPU:1&limit=", f"'' {LIMIT}", "pattern"),
    ("resources=VCPU:1&limit=1.5", f"'1.5' {LIMIT}", "pattern"),
    ("resources=VCPU:1&limit=01", f"'01' {LIMIT}", "pattern"),
    ("resources=VCPU:1&limit=2&limit=x", f"'x' {LIMIT}", "pattern"),  # the last is validated
    ("resources=VCPU:1&group_policy=foo", "'foo' is not one of ['none', 'isolate']", "enum"),
    ("resources=VCPU:1&group_policy=", "'' is not one of ['none', 'isolate']", "enum"),
    ("resources1=VCPU:1&resources2=VCPU:1&group_policy=none&group_policy=foo",
     "'foo' is not one of ['none', 'isolate']", "enum"),
    ("resources=VCPU:1&group_policy=Isolate", "'Isolate' is not one of ['none', 'isolate']",
     "enum"),
    ("resources=VCPU:1&foo=bar", "'foo' does not match any of the regexes: ",
     "additionalProperties"),
    ("resources=VCPU:1&root_required1=HW_CPU_X86_AVX",
     "'root_required1' does not match any of the regexes: ", "additionalProperties"),
    ("resources=VCPU:1&same_subtree_A=_A", "'same_subtree_A' does not match any of the regexes",
     "additionalProperties"),
    ("resources.A=VCPU:1", "'resources.A' does not match any of the regexes: ",
     "additionalProperties"),
    ("resources_" + "A" * 65 + "=VCPU:1", f"'resources_{'A' * 65}' does not match any",
     "additionalProperties"),
]


@pytest.mark.parametrize("query, message, validator", SCHEMA_CASES,
                         ids=[c[0][:60] for c in SCHEMA_CASES])
def test_schema_violation(env, query, message, validator):
    schema_error(env, query, "1.39", message, validator)


def test_schema_shows_the_last_value_of_a_repeated_key(env):
    error = assert_error(env.get("resources=VCPU:1&limit=x&limit=0&foo=1", "1.39"), 400)
    assert "On instance:     {'resources': 'VCPU:1', 'limit': '0', 'foo': '1'}" in error["detail"]


# -- accepted oddities -------------------------------------------------------

BOTH = {frozenset({("CN", "VCPU", 2)}), frozenset({("NUMA", "VCPU", 2)})}
CN_ONLY = {frozenset({("CN", "VCPU", 2)})}


@pytest.mark.parametrize("query, expected", [
    ("resources=VCPU:1,VCPU:2", BOTH),  # the last amount of a class wins
    ("resources=VCPU:1&resources=VCPU:2", BOTH),  # the last resources wins
    ("resources=VCPU:%202", BOTH),  # int() strips blanks
    ("resources=VCPU:+2", BOTH),
    ("resources=VCPU:2&required=!!HW_CPU_X86_AVX2", CN_ONLY),  # any number of '!'
    ("resources=VCPU:2&required=%20!HW_CPU_X86_AVX2%20", CN_ONLY),  # names are stripped
    ("resources=VCPU:2&required=HW_CPU_X86_AVX,%20HW_CPU_X86_AVX", CN_ONLY),
    ("resources1=VCPU:2&group_policy=foo&group_policy=none", BOTH),  # the last is validated
])
def test_accepted_oddities(env, query, expected):
    assert env.ok(query).allocs == expected


def test_the_first_limit_is_used(env):
    assert len(env.ok("resources=VCPU:1&limit=1&limit=5").requests) == 1


def test_same_subtree_suffixes_are_stripped(env):
    assert env.ok("resources_A=VCPU:1&same_subtree=%20_A%20").allocs == {
        frozenset({("CN", "VCPU", 1)}), frozenset({("NUMA", "VCPU", 1)})}


def test_aggregates_on_both_sides_are_no_error(env):
    assert env.ok("resources=VCPU:1&member_of={agg}&member_of=!{agg}").allocs == set()
    assert env.ok("resources=VCPU:1&member_of=in:{agg},{other}&member_of=!{other}").allocs == {
        frozenset({("CN", "VCPU", 1)}), frozenset({("NUMA", "VCPU", 1)})}


def test_uuids_without_hyphens_are_valid_but_match_nothing(env):
    for query in ("resources=VCPU:1&member_of=" + env.agg("agg").replace("-", ""),
                  "resources=VCPU:1&in_tree=" + env.uuid["CN"].replace("-", "")):
        answer = env.ok(query)
        assert answer.requests == [] and answer.summaries == {}


def test_unknown_in_tree_is_an_empty_answer(env):
    answer = env.ok(f"resources=VCPU:1&in_tree={AGG}")
    assert answer.requests == [] and answer.summaries == {}


# -- which error wins --------------------------------------------------------

@pytest.mark.parametrize("query, message", [
    # request-wide parameters are read before the groups
    ("resources=VCPU:x&same_subtree=", "Empty string (unsuffixed group) can not be specified "
     "in `same_subtree` "),
    ("resources=VCPU:x&root_required=HW_CPU_X86_AVX,!HW_CPU_X86_AVX",
     "Conflicting required and forbidden traits found in root_required: HW_CPU_X86_AVX"),
    # groups are read in the order their keys appear
    ("resources1=VCPU:x&resources=VCPU:y",
     "Requested resource VCPU expected positive integer amount. Got: x."),
    ("required=!&resources=VCPU:x", EMPTY_TRAIT + "!"),
    # syntax before resourceless checks, those before conflicts, those before group_policy
    ("resources_A=VCPU:1&required_B=HW_CPU_X86_AVX&member_of_A=foo", BAD_AGG + "foo"),
    ("resources_A=VCPU:1&required_A=HW_CPU_X86_AVX,!HW_CPU_X86_AVX&required_B=HW_CPU_X86_AVX",
     RESOURCELESS + "['_B']."),
    ("resources_A=VCPU:1&resources_B=VCPU:1&required_A=HW_CPU_X86_AVX,!HW_CPU_X86_AVX",
     CONFLICT + "required_A: (HW_CPU_X86_AVX)"),
    ("resources_A=CUSTOM_NOPE:1&resources_B=VCPU:1", POLICY),
    # names are looked up last: root_required, then each group's classes, then its traits
    ("resources=CUSTOM_NOPE:1&root_required=CUSTOM_NOPE2", "No such trait(s): CUSTOM_NOPE2."),
    ("resources=CUSTOM_NOPE:1&required=CUSTOM_NOPE2", NO_CLASS + "CUSTOM_NOPE."),
    ("resources=CUSTOM_B:1,CUSTOM_A:1", NO_CLASS + "CUSTOM_B."),
])
def test_first_error_wins(env, query, message):
    env.bad(query, "1.39", message, None)


def test_unknown_trait_of_an_earlier_group_wins(env):
    env.bad("resources=VCPU:1&required=CUSTOM_NOPE2&resources1=CUSTOM_NOPE:1", "1.39",
            "No such trait(s): CUSTOM_NOPE2.", None)


def test_first_unknown_trait_in_query_order_wins(env):
    env.bad("resources1=VCPU:1&required1=CUSTOM_B,CUSTOM_A", "1.39",
            "No such trait(s): CUSTOM_B.", None)


# -- the reference stops at the first group with no candidate ----------------
# Names of later groups are then never looked up: an empty 200, not a 400.

SHORT_CIRCUITS = [
    # the unsuffixed group has no provider of PCPU
    "resources=PCPU:1&resources1=CUSTOM_NOPE:1",
    # no provider is in the aggregate: the group's own traits are not looked up
    f"resources=VCPU:1&member_of={AGG}&required=CUSTOM_NOPE",
    # no root has the trait
    "resources=VCPU:1&root_required=COMPUTE_STATUS_DISABLED&required=CUSTOM_NOPE",
    # in_tree names no provider
    f"resources1=VCPU:1&in_tree1={AGG}&resources2=CUSTOM_NOPE:1&group_policy=none",
]


@pytest.mark.parametrize("query", SHORT_CIRCUITS)
def test_no_candidates_before_an_unknown_name(env, query):
    answer = env.ok(query)
    assert answer.requests == [] and answer.summaries == {}


def test_unknown_trait_of_the_same_group_is_seen_before_in_tree(env):
    env.bad(f"resources=VCPU:1&in_tree={AGG}&required=CUSTOM_NOPE", "1.39",
            "No such trait(s): CUSTOM_NOPE.", UNDEFINED)


def test_unknown_class_of_a_later_group_is_reported_when_earlier_ones_match(env):
    env.bad("resources=VCPU:1&resources1=CUSTOM_NOPE:1", "1.39", NO_CLASS + "CUSTOM_NOPE.",
            UNDEFINED)


@pytest.mark.xfail(strict=True, reason="Placer judges root_required, member_of and resourceless "
                   "groups on its snapshot (trees holding a requested class); the reference on "
                   "every provider, so it goes on and reports the unknown name")
@pytest.mark.parametrize("query, message", [
    # the only GOLD root has no VCPU, the only provider in agg_gold neither
    ("resources=VCPU:1&root_required=CUSTOM_GOLD&required=CUSTOM_NOPE",
     "No such trait(s): CUSTOM_NOPE."),
    ("resources=VCPU:1&member_of={agg_gold}&required=CUSTOM_NOPE",
     "No such trait(s): CUSTOM_NOPE."),
    # a resourceless group on its own is satisfied by any provider with the trait
    ("resources_A=VCPU:1&required_B=CUSTOM_GOLD&same_subtree=_A,_B&resources_C=CUSTOM_NOPE:1"
     "&group_policy=none", NO_CLASS + "CUSTOM_NOPE."),
])
def test_unknown_name_after_a_filter_matched_outside_the_candidate_trees(env, query, message):
    env.rp("GOLD", inv={"MEMORY_MB": 64}, traits=["CUSTOM_GOLD"], aggs=["agg_gold"])
    env.bad(query, "1.39", message, UNDEFINED)

"""Allocation bodies per microversion window: list form (1.0), project/user
(1.8), dict form (1.12), POST (1.13), consumer_generation (1.28), mappings
(1.34), consumer_type (1.38)."""

import pytest
from jsonschema.exceptions import best_match

from placer.route_table import ROUTES
from placer.schemas import allocations


def put_validator(version):
    return ROUTES.route("/allocations/{consumer_uuid}", "PUT").at(version).body


def post_validator(version):
    return ROUTES.route("/allocations", "POST").at(version).body


def problem(validator, body):
    error = best_match(validator.iter_errors(body))
    return None if error is None else (error.validator, error.message, list(error.path))


RP = "11111111-2222-4333-8444-555555555555"
C = "cccccccc-cccc-4ccc-8ccc-cccccccccccc"
LIST = {"allocations": [{"resource_provider": {"uuid": RP}, "resources": {"VCPU": 1}}]}
OWNER = {"project_id": "p", "user_id": "u"}
DICT = {"allocations": {RP: {"resources": {"VCPU": 1}}}, **OWNER}
GEN = {"consumer_generation": None}
TYPE = {"consumer_type": "INSTANCE"}


def unexpected(*names):
    quoted = ", ".join(f"'{n}'" for n in names)
    verb = "was" if len(names) == 1 else "were"
    return ("additionalProperties",
            f"Additional properties are not allowed ({quoted} {verb} unexpected)", [])


def required(name, path=()):
    return ("required", f"'{name}' is a required property", list(path))


# The smallest valid PUT body of each window, checked at the window's first
# version, its last, and against the next window's validator.
@pytest.mark.parametrize(("first", "last", "body", "in_next"), [
    ((1, 0), (1, 7), LIST, required("project_id")),
    ((1, 8), (1, 11), {**LIST, **OWNER},
     ("type", f"{LIST['allocations']!r} is not of type 'object'", ["allocations"])),
    ((1, 12), (1, 27), DICT, required("consumer_generation")),
    ((1, 28), (1, 33), {**DICT, **GEN}, None),          # 1.34 only adds an optional key
    ((1, 34), (1, 37), {**DICT, **GEN, "mappings": {"x": [RP]}}, required("consumer_type")),
    ((1, 38), (1, 39), {**DICT, **GEN, **TYPE}, None),
])
def test_put_windows(first, last, body, in_next):
    assert problem(put_validator(first), body) is None
    assert problem(put_validator(last), body) is None
    if last < (1, 39):
        assert problem(put_validator((1, last[1] + 1)), body) == in_next


@pytest.mark.parametrize(("version", "body", "expected"), [
    ((1, 7), {**LIST, **OWNER}, unexpected("project_id", "user_id")),
    ((1, 8), LIST, required("project_id")),
    ((1, 12), LIST, required("project_id")),
    ((1, 11), {**LIST, "project_id": "p"}, required("user_id")),
    ((1, 27), {**DICT, "consumer_generation": 1}, unexpected("consumer_generation")),
    ((1, 28), DICT, required("consumer_generation")),
    ((1, 33), {**DICT, **GEN, "mappings": {"x": [RP]}}, unexpected("mappings")),
    ((1, 37), {**DICT, **GEN, **TYPE}, unexpected("consumer_type")),
    ((1, 38), {**DICT, **GEN}, required("consumer_type")),
])
def test_put_keys_before_and_from_their_version(version, body, expected):
    assert problem(put_validator(version), body) == expected


@pytest.mark.parametrize(("body", "expected"), [
    ({"allocations": []}, ("minItems", "[] should be non-empty", ["allocations"])),
    ({"allocations": [{"resource_provider": {"uuid": "x"}, "resources": {"VCPU": 1}}]},
     ("format", "'x' is not a 'uuid'", ["allocations", 0, "resource_provider", "uuid"])),
    ({"allocations": [{"resource_provider": {"uuid": RP}}]},
     required("resources", ["allocations", 0])),
    ({"allocations": [{"resource_provider": {"uuid": RP}, "resources": {"VCPU": 0}}]},
     ("minimum", "0 is less than the minimum of 1", ["allocations", 0, "resources", "VCPU"])),
])
def test_list_form_rejects(body, expected):
    assert problem(put_validator((1, 0)), body) == expected


def test_empty_allocations_allowed_from_1_28():
    assert problem(put_validator((1, 27)), {**DICT, "allocations": {}}) == (
        "minProperties", "{} should be non-empty", ["allocations"])
    assert problem(put_validator((1, 28)), {**DICT, **GEN, "allocations": {}}) is None


_IN_RP = ["allocations", RP]


@pytest.mark.parametrize(("body", "expected"), [
    ({**DICT, "allocations": {"x": {"resources": {"VCPU": 1}}}},
     ("additionalProperties", "'x' does not match any of the regexes: '^[0-9a-fA-F-]{36}$'",
      ["allocations"])),
    ({**DICT, "allocations": {RP: {"resources": {"VCPU": 0}}}},
     ("minimum", "0 is less than the minimum of 1", [*_IN_RP, "resources", "VCPU"])),
    ({**DICT, "allocations": {RP: {"resources": {}}}},
     ("minProperties", "{} should be non-empty", [*_IN_RP, "resources"])),
    ({**DICT, "allocations": {RP: {"resources": {"vcpu": 1}}}},
     ("additionalProperties", "'vcpu' does not match any of the regexes: '^[A-Z0-9_]+$'",
      [*_IN_RP, "resources"])),
    ({**DICT, "allocations": {RP: {}}}, required("resources", _IN_RP)),
    ({**DICT, "allocations": {RP: {"resources": {"VCPU": 1}, "generation": "1"}}},
     ("type", "'1' is not of type 'integer'", [*_IN_RP, "generation"])),
    ({**DICT, "project_id": ""}, ("minLength", "'' should be non-empty", ["project_id"])),
    ({**DICT, "user_id": "u" * 256}, ("maxLength", f"'{'u' * 256}' is too long", ["user_id"])),
])
def test_dict_form_rejects(body, expected):
    assert problem(put_validator((1, 12)), body) == expected


def test_dict_form_accepts_provider_generation_and_max_external_ids():
    body = {"allocations": {RP: {"resources": {"VCPU": 1}, "generation": 4}},
            "project_id": "p" * 255, "user_id": "u" * 255}
    assert problem(put_validator((1, 12)), body) is None


@pytest.mark.parametrize(("generation", "ok"), [(None, True), (0, True), (5, True),
                                                ("1", False), (1.5, False)])
def test_consumer_generation_is_integer_or_null(generation, ok):
    body = {**DICT, "consumer_generation": generation}
    assert (problem(put_validator((1, 28)), body) is None) is ok


@pytest.mark.parametrize(("mappings", "expected"), [
    ({"_1": [RP]}, None),
    ({"x" * 64: [RP]}, None),
    ({"!!": []}, None),              # no key matches the (unanchored) suffix pattern: unchecked
    ({}, ("minProperties", "{} should be non-empty", ["mappings"])),
    ({"a": []}, ("minItems", "[] should be non-empty", ["mappings", "a"])),
    ({"a": ["x"]}, ("format", "'x' is not a 'uuid'", ["mappings", "a", 0])),
    ({"a": RP}, ("type", f"'{RP}' is not of type 'array'", ["mappings", "a"])),
])
def test_mappings_from_1_34(mappings, expected):
    body = {**DICT, **GEN, "mappings": mappings}
    assert problem(put_validator((1, 34)), body) == expected


@pytest.mark.parametrize(("consumer_type", "expected"), [
    ("INSTANCE", None),
    ("X" * 255, None),
    ("instance", ("pattern", "'instance' does not match '^[A-Z0-9_]+$'", ["consumer_type"])),
    ("X" * 256, ("maxLength", f"'{'X' * 256}' is too long", ["consumer_type"])),
    (None, ("type", "None is not of type 'string'", ["consumer_type"])),
])
def test_consumer_type_from_1_38(consumer_type, expected):
    body = {**DICT, **GEN, "consumer_type": consumer_type}
    assert problem(put_validator((1, 39)), body) == expected


def test_put_validators_are_shared_within_a_window():
    assert put_validator((1, 28)) is put_validator((1, 33))
    assert put_validator((1, 33)) is not put_validator((1, 34))


# --- POST /allocations (1.13+) ---------------------------------------------

@pytest.mark.parametrize(("version", "consumer"), [
    ((1, 13), DICT),
    ((1, 13), {**DICT, "allocations": {}}),     # POST may empty a consumer from the start
    ((1, 27), DICT),
    ((1, 28), {**DICT, **GEN}),
    ((1, 34), {**DICT, **GEN, "mappings": {"a": [RP]}}),
    ((1, 38), {**DICT, **GEN, **TYPE}),
    ((1, 39), {**DICT, **GEN, **TYPE}),
])
def test_post_accepts(version, consumer):
    assert problem(post_validator(version), {C: consumer}) is None


@pytest.mark.parametrize(("version", "body", "expected"), [
    ((1, 13), {}, ("minProperties", "{} should be non-empty", [])),
    ((1, 13), {"x": DICT},
     ("additionalProperties", "'x' does not match any of the regexes: '^[0-9a-fA-F-]{36}$'",
      [])),
    ((1, 13), {C: {**DICT, **GEN}}, unexpected("consumer_generation")[:2] + ([C],)),
    ((1, 28), {C: DICT}, required("consumer_generation", [C])),
    ((1, 38), {C: {**DICT, **GEN}}, required("consumer_type", [C])),
    ((1, 13), {C: {"allocations": {}, "project_id": "p"}}, required("user_id", [C])),
])
def test_post_rejects(version, body, expected):
    assert problem(post_validator(version), body) == expected


def test_consumers_schema_allows_an_empty_map():
    schema = allocations.consumers_schema((1, 28))
    assert "minProperties" not in schema
    assert schema["additionalProperties"] is False
    assert list(schema["patternProperties"]) == ["^[0-9a-fA-F-]{36}$"]
    consumer = schema["patternProperties"]["^[0-9a-fA-F-]{36}$"]
    assert consumer["required"] == ["allocations", "project_id", "user_id", "consumer_generation"]
    assert allocations.consumers_schema((1, 38))["patternProperties"][
        "^[0-9a-fA-F-]{36}$"]["required"][-1] == "consumer_type"

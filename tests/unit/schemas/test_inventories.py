"""JSON Schemas of placer.schemas.inventories: bounds, required keys, class names."""

import pytest
from jsonschema.exceptions import best_match

from placer.schemas import inventories


def problem(validator, body):
    """(keyword, message, path) of the error the API would report, or None."""
    error = best_match(validator.iter_errors(body))
    return None if error is None else (error.validator, error.message, list(error.path))


GEN = {"resource_provider_generation": 3}
MAX = 2147483647


@pytest.mark.parametrize("body", [
    {"total": 1},
    {"total": MAX, "reserved": MAX, "min_unit": MAX, "max_unit": MAX, "step_size": MAX},
    {"total": 8, "reserved": 0, "min_unit": 1, "max_unit": 1, "step_size": 1,
     "allocation_ratio": 3.40282e38},
    {"total": 8, "allocation_ratio": 0},
    {"total": 8, "allocation_ratio": -1.5},     # no minimum on the ratio in the schema
    {"total": 8, "allocation_ratio": 16},
    {"total": 8.0},                              # integral floats are integers
])
def test_one_accepts(body):
    assert problem(inventories.ONE, {**body, **GEN}) is None
    assert problem(inventories.RECORD, body) is None


@pytest.mark.parametrize(("body", "expected"), [
    ({"total": 0}, ("minimum", "0 is less than the minimum of 1", ["total"])),
    ({"total": MAX + 1},
     ("maximum", "2147483648 is greater than the maximum of 2147483647", ["total"])),
    ({"total": 1, "reserved": -1},
     ("minimum", "-1 is less than the minimum of 0", ["reserved"])),
    ({"total": 1, "min_unit": 0}, ("minimum", "0 is less than the minimum of 1", ["min_unit"])),
    ({"total": 1, "max_unit": 0}, ("minimum", "0 is less than the minimum of 1", ["max_unit"])),
    ({"total": 1, "step_size": 0},
     ("minimum", "0 is less than the minimum of 1", ["step_size"])),
    ({"total": 1, "step_size": MAX + 1},
     ("maximum", "2147483648 is greater than the maximum of 2147483647", ["step_size"])),
    ({"total": 1, "allocation_ratio": 3.5e38},
     ("maximum", "3.5e+38 is greater than the maximum of 3.40282e+38", ["allocation_ratio"])),
    ({"total": 1, "allocation_ratio": "1"},
     ("type", "'1' is not of type 'number'", ["allocation_ratio"])),
    ({"total": 1.5}, ("type", "1.5 is not of type 'integer'", ["total"])),
    ({"total": True}, ("type", "True is not of type 'integer'", ["total"])),
    ({"total": "1"}, ("type", "'1' is not of type 'integer'", ["total"])),
    ({}, ("required", "'total' is a required property", [])),
    ({"total": 1, "foo": 1},
     ("additionalProperties", "Additional properties are not allowed ('foo' was unexpected)",
      [])),
])
def test_record_rejects(body, expected):
    assert problem(inventories.RECORD, body) == expected
    assert problem(inventories.ONE, {**body, **GEN}) == expected


def test_one_requires_the_generation_record_does_not():
    assert problem(inventories.ONE, {"total": 1}) == (
        "required", "'resource_provider_generation' is a required property", [])
    assert problem(inventories.ONE, {"total": 1, "resource_provider_generation": "1"}) == (
        "type", "'1' is not of type 'integer'", ["resource_provider_generation"])
    assert problem(inventories.RECORD, {"total": 1}) is None


def test_one_refuses_resource_class():
    assert problem(inventories.ONE, {"total": 1, "resource_class": "VCPU", **GEN}) == (
        "additionalProperties",
        "Additional properties are not allowed ('resource_class' was unexpected)", [])


@pytest.mark.parametrize("body", [
    {"total": 1, "resource_class": "VCPU"},
    {"total": 1, "resource_class": "CUSTOM_X", **GEN},   # a generation is allowed, ignored
])
def test_new_accepts(body):
    assert problem(inventories.NEW, body) is None


@pytest.mark.parametrize(("body", "expected"), [
    ({"total": 1}, ("required", "'resource_class' is a required property", [])),
    ({"resource_class": "VCPU"}, ("required", "'total' is a required property", [])),
    ({"total": 1, "resource_class": "vcpu"},
     ("pattern", "'vcpu' does not match '^[A-Z0-9_]+$'", ["resource_class"])),
    ({"total": 1, "resource_class": ""},
     ("pattern", "'' does not match '^[A-Z0-9_]+$'", ["resource_class"])),
    ({"total": 1, "resource_class": 5},
     ("type", "5 is not of type 'string'", ["resource_class"])),
])
def test_new_rejects(body, expected):
    assert problem(inventories.NEW, body) == expected


def test_all_accepts_a_set_and_an_empty_set():
    body = {"resource_provider_generation": 0,
            "inventories": {"VCPU": {"total": 8}, "CUSTOM_X": {"total": 1, "reserved": 1}}}
    assert problem(inventories.ALL, body) is None
    assert problem(inventories.ALL, {"resource_provider_generation": 0, "inventories": {}}) is None


@pytest.mark.parametrize(("body", "expected"), [
    ({"inventories": {}},
     ("required", "'resource_provider_generation' is a required property", [])),
    ({"resource_provider_generation": 0},
     ("required", "'inventories' is a required property", [])),
    ({"resource_provider_generation": 0, "inventories": {"VCPU": {"total": 0}}},
     ("minimum", "0 is less than the minimum of 1", ["inventories", "VCPU", "total"])),
    ({"resource_provider_generation": 0, "inventories": {"VCPU": {}}},
     ("required", "'total' is a required property", ["inventories", "VCPU"])),
    ({"resource_provider_generation": 0, "inventories": []},
     ("type", "[] is not of type 'object'", ["inventories"])),
    ({"resource_provider_generation": 0, "inventories": {}, "x": 1},
     ("additionalProperties", "Additional properties are not allowed ('x' was unexpected)",
      [])),
])
def test_all_rejects(body, expected):
    assert problem(inventories.ALL, body) == expected


def test_all_does_not_check_keys_that_are_not_class_names():
    body = {"resource_provider_generation": 0, "inventories": {"vcpu": {"total": 0}}}
    assert problem(inventories.ALL, body) is None


@pytest.mark.parametrize(("key", "expected"), [
    ("VCPU", True),
    ("CUSTOM_X1", True),
    ("vcpu", False),
    ("", False),
    ("VCPU-1", False),
    ("VCPU\n", True),    # re.search's '$' matches before a final newline, as jsonschema's does
])
def test_is_class_name(key, expected):
    assert inventories.is_class_name(key) is expected

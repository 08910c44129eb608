"""Schema of POST /resource_classes: a CUSTOM_ name of at most 255 characters."""

import pytest
from jsonschema.exceptions import best_match

from placer.schemas import resource_classes


def problem(body):
    error = best_match(resource_classes.CLASS.iter_errors(body))
    return None if error is None else (error.validator, error.message, list(error.path))


@pytest.mark.parametrize("name", ["CUSTOM_A", "CUSTOM_" + "A" * 248, "CUSTOM_GPU_1"])
def test_accepts(name):
    assert problem({"name": name}) is None


@pytest.mark.parametrize(("body", "expected"), [
    ({"name": "VCPU"}, ("pattern", "'VCPU' does not match '^CUSTOM_[A-Z0-9_]+$'", ["name"])),
    ({"name": "CUSTOM_"}, ("pattern", "'CUSTOM_' does not match '^CUSTOM_[A-Z0-9_]+$'",
                           ["name"])),
    ({"name": "CUSTOM_a"}, ("pattern", "'CUSTOM_a' does not match '^CUSTOM_[A-Z0-9_]+$'",
                            ["name"])),
    ({"name": "CUSTOM_" + "A" * 249},
     ("maxLength", f"'CUSTOM_{'A' * 249}' is too long", ["name"])),
    ({"name": 1}, ("type", "1 is not of type 'string'", ["name"])),
    ({}, ("required", "'name' is a required property", [])),
    ({"name": "CUSTOM_A", "uuid": "x"},
     ("additionalProperties", "Additional properties are not allowed ('uuid' was unexpected)",
      [])),
])
def test_rejects(body, expected):
    assert problem(body) == expected

"""GET /usages query schemas: 1.9 (project_id, user_id) and 1.38 (consumer_type)."""

import pytest
from jsonschema.exceptions import best_match

from placer.schemas import usages


def problem(validator, body):
    error = best_match(validator.iter_errors(body))
    return None if error is None else (error.validator, error.message, list(error.path))


@pytest.mark.parametrize("query", [
    {"project_id": "p"},
    {"project_id": "p" * 255, "user_id": "u" * 255},
])
def test_both_versions_accept(query):
    assert problem(usages.QUERY, query) is None
    assert problem(usages.QUERY_1_38, query) is None


@pytest.mark.parametrize(("query", "expected"), [
    ({}, ("required", "'project_id' is a required property", [])),
    ({"user_id": "u"}, ("required", "'project_id' is a required property", [])),
    ({"project_id": ""}, ("minLength", "'' should be non-empty", ["project_id"])),
    ({"project_id": "p" * 256}, ("maxLength", f"'{'p' * 256}' is too long", ["project_id"])),
    ({"project_id": "p", "user_id": ""}, ("minLength", "'' should be non-empty", ["user_id"])),
    ({"project_id": "p", "foo": "x"},
     ("additionalProperties", "Additional properties are not allowed ('foo' was unexpected)",
      [])),
])
def test_both_versions_reject(query, expected):
    assert problem(usages.QUERY, query) == expected
    assert problem(usages.QUERY_1_38, query) == expected


def test_consumer_type_is_unknown_before_1_38():
    assert problem(usages.QUERY, {"project_id": "p", "consumer_type": "INSTANCE"}) == (
        "additionalProperties",
        "Additional properties are not allowed ('consumer_type' was unexpected)", [])


@pytest.mark.parametrize("value", ["INSTANCE", "MIGRATION", "all", "unknown",
                                   "allx",          # '^all' is not anchored at the end
                                   "X" * 255])
def test_consumer_type_accepted_from_1_38(value):
    assert problem(usages.QUERY_1_38, {"project_id": "p", "consumer_type": value}) is None


@pytest.mark.parametrize(("value", "expected"), [
    ("instance", ("pattern", "'instance' does not match '^[A-Z0-9_]+$|^all|^unknown$'",
                  ["consumer_type"])),
    ("unknownx", ("pattern", "'unknownx' does not match '^[A-Z0-9_]+$|^all|^unknown$'",
                  ["consumer_type"])),
    # both pattern and minLength fail; best_match reports the pattern
    ("", ("pattern", "'' does not match '^[A-Z0-9_]+$|^all|^unknown$'", ["consumer_type"])),
    ("X" * 256, ("maxLength", f"'{'X' * 256}' is too long", ["consumer_type"])),
])
def test_consumer_type_rejected_from_1_38(value, expected):
    assert problem(usages.QUERY_1_38, {"project_id": "p", "consumer_type": value}) == expected

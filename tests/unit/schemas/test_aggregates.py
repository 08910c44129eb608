"""Schemas of PUT /resource_providers/{uuid}/aggregates: list (1.1) and object (1.19)."""

import pytest
from jsonschema.exceptions import best_match

from placer.schemas import aggregates


def problem(validator, body):
    error = best_match(validator.iter_errors(body))
    return None if error is None else (error.validator, error.message, list(error.path))


U1 = "11111111-2222-4333-8444-555555555555"
U2 = "66666666-7777-4888-9999-aaaaaaaaaaaa"


@pytest.mark.parametrize("body", [[], [U1], [U1, U2], [U1.replace("-", "")]])
def test_1_1_accepts_a_list_of_uuids(body):
    assert problem(aggregates.SET_AGGREGATES_1_1, body) is None
    wrapped = {"aggregates": body, "resource_provider_generation": 0}
    assert problem(aggregates.SET_AGGREGATES_1_19, wrapped) is None


@pytest.mark.parametrize(("body", "expected"), [
    ([U1, U1], ("uniqueItems", f"['{U1}', '{U1}'] has non-unique elements", [])),
    (["x"], ("format", "'x' is not a 'uuid'", [0])),
    ([U1, 5], ("type", "5 is not of type 'string'", [1])),
    ({"aggregates": [U1]}, ("type", f"{{'aggregates': ['{U1}']}} is not of type 'array'", [])),
])
def test_1_1_rejects(body, expected):
    assert problem(aggregates.SET_AGGREGATES_1_1, body) == expected


@pytest.mark.parametrize(("body", "expected"), [
    ([U1], ("type", f"['{U1}'] is not of type 'object'", [])),
    ({"aggregates": [U1]},
     ("required", "'resource_provider_generation' is a required property", [])),
    ({"resource_provider_generation": 1},
     ("required", "'aggregates' is a required property", [])),
    ({"aggregates": [U1], "resource_provider_generation": "1"},
     ("type", "'1' is not of type 'integer'", ["resource_provider_generation"])),
    ({"aggregates": ["nope"], "resource_provider_generation": 1},
     ("format", "'nope' is not a 'uuid'", ["aggregates", 0])),
    ({"aggregates": [U2, U2], "resource_provider_generation": 1},
     ("uniqueItems", f"['{U2}', '{U2}'] has non-unique elements", ["aggregates"])),
    ({"aggregates": [], "resource_provider_generation": 1, "x": 0},
     ("additionalProperties", "Additional properties are not allowed ('x' was unexpected)",
      [])),
])
def test_1_19_rejects(body, expected):
    assert problem(aggregates.SET_AGGREGATES_1_19, body) == expected

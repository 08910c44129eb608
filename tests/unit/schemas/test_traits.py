"""Schemas of /traits: the provider trait set body and the GET /traits query."""

import pytest
from jsonschema.exceptions import best_match

from placer.schemas import traits


def problem(validator, body):
    error = best_match(validator.iter_errors(body))
    return None if error is None else (error.validator, error.message, list(error.path))


@pytest.mark.parametrize("names", [[], ["HW_CPU_X86_VMX"], ["lower-case is fine here"],
                                   ["X" * 255], ["CUSTOM_A", "CUSTOM_A"]])
def test_set_provider_traits_accepts(names):
    body = {"traits": names, "resource_provider_generation": 0}
    assert problem(traits.SET_PROVIDER_TRAITS, body) is None


@pytest.mark.parametrize(("body", "expected"), [
    ({"traits": [""], "resource_provider_generation": 0},
     ("minLength", "'' should be non-empty", ["traits", 0])),
    ({"traits": ["X" * 256], "resource_provider_generation": 0},
     ("maxLength", f"'{'X' * 256}' is too long", ["traits", 0])),
    ({"traits": [1], "resource_provider_generation": 0},
     ("type", "1 is not of type 'string'", ["traits", 0])),
    ({"traits": "CUSTOM_A", "resource_provider_generation": 0},
     ("type", "'CUSTOM_A' is not of type 'array'", ["traits"])),
    ({"traits": []}, ("required", "'resource_provider_generation' is a required property", [])),
    ({"resource_provider_generation": 0}, ("required", "'traits' is a required property", [])),
    ({"traits": [], "resource_provider_generation": None},
     ("type", "None is not of type 'integer'", ["resource_provider_generation"])),
    ({"traits": [], "resource_provider_generation": 0, "x": 1},
     ("additionalProperties", "Additional properties are not allowed ('x' was unexpected)",
      [])),
])
def test_set_provider_traits_rejects(body, expected):
    assert problem(traits.SET_PROVIDER_TRAITS, body) == expected


@pytest.mark.parametrize("query", [{}, {"name": "in:A,B"}, {"associated": "true"},
                                   {"name": "startswith:CUSTOM", "associated": "x"}])
def test_list_query_accepts(query):
    assert problem(traits.LIST_QUERY, query) is None


def test_list_query_rejects_unknown_keys():
    assert problem(traits.LIST_QUERY, {"name": "x", "foo": "1"}) == (
        "additionalProperties", "Additional properties are not allowed ('foo' was unexpected)",
        [])

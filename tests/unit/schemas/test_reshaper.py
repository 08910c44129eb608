"""POST /reshaper body (1.30): inventories per provider plus the POST
/allocations consumer shape of the same microversion, where {} is allowed."""

import pytest
from jsonschema.exceptions import best_match

from placer.route_table import ROUTES


def reshaper_validator(version):
    return ROUTES.route("/reshaper", "POST").at(version).body


def problem(version, body):
    error = best_match(reshaper_validator(version).iter_errors(body))
    return None if error is None else (error.validator, error.message, list(error.path))


RP = "11111111-2222-4333-8444-555555555555"
C = "cccccccc-cccc-4ccc-8ccc-cccccccccccc"
INVENTORIES = {RP: {"resource_provider_generation": 0, "inventories": {"VCPU": {"total": 4}}}}
CONSUMER = {"allocations": {RP: {"resources": {"VCPU": 1}}}, "project_id": "p", "user_id": "u",
            "consumer_generation": None}


@pytest.mark.parametrize(("version", "allocations"), [
    ((1, 30), {}),
    ((1, 30), {C: CONSUMER}),
    ((1, 30), {C: {**CONSUMER, "allocations": {}}}),
    ((1, 34), {C: {**CONSUMER, "mappings": {"a": [RP]}}}),
    ((1, 38), {C: {**CONSUMER, "consumer_type": "INSTANCE"}}),
    ((1, 39), {C: {**CONSUMER, "consumer_type": "INSTANCE"}}),
])
def test_accepts(version, allocations):
    assert problem(version, {"inventories": INVENTORIES, "allocations": allocations}) is None


def test_an_empty_inventory_set_for_a_provider_is_allowed():
    body = {"inventories": {RP: {"resource_provider_generation": 1, "inventories": {}}},
            "allocations": {}}
    assert problem((1, 30), body) is None


_IN_C = ["allocations", C]


@pytest.mark.parametrize(("version", "body", "expected"), [
    ((1, 30), {"inventories": {}, "allocations": {}},
     ("minProperties", "{} should be non-empty", ["inventories"])),
    ((1, 30), {"inventories": INVENTORIES},
     ("required", "'allocations' is a required property", [])),
    ((1, 30), {"allocations": {}}, ("required", "'inventories' is a required property", [])),
    ((1, 30), {"inventories": INVENTORIES, "allocations": {}, "x": 1},
     ("additionalProperties", "Additional properties are not allowed ('x' was unexpected)", [])),
    ((1, 30), {"inventories": {"x": INVENTORIES[RP]}, "allocations": {}},
     ("additionalProperties", "'x' does not match any of the regexes: '^[0-9a-fA-F-]{36}$'",
      ["inventories"])),
    ((1, 30), {"inventories": {RP: {"inventories": {}}}, "allocations": {}},
     ("required", "'resource_provider_generation' is a required property",
      ["inventories", RP])),
    ((1, 30), {"inventories": {RP: {"resource_provider_generation": 0,
                                    "inventories": {"VCPU": {"total": 0}}}},
               "allocations": {}},
     ("minimum", "0 is less than the minimum of 1",
      ["inventories", RP, "inventories", "VCPU", "total"])),
    ((1, 30), {"inventories": INVENTORIES,
               "allocations": {C: {k: v for k, v in CONSUMER.items()
                                   if k != "consumer_generation"}}},
     ("required", "'consumer_generation' is a required property", _IN_C)),
    ((1, 33), {"inventories": INVENTORIES,
               "allocations": {C: {**CONSUMER, "mappings": {"a": [RP]}}}},
     ("additionalProperties", "Additional properties are not allowed ('mappings' was unexpected)",
      _IN_C)),
    ((1, 37), {"inventories": INVENTORIES,
               "allocations": {C: {**CONSUMER, "consumer_type": "INSTANCE"}}},
     ("additionalProperties",
      "Additional properties are not allowed ('consumer_type' was unexpected)", _IN_C)),
    ((1, 38), {"inventories": INVENTORIES, "allocations": {C: CONSUMER}},
     ("required", "'consumer_type' is a required property", _IN_C)),
    ((1, 30), {"inventories": INVENTORIES, "allocations": {"x": CONSUMER}},
     ("additionalProperties", "'x' does not match any of the regexes: '^[0-9a-fA-F-]{36}$'",
      ["allocations"])),
])
def test_rejects(version, body, expected):
    assert problem(version, body) == expected


def test_validators_are_shared_within_a_window():
    assert reshaper_validator((1, 30)) is reshaper_validator((1, 33))
    assert reshaper_validator((1, 34)) is reshaper_validator((1, 37))
    assert reshaper_validator((1, 37)) is not reshaper_validator((1, 38))

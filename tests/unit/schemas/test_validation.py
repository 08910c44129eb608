"""placer.schemas.validation: the one validator factory and its error texts."""

import pytest

from placer import exceptions
from placer.schemas import allocation_candidates, resource_providers
from placer.schemas.validation import (
    BODY_FORMATS,
    ECHO_LIMIT,
    QUERY_FORMATS,
    check_query,
    schema_error_text,
    validator,
)

UUID = {"type": "object", "properties": {"u": {"type": "string", "format": "uuid"}}}
UNDASHED = "11111111222243338444555555555555"
DASHED = "11111111-2222-4333-8444-555555555555"


def test_body_uuid_format_is_oslos_and_query_uuid_format_is_jsonschemas():
    body, query = validator(UUID), validator(UUID, QUERY_FORMATS)
    assert body.format_checker is BODY_FORMATS
    assert body.is_valid({"u": UNDASHED}) and body.is_valid({"u": DASHED})
    assert not query.is_valid({"u": UNDASHED}) and query.is_valid({"u": DASHED})
    assert not body.is_valid({"u": "nope"})


def test_validator_checks_the_schema_first():
    with pytest.raises(Exception, match="is not valid under any of the given schemas"):
        validator({"type": "no-such-type"})


def test_check_query_prefix_and_jsonschemas_text():
    check_query({"name": "x"}, validator({"properties": {"name": {"type": "string"}}}))
    with pytest.raises(exceptions.BadRequest) as caught:
        check_query({"x": "1"}, validator({"additionalProperties": False}))
    assert caught.value.detail.startswith(
        "Invalid query string parameters: Additional properties are not allowed ('x' was "
        "unexpected)")


def test_long_echoed_values_are_cut():
    error = next(validator({"maxLength": 3}).iter_errors("a" * 5000))
    text = schema_error_text(error)
    assert len(text) < 3 * ECHO_LIMIT
    assert "'" + "a" * (ECHO_LIMIT - 1) + "..." in text


def test_every_query_parser_uses_the_same_check():
    """Providers and candidates answer a bad query with the same prefix and cut."""
    long = "x" * 5000
    for check in (lambda: resource_providers.parse_list_query([("bogus", long)], (1, 39)),
                  lambda: allocation_candidates.validate({"group_policy": long}, (1, 39))):
        with pytest.raises(exceptions.BadRequest) as caught:
            check()
        assert caught.value.detail.startswith("Invalid query string parameters: ")
        assert len(caught.value.detail) < 4 * ECHO_LIMIT

"""The property tests' floor (tests/helpers/floors.py) itself: it fails a test
with too few useful examples, and refuses a @settings that would not apply."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.helpers.floors import answered, at_least


def test_a_test_under_its_floor_fails():
    @at_least(5)
    @settings(max_examples=10)
    @given(st.integers(0, 9))
    def few(n):
        answered([])  # never useful

    with pytest.raises(AssertionError, match=r"examples had an answer \(floor 5\)"):
        few()


def test_a_test_over_its_floor_passes():
    @at_least(5)
    @settings(max_examples=10)
    @given(st.integers(0, 9))
    def many(n):
        answered([n])

    many()


def test_settings_above_the_floor_are_refused():
    @settings(max_examples=3)
    @at_least(1)
    @given(st.integers())
    def misplaced(n):
        answered([n])

    with pytest.raises(AssertionError, match="put it under"):
        misplaced()

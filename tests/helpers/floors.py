"""Property tests' numbers: how many examples each draws, and a floor under
them.

``examples(count)`` is a test's number of examples: its own ``count``, or
``PLACER_FUZZ_EXAMPLES`` for every test when that is set (tests/conftest.py
registers the one Hypothesis profile, which reads it too). A floor: an example
whose answer is empty proves little (two empty answers agree), and the query
strategies discard what fails to parse with hypothesis' filter_too_much check
off, so a strategy that stopped producing answers would pass every test.
``at_least`` fails a test that saw too few examples with an answer. The
floors hold for each test's own count; ``PLACER_FUZZ_EXAMPLES`` is for
widening the search, and far fewer examples can fall under a floor."""

import functools
import os

_answered = [0]


def examples(count: int) -> int:
    """``count``, or every test's ``PLACER_FUZZ_EXAMPLES`` when it is set."""
    return int(os.environ.get("PLACER_FUZZ_EXAMPLES", count))


def at_least(minimum: int):
    """Decorate a @given test (above its ``@settings``, if any): it fails when
    fewer than ``minimum`` of its examples passed a non-empty answer to
    ``answered``."""
    def decorate(test):
        @functools.wraps(test)
        def run(*args, **kwargs):
            if _misplaced(run, test):
                raise AssertionError("@settings above @at_least does not apply: "
                                     "put it under, right above @given")
            _answered[0] = 0
            test(*args, **kwargs)
            assert _answered[0] >= minimum, (
                f"only {_answered[0]} examples had an answer (floor {minimum})")
        return run
    return decorate


def _misplaced(run, test) -> bool:
    """functools.wraps copied hypothesis' attributes onto ``run``: a @settings
    put above ``at_least`` changes that copy, not the settings ``test`` runs
    with. (Hypothesis' pytest plugin also changes the copy of a parametrized
    test, adding the differing_executors health check alone.)"""
    outer, inner = (getattr(f, "_hypothesis_internal_use_settings", None) for f in (run, test))
    if outer is inner or outer is None or inner is None:
        return False
    same = ("max_examples", "derandomize", "deadline", "database", "phases")
    return (any(getattr(outer, name) != getattr(inner, name) for name in same)
            or not {c.name for c in outer.suppress_health_check} - {"differing_executors"}
            <= {c.name for c in inner.suppress_health_check})


def answered(answer):
    """``answer``, counted if non-empty."""
    _answered[0] += bool(answer)
    return answer

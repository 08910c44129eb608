"""A floor under property tests: an example whose answer is empty proves
little (two empty answers agree), and the query strategies discard what fails
to parse with hypothesis' filter_too_much check off, so a strategy that
stopped producing answers would pass every test. ``at_least`` fails a test
that saw too few examples with an answer."""

import functools

_answered = [0]


def at_least(minimum: int):
    """Decorate a @given test: it fails when fewer than ``minimum`` of its
    examples passed a non-empty answer to ``answered``."""
    def decorate(test):
        @functools.wraps(test)
        def run(*args, **kwargs):
            _answered[0] = 0
            test(*args, **kwargs)
            assert _answered[0] >= minimum, (
                f"only {_answered[0]} examples had an answer (floor {minimum})")
        return run
    return decorate


def answered(answer):
    """``answer``, counted if non-empty."""
    _answered[0] += bool(answer)
    return answer

"""GET /allocation_candidates cases written once, as data: a world of
providers by name, queries at a microversion, the answers expected (see
model.py for the notation). The documentation's worked examples are in
docs.py, behaviour checked case by case against the reference in
semantics.py.

Two drivers run every case: against the engine
(tests/unit/candidates/test_cases.py) and over HTTP
(tests/functional/test_allocation_candidates_cases.py).
"""

from tests.helpers.candidate_cases import docs, semantics
from tests.helpers.candidate_cases.model import Case, Q, Rp, Seen, check, params

CASES: list[Case] = docs.CASES + semantics.CASES
assert len({c.name for c in CASES}) == len(CASES), "case names must be unique"

__all__ = ["CASES", "Case", "Q", "Rp", "Seen", "check", "params"]

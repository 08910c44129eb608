"""What explain answers: the funnel's steps, the failures of one provider
and its tree, the order of the answer, and the whole explanation (render.py writes them out)."""

from dataclasses import dataclass, field

from placer.candidates.order import Order
from placer.candidates.request import CandidateRequest, RequestGroup
from placer.candidates.snapshot import Provider


@dataclass
class Step:
    """One constraint of the funnel and what is left after it.

    ``group`` is the group's suffix, None for a request-wide step. ``trees``
    counts the roots that may still anchor a candidate; ``providers`` those
    left to serve the group (for a class step, to serve that class);
    ``candidates`` is set on the last steps, which count candidates.
    """

    group: str | None
    constraint: str
    value: str = ""
    trees: int | None = None
    providers: int | None = None
    candidates: int | None = None
    detail: str = ""
    message: str = ""  # why nothing is left, when nothing is
    tree_ids: frozenset[int] = field(default=frozenset(), repr=False)

    @property
    def empty(self) -> bool:
        return (self.candidates if self.candidates is not None else self.trees) == 0


@dataclass
class Failure:
    """A constraint one provider or tree fails, and by how much."""

    group: str | None
    constraint: str
    value: str
    detail: str


@dataclass
class ProviderReport:
    provider: Provider
    root: Provider
    failures: list[Failure]
    tree_failures: list[Failure]


@dataclass
class RankedTree:
    """A tree of the answer, in answer order, with its rank and free per
    mille per requested class (spread and pack)."""

    root: Provider
    candidates: int
    rank: int
    free: dict[str, int]


@dataclass
class OrderReport:
    """The order in force and, for spread and pack, the answer's trees in
    their exact order (the herd pool's random draw aside)."""

    order: Order
    trees: list[RankedTree] | None = None


@dataclass
class Explanation:
    request: CandidateRequest
    groups: list[tuple[RequestGroup, list[Step]]]
    request_steps: list[Step]
    candidates: int  # what GET /allocation_candidates answers, in number
    roots: int  # the roots (trees) its candidates are anchored at
    provider: ProviderReport | None = None
    order: OrderReport | None = None

    @property
    def steps(self) -> list[Step]:
        """Every step, in the funnel's order."""
        return [s for _, steps in self.groups for s in steps] + self.request_steps

    @property
    def first_empty(self) -> Step | None:
        return next((s for s in self.steps if s.empty), None)

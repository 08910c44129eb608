"""The candidate service: what GET /allocation_candidates, its explain,
GET and POST /capacity, the capacity gauges and the ``placement-manage``
commands ``explain`` and ``capacity`` call, over a store (the database
behind it: store.py's SearchStore, and CountStore for counting copies).

A search walks the candidate roots in answer order (walk.py; [placer]
candidate_order: by id; in a random order drawn as it goes; or, for spread
and pack, best rank first from the trees' stored scores, see order.py and
ranking.py). The trees of one batch are loaded with a fixed number of
queries, searched, and the next batch is loaded only while the answer
needs more, so a limited query costs what its answer costs, not what the
cloud holds. Trees that serve others (those of sharing providers and
in_tree targets) are loaded once per request and join every batch.

Explain needs every tree that could hold part of an answer, to count what
each constraint removes: a read of the relevant part of the cloud, fine
for an operator's question, not for the scheduler's path.

A count of copies (count.py) walks the same roots, and counts flat hosts
from one read of the inventory records (cloud_table.py).

This module is the one door into candidates/, and ``__all__`` is its
interface: handlers, the CLI, ``http/metrics`` and ``wsgi`` import it and
nothing else of the package (db/ implements the stores of store.py over
the types of request.py and snapshot.py; schemas/ parses a query into a
request.CandidateRequest). The import contracts of
pyproject.toml ([tool.importlinter], run by lint-imports and
tests/unit/test_layers.py) keep the rest of the package behind it.
"""

import random
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TypeVar

from placer import exceptions
from placer.candidates import batches, explanation, precheck, search, walk
from placer.candidates.count import Count, count_requests
from placer.candidates.explanation.render import body as explanation_body
from placer.candidates.explanation.steps import Explanation
from placer.candidates.order import BY_ID, ORDERS, Order
from placer.candidates.order import check_weights as check_order_weights
from placer.candidates.order import from_conf as order_from_conf
from placer.candidates.render import body as candidates_body
from placer.candidates.render import count_body
from placer.candidates.request import CandidateRequest
from placer.candidates.snapshot import Provider, Snapshot
from placer.candidates.store import CountStore, SearchStore

__all__ = [
    # the searches
    "find", "explain", "count_one", "count_shapes", "Timings",
    # their answers' bodies
    "candidates_body", "explanation_body", "count_body",
    # the types callers and the stores name
    "CandidateRequest", "SearchStore", "CountStore", "Count", "Explanation", "Order",
    # the candidate order of [placer] candidate_order
    "ORDERS", "order_from_conf", "check_order_weights",
]

T = TypeVar("T")
# runs a function on a store inside one read transaction
Reader = Callable[[Callable[[SearchStore], T]], T]


@dataclass
class Timings:
    """Seconds a search spent loading from the database and searching
    (``searched``: it got that far; an unknown name or an impossible
    request stops it before)."""

    load: float = 0.0
    search: float = 0.0
    searched: bool = False


def find(store: SearchStore, request: CandidateRequest, *, max_candidates: int = -1,
         strategy: str = "depth-first", order: Order = BY_ID,
         rng: random.Random | None = None, batch: tuple[int, int] | None = None,
         timings: Timings | None = None) -> tuple[list[search.Candidate], list[Provider]]:
    """(candidates, providers for provider_summaries) for ``request``, in
    ``order`` (``random`` and the herd pool of spread and pack draw from
    ``rng``: a fresh generator unless given; the id order draws nothing).

    Raises BadRequest for an unknown name, where the reference reports it.
    ``batch`` overrides (first, largest) batch sizes, for tests. ``timings``,
    if given, gets the time spent added to it, when the search ran.
    """
    started = time.perf_counter()
    if rng is None and order.name != "id":
        rng = random.Random()
    found = walk.start(store, request)
    if found is None:
        return [], []
    wanted = [n for n in (request.limit, max_candidates) if n is not None and n >= 0]
    candidates: list[search.Candidate] = []
    sizes = batches.Sizes(min(wanted) if wanted else None, lambda: len(candidates), batch)
    trees = found.batches(sizes, order, rng)
    loading = [0.0]
    if timings is not None:
        trees = _timed(trees, loading)
    searching = time.perf_counter()
    for candidate in search.stream_candidates(
            request, trees, max_candidates=max_candidates, strategy=strategy,
            rng=rng if order.name == "random" else None, order=order):
        candidates.append(candidate)
    if timings is not None:
        now = time.perf_counter()
        timings.search += now - searching - loading[0]
        timings.load += searching - started + loading[0]
        timings.searched = True
    return candidates, search.summary_providers(candidates, request.nested_aware)


def count_one(store: CountStore, request: CandidateRequest, budget: float) -> Count:
    """How many copies of ``request`` fit at once, per root and in all
    (count.py); ``budget``: seconds its integer programs may take.
    BadRequest for an unknown name, where GET /allocation_candidates gives
    one."""
    return next(count_requests(store, {"": request}, budget))[1]


def count_shapes(store: CountStore, shapes: dict[str, CandidateRequest], budget: float
                 ) -> dict[str, Count]:
    """Each named request (a capacity shape) counted as count_one does, all
    on one store (one read; the trees loaded once for all); BadRequest
    naming the shape for an unknown class or trait."""
    found: dict[str, Count] = {}
    try:
        for name, counted in count_requests(store, shapes, budget):
            found[name] = counted
    except exceptions.BadRequest as exc:  # raised counting the first shape not found yet
        raise exc.of_shape(next(n for n in shapes if n not in found)) from None
    return found


def _timed(trees: Iterator[Snapshot], spent: list[float]) -> Iterator[Snapshot]:
    """``trees``, adding the seconds each batch takes to load to ``spent[0]``."""
    while True:
        start = time.perf_counter()
        snapshot = next(trees, None)
        spent[0] += time.perf_counter() - start
        if snapshot is None:
            return
        yield snapshot


def checked_snapshot(store: SearchStore, request: CandidateRequest) -> Snapshot:
    """The whole-cloud snapshot of the request, after the reference's checks
    of the names it uses (BadRequest where GET /allocation_candidates gives
    one)."""
    names = store.names(request)
    snapshot = store.whole_cloud(request, list(names.classes.values()))
    if names.lack_some_of(request):
        precheck.check_names(request, snapshot, names.classes, names.traits)
    return snapshot


def explain(read: Reader[tuple[Snapshot, Snapshot | None, str | None]],
            request: CandidateRequest, provider: str | None = None,
            max_candidates: int = -1, order: Order = BY_ID,
            strategy: str = "depth-first") -> Explanation:
    """The explain answer for a candidates request (``provider``: the uuid of a
    provider to report on, with its tree; schemas/allocation_candidates.py's
    parse_explain_query reads both from explain's query). BadRequest where
    GET /allocation_candidates answers 400 for an unknown name, and for an
    unknown provider."""
    snapshot, around, provider = read(lambda store: _explain_snapshots(store, request, provider))
    return explanation.explain(request, snapshot, provider=provider,
                               provider_snapshot=around, max_candidates=max_candidates,
                               order=order, strategy=strategy)


def _explain_snapshots(store: SearchStore, request: CandidateRequest, provider: str | None
                       ) -> tuple[Snapshot, Snapshot | None, str | None]:
    """(snapshot for the funnel; snapshot for the ``provider`` report: the
    same, plus that provider's tree when the first lacks it; the provider's
    uuid as stored), the last two None without ``provider``."""
    snapshot = checked_snapshot(store, request)
    if provider is None:
        return snapshot, None, None
    if provider in snapshot.by_uuid:
        return snapshot, snapshot, provider
    found = store.provider_root(provider)
    if found is None:
        raise exceptions.BadRequest(f"No resource provider with uuid {provider} found",
                                    code=exceptions.QUERYPARAM_BAD_VALUE)
    uuid, root_id = found
    tree = store.trees([root_id])
    return snapshot, Snapshot([*snapshot.providers.values(), *tree]), uuid

"""Why GET /allocation_candidates answers what it answers: the funnel.

For each request group, in request order: the providers holding each class,
then how many providers and trees are left after each constraint in turn
(per class: capacity, min_unit, max_unit, step_size; then required traits,
any-of traits, member_of, forbidden traits, forbidden aggregates, in_tree).
Then the request-wide constraints, on trees: one tree for every group,
root_required, the groups together (shared capacity), same_subtree,
isolate, the one-provider-per-tree rule before 1.29, and finally the
candidates, max_allocation_candidates and limit.

Every count comes from the engine's own rules: the resource steps split
``Provider.fits`` into its parts, the group filters are
``domains.build_problems`` on the group with a growing prefix of its
constraints, the request-wide ones the solver on a growing prefix of the
request's, and the last of those is the request itself. Each step is a
necessary condition for a candidate and only adds to the previous ones, so:
the answer is empty exactly when some step leaves nothing, the first such
step is named, and removing it from the query cannot empty an earlier one.

``provider``: every constraint that provider fails by itself, each judged
alone and with the numbers, and the same for its tree as an anchor
(provider.py).

funnel.py counts, provider.py reports on one provider, render.py writes
the answer's body.
"""

from placer.candidates import search
from placer.candidates.explanation import funnel
from placer.candidates.explanation import provider as provider_report
from placer.candidates.explanation.steps import Explanation, OrderReport, RankedTree
from placer.candidates.order import BY_ID, Order, holdings
from placer.candidates.request import CandidateRequest
from placer.candidates.snapshot import Snapshot
from placer.model.scores import tree_scores


def explain(request: CandidateRequest, snapshot: Snapshot, *, provider: str | None = None,
            provider_snapshot: Snapshot | None = None, max_candidates: int = -1,
            order: Order = BY_ID, strategy: str = "depth-first") -> Explanation:
    """The funnel of ``request`` over ``snapshot`` (which must hold what a
    whole-cloud search needs, see snapshot.py). ``provider``: the uuid of a
    provider to report on, found in ``provider_snapshot`` (default:
    ``snapshot``); ``max_candidates``: the service's max_allocation_candidates;
    ``order`` and ``strategy``: the service's candidate order and
    generation strategy."""
    groups = [(g, funnel.group_steps(request, g, snapshot)) for g in request.groups]
    request_steps, answer, roots = funnel.request_steps(request, snapshot, groups,
                                                        max_candidates, strategy)
    report = None
    if provider is not None:
        around = provider_snapshot or snapshot
        report = provider_report.report(request, around, around.by_uuid[provider])
    return Explanation(request, groups, request_steps, answer, roots, report,
                       _order_report(request, snapshot, max_candidates, order, strategy))


def _order_report(request: CandidateRequest, snapshot: Snapshot, max_candidates: int,
                  order: Order, strategy: str) -> OrderReport:
    """The answer's trees in spread or pack order, with their ranks, from
    the providers as they are now (what the stored scores hold when kept)."""
    if not order.scored:
        return OrderReport(order)
    classes = order.weighted(request.resource_classes())
    counts: dict[int, int] = {}
    for candidate in search.find_candidates(request, snapshot, max_candidates=max_candidates,
                                            order=order, strategy=strategy):
        counts[candidate.anchor.id] = counts.get(candidate.anchor.id, 0) + 1
    trees = []
    for root_id, count in counts.items():
        providers = snapshot.tree(root_id)
        free = {rc: f for rc, (f, _) in tree_scores(holdings(providers)).items()
                if rc in classes}
        trees.append(RankedTree(snapshot.get(root_id), count,
                                order.tree_rank(providers, classes), free))
    return OrderReport(order, trees)

"""GET /allocation_candidates (1.10): where can this request fit? And
GET /allocation_candidates/explain (1.10, Placer's own): why this answer?

Explain takes the same query, parsed and validated the same way (same
400s), plus an optional ``provider=<uuid>`` to report on one provider and
its tree; its answer is candidates/explanation's funnel.
"""

import falcon

from placer import collector
from placer.candidates import service
from placer.db import candidates as db
from placer.http import metrics, query, util
from placer.http.negotiation import returns_json
from placer.http.request import Request
from placer.schemas import allocation_candidates as schema


@returns_json
# The answer's objects are locals of this function, freed when it returns:
# inside the pause, so the collector never walks them (see collector.paused).
@collector.paused()
def list_candidates(req: Request, resp: falcon.Response):
    version = util.version(req)
    request = schema.parse_query(query.pairs(req), version)
    conf = req.context.conf.placement
    in_order = service.order_from_conf(req.context.conf)
    timings = service.Timings() if metrics.enabled(req.context.conf) else None
    candidates, summaries = db.reader(req.context.db)(lambda store: service.find(
        store, request, max_candidates=conf.max_allocation_candidates,
        strategy=conf.allocation_candidates_generation_strategy, order=in_order,
        timings=timings))
    metrics.observe_candidates(len(request.groups), len(candidates), timings)
    requested = set(request.resource_classes())
    util.send_json(req, resp, service.candidates_body(candidates, summaries, requested, version))


@returns_json
# a whole-cloud snapshot, freed with this function's locals inside the pause
@collector.paused()
def explain_candidates(req: Request, resp: falcon.Response):
    request, provider = schema.parse_explain_query(query.pairs(req), util.version(req))
    result = service.explain(
        db.reader(req.context.db), request, provider,
        max_candidates=req.context.conf.placement.max_allocation_candidates,
        strategy=req.context.conf.placement.allocation_candidates_generation_strategy,
        order=service.order_from_conf(req.context.conf))
    util.send_json(req, resp, service.explanation_body(result))

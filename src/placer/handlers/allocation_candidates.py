"""GET /allocation_candidates (1.10): where can this request fit?"""

import random

import falcon

from placer import collector
from placer.candidates import render, service
from placer.candidates.parser import parse_query
from placer.db import candidates as db
from placer.http import metrics, query, util
from placer.http.negotiation import returns_json
from placer.http.request import Request


@returns_json
# The answer's objects are locals of this function, freed when it returns:
# inside the pause, so the collector never walks them (see collector.paused).
@collector.paused()
def list_candidates(req: Request, resp: falcon.Response):
    version = util.version(req)
    request = parse_query(query.pairs(req), version)
    conf = req.context.conf.placement
    rng = random.Random() if conf.randomize_allocation_candidates else None
    timings = service.Timings() if metrics.enabled(req.context.conf) else None
    candidates, summaries = db.reader(req.context.db)(lambda store: service.find(
        store, request, max_candidates=conf.max_allocation_candidates,
        strategy=conf.allocation_candidates_generation_strategy, rng=rng, timings=timings))
    metrics.observe_candidates(len(request.groups), len(candidates), timings)
    requested = set(request.resource_classes())
    util.send_json(req, resp, render.body(candidates, summaries, requested, version))

"""GET /allocation_candidates (1.10): where can this request fit?"""

import random

from placer.candidates import precheck, render, search
from placer.candidates.request import parse_query
from placer.candidates.snapshot import Snapshot
from placer.db import candidates as db
from placer.http import query, util
from placer.http.negotiation import returns_json

LIST = "placement:allocation_candidates:list"


@returns_json
def list_candidates(req, resp):
    req.context.auth.can(LIST)
    version = (req.context.version.major, req.context.version.minor)
    request = parse_query(query.pairs(req), version)
    snapshot, classes, traits = req.context.db.read(db.load, request)
    unknown = (set(request.resource_classes()) - classes or set(request.trait_names()) - traits)
    # Only an unknown name needs the precheck (400, or the reference's early
    # empty answer); otherwise the search itself finds exactly the same.
    if unknown and not precheck.check_names(request, snapshot, classes, traits):
        snapshot = Snapshot([])
    conf = req.context.conf.placement
    rng = random.Random() if conf.randomize_allocation_candidates else None
    candidates = list(search.find_candidates(
        request, snapshot, max_candidates=conf.max_allocation_candidates,
        strategy=conf.allocation_candidates_generation_strategy, rng=rng))
    summaries = search.summary_providers(candidates, snapshot, request.nested_aware)
    requested = set(request.resource_classes())
    util.send_json(req, resp, render.body(candidates, summaries, snapshot, requested, version))

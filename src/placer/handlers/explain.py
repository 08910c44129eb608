"""GET /allocation_candidates/explain (1.10, Placer's own): why this answer?

The query is GET /allocation_candidates's, parsed and validated the same
way (same 400s), plus an optional ``provider=<uuid>`` to report on one
provider and its tree. The answer is candidates/explain.py's funnel.
"""

import falcon

from placer import collector
from placer.candidates import explain
from placer.candidates.request import parse_query
from placer.db import explain as db
from placer.http import query, util
from placer.http.negotiation import returns_json
from placer.http.request import Request


@returns_json
# a whole-cloud snapshot, freed with this function's locals inside the pause
# (see collector.paused)
@collector.paused()
def explain_candidates(req: Request, resp: falcon.Response):
    version = util.version(req)
    pairs, provider = explain.split_query(query.pairs(req))
    request = parse_query(pairs, version)
    snapshot, around, provider = req.context.db.read(db.load, request, provider)
    result = explain.explain(request, snapshot, provider=provider, provider_snapshot=around,
                             max_candidates=req.context.conf.placement.max_allocation_candidates)
    util.send_json(req, resp, result.as_dict())

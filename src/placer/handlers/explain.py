"""GET /allocation_candidates/explain (1.10, Placer's own): why this answer?

The query is GET /allocation_candidates's, parsed and validated the same
way (same 400s), plus an optional ``provider=<uuid>`` to report on one
provider and its tree. The answer is candidates/explanation's funnel.
"""

import falcon

from placer import collector
from placer.candidates import service
from placer.candidates.explanation import render
from placer.db import candidates as db
from placer.http import query, util
from placer.http.negotiation import returns_json
from placer.http.request import Request


@returns_json
# a whole-cloud snapshot, freed with this function's locals inside the pause
# (see collector.paused)
@collector.paused()
def explain_candidates(req: Request, resp: falcon.Response):
    result = service.explain_query(
        db.reader(req.context.db), query.pairs(req), util.version(req),
        max_candidates=req.context.conf.placement.max_allocation_candidates)
    util.send_json(req, resp, render.body(result))

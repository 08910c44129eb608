"""GET /audit (Placer's own, every microversion): what is inconsistent in the
cloud, per kind, counted and listed from one snapshot of the database
(db/audit.py; docs/operator/audit.md)."""

import falcon

from placer.db import audit
from placer.http import query, util
from placer.http.negotiation import returns_json
from placer.http.request import Request
from placer.schemas import audit as schema


@returns_json
def show_audit(req: Request, resp: falcon.Response):
    kinds, limit, idle_days = schema.parse_query(query.pairs(req))
    found = req.context.db.snapshot_read(audit.findings, kinds, limit, idle_days)
    util.send_json(req, resp, {"findings": found})

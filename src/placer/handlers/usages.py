"""GET /resource_providers/{uuid}/usages and GET /usages (1.9)."""

import falcon

from placer import policy
from placer.db import usages as db
from placer.http import query, util
from placer.http.negotiation import returns_json
from placer.http.request import Request
from placer.microversions import CONSUMER_TYPES
from placer.schemas import validation


@returns_json
def provider_usages(req: Request, resp: falcon.Response, uuid):
    generation, usages = req.context.db.read(db.for_provider, uuid)
    # From 1.15 Last-Modified is "now": usage is a live sum, not a stored row.
    util.send_json(req, resp, {"resource_provider_generation": generation,
                               "usages": usages})


@returns_json
def total_usages(req: Request, resp: falcon.Response):
    params = query.as_dict(req)
    # The target carries the project so project readers may see their own.
    req.context.auth.can(policy.TOTAL_USAGES, {"project_id": params.get("project_id")})
    by_type = util.want(req, CONSUMER_TYPES)
    validation.check_query(params, util.query_schema(req))
    usages = req.context.db.read(db.for_project, params["project_id"], params.get("user_id"),
                                 params.get("consumer_type") if by_type else None, by_type)
    util.send_json(req, resp, {"usages": usages})

"""GET /openapi.json: the API described in OpenAPI 3.1 (no authentication needed)."""

import falcon

from placer import exceptions
from placer import microversions as mv
from placer.http import openapi, query, util
from placer.http.negotiation import returns_json
from placer.http.request import Request
from placer.schemas import api, validation


@returns_json
def document(req: Request, resp: falcon.Response):
    params = query.as_dict(req)
    validation.check_query(params, api.query(req))
    wanted = params.get("version", "latest")
    if wanted == "latest":
        version = mv.MAX
    else:
        major, _, minor = wanted.partition(".")
        version = (int(major), int(minor))
        if not mv.MIN <= version <= mv.MAX:
            raise exceptions.BadRequest(
                f"No such microversion: {wanted} (this service has "
                f"{mv.text(mv.MIN)} to {mv.text(mv.MAX)})")
    util.send_json(req, resp, openapi.document(version))

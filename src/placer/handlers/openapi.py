"""GET /openapi.json: the API described in OpenAPI 3.1 (no authentication needed)."""

import falcon

from placer import exceptions
from placer import microversions as mv
from placer.http import openapi, query, util
from placer.http.negotiation import returns_json
from placer.http.request import Request
from placer.schemas import validation

# the ?version= values served (the schema's pattern also lets a trailing
# newline through: jsonschema searches with Python's "$")
_BY_TEXT = {mv.text(v): v for v in mv.ALL} | {"latest": mv.MAX}


@returns_json
def document(req: Request, resp: falcon.Response):
    params = query.as_dict(req)
    validation.check_query(params, util.query_schema(req))
    wanted = params.get("version", "latest")
    version = _BY_TEXT.get(wanted)
    if version is None:
        raise exceptions.BadRequest(
            f"No such microversion: {wanted} (this service has "
            f"{mv.text(mv.MIN)} to {mv.text(mv.MAX)})")
    util.send_json(req, resp, openapi.document(req.context.routes, version))

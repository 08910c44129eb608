"""GET /: the version document (no authentication needed)."""

import falcon

from placer.http import errors, util
from placer.http.request import Request


def home(req: Request, resp: falcon.Response):
    util.send_json(req, resp, {"versions": [{
        "id": "v1.0",
        "max_version": errors.MAX_VERSION,
        "min_version": errors.MIN_VERSION,
        "status": "CURRENT",
        "links": [{"rel": "self", "href": ""}],
    }]})

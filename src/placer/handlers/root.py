"""GET /: the version document (no authentication needed)."""

from placer.http import errors, util


def home(req, resp):
    util.send_json(req, resp, {"versions": [{
        "id": "v1.0",
        "max_version": errors.MAX_VERSION,
        "min_version": errors.MIN_VERSION,
        "status": "CURRENT",
        "links": [{"rel": "self", "href": ""}],
    }]})

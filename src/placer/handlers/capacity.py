"""GET /capacity and POST /capacity (1.10, Placer's own): how much is left.

With a candidates query, how many copies of it fit at once, per root and
in all (the candidate service's count); without resources, capacity, use
and free room per class over the providers the filters select
(db/class_totals.py); POST answers several named queries (shapes) from one
read.
"""

import falcon

from placer import collector, exceptions
from placer.candidates import service
from placer.db import candidates as candidates_db
from placer.db import class_totals
from placer.db import resource_providers as providers_db
from placer.http import query, util
from placer.http.negotiation import json_body, returns_json, takes_json
from placer.http.request import Request
from placer.microversions import Version
from placer.schemas import allocation_candidates as candidates_schema
from placer.schemas import capacity as schema
from placer.schemas import resource_providers as providers_schema

_FILTERS = ("member_of", "in_tree", "required")


@returns_json
# the trees read are locals of this function, freed inside the pause
@collector.paused()
def show_capacity(req: Request, resp: falcon.Response):
    pairs = query.pairs(req)
    version = util.version(req)
    if not candidates_schema.asks_for_resources(pairs):
        util.send_json(req, resp, _summary(req, pairs, version))
        return
    if any(key == "group_by" for key, _ in pairs):
        raise exceptions.BadRequest("group_by is only for GET /capacity without resources.",
                                    code=exceptions.QUERYPARAM_BAD_VALUE)
    request = candidates_schema.parse_query(pairs, version)
    budget = req.context.conf.placer.capacity_time_budget
    found = candidates_db.reader(req.context.db)(
        lambda store: service.count_one(store, request, budget))
    util.send_json(req, resp, service.count_body(found, request.limit))


@takes_json
@returns_json
@collector.paused()
def count_shapes(req: Request, resp: falcon.Response):
    data = json_body(req, schema.POST_BODY)
    requests = {name: schema.parse_shape(name, text, util.version(req))
                for name, text in data["shapes"].items()}
    budget = req.context.conf.placer.capacity_time_budget
    found = candidates_db.reader(req.context.db)(
        lambda store: service.count_shapes(store, requests, budget))
    util.send_json(req, resp, {"shapes": {
        name: service.count_body(count, requests[name].limit) for name, count in found.items()}})


def _summary(req: Request, pairs: list[tuple[str, str]], version: Version) -> dict:
    extra = sorted({key for key, _ in pairs if key not in (*_FILTERS, "group_by")})
    if extra:
        raise exceptions.BadRequest(
            f"Invalid query string parameters: {', '.join(extra)}. Without resources, "
            "GET /capacity takes member_of, in_tree, required and group_by.",
            code=exceptions.QUERYPARAM_BAD_VALUE)
    groups = [value for key, value in pairs if key == "group_by"]
    if len(groups) > 1:
        raise exceptions.BadRequest("Query parameter 'group_by' may be specified only once.",
                                    code=exceptions.ILLEGAL_DUPLICATE_QUERYPARAM)
    group_by = groups[0] if groups else None
    if group_by is not None and group_by not in class_totals.GROUPS:
        raise exceptions.BadRequest(
            f"Invalid group_by {group_by!r}: it is one of "
            f"{', '.join(class_totals.GROUPS)}.", code=exceptions.QUERYPARAM_BAD_VALUE)
    filters = providers_db.ProviderFilter(**providers_schema.parse_list_query(
        [(k, v) for k, v in pairs if k in _FILTERS], version))
    found = req.context.db.read(class_totals.summary, filters, group_by)
    if group_by is None:
        return {"resources": found.get(None, {})}
    return {"groups": [{group_by: key, "resources": classes}
                       for key, classes in found.items()]}

"""GET /capacity and POST /capacity (1.10, Placer's own): how much is left.

With a candidates query, how many copies of it fit at once, per root and
in all (candidates/capacity.py); without resources, capacity, use and free
room per class over the providers the filters select (db/capacity_totals.py);
POST answers several named queries (shapes) from one read.
"""

import falcon

from placer import collector, exceptions
from placer.candidates import service
from placer.candidates.capacity import Count
from placer.candidates.parser import parse_query
from placer.db import candidates as candidates_db
from placer.db import capacity_totals
from placer.db import resource_providers as providers_db
from placer.http import query, util
from placer.http.negotiation import json_body, returns_json, takes_json
from placer.http.request import Request
from placer.microversions import Version
from placer.schemas import capacity as schema
from placer.schemas import resource_providers as providers_schema

_FILTERS = ("member_of", "in_tree", "required")


@returns_json
# the trees read are locals of this function, freed inside the pause
@collector.paused()
def show_capacity(req: Request, resp: falcon.Response):
    pairs = query.pairs(req)
    version = util.version(req)
    if not any(key.startswith("resources") for key, _ in pairs):
        util.send_json(req, resp, _summary(req, pairs, version))
        return
    if any(key == "group_by" for key, _ in pairs):
        raise exceptions.BadRequest("group_by is only for GET /capacity without resources.",
                                    code=exceptions.QUERYPARAM_BAD_VALUE)
    request = parse_query(pairs, version)
    budget = req.context.conf.placer.capacity_time_budget
    found = candidates_db.reader(req.context.db)(
        lambda store: service.count_copies(store, request, budget))
    util.send_json(req, resp, count_body(found, request.limit))


@takes_json
@returns_json
@collector.paused()
def count_shapes(req: Request, resp: falcon.Response):
    data = json_body(req, schema.POST_BODY)
    requests = {name: shape_request(name, text, util.version(req))
                for name, text in data["shapes"].items()}
    budget = req.context.conf.placer.capacity_time_budget

    def count_all(store):
        found = {}
        for name, request in requests.items():
            try:
                found[name] = service.count_copies(store, request, budget)
            except exceptions.BadRequest as exc:  # an unknown name
                raise exceptions.BadRequest(f"Shape {name!r}: {exc.detail}",
                                            code=exc.code) from None
        return found

    found = candidates_db.reader(req.context.db)(count_all)
    util.send_json(req, resp, {"shapes": {
        name: count_body(count, requests[name].limit) for name, count in found.items()}})


def shape_request(name: str, text: str, version: Version):
    """A shape's query string, parsed as GET /allocation_candidates parses
    its own; BadRequest naming the shape."""
    try:
        pairs = query.parse(text.lstrip("?").encode("utf-8", "surrogateescape"))
        if not any(key.startswith("resources") for key, _ in pairs):
            raise exceptions.BadRequest("a shape asks for resources (resources=CLASS:N,...)",
                                        code=exceptions.QUERYPARAM_MISSING_VALUE)
        return parse_query(pairs, version)
    except exceptions.BadRequest as exc:
        raise exceptions.BadRequest(f"Shape {name!r}: {exc.detail}", code=exc.code) from None


def count_body(count: Count, limit: int | None) -> dict:
    roots = count.roots if limit is None else count.roots[:limit]
    return {"total": count.total, "exact": count.total_exact, "inexact": count.inexact,
            "roots": [{"uuid": r.root.uuid, "name": r.root.name, "fits": r.fits,
                       **({} if r.exact else {"exact": False})} for r in roots]}


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
    if group_by is not None and group_by not in capacity_totals.GROUPS:
        raise exceptions.BadRequest(
            f"Invalid group_by {group_by!r}: it is one of "
            f"{', '.join(capacity_totals.GROUPS)}.", code=exceptions.QUERYPARAM_BAD_VALUE)
    filters = providers_db.ProviderFilter(**providers_schema.parse_list_query(
        [(k, v) for k, v in pairs if k in _FILTERS], version))
    found = req.context.db.read(capacity_totals.summary, filters, group_by)
    if group_by is None:
        return {"resources": found.get(None, {})}
    return {"groups": [{group_by: key, "resources": classes}
                       for key, classes in found.items()]}

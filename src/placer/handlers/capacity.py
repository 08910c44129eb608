"""GET /capacity and POST /capacity (1.10, Placer's own): how much is left.

With a candidates query, how many copies of it fit at once, per root and
in all (candidates/capacity.py); without resources, capacity, use and free
room per class over the providers the filters select (db/capacity_totals.py);
POST answers several named queries (shapes) from one read.
"""

import falcon

from placer import collector, exceptions, shapes
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
        lambda store: service.count_copies(store, {"": request}, budget)[""])
    util.send_json(req, resp, found.answer(request.limit))


@takes_json
@returns_json
@collector.paused()
def count_shapes(req: Request, resp: falcon.Response):
    data = json_body(req, schema.POST_BODY)
    requests = {name: shapes.parse(name, text, util.version(req))
                for name, text in data["shapes"].items()}
    budget = req.context.conf.placer.capacity_time_budget

    found = candidates_db.reader(req.context.db)(
        lambda store: shapes.count(store, requests, budget))
    util.send_json(req, resp, {"shapes": {
        name: count.answer(requests[name].limit) for name, count in found.items()}})


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


# --- the capacity metrics of GET /metrics ([placer] capacity_metrics) ---------------------

def metric_families(conf, db) -> list:
    """openstack-exporter 1.7.0's placement gauges and, per configured shape,
    os-capacity's free capacity gauges, from one read of the database
    (whichever worker answers the scrape); ``openstack_placement_up`` 0 and
    nothing else when the database does not answer."""
    # imported here: never when metrics are off (see placer.http.metrics)
    from prometheus_client.core import GaugeMetricFamily

    configured = shapes.configured(conf.placer.capacity_shapes)
    budget = conf.placer.capacity_time_budget
    labelled = conf.placer.capacity_az_aggregates or conf.placer.capacity_project_aggregates

    def read(conn):
        store = candidates_db.CandidateStore(conn, db.keeps_scores(conn))
        counts = shapes.count(store, configured, budget)
        roots = sorted({r.root.uuid for c in counts.values() for r in c.roots})
        aggregates = capacity_totals.aggregates_of(conn, roots) if labelled else {}
        return capacity_totals.inventory_rows(conn), counts, aggregates

    up = GaugeMetricFamily("openstack_placement_up", "Whether Placement's database answered "
                           "the scrape (1) or not (0)")
    try:
        rows, counts, aggregates = db.read(read)
    except exceptions.DatabaseUnavailable:
        up.add_metric([], 0)
        return [up]
    up.add_metric([], 1)
    labels = ["hostname", "resourcetype"]
    gauges = {field: GaugeMetricFamily(f"openstack_placement_resource_{field}",
                                       f"Each provider's inventory {field} per class",
                                       labels=labels)
              for field in ("total", "allocation_ratio", "reserved")}
    usage = GaugeMetricFamily("openstack_placement_resource_usage",
                              "What each provider's allocations use per class", labels=labels)
    for name, rc, total, reserved, ratio, used in rows:
        gauges["total"].add_metric([name, rc], total)
        gauges["allocation_ratio"].add_metric([name, rc], ratio)
        gauges["reserved"].add_metric([name, rc], reserved)
        usage.add_metric([name, rc], int(used))
    return [*gauges.values(), usage, up, *_flavor_families(conf, counts, aggregates)]


def _flavor_families(conf, counts: dict[str, Count], aggregates: dict[str, list[str]]) -> list:
    """os-capacity's gauges: each shape's total, and each root's fits (roots
    that fit none are left out, as os-capacity does)."""
    from prometheus_client.core import GaugeMetricFamily

    if not counts:
        return []
    total = GaugeMetricFamily("openstack_free_capacity_by_flavor_total",
                              "Copies of each capacity shape the cloud holds at once",
                              labels=["flavor_name", "public"])
    per_root = GaugeMetricFamily("openstack_free_capacity_hypervisor_by_flavor",
                                 "Copies of each capacity shape each root provider holds",
                                 labels=["hypervisor", "flavor_name", "az_aggregate",
                                         "project_aggregate"])
    zones, projects = conf.placer.capacity_az_aggregates, conf.placer.capacity_project_aggregates
    for name, count in counts.items():
        total.add_metric([name, ""], count.total)
        for r in count.roots:
            mine = aggregates.get(r.root.uuid, [])
            zone = next((zones[a] for a in reversed(mine) if a in zones), "")
            named = [projects[a] for a in mine if a in projects]
            project = named[0] if len(named) == 1 else "multiple" if named else ""
            per_root.add_metric([r.root.name or r.root.uuid, name, zone, project], r.fits)
    return [total, per_root]

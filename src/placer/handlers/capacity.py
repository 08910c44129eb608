"""GET /capacity and POST /capacity (1.10, Placer's own): how much is left.

With a candidates query, how many copies of it fit at once, per root and
in all (candidates/capacity.py); without resources, capacity, use and free
room per class over the providers the filters select (db/capacity_totals.py);
POST answers several named queries (shapes) from one read.
"""

import falcon

from placer import collector, exceptions, shapes
from placer.candidates import service
from placer.candidates.service import Count
from placer.db import candidates as candidates_db
from placer.db import capacity_totals
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
    if not service.asks_for_resources(pairs):
        util.send_json(req, resp, _summary(req, pairs, version))
        return
    if any(key == "group_by" for key, _ in pairs):
        raise exceptions.BadRequest("group_by is only for GET /capacity without resources.",
                                    code=exceptions.QUERYPARAM_BAD_VALUE)
    request = candidates_schema.parse_query(pairs, version)
    budget = req.context.conf.placer.capacity_time_budget
    found = candidates_db.reader(req.context.db)(
        lambda store: next(service.count_copies(store, {"": request}, budget))[1])
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

def metric_text(conf, db) -> str:
    """openstack-exporter 1.7.0's placement gauges and, per configured shape,
    os-capacity's free capacity gauges, as Prometheus text (the same in
    OpenMetrics for gauges), from one read of the database (whichever
    worker answers the scrape); ``openstack_placement_up`` 0 and nothing
    else when the database does not answer. Written directly: a scrape
    holds four series per inventory record and one per root and shape, too
    many for prometheus-client's objects (seconds at 10,000 providers)."""
    configured = shapes.configured(conf.placer.capacity_shapes)
    budget = conf.placer.capacity_time_budget
    labelled = conf.placer.capacity_az_aggregates or conf.placer.capacity_project_aggregates

    def read(conn):
        store = candidates_db.CandidateStore(conn, db.keeps_scores(conn))
        counts = shapes.count(store, configured, budget)
        roots = sorted({r.root.uuid for c in counts.values() for r in c.iter_roots()})
        aggregates = capacity_totals.aggregates_of(conn, roots) if labelled else {}
        return capacity_totals.inventory_rows(conn), counts, aggregates

    up = _family("openstack_placement_up", "Whether Placement's database answered the "
                 "scrape (1) or not (0)")
    try:
        rows, counts, aggregates = db.read(read)
    except exceptions.DatabaseUnavailable:
        return up + "openstack_placement_up 0.0\n"
    # (gauge, column of the rows: name, class, total, reserved, ratio, used)
    fields = [("total", 2, "Each provider's inventory total per class"),
              ("allocation_ratio", 4, "Each provider's inventory allocation ratio per class"),
              ("reserved", 3, "Each provider's inventory reserved amount per class"),
              ("usage", 5, "What each provider's allocations use per class")]
    labels = [f'{{hostname="{_label(name)}",resourcetype="{rc}"}} '
              for name, rc, *_ in rows]
    out = []
    for field, column, text in fields:
        metric = f"openstack_placement_resource_{field}"
        out.append(_family(metric, text))
        out += [f"{metric}{label}{_value(row[column])}\n"
                for label, row in zip(labels, rows, strict=True)]
    out += [up, "openstack_placement_up 1.0\n", *_flavor_lines(conf, counts, aggregates)]
    return "".join(out)


def _family(name: str, text: str) -> str:
    return f"# HELP {name} {text}\n# TYPE {name} gauge\n"


def _value(number) -> str:
    return repr(float(number))


_ESCAPES = str.maketrans({"\\": "\\\\", '"': '\\"', "\n": "\\n"})


def _label(value: str | None) -> str:
    return (value or "").translate(_ESCAPES)


def _flavor_lines(conf, counts: dict[str, Count], aggregates: dict[str, list[str]]
                  ) -> list[str]:
    """os-capacity's gauges: each shape's total, and each root's fits (roots
    that fit none are left out, as os-capacity does)."""
    if not counts:
        return []
    total = "openstack_free_capacity_by_flavor_total"
    per_root = "openstack_free_capacity_hypervisor_by_flavor"
    out = [_family(total, "Copies of each capacity shape the cloud holds at once")]
    out += [f'{total}{{flavor_name="{_label(name)}",public=""}} {_value(count.total)}\n'
            for name, count in counts.items()]
    out.append(_family(per_root, "Copies of each capacity shape each root provider holds"))
    zones, projects = conf.placer.capacity_az_aggregates, conf.placer.capacity_project_aggregates
    for name, count in counts.items():
        flavor = _label(name)
        for r in count.iter_roots():
            mine = aggregates.get(r.root.uuid, [])
            zone = next((zones[a] for a in reversed(mine) if a in zones), "")
            named = [projects[a] for a in mine if a in projects]
            project = named[0] if len(named) == 1 else "multiple" if named else ""
            out.append(f'{per_root}{{hypervisor="{_label(r.root.name or r.root.uuid)}",'
                       f'flavor_name="{flavor}",az_aggregate="{_label(zone)}",'
                       f'project_aggregate="{_label(project)}"}} {_value(r.fits)}\n')
    return out

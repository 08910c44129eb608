"""GET /metrics: the Prometheus metrics (Placer's own, when ``[placer]
metrics_enabled``): the requests' (placer.http.metrics) and, with ``[placer]
capacity_metrics``, the capacity gauges read from the database; with
``[placer] audit_metrics``, the audit's (db/audit.py)."""

import os

import falcon
from oslo_config import cfg
from sqlalchemy.engine import Connection

from placer import exceptions, policy
from placer.candidates import service
from placer.db import aggregates as aggregates_db
from placer.db import audit
from placer.db import candidates as candidates_db
from placer.db import inventories as inventories_db
from placer.db.engine import Database
from placer.http import metrics
from placer.http.request import Request
from placer.schemas import capacity as capacity_schema


def show_metrics(req: Request, resp: falcon.Response) -> None:
    conf = req.context.conf
    if not conf.placer.metrics_open:
        req.context.auth.can(policy.METRICS_SHOW)
    # imported here: never when metrics are off (see placer.http.metrics)
    from prometheus_client import REGISTRY, CollectorRegistry, multiprocess
    from prometheus_client.exposition import choose_encoder

    if os.environ.get(metrics.MULTIPROC_ENV):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
    else:
        registry = REGISTRY
    encoder, content_type = choose_encoder(req.get_header("Accept") or "")
    data = encoder(registry)
    # read from the database at each scrape: one answer whichever worker serves it
    extra = ((_capacity_text(conf, req.context.db) if conf.placer.capacity_metrics else "")
             + (_audit_text(req.context.db) if conf.placer.audit_metrics else "")).encode()
    if extra:
        end = b"# EOF\n"  # OpenMetrics ends so: the gauges go before
        data = data[:-len(end)] + extra + end if data.endswith(end) else data + extra
    resp.data = data
    resp.content_type = content_type


def _capacity_text(conf: cfg.ConfigOpts, db: Database) -> str:
    """openstack-exporter 1.7.0's placement gauges and, per configured shape,
    os-capacity's free capacity gauges, as Prometheus text (the same in
    OpenMetrics for gauges), from one read of the database (whichever
    worker answers the scrape); ``openstack_placement_up`` 0 and nothing
    else when the database does not answer. Written directly: a scrape
    holds four series per inventory record and one per root and shape, too
    many for prometheus-client's objects (seconds at 10,000 providers)."""
    configured = capacity_schema.configured_shapes(conf.placer.capacity_shapes)
    budget = conf.placer.capacity_time_budget
    labelled = conf.placer.capacity_az_aggregates or conf.placer.capacity_project_aggregates

    def read(conn: Connection) -> tuple[list, dict[str, service.Count], dict[str, list[str]]]:
        store = candidates_db.CandidateStore(conn, db.scores_kept)
        counts = service.count_shapes(store, configured, budget)
        roots = sorted({r.root.uuid for c in counts.values() for r in c.iter_roots()})
        found = aggregates_db.of_providers(conn, roots) if labelled else {}
        return inventories_db.with_use(conn), counts, found

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


def _audit_text(db: Database) -> str:
    """What GET /audit counts per kind, and how far each over-capacity
    provider's class is over (the first DEFAULT_LIMIT, largest first), from
    one snapshot; nothing when the database does not answer."""
    def read(conn: Connection) -> dict:
        return {**audit.findings(conn, ("over_capacity",)),
                **audit.findings(conn, audit.KINDS[1:], limit=0)}

    try:
        found = db.snapshot_read(read)
    except exceptions.DatabaseUnavailable:
        return ""
    count, excess = "placement_audit_findings", "placement_audit_over_capacity_excess"
    out = [_family(count, "What GET /audit finds, per kind (see docs/operator/audit.md)")]
    out += [f'{count}{{kind="{kind}"}} {_value(f["count"])}\n' for kind, f in found.items()]
    out.append(_family(excess, "How much each provider's allocations of a class exceed its "
                               "capacity (the largest first, up to GET /audit's default limit)"))
    out += [f'{excess}{{resource_provider="{i["resource_provider"]}",'
            f'hostname="{_label(i["name"])}",resourcetype="{i["resource_class"]}"}} '
            f'{_value(i["excess"])}\n' for i in found["over_capacity"]["items"]]
    return "".join(out)


def _family(name: str, text: str) -> str:
    return f"# HELP {name} {text}\n# TYPE {name} gauge\n"


def _value(number: float) -> str:
    return repr(float(number))


_ESCAPES = str.maketrans({"\\": "\\\\", '"': '\\"', "\n": "\\n"})


def _label(value: str | None) -> str:
    return (value or "").translate(_ESCAPES)


def _flavor_lines(conf: cfg.ConfigOpts, counts: dict[str, service.Count],
                  aggregates: dict[str, list[str]]) -> list[str]:
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

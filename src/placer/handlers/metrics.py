"""GET /metrics: the Prometheus metrics (Placer's own, when ``[placer] metrics_enabled``)."""

import os

import falcon

from placer import policy
from placer.handlers import capacity
from placer.http import metrics
from placer.http.request import Request


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
    if conf.placer.capacity_metrics:
        # read from the database at each scrape: one answer whichever worker serves it
        extra = capacity.metric_text(conf, req.context.db).encode()
        end = b"# EOF\n"  # OpenMetrics ends so: the gauges go before
        data = data[:-len(end)] + extra + end if data.endswith(end) else data + extra
    resp.data = data
    resp.content_type = content_type

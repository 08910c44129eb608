"""GET /metrics: the Prometheus metrics (Placer's own, when ``[placer] metrics_enabled``)."""

import os
from typing import Any

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

    registry: Any  # what the encoders read: anything with collect()
    if os.environ.get(metrics.MULTIPROC_ENV):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
    else:
        registry = REGISTRY
    if conf.placer.capacity_metrics:
        # read from the database at each scrape: one answer whichever worker serves it
        registry = _With(registry, capacity.metric_families(conf, req.context.db))
    encoder, content_type = choose_encoder(req.get_header("Accept") or "")
    resp.data = encoder(registry)
    resp.content_type = content_type


class _With:
    """A registry's metrics followed by more families: what the encoders read."""

    def __init__(self, registry, families: list):
        self.registry, self.families = registry, families

    def collect(self):
        yield from self.registry.collect()
        yield from self.families

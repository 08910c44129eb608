"""GET /metrics: the Prometheus metrics (Placer's own, when ``[placer] metrics_enabled``)."""

import os

import falcon

from placer.http import metrics
from placer.http.request import Request


def show_metrics(req: Request, resp: falcon.Response) -> None:
    # imported here: never when metrics are off (see placer.http.metrics)
    from prometheus_client import REGISTRY, CollectorRegistry, multiprocess
    from prometheus_client.exposition import choose_encoder

    if os.environ.get(metrics.MULTIPROC_ENV):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
    else:
        registry = REGISTRY
    encoder, content_type = choose_encoder(req.get_header("Accept") or "")
    resp.data = encoder(registry)
    resp.content_type = content_type

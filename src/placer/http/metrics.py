"""Prometheus metrics: ``GET /metrics``, off unless ``[placer] metrics_enabled``
(a route of the table, served by ``placer.handlers.metrics``).

What is measured (docs/operator/metrics.md lists every metric):

- each request, by route template (``/resource_providers/{uuid}``, never the
  raw path), method, microversion and status: a count and a latency histogram;
- each answered ``GET /allocation_candidates``, by number of request groups:
  the candidates returned, and the seconds spent loading from the database
  versus searching (``placer.candidates.service.find`` fills the timings);
- generation conflicts answered 409 ``placement.concurrent_update``, the
  server-side retries of writes, database errors and outages (503), as
  ``placer.db.engine`` reports them.

Under a multi-process server the workers write their values to files in
``PROMETHEUS_MULTIPROC_DIR`` (prometheus-client's multiprocess mode) and
``/metrics`` sums them, so a scrape sees the whole server whichever worker
answers. That variable must be set before prometheus_client is first
imported: ``placement-api`` does it in the master (``prepare_multiprocess``),
before it imports the application; prometheus_client is therefore imported
lazily here, never when metrics are disabled.
"""

import glob
import logging
import os
import shutil
import tempfile
import threading
import time
from collections.abc import Iterable
from typing import Protocol

import falcon.constants
from falcon.routing import CompiledRouter

from placer import exceptions, microversions
from placer.db import engine as db_engine
from placer.http import errors, util

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"
ROUTE_ENVIRON = "placer.route"
UNMATCHED = "unmatched"  # any path outside the route table: never the raw path
NO_VERSION = "none"  # refused before microversion negotiation (401, 413 ...)
OTHER_METHOD = "other"  # a method name HTTP does not define

LOG = logging.getLogger("placement.metrics")

LATENCY_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
                   10.0, 30.0, 60.0)
CANDIDATE_BUCKETS = (0, 1, 5, 10, 50, 100, 500, 1000, 5000, 10000, 50000)
MAX_GROUPS_LABEL = 10  # "10+" beyond: the label's values stay few

_lock = threading.Lock()
_metrics: "_Metrics | None" = None


def enabled(conf) -> bool:
    return bool(conf.placer.metrics_enabled)


# --- process set-up ------------------------------------------------------------------

def prepare_multiprocess() -> str | None:
    """For a pre-forking server's master, before prometheus_client is imported:
    point ``PROMETHEUS_MULTIPROC_DIR`` at a fresh directory. A directory the
    operator set is kept but emptied of the previous run's files, as
    prometheus-client requires; otherwise a temporary one is created, and its
    path returned so that the caller removes it at exit (``cleanup``)."""
    given = os.environ.get(MULTIPROC_ENV)
    if given:
        os.makedirs(given, exist_ok=True)
        for stale in glob.glob(os.path.join(given, "*.db")):
            os.remove(stale)
        return None
    path = tempfile.mkdtemp(prefix="placer-metrics-")
    os.environ[MULTIPROC_ENV] = path
    return path


def cleanup(path: str | None) -> None:
    """Remove the directory ``prepare_multiprocess`` created, once the server is done."""
    if path:
        shutil.rmtree(path, ignore_errors=True)
        if os.environ.get(MULTIPROC_ENV) == path:
            del os.environ[MULTIPROC_ENV]


# --- the metrics -----------------------------------------------------------------------

class _Metrics:
    def __init__(self):
        from prometheus_client import Counter, Histogram, disable_created_metrics

        disable_created_metrics()  # as in multiprocess mode: no *_created series
        http = ("route", "method", "microversion", "status")
        self.requests = Counter(
            "placer_http_requests", "Requests answered, by route template, method, "
            "microversion and status.", http)
        self.latency = Histogram(
            "placer_http_request_duration_seconds", "Seconds from receiving a request "
            "to the end of its answer, by route template, method, microversion and status.",
            http, buckets=LATENCY_BUCKETS)
        self.candidates = Histogram(
            "placer_allocation_candidates_returned", "Allocation candidates returned per "
            "GET /allocation_candidates answer, by number of request groups.",
            ("groups",), buckets=CANDIDATE_BUCKETS)
        self.candidate_seconds = Histogram(
            "placer_allocation_candidates_seconds", "Seconds one GET /allocation_candidates "
            "spent loading providers from the database (phase=load) and searching them "
            "(phase=search), by number of request groups.",
            ("groups", "phase"), buckets=LATENCY_BUCKETS)
        self.conflicts = Counter(
            "placer_generation_conflicts", "Requests answered 409 placement.concurrent_update "
            "(a provider or consumer generation changed under them), by route and method.",
            ("route", "method"))
        self.retries = Counter(
            "placer_db_retries", "Writes run again server-side: after a deadlock or "
            "serialization failure (reason=deadlock), after a lost provider generation "
            "compare-and-set (reason=generation_conflict).", ("reason",))
        self.db_errors = Counter(
            "placer_db_errors", "Database errors that ended a transaction, by SQLAlchemy "
            "exception class (deadlocks retried afterwards included).", ("error",))
        self.db_unavailable = Counter(
            "placer_db_unavailable", "Times the database could not be reached or the "
            "connection was lost during a request (each answered 503).")
        for reason in ("deadlock", "generation_conflict"):
            self.retries.labels(reason)  # shown at 0 before the first one


def get() -> "_Metrics":
    """The process's metrics, created on first use."""
    global _metrics
    if _metrics is None:
        with _lock:
            if _metrics is None:
                _metrics = _Metrics()
                db_engine.LISTENERS.append(_on_db_event)
    return _metrics


def _on_db_event(event: str, detail: str) -> None:
    m = get()
    if event == "retry":
        m.retries.labels(detail).inc()
    elif event == "error":
        m.db_errors.labels(detail).inc()
    elif event == "unavailable":
        m.db_unavailable.inc()


def _groups_label(count: int) -> str:
    return str(count) if count < MAX_GROUPS_LABEL else f"{MAX_GROUPS_LABEL}+"


class SearchTimes(Protocol):
    """What a search's timings give (the candidate service's Timings, which
    the handler hands in: this layer imports no candidates code)."""

    @property
    def load(self) -> float: ...

    @property
    def search(self) -> float: ...

    @property
    def searched(self) -> bool: ...


def observe_candidates(groups: int, returned: int, timings: SearchTimes | None) -> None:
    """One answered GET /allocation_candidates; ``timings`` is None when
    metrics are off (the handler then asks for none), and this does nothing."""
    if timings is None:
        return
    m = get()
    label = _groups_label(groups)
    m.candidates.labels(label).observe(returned)
    if timings.searched:
        m.candidate_seconds.labels(label, "load").observe(timings.load)
        m.candidate_seconds.labels(label, "search").observe(timings.search)


# --- the HTTP side ---------------------------------------------------------------------

class _RouteTemplate:
    """Falcon middleware: the matched route's template, for the label."""

    def process_resource(self, req, resp, resource, params) -> None:
        if req.uri_template:
            req.env[ROUTE_ENVIRON] = req.uri_template


def install(app, conf) -> None:
    """On the falcon app, when enabled: the matched route's template, for the
    label (``GET /metrics`` itself is a route of the table)."""
    if not enabled(conf):
        return
    get()
    app.add_middleware(_RouteTemplate())


class Middleware:
    """WSGI middleware counting and timing every request (outside auth, so the
    401s and 413s are counted too). ``templates`` are the route table's paths:
    the label of a request refused before routing is the one its path falls
    under."""

    def __init__(self, app, templates: Iterable[str]):
        self.app = app
        self.metrics = get()
        self._router = CompiledRouter()
        for template in templates:
            self._router.add_route(template, object())

    def _route_of(self, path: str) -> str:
        found = self._router.find(path)
        return (found[3] if found else None) or UNMATCHED

    def __call__(self, environ, start_response):
        start = time.perf_counter()
        seen = []

        def watch(status, headers, exc_info=None):
            seen.append(status)
            return start_response(status, headers, exc_info)

        try:
            body = self.app(environ, watch)
        except Exception:
            self._record(environ, "500", start)
            raise
        if isinstance(body, list | tuple):
            self._record(environ, _code(seen), start)
            return body
        return util.AfterClose(body, lambda: self._record(environ, _code(seen), start))

    def _record(self, environ, status: str, start: float) -> None:
        """Count one answer; a failure here is logged, never the client's."""
        try:
            self._count(environ, status, time.perf_counter() - start)
        except Exception:
            LOG.exception("could not count a request in the metrics")

    def _count(self, environ, status: str, seconds: float) -> None:
        route = environ.get(ROUTE_ENVIRON) or self._route_of(environ.get("PATH_INFO", ""))
        # a client may send any method name: an unknown one must not make a series
        method = environ.get("REQUEST_METHOD", "")
        if method not in falcon.constants.HTTP_METHODS:
            method = OTHER_METHOD
        version = environ.get(errors.MICROVERSION_ENVIRON)
        labels = (route, method, microversions.text(version) if version else NO_VERSION, status)
        m = self.metrics
        m.requests.labels(*labels).inc()
        m.latency.labels(*labels).observe(seconds)
        if (status == "409"
                and environ.get(errors.ERROR_CODE_ENVIRON) == exceptions.CONCURRENT_UPDATE):
            m.conflicts.labels(route, method).inc()


def _code(seen: list[str]) -> str:
    return seen[-1].split(None, 1)[0] if seen else "500"


def middleware(app, conf, templates: Iterable[str]):
    """``app`` wrapped in the counting middleware when metrics are enabled."""
    return Middleware(app, templates) if enabled(conf) else app

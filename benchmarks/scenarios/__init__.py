"""The scenarios: what they build and time, each a module with a ``run``
that returns the results file's data. Their sizes, queries, flavors and
targets are data (``data.toml``); what they share is here: a timed query
and its result."""

import http.client
import json
import math
import statistics
import sys
import time
import tomllib
import urllib.parse
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

from benchmarks.harness.client import HTTPError

DATA = tomllib.loads((Path(__file__).parent / "data.toml").read_text())
HUGE = 100_000  # unbounded queries expected to return more are skipped


@dataclass
class Query:
    name: str
    params: list[tuple[str, str]] = field(default_factory=list)
    target_ms: float | None = None
    expected: int | None = None  # candidates, when known in advance
    path: str = "/allocation_candidates"
    method: str = "GET"
    items: str | None = "allocation_requests"  # the answer's list that is counted
    # a fresh (path, JSON body or None) per run, for requests that change per run
    request: Callable[[], tuple[str, dict | None]] | None = None
    version: str | None = None  # the microversion, when not the client's
    target: dict | None = None  # production's: {"kind": ..., "value": ...}

    @property
    def limited(self) -> bool:
        return any(key == "limit" for key, _ in self.params)

    @property
    def url(self) -> str:
        return self.path + ("?" + urllib.parse.urlencode(self.params) if self.params else "")


@dataclass
class Result:
    scenario: str
    query: str
    candidates: int | None = None
    size_kb: float | None = None
    median_ms: float | None = None
    p90_ms: float | None = None
    cpu_ms: float | None = None  # server CPU time per run (mean); less noisy than latency
    rss_peak_mb: float | None = None  # worker's peak RSS during this query's runs
    rss_growth_mb: float | None = None  # that peak minus the RSS just before
    target_ms: float | None = None
    note: str = ""
    path: str = ""

    @property
    def verdict(self) -> str:
        if self.target_ms is None or self.median_ms is None:
            return "-"
        return "PASS" if self.median_ms < self.target_ms else "MISS"

    def row(self, **tags) -> dict:
        """As the results file has it: with its verdict and server."""
        server = "reference" if self.scenario.endswith(" (reference)") else "placer"
        return {**asdict(self), "result": self.verdict, "server": server, **tags}


def run_query(client, scenario: str, query: Query, repeat: int, server=None,
              cap: int = -1) -> Result:
    """One warm-up, then ``repeat`` timed runs. ``server``: a harness Proc,
    for CPU and memory; ``cap``: the server's max_allocation_candidates."""
    path = query.url
    result = Result(scenario, query.name, target_ms=query.target_ms, path=path)
    expected = query.expected
    if expected is not None and cap >= 0:
        expected = min(expected, cap)
    if not query.limited and (expected or 0) > HUGE:
        result.note = f"skipped: {expected} candidates"
        return result
    before = server.reset() if server else None
    times = []
    for run in range(repeat + 1):
        if run == 1 and server:
            cpu = server.cpu_seconds()
        body = None
        if query.request:
            path, body = query.request()
        status, payload, seconds = client.request(query.method, path, body, query.version)
        if not 200 <= status < 300:
            raise HTTPError(f"{query.name}: {status} {payload[:500].decode(errors='replace')}")
        if run:
            times.append(seconds * 1000)
    if query.request:
        result.path = f"{query.method} {path}"  # the last one
    if query.items:
        result.candidates = len(json.loads(payload)[query.items])
    result.size_kb = len(payload) / 1024
    result.median_ms = statistics.median(times)
    result.p90_ms = times[0] if len(times) < 2 else statistics.quantiles(
        times, n=10, method="inclusive")[-1]
    if server:
        result.cpu_ms = (server.cpu_seconds() - cpu) * 1000 / repeat
        result.rss_peak_mb = server.read()
        result.rss_growth_mb = max(result.rss_peak_mb - before, 0.0)
    if expected is not None and result.candidates != expected:
        result.note = f"expected {expected} candidates"
    return result


def time_queries(client, server, name: str, queries: list[Query], repeat: int,
                 only: str | None = None, cap: int = -1) -> list[Result]:
    """Each query (of ``only``, comma-separated names, if given); a query
    that fails (a worker killed by its timeout) is noted, the others run."""
    results = []
    for query in queries:
        if only and query.name not in only.split(","):
            continue
        started = time.perf_counter()
        try:
            result = run_query(client, name, query, repeat, server, cap)
        except (HTTPError, OSError, http.client.HTTPException) as exc:
            result = Result(name, query.name, note=(
                f"failed after {time.perf_counter() - started:.0f} s: "
                f"{type(exc).__name__}: {exc}")[:200])
        results.append(result)
        progress(f"{name}, {query.name}: median {result.median_ms} ms {result.note}")
    return results


def percentile(values: list[float], p: float) -> float | None:
    """Linear interpolation between the closest ranks (p in 0..100)."""
    if not values:
        return None
    ordered = sorted(values)
    k = (len(ordered) - 1) * p / 100
    low = math.floor(k)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (k - low)


def progress(text: str) -> None:
    print(f"# {text}", file=sys.stderr, flush=True)

"""The scenarios: what they build and time, each a module with a ``run``
that returns the results file's data. Their sizes, queries, flavors and
targets are data (``data.toml``); what they share is here: a timed query
and its result."""

import contextlib
import http.client
import json
import math
import random
import statistics
import sys
import time
import tomllib
import urllib.parse
import uuid
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

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


@dataclass
class Timing:
    """One server's runs of one query: the milliseconds of the timed ones,
    the answer's size and items (counted on the warm-up), or why it
    stopped: a status other than 2xx, an error, a run over ``cap`` seconds."""

    cap: float | None = None
    times: list[float] = field(default_factory=list)
    status: int | None = None
    error: str = ""
    over_s: float | None = None
    items: int | None = None
    size: int = 0
    path: str = ""  # the last one sent

    @property
    def done(self) -> bool:
        return bool(self.status or self.error or self.over_s)

    def run(self, client, q: Query, timed: bool = True) -> None:
        path, body = q.request() if q.request else (q.url, None)
        self.path = f"{q.method} {path}" if q.request else path
        try:
            status, payload, seconds = client.request(q.method, path, body, q.version)
        except TimeoutError:
            self.over_s = self.cap
            self.error = "" if self.cap else "TimeoutError"  # not capped: the client's own
            return
        except (OSError, http.client.HTTPException) as exc:
            self.error = f"{type(exc).__name__}: {exc}"[:200]
            return
        if self.cap is not None and seconds > self.cap:
            self.over_s = self.cap
        elif not 200 <= status < 300:
            self.status, self.error = status, payload[:300].decode(errors="replace")
        elif timed:
            self.times.append(seconds * 1000)
            self.size = len(payload)
        elif q.items:
            with contextlib.suppress(ValueError, KeyError, TypeError):
                self.items = len(json.loads(payload)[q.items])


def run_query(client, scenario: str, query: Query, repeat: int, server=None) -> Result:
    """One warm-up, then ``repeat`` timed runs; ``server``: a harness Proc,
    for CPU and memory. A failure is noted in the result."""
    result = Result(scenario, query.name, target_ms=query.target_ms, path=query.url)
    if not query.limited and (query.expected or 0) > HUGE:
        result.note = f"skipped: {query.expected} candidates"
        return result
    before, started, timing = server.reset() if server else 0.0, time.perf_counter(), Timing()
    timing.run(client, query, timed=False)
    cpu = server.cpu_seconds() if server else 0.0
    while len(timing.times) < repeat and not timing.done:
        timing.run(client, query)
    if timing.done:
        why = timing.error if not timing.status else (
            f"HTTPError: {query.name}: {timing.status} {timing.error}")
        return Result(scenario, query.name, note=(
            f"failed after {time.perf_counter() - started:.0f} s: {why}")[:200])
    result.candidates, result.size_kb, result.path = timing.items, timing.size / 1024, timing.path
    result.median_ms = statistics.median(timing.times)
    result.p90_ms = percentile(timing.times, 90)
    if server:
        result.cpu_ms = (server.cpu_seconds() - cpu) * 1000 / repeat
        result.rss_peak_mb = server.read()
        result.rss_growth_mb = max(result.rss_peak_mb - before, 0.0)
    if query.expected is not None and result.candidates != query.expected:
        result.note = f"expected {query.expected} candidates"
    return result


def time_queries(client, server, name: str, queries: list[Query], repeat: int,
                 only: str | None = None) -> list[Result]:
    """Each query (of ``only``, comma-separated names, if given)."""
    results = []
    for query in queries:
        if not only or query.name in only.split(","):
            results.append(run_query(client, name, query, repeat, server))
            progress(f"{name}, {query.name}: median {results[-1].median_ms} ms "
                     f"{results[-1].note}")
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


def seeded_uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def progress(text: str) -> None:
    print(f"# {text}", file=sys.stderr, flush=True)

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
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

DATA = tomllib.loads((Path(__file__).parent / "data.toml").read_text())
HUGE = 100_000  # unbounded queries expected to return more are skipped
SHAPES = ("flat", "nested")  # of the generated clouds: compute nodes, or NUMA trees


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
    """One server's runs of one query: run 0 warms up (and counts the
    answer's items), runs 1 to ``repeat`` are timed. It stops at a status
    other than 2xx, an error, or a run over ``cap`` seconds. ``proc``: the
    server's workers (a harness Proc), for CPU and memory."""

    client: object
    repeat: int
    proc: object = None
    cap: float | None = None
    times: list[float] = field(default_factory=list)
    status: int | None = None
    error: str = ""
    over_s: float | None = None
    items: int | None = None
    size: int = 0
    path: str = ""  # the last one sent
    rss_before: float = 0.0
    cpu_after_warm_up: float = 0.0

    @property
    def done(self) -> bool:
        return bool(self.status or self.error or self.over_s)

    def run(self, q: Query, index: int) -> None:
        """Run ``index``, unless the runs are over."""
        if self.done or index > self.repeat:
            return
        if index == 0 and self.proc:
            self.rss_before = self.proc.reset()
        path, body = q.request() if q.request else (q.url, None)
        self.path = f"{q.method} {path}" if q.request else path
        try:
            status, payload, seconds = self.client.request(q.method, path, body, q.version)
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
        elif index:
            self.times.append(seconds * 1000)
            self.size = len(payload)
        elif q.items:
            with contextlib.suppress(ValueError, KeyError, TypeError):
                self.items = len(json.loads(payload)[q.items])
        if index == 0 and self.proc:
            self.cpu_after_warm_up = self.proc.cpu_seconds()

    def figures(self) -> dict:
        """As production's rows have them."""
        return {"median_ms": statistics.median(self.times) if self.times else None,
                "p90_ms": percentile(self.times, 90), "runs": len(self.times),
                "status": self.status, "over_s": self.over_s, "error": self.error or None,
                "items": self.items}

    def result(self, scenario: str, q: Query, seconds: float) -> Result:
        """As time_queries gives it; a failure is noted."""
        if self.done:
            why = self.error if not self.status else (
                f"HTTPError: {q.name}: {self.status} {self.error}")
            return Result(scenario, q.name, note=f"failed after {seconds:.0f} s: {why}"[:200])
        result = Result(scenario, q.name, self.items, self.size / 1024,
                        statistics.median(self.times), percentile(self.times, 90),
                        target_ms=q.target_ms, path=self.path)
        if self.proc:
            result.cpu_ms = (self.proc.cpu_seconds() - self.cpu_after_warm_up) * 1000 / self.repeat
            result.rss_peak_mb = self.proc.read()
            result.rss_growth_mb = max(result.rss_peak_mb - self.rss_before, 0.0)
        if q.expected is not None and result.candidates != q.expected:
            result.note = f"expected {q.expected} candidates"
        return result


def time_queries(client, server, name: str, queries: list[Query], repeat: int,
                 only: str | None = None) -> list[Result]:
    """Each query (of ``only``, comma-separated names, if given): one
    warm-up, then ``repeat`` timed runs; ``server``: a harness Proc."""
    results = []
    for q in (q for q in queries if not only or q.name in only.split(",")):
        if not q.limited and (q.expected or 0) > HUGE:
            results.append(Result(name, q.name, target_ms=q.target_ms, path=q.url,
                                  note=f"skipped: {q.expected} candidates"))
            continue
        timing, started = Timing(client, repeat, server), time.perf_counter()
        for index in range(repeat + 1):
            timing.run(q, index)
        results.append(timing.result(name, q, time.perf_counter() - started))
        progress(f"{name}, {q.name}: median {results[-1].median_ms} ms {results[-1].note}")
    return results


@dataclass
class Record:
    kind: str
    status: int  # 0: no answer
    seconds: float
    code: str = ""  # an error's code in the answer, or the exception's name

    @property
    def failed(self) -> bool:
        return self.status == 0 or (self.status >= 400 and self.status != 409)


class Requests:
    """The concurrent clients' driver: requests sent from many threads
    (``in_threads``), each recorded; no answer is a status of 0."""

    def __init__(self, client):
        self.client, self.records = client, []

    def send(self, kind: str, method: str, path: str, body=None,
             version: str | None = None) -> tuple[int, bytes]:
        try:
            status, payload, seconds = self.client.request(method, path, body, version)
        except (OSError, http.client.HTTPException) as exc:
            self.records.append(Record(kind, 0, 0.0, type(exc).__name__))
            return 0, b""
        code = ""
        if status >= 400:
            try:
                code = json.loads(payload)["errors"][0].get("code") or "?"
            except (ValueError, KeyError, IndexError, TypeError, AttributeError):
                code = "?"
        self.records.append(Record(kind, status, seconds, code))
        return status, payload

    def tally(self, kind: str | None = None) -> dict:
        """Conflicts (409), errors, and the answered requests' latency."""
        mine = [r for r in self.records if kind in (None, r.kind)]
        ms = [r.seconds * 1000 for r in mine if r.status]
        return {"conflicts": sum(r.status == 409 for r in mine),
                "errors": sum(r.failed for r in mine),
                "p50_ms": percentile(ms, 50), "p99_ms": percentile(ms, 99)}

    def latency(self, kind: str) -> dict:
        """Of every request of the kind: how many, their median and p90 in ms."""
        ms = [r.seconds * 1000 for r in self.records if r.kind == kind]
        return {"count": len(ms), "median_ms": round(statistics.median(ms), 2) if ms else None,
                "p90_ms": round(percentile(ms, 90), 2) if ms else None}


def in_threads(threads: int, work: Callable, *items) -> list:
    """``work`` from ``threads`` threads: over ``items`` (iterables, as map
    takes them), or once per thread, given its index; the results."""
    with ThreadPoolExecutor(threads) as pool:
        return list(pool.map(work, *(items or [range(threads)])))


def shapes(choice: str) -> tuple[str, ...]:
    """``--shape``'s: "all" is flat, then nested."""
    return SHAPES if choice == "all" else (choice,)


def servers(args) -> list[tuple[str, str | None]]:
    """("placer", None), then ("reference", its virtualenv) with ``--reference``."""
    return [("placer", None)] + ([("reference", args.reference)] if args.reference else [])


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

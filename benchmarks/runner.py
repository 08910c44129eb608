"""Timing the queries of a scenario, and reporting the results."""

import json
import statistics
import urllib.parse
from dataclasses import asdict, dataclass

from benchmarks.loader import Client, HTTPError
from benchmarks.scenarios import Query, Scenario
from benchmarks.server import Proc

HUGE = 100_000  # unbounded queries expected to return more are skipped
REFERENCE_RATIO = 0.2  # the goal: limited queries at least 5x faster than the reference


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


def run_query(client: Client, scenario: Scenario, query: Query, repeat: int,
              server: Proc | None, cap: int = -1) -> Result:
    """One warm-up, then ``repeat`` timed runs of the query. ``cap`` is the
    server's max_allocation_candidates (-1: none)."""
    path = query.path
    if query.params:
        path += "?" + urllib.parse.urlencode(query.params)
    result = Result(scenario.name, query.name, target_ms=query.target_ms, path=path)
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
        status, payload, seconds = client.request(query.method, path, body)
        if not 200 <= status < 300:
            raise HTTPError(f"{query.name}: {status} {payload[:500].decode(errors='replace')}")
        if run:
            times.append(seconds * 1000)
    if query.request:
        result.path = f"{query.method} {path}"  # the last one
    if query.items:
        answer = json.loads(payload)
        result.candidates = len(answer[query.items])
    result.size_kb = len(payload) / 1024
    result.median_ms = statistics.median(times)
    result.p90_ms = _p90(times)
    if server:
        result.cpu_ms = (server.cpu_seconds() - cpu) * 1000 / repeat
        result.rss_peak_mb = server.read()
        result.rss_growth_mb = max(result.rss_peak_mb - before, 0.0)
    if expected is not None and result.candidates != expected:
        result.note = f"expected {expected} candidates"
    return result


def _p90(times: list[float]) -> float:
    if len(times) < 2:
        return times[0]
    return statistics.quantiles(times, n=10, method="inclusive")[-1]


COLUMNS = ("scenario", "query", "candidates", "size KiB", "median ms", "p90 ms",
           "server CPU ms", "peak RSS MiB", "RSS +MiB", "target ms", "result", "note")


def markdown(results: list[Result]) -> str:
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for r in results:
        cells = (r.scenario, r.query, _fmt(r.candidates), _fmt(r.size_kb),
                 _fmt(r.median_ms, 1), _fmt(r.p90_ms, 1), _fmt(r.cpu_ms, 1), _fmt(r.rss_peak_mb),
                 _fmt(r.rss_growth_mb, 1), _fmt(r.target_ms), r.verdict, r.note)
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def comparison(results: list[Result], max_ratio: float | None = None) -> str:
    """Markdown: each query timed on Placer (scenario "x") and on the reference
    (scenario "x (reference)"): medians, server CPU, the ratio of the medians,
    and PASS when it is at most ``max_ratio``."""
    theirs = {(r.scenario.removesuffix(" (reference)"), r.query): r for r in results
              if r.scenario.endswith(" (reference)")}
    lines = ["| scenario | query | reference ms | Placer ms | reference CPU ms | Placer CPU ms "
             "| Placer/reference | result |", "|" + "---|" * 8]
    for r in results:
        other = theirs.get((r.scenario, r.query))
        if other is None:
            continue
        ratio = (r.median_ms / other.median_ms
                 if r.median_ms is not None and other.median_ms else None)
        verdict = "-" if ratio is None or max_ratio is None else (
            "PASS" if ratio <= max_ratio else "MISS")
        cells = (r.scenario, r.query, _fmt(other.median_ms, 1), _fmt(r.median_ms, 1),
                 _fmt(other.cpu_ms, 1), _fmt(r.cpu_ms, 1), _fmt(ratio, 2), verdict)
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _fmt(value, digits: int = 0) -> str:
    if value is None:
        return ""
    return f"{value:.{digits}f}" if isinstance(value, float) else str(value)


def to_json(results: list[Result], extra: dict, tags: list[dict] | None = None) -> str:
    """The results, each with its verdict and ``server`` (placer or
    reference), and the fields of ``tags`` (one dict per result; the scale
    scenario's shape and size), after ``extra``'s."""
    tags = tags or [{} for _ in results]
    rows = [{**asdict(r), "result": r.verdict, "server": server_of(r), **tag}
            for r, tag in zip(results, tags, strict=True)]
    return json.dumps({**extra, "results": rows}, indent=2)


def server_of(result: Result) -> str:
    return "reference" if result.scenario.endswith(" (reference)") else "placer"

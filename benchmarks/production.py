"""The production scenario: how much faster than the reference, at what size,
on which database, side by side in one run per backend.

    python -m benchmarks.production --backend postgresql --reference /tmp/refvenv \\
        --json production-postgresql.json
    python -m benchmarks.production --backend mysql --sizes 100000 --shape flat \\
        --reference /tmp/refvenv --json production-mysql-100k.json
    python -m benchmarks.production --render production-*.json --out docs/results/production.md

(also ``python -m benchmarks --scenario production ...`` with the same options).

For each shape (``--shape``: flat, nested or all) and size (``--sizes`` for
flat, ``--nested-sizes`` for nested), a database of the scale scenario
(benchmarks/scale.py: written with SQL into a throw-away database of
``--backend``) is served at the same time by Placer and, with ``--reference
VENV``, by the reference, ``--workers`` gunicorn workers each. Every request
is sent once to each server to warm up, then ``--repeat`` times to Placer and
``--reference-repeat`` times to the reference, alternating one request to
each, so that the machine's drift hits both. A reference request over
``--reference-cap`` seconds is given up ("over N s", its server restarted)
and its ratio is an upper bound. Timed:

- ``GET /allocation_candidates``: limit=1000, limit=10, traits+member_of
  limit=1000, and unlimited at sizes up to ``--unlimited-max``;
- ``GET /resource_providers?resources=...`` and ``GET /resource_providers``;
- ``GET /usages?project_id=...`` at microversions 1.37 and 1.39 (a
  reference answer that is not 2xx, such as its 500 at 1.39 on
  PostgreSQL, is recorded as its status, with no ratio);
- claims: ``--claims`` ``PUT /allocations`` of fresh consumers of the
  ``--claim-flavor`` on the scale scenario's 20 sample hosts (enough to fill
  some of them: conflicts, 409, are expected and counted), from each number
  of ``--writers`` threads, Placer then the reference; then every provider
  touched is checked through the API (usage against (total - reserved) *
  allocation_ratio: a "violation" is a provider over capacity), and the
  claims are deleted, so that each run starts from the same data.

Ratio: Placer's median / the reference's (claims: Placer's successful
claims per second / the reference's). Targets: limited candidates and the
provider listings <= 0.2, GET /usages <= 0.33, claims >= 3x with no
violation.

At sizes from ``--big-from`` (100,000) only limit=1000 and limit=10 are
timed, against Placer's absolute targets (median under 150 and 30 ms); the
reference, if given, runs ``--big-reference-repeat`` times under the cap.

Throughput against workers (at ``--mix-size`` of the first shape; default:
the largest size up to 10,000): for each of ``--workers-list``, a fresh
Placer then a fresh reference with that many workers get ``--mix-threads``
client threads for ``--mix-seconds``, each looping over a simulated boot as
Nova makes it (candidates with the flavor's resources, limit=1000; a claim
on the first candidate), the quota check (``GET /usages?project_id&user_id``)
and ``--mix-rt`` resource-tracker updates of random providers (GET
inventories and usages; every ``--mix-put-every``-th one PUTs the
inventories back with the generation read). Requests per second and the
99th percentile of their latency; what was claimed is deleted afterwards.

The JSON file records the date, commit, machine, command line, database
server version and SQLite version beside the results; ``--render`` makes a
Markdown summary (query by backend, shape and size: ratio and verdict; and
the throughput against workers) and, unless ``--no-plots``, a plot of the
throughput per database beside it (``python -m benchmarks.report`` does
not read these files).

Both servers' claims are checked for violations (the verdict is Placer's);
a request answered neither 2xx nor 409 (the reference on SQLite answers
some concurrent writes with a 500) is counted as an error, not a claim.
The quota GET of the mix is at ``--mix-usages-version`` (1.37: the
reference's 1.38 and 1.39 usages fail on PostgreSQL).
"""

import argparse
import concurrent.futures
import contextlib
import http.client
import json
import math
import os
import random
import sqlite3
import statistics
import subprocess
import sys
import time
import urllib.parse
import uuid
from pathlib import Path

import sqlalchemy as sa

from benchmarks import databases, environment, loader, scale
from benchmarks.report import ratio_text
from benchmarks.server import Server

LIMITED = ("limit=1000", "limit=10", "traits+member_of limit=1000")
CANDIDATES_RATIO = 0.2
LISTINGS_RATIO = 0.2
USAGES_RATIO = 0.33
CLAIMS_SPEEDUP = 3.0
BIG_TARGETS_MS = {"limit=1000": 150, "limit=10": 30}
MIX_LIMIT = "1000"
FLAVOR = "VCPU:2,MEMORY_MB:8192,DISK_GB:40"
BACKENDS = {"sqlite": "SQLite", "postgresql": "PostgreSQL", "mysql": "MariaDB/MySQL"}
NO_REFERENCE = "no reference"


# -- targets, ratios and verdicts ------------------------------------------------

def ratio_of(placer: dict | None, reference: dict | None) -> tuple[float | None, bool]:
    """(Placer's median / the reference's, whether it is an upper bound). An
    upper bound when the reference went over its cap; None when either has
    no time (an error status, or no reference)."""
    if not placer or placer.get("median_ms") is None or not reference:
        return None, False
    if reference.get("over_s"):
        return placer["median_ms"] / (reference["over_s"] * 1000), True
    if reference.get("median_ms"):
        return placer["median_ms"] / reference["median_ms"], False
    return None, False


def throughput_ratio(placer: dict | None, reference: dict | None) -> float | None:
    p = placer and placer.get("per_second")
    r = reference and reference.get("per_second")
    return p / r if p is not None and r else None


def verdict(target: dict | None, row: dict) -> str:
    """"met", "missed by 1.6x" (how far from the target), "missed: ..." or
    "-" (no target, or nothing to judge: the reference failed or is absent).

    ``target``: {"kind": "max_ratio" | "min_ratio" | "max_ms", "value": v}.
    ``row``: its "placer" and "reference" figures, "ratio" and
    "ratio_bound" (the ratio is an upper bound)."""
    if not target:
        return "-"
    placer = row.get("placer") or {}
    kind, value = target["kind"], target["value"]
    if placer.get("status") or placer.get("error") or placer.get("over_s"):
        return f"missed: Placer {_failure(placer)}"
    if kind == "max_ms":
        median = placer.get("median_ms")
        if median is None:
            return "-"
        return "met" if median < value else f"missed by {_factor(median / value)}"
    if kind == "min_ratio":
        if placer.get("violations"):
            return f"missed: {len(placer['violations'])} violations"
        ratio = row.get("ratio")
        if ratio is None:
            return "-"
        return "met" if ratio >= value else f"missed by {_factor(value / ratio)}"
    ratio = row.get("ratio")
    if ratio is None:
        return "-"
    if ratio <= value:
        return "met"
    if row.get("ratio_bound"):  # the reference's time is unknown: so is the ratio
        return "-"
    return f"missed by {_factor(ratio / value)}"


def _factor(value: float) -> str:
    """1.6x; 1.03x when that close (1.0x would read as met)."""
    return f"{value:.2f}x" if value < 1.1 else f"{value:.1f}x"


def speedup_text(value: float | None) -> str:
    return "" if value is None else f"{value:.2f}x" if value < 10 else f"{value:.0f}x"


def _failure(figures: dict) -> str:
    if figures.get("over_s"):
        return f"over {figures['over_s']:g} s"
    if figures.get("status"):
        return str(figures["status"])
    return figures.get("error") or "failed"


def over_capacity(inventories: dict[str, dict[str, dict]],
                  usages: dict[str, dict[str, int]]) -> list[dict]:
    """The violations: each provider and class whose usage is above its
    capacity, (total - reserved) * allocation_ratio. ``inventories``:
    provider -> class -> its inventory record (as GET .../inventories
    answers); ``usages``: provider -> class -> used."""
    found = []
    for rp, classes in usages.items():
        for rc, used in classes.items():
            inv = inventories.get(rp, {}).get(rc)
            capacity = 0.0 if inv is None else (
                (inv["total"] - inv.get("reserved", 0)) * inv.get("allocation_ratio", 1.0))
            if used > capacity:
                found.append({"provider": rp, "class": rc, "used": used,
                              "capacity": capacity})
    return found


def percentile(values: list[float], p: float) -> float | None:
    """Linear interpolation between the closest ranks (p in 0..100)."""
    if not values:
        return None
    ordered = sorted(values)
    k = (len(ordered) - 1) * p / 100
    low = math.floor(k)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (k - low)


def parse_flavor(text: str) -> dict[str, int]:
    out = {}
    for part in text.split(","):
        rc, _, amount = part.partition(":")
        out[rc.strip()] = int(amount)
    return out


# -- the requests ------------------------------------------------------------------

class Request:
    """A timed GET: name, path with its query string, microversion, target."""

    def __init__(self, name: str, path: str, version: str = "1.39",
                 target: dict | None = None, items: str | None = None):
        self.name, self.path, self.version, self.target = name, path, version, target
        self.items = items  # the answer's list that is counted


def requests_for(gen: scale.Generated, size: int, args) -> list[Request]:
    """The timed GETs at this size (limited ones first: an unlimited answer's
    memory stays with the worker)."""
    by_name = {q.name: q for q in scale.queries(gen)}

    def path_of(name: str) -> str:
        q = by_name[name]
        return q.path + ("?" + urllib.parse.urlencode(q.params) if q.params else "")

    if size >= args.big_from:
        return [Request(name, path_of(name), target={"kind": "max_ms", "value": ms},
                        items="allocation_requests")
                for name, ms in BIG_TARGETS_MS.items()]
    out = [Request(name, path_of(name), target={"kind": "max_ratio", "value": CANDIDATES_RATIO},
                   items="allocation_requests") for name in LIMITED]
    out.append(Request("providers?resources", path_of("providers?resources"),
                       target={"kind": "max_ratio", "value": LISTINGS_RATIO},
                       items="resource_providers"))
    out.append(Request("providers", "/resource_providers",
                       target={"kind": "max_ratio", "value": LISTINGS_RATIO},
                       items="resource_providers"))
    usages = path_of("usages?project_id")
    for version in ("1.37", "1.39"):
        out.append(Request(f"usages?project_id {version}", usages, version,
                           target={"kind": "max_ratio", "value": USAGES_RATIO}))
    if size <= args.unlimited_max:
        out.append(Request("unlimited", path_of("unlimited"), items="allocation_requests"))
    return out


class CappedClient(loader.Client):
    """loader.Client whose connections give up after ``timeout`` seconds."""

    def __init__(self, url: str, timeout: float):
        super().__init__(url)
        self.timeout = timeout

    def request(self, method, path, body=None, version=None):
        if getattr(self._local, "conn", None) is None:
            self._local.conn = self._cls(self._netloc, timeout=self.timeout)
        return super().request(method, path, body, version)


class Servers:
    """Placer and (with ``reference``) the reference on the same database,
    at the same time; ``restart_reference`` after a request was given up (its
    worker would go on computing)."""

    def __init__(self, url: str, workers: int, reference: str | None, cap: float):
        self.url, self.workers, self.venv, self.cap = url, workers, reference, cap
        self.placer: Server | None = None
        self.reference: Server | None = None
        self.placer_client: loader.Client | None = None
        self.reference_client: CappedClient | None = None
        self.restarts = 0

    def __enter__(self) -> "Servers":
        self._stack = contextlib.ExitStack()
        try:
            self.placer = self._stack.enter_context(Server(self.workers, connection=self.url))
            self.placer_client = loader.Client(self.placer.url)
            if self.venv:
                self._start_reference()
        except BaseException:
            self.__exit__(None, None, None)
            raise
        return self

    def _start_reference(self) -> None:
        self.reference = Server(self.workers, connection=reference_connection(
            self.url, self.venv), reference=self.venv).__enter__()
        self.reference_client = CappedClient(self.reference.url, self.cap)

    def restart_reference(self) -> None:
        self.reference.__exit__(None, None, None)
        self.reference = None
        self._start_reference()
        self.restarts += 1

    def __exit__(self, *exc) -> None:
        try:
            if self.reference is not None:
                self.reference.__exit__(None, None, None)
                self.reference = None
        finally:
            self._stack.close()


def reference_connection(url: str, venv: str | None) -> str:
    """The database URL for the reference: its virtualenv has psycopg2 (the
    usual one), not always psycopg 3, which Placer's URL names."""
    parsed = sa.make_url(url)
    if parsed.drivername == "postgresql+psycopg" and venv and _has_module(venv, "psycopg2"):
        return parsed.set(drivername="postgresql+psycopg2").render_as_string(
            hide_password=False)
    return url


def _has_module(venv: str, module: str) -> bool:
    python = Path(venv) / "bin" / "python"
    try:
        return subprocess.run([str(python), "-c", f"import {module}"],
                              capture_output=True, timeout=60).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


class _Timing:
    """One server's runs of one request."""

    def __init__(self, cap: float | None = None):
        self.cap = cap
        self.times: list[float] = []
        self.status: int | None = None
        self.error = ""
        self.over_s: float | None = None
        self.items: int | None = None

    @property
    def done(self) -> bool:
        return bool(self.status or self.error or self.over_s)

    def run(self, client: loader.Client, req: Request, timed: bool) -> None:
        if self.done:
            return
        try:
            status, payload, seconds = client.request("GET", req.path, version=req.version)
        except TimeoutError:
            if self.cap is None:  # not capped: the client's own timeout
                self.error = "TimeoutError"
            self.over_s = self.cap
            return
        except (OSError, http.client.HTTPException) as exc:
            self.error = f"{type(exc).__name__}: {exc}"[:200]
            return
        if self.cap is not None and seconds > self.cap:
            self.over_s = self.cap
            return
        if not 200 <= status < 300:
            self.status = status
            self.error = payload[:300].decode(errors="replace")
            return
        if timed:
            self.times.append(seconds * 1000)
        if req.items and not timed:  # counted once, on the warm-up
            with contextlib.suppress(ValueError, KeyError, TypeError):
                self.items = len(json.loads(payload)[req.items])

    def figures(self) -> dict:
        return {"median_ms": statistics.median(self.times) if self.times else None,
                "p90_ms": percentile(self.times, 90), "runs": len(self.times),
                "status": self.status, "over_s": self.over_s, "error": self.error or None,
                "items": self.items}


def time_requests(servers: Servers, reqs: list[Request], repeat: int, reference_repeat: int,
                  tags: dict) -> list[dict]:
    rows = []
    for req in reqs:
        placer = _Timing()
        ref = _Timing(servers.cap) if servers.reference else None
        for run in range(max(repeat, reference_repeat) + 1):  # run 0: the warm-up
            if run <= repeat:
                placer.run(servers.placer_client, req, timed=run > 0)
            if ref is not None and run <= reference_repeat and not ref.done:
                ref.run(servers.reference_client, req, timed=run > 0)
                if ref.over_s or (ref.error and not ref.status):
                    servers.restart_reference()  # a worker still busy, or gone
        row = {**tags, "query": req.name, "kind": "latency", "path": req.path,
               "version": req.version, "target": req.target, "placer": placer.figures(),
               "reference": ref.figures() if ref else None}
        row["ratio"], row["ratio_bound"] = ratio_of(row["placer"], row["reference"])
        row["verdict"] = verdict(req.target, row)
        rows.append(row)
        print(detail_lines([row])[-1], file=sys.stderr, flush=True)
    return rows


# -- claims ------------------------------------------------------------------------

def claim_bodies(gen: scale.Generated, flavor: dict[str, int], count: int,
                 seed: int) -> list[dict]:
    """The PUT /allocations bodies of ``count`` claims of ``flavor`` on
    random sample hosts (each class from the provider that has it in the
    scale scenario's claims: NUMA nodes for VCPU and memory when nested),
    the same for each server: the hosts follow ``seed``. Each run claims
    them for new consumers (``run_claims``)."""
    rng = random.Random(f"claims {seed}")
    out = []
    for _ in range(count):
        layout = rng.choice(gen.claims)
        allocations = {rp: {"resources": {rc: flavor[rc] for rc in classes if rc in flavor}}
                       for rp, classes in layout.items()}
        out.append({"allocations": allocations, "project_id": gen.project,
                    "user_id": gen.user, "consumer_generation": None,
                    "consumer_type": "INSTANCE"})
    return out


def _error_code(payload: bytes) -> str:
    try:
        return json.loads(payload)["errors"][0].get("code") or "?"
    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
        return "?"


def run_claims(client: loader.Client, bodies: list[dict], writers: int) -> dict:
    """The claims, each for a new consumer, from ``writers`` threads; then
    the check of every provider they touched, and their deletion (not
    timed). A consumer uuid is never reused: one whose delete failed would
    answer a consumer generation conflict."""
    def claim(body):
        consumer = str(uuid.uuid4())
        try:
            status, payload, seconds = client.request("PUT", f"/allocations/{consumer}", body)
        except (OSError, http.client.HTTPException) as exc:
            return consumer, 0, type(exc).__name__, 0.0
        return consumer, status, _error_code(payload) if status >= 400 else "", seconds

    started = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(writers) as pool:
        outcomes = list(pool.map(claim, bodies))
    seconds = time.perf_counter() - started
    ok = [c for c, status, _, _ in outcomes if 200 <= status < 300]
    codes: dict[str, int] = {}
    for _, status, code, _ in outcomes:
        if status == 409:
            codes[code] = codes.get(code, 0) + 1
    errors: dict[str, int] = {}  # other failures: "status code" (0: no answer) -> count
    for _, status, code, _ in outcomes:
        if status != 409 and not 200 <= status < 300:
            errors[f"{status} {code}"] = errors.get(f"{status} {code}", 0) + 1
    providers = sorted({rp for body in bodies for rp in body["allocations"]})
    violations = check_providers(client, providers)
    not_deleted = delete(client, ok)
    latencies = [s * 1000 for _, status, _, s in outcomes if status]
    return {"writers": writers, "claims": len(bodies), "ok": len(ok),
            "conflicts": sum(codes.values()), "conflict_codes": codes,
            "errors": sum(errors.values()), "error_statuses": errors,
            "seconds": seconds, "per_second": len(ok) / seconds if seconds else None,
            "attempts_per_second": len(bodies) / seconds if seconds else None,
            "p50_ms": percentile(latencies, 50), "p99_ms": percentile(latencies, 99),
            "providers_checked": len(providers), "violations": violations,
            "not_deleted": not_deleted}


def check_providers(client: loader.Client, providers: list[str]) -> list[dict]:
    inventories, usages = {}, {}
    for rp in providers:
        inventories[rp] = client.call("GET", f"/resource_providers/{rp}/inventories")[
            "inventories"]
        usages[rp] = client.call("GET", f"/resource_providers/{rp}/usages")["usages"]
    return over_capacity(inventories, usages)


def delete(client: loader.Client, consumers: list[str], rounds: int = 5) -> int:
    """Delete the consumers' allocations (the failed deletes again, one at a
    time: the reference on SQLite answers 500 to some concurrent writes);
    returns how many could not be deleted."""
    def one(consumer) -> bool:
        try:
            status, _, _ = client.request("DELETE", f"/allocations/{consumer}")
        except (OSError, http.client.HTTPException):
            return False
        return 200 <= status < 300 or status == 404

    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        left = [c for c, done in zip(consumers, pool.map(one, consumers), strict=True)
                if not done]
    for _ in range(rounds):
        if not left:
            break
        time.sleep(0.5)
        left = [c for c in left if not one(c)]
    if left:
        print(f"# {len(left)} claims could not be deleted: the next runs start from "
              "other data", file=sys.stderr, flush=True)
    return len(left)


def time_claims(servers: Servers, gen: scale.Generated, args, tags: dict) -> list[dict]:
    bodies = claim_bodies(gen, parse_flavor(args.claim_flavor), args.claims, args.seed)
    target = {"kind": "min_ratio", "value": CLAIMS_SPEEDUP}
    rows = []
    for writers in args.writers:
        placer = run_claims(servers.placer_client, bodies, writers)
        reference = None
        if servers.reference:
            reference = run_claims(servers.reference_client, bodies, writers)
        row = {**tags, "query": f"claims, {writers} writers", "kind": "claims",
               "target": target, "flavor": args.claim_flavor, "placer": placer,
               "reference": reference, "ratio": throughput_ratio(placer, reference),
               "ratio_bound": False}
        row["verdict"] = verdict(target, row)
        rows.append(row)
        print(detail_lines([row])[-1], file=sys.stderr, flush=True)
    return rows


# -- throughput against workers ------------------------------------------------------

def mix_paths(gen: scale.Generated) -> dict[str, str]:
    return {  # the flavor's resources, as Nova asks (nested: spread over the tree)
        "candidates": "/allocation_candidates?" + urllib.parse.urlencode(
            {"resources": scale.RESOURCES, "limit": MIX_LIMIT}),
        "quota": "/usages?" + urllib.parse.urlencode({"project_id": gen.project,
                                                      "user_id": gen.user}),
    }


def run_mix(client: loader.Client, gen: scale.Generated, hosts: list[str], args,
            seed: int) -> dict:
    """``args.mix_threads`` threads for ``args.mix_seconds``: boots, quota
    checks and resource-tracker updates; what they claimed is deleted."""
    paths = mix_paths(gen)
    records: list[tuple[str, int, float]] = []  # (kind, status or 0, seconds)
    claimed: list[str] = []
    deadline = time.perf_counter() + args.mix_seconds

    def send(kind, method, path, body=None, version=None):
        try:
            status, payload, seconds = client.request(method, path, body, version)
        except (OSError, http.client.HTTPException):
            records.append((kind, 0, 0.0))
            return 0, b""
        records.append((kind, status, seconds))
        return status, payload

    def loop(index: int) -> None:
        rng = random.Random(f"mix {seed} {index}")
        updates = 0
        while time.perf_counter() < deadline:
            status, payload = send("candidates", "GET", paths["candidates"])
            if status == 200:
                requests = json.loads(payload)["allocation_requests"]
                if requests:
                    pick = requests[0] if args.mix_pick == "first" else rng.choice(requests)
                    consumer = str(uuid.uuid4())
                    status, _ = send("claim", "PUT", f"/allocations/{consumer}", {
                        "allocations": pick["allocations"], "project_id": gen.project,
                        "user_id": gen.user, "consumer_generation": None,
                        "consumer_type": "INSTANCE"})
                    if 200 <= status < 300:
                        claimed.append(consumer)
            send("quota", "GET", paths["quota"], version=args.mix_usages_version)
            for _ in range(args.mix_rt):
                rp = rng.choice(hosts)
                status, payload = send("inventories", "GET",
                                       f"/resource_providers/{rp}/inventories")
                send("provider usages", "GET", f"/resource_providers/{rp}/usages")
                updates += 1
                if status == 200 and updates % args.mix_put_every == 0:
                    send("put inventories", "PUT", f"/resource_providers/{rp}/inventories",
                         json.loads(payload))

    started = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(args.mix_threads) as pool:
        list(pool.map(loop, range(args.mix_threads)))
    seconds = time.perf_counter() - started
    figures = mix_figures(records, seconds, len(claimed))
    figures["not_deleted"] = delete(client, claimed)
    return figures


def mix_figures(records: list[tuple[str, int, float]], seconds: float, boots: int) -> dict:
    answered = [(k, s, t) for k, s, t in records if s]
    times = [t * 1000 for _, _, t in answered]
    by_kind = {}
    for kind in dict.fromkeys(k for k, _, _ in records):
        mine = [t * 1000 for k, s, t in answered if k == kind]
        by_kind[kind] = {
            "requests": sum(1 for k, _, _ in records if k == kind),
            "conflicts": sum(1 for k, s, _ in answered if k == kind and s == 409),
            "errors": sum(1 for k, s, _ in records if k == kind and (
                s == 0 or (s >= 400 and s != 409))),
            "p50_ms": percentile(mine, 50), "p99_ms": percentile(mine, 99)}
    return {"seconds": seconds, "requests": len(answered),
            "per_second": len(answered) / seconds if seconds else None,
            "p50_ms": percentile(times, 50), "p99_ms": percentile(times, 99),
            "boots": boots, "boots_per_second": boots / seconds if seconds else None,
            "conflicts": sum(1 for _, s, _ in answered if s == 409),
            "errors": sum(1 for _, s, _ in records if s == 0 or (s >= 400 and s != 409)),
            "by_kind": by_kind}


def time_mix(url: str, gen: scale.Generated, args, tags: dict) -> list[dict]:
    rows = []
    servers = [("placer", None)] + ([("reference", args.reference)] if args.reference else [])
    for workers in args.workers_list:
        for label, venv in servers:
            connection = reference_connection(url, venv) if venv else url
            with Server(workers, connection=connection, reference=venv) as server:
                client = CappedClient(server.url, args.reference_cap) if venv else \
                    loader.Client(server.url)
                hosts = [rp["uuid"] for rp in client.call("GET", "/resource_providers")[
                    "resource_providers"]]
                figures = run_mix(client, gen, hosts, args, args.seed + workers)
            rows.append({**tags, "server": label, "workers": workers,
                         "threads": args.mix_threads, **figures})
            print(f"# mix {label}, {workers} workers: {figures['per_second']:.1f} requests/s, "
                  f"p99 {figures['p99_ms']:.0f} ms, {figures['boots']} boots, "
                  f"{figures['conflicts']} conflicts, {figures['errors']} errors",
                  file=sys.stderr, flush=True)
    return rows


# -- the run -------------------------------------------------------------------------

def plan(args) -> list[tuple[str, int]]:
    shapes = scale.SHAPES if args.shape == "all" else (args.shape,)
    return [(shape, size) for shape in shapes
            for size in (args.sizes if shape == "flat" else args.nested_sizes)]


def mix_at(args, steps: list[tuple[str, int]]) -> tuple[str, int] | None:
    if not steps or args.mix_size == 0 or not args.workers_list:
        return None
    shape = steps[0][0]
    sizes = [size for s, size in steps if s == shape]
    if args.mix_size is not None:
        return (shape, args.mix_size) if args.mix_size in sizes else None
    small = [size for size in sizes if size <= 10_000]
    return (shape, max(small)) if small else None


def database_version(engine) -> str:
    with engine.connect() as conn:
        if conn.dialect.name == "sqlite":
            return "SQLite " + conn.exec_driver_sql("SELECT sqlite_version()").scalar()
        return str(conn.exec_driver_sql("SELECT version()").scalar())


def run(args, argv: list[str]) -> dict:
    from placer.db import engine as db_engine

    steps = plan(args)
    mix = mix_at(args, steps)
    data = {"benchmark": "production",
            **environment.describe(argv, args.reference, "benchmarks.production"),
            "backend": args.backend, "sqlite_version": sqlite3.sqlite_version,
            "database_version": None, "workers": args.workers, "repeat": args.repeat,
            "reference_repeat": args.reference_repeat if args.reference else None,
            "reference_cap_s": args.reference_cap, "claims": args.claims,
            "writers": args.writers, "claim_flavor": args.claim_flavor,
            "mix": {"at": list(mix) if mix else None, "workers_list": args.workers_list,
                    "threads": args.mix_threads, "seconds": args.mix_seconds,
                    "rt_per_boot": args.mix_rt, "put_every": args.mix_put_every,
                    "usages_version": args.mix_usages_version, "pick": args.mix_pick,
                    "limit": MIX_LIMIT},
            "cpus": os.cpu_count(), "load_average": [round(x, 2) for x in os.getloadavg()],
            "databases": [], "results": [], "throughput": []}
    for shape, size in steps:
        step_started = time.perf_counter()
        with databases.ThrowAwayDatabase(args.backend, args.db_server) as url:
            engine = db_engine.create_engine(url)
            try:
                gen = scale.generate(engine, size, shape)
                data["database_version"] = database_version(engine)
            finally:
                engine.dispose()
            print(f"# production {shape} {size} on {args.backend}: {gen.providers} providers, "
                  f"{gen.consumers} consumers generated in {gen.seconds:.1f}s",
                  file=sys.stderr, flush=True)
            tags = {"shape": shape, "size": size}
            big = size >= args.big_from
            with Servers(url, args.workers, args.reference, args.reference_cap) as servers:
                data["results"] += time_requests(
                    servers, requests_for(gen, size, args), args.repeat,
                    args.big_reference_repeat if big else args.reference_repeat, tags)
                if not big and args.claims and args.writers:
                    data["results"] += time_claims(servers, gen, args, tags)
                restarts = servers.restarts
            step = {**tags, "providers": gen.providers, "roots": gen.roots,
                    "consumers": gen.consumers, "allocations": gen.allocations,
                    "generated_s": round(gen.seconds, 1), "reference_restarts": restarts}
            if (shape, size) == mix:
                mix_started = time.perf_counter()
                data["throughput"] += time_mix(url, gen, args, tags)
                step["mix_s"] = round(time.perf_counter() - mix_started, 1)
            step["seconds"] = round(time.perf_counter() - step_started, 1)
            data["databases"].append(step)
    data["finished"] = environment.now()
    data["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    return data


# -- the summary -----------------------------------------------------------------------

def _k(size: int) -> str:
    return f"{size // 1000}k" if size >= 1000 and size % 1000 == 0 else str(size)


def _num(value, digits: int = 1) -> str:
    return "" if value is None else f"{value:.{digits}f}"


def target_text(target: dict | None) -> str:
    if not target:
        return ""
    kind, value = target["kind"], target["value"]
    if kind == "max_ms":
        return f"under {value:g} ms"
    if kind == "min_ratio":
        return f"≥ {value:g}x, no violation"
    return f"≤ {value:g}"


def figure_text(figures: dict | None) -> str:
    """A server's median (ms), or why it has none."""
    if figures is None:
        return NO_REFERENCE
    if figures.get("over_s"):
        return f"over {figures['over_s']:g} s"
    if figures.get("status"):
        return str(figures["status"])
    if figures.get("error"):
        return "failed"
    return _num(figures.get("median_ms"))


def cell_text(row: dict) -> str:
    """One summary cell: ratio (or median, for absolute targets) and verdict."""
    placer, reference = row.get("placer") or {}, row.get("reference")
    target = row.get("target") or {}
    judged = row.get("verdict", "-")
    if row.get("kind") == "claims":
        ratio = row.get("ratio")
        text = speedup_text(ratio) if ratio is not None else (
            NO_REFERENCE if reference is None else "")
        violations = len(placer.get("violations") or [])
        text += f", {violations} violations" if violations else ""
        theirs = len((reference or {}).get("violations") or [])
        text += f" (reference: {theirs} violations)" if theirs else ""
    elif target.get("kind") == "max_ms":
        text = f"{figure_text(placer)} ms"
        if reference is not None and row.get("ratio") is not None:
            text += f" ({'under ' if row.get('ratio_bound') else ''}"
            text += f"{ratio_text(row['ratio'])} of the reference)"
    elif placer.get("median_ms") is None:
        text = f"Placer {figure_text(placer)}"
    elif reference is None:
        text = NO_REFERENCE
    elif row.get("ratio") is None:
        text = f"reference {figure_text(reference)}"
    else:
        text = ("under " if row.get("ratio_bound") else "") + ratio_text(row["ratio"])
    return f"{text}, {judged}" if judged != "-" and text else (text or judged)


def run_label(data: dict) -> str:
    version = data.get("database_version") or ""
    if data.get("backend") == "postgresql" and version.startswith("PostgreSQL"):
        return " ".join(version.split()[:2])  # PostgreSQL 15.4
    if "MariaDB" in version:
        return "MariaDB " + version.split("-")[0]
    if version:
        return version if data.get("backend") != "mysql" else f"MySQL {version}"
    return BACKENDS.get(data.get("backend"), str(data.get("backend")))


def summary_lines(runs: list[dict]) -> list[str]:
    """Rows: the queries; columns: each run's (database) shape and size."""
    columns = []
    for i, data in enumerate(runs):
        for step in dict.fromkeys((r["shape"], r["size"]) for r in data["results"]):
            columns.append((i, *step))
    queries = list(dict.fromkeys(r["query"] for data in runs for r in data["results"]))
    cells = {(i, r["shape"], r["size"], r["query"]): r
             for i, data in enumerate(runs) for r in data["results"]}
    targets: dict[str, list[str]] = {}  # the ratio's, then absolute ones with their sizes
    for data in runs:
        for r in data["results"]:
            if r.get("target"):
                text = target_text(r["target"])
                if r["target"]["kind"] == "max_ms":
                    text += f" at {_k(r['size'])}"
                if text not in targets.setdefault(r["query"], []):
                    targets[r["query"]].append(text)
    lines = ["| query | target | " + " | ".join(
        f"{run_label(runs[i])} {shape} {_k(size)}" for i, shape, size in columns) + " |",
        "|---|---|" + "---|" * len(columns)]
    for query in queries:
        row = [query, "; ".join(targets.get(query, []))]
        for i, shape, size in columns:
            r = cells.get((i, shape, size, query))
            row.append("" if r is None else cell_text(r))
        lines.append("| " + " | ".join(row) + " |")
    return lines


def throughput_lines(runs: list[dict]) -> list[str]:
    lines = ["| database | data | workers | Placer requests/s | Placer p99 ms | "
             "reference requests/s | reference p99 ms | Placer/reference throughput |",
             "|---|---|---|---|---|---|---|---|"]
    for data in runs:
        found = {}
        for r in data.get("throughput") or []:
            found.setdefault((r["shape"], r["size"], r["workers"]), {})[r["server"]] = r
        for (shape, size, workers), pair in found.items():
            p, r = pair.get("placer"), pair.get("reference")
            ratio = throughput_ratio(p, r)
            lines.append(
                f"| {run_label(data)} | {shape} {_k(size)} | {workers} | "
                f"{_num(p and p['per_second'])} | {_num(p and p['p99_ms'], 0)} | "
                f"{_num(r and r['per_second'])} | {_num(r and r['p99_ms'], 0)} | "
                f"{speedup_text(ratio)} |")
    return lines


def detail_lines(rows: list[dict]) -> list[str]:
    """Per query: both servers' figures, the ratio, the target and verdict."""
    lines = ["| shape | size | query | Placer | reference | Placer/reference | target | "
             "verdict |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if r.get("kind") == "claims":
            p, ref = r["placer"], r.get("reference")
            ours = _claims_text(p)
            theirs = NO_REFERENCE if ref is None else _claims_text(ref)
            ratio = speedup_text(r.get("ratio"))
        else:
            ours = figure_text(r["placer"]) + _ms(r["placer"])
            theirs = figure_text(r.get("reference")) + _ms(r.get("reference"))
            ratio = ("under " if r.get("ratio_bound") else "") + ratio_text(r.get("ratio"))
        lines.append(f"| {r['shape']} | {_k(r['size'])} | {r['query']} | {ours} | {theirs} | "
                     f"{ratio} | {target_text(r.get('target'))} | {r.get('verdict', '-')} |")
    return lines


def _ms(figures: dict | None) -> str:
    return " ms" if figures and figures.get("median_ms") is not None else ""


def _claims_text(f: dict) -> str:
    return (f"{_num(f.get('per_second'))}/s ({f['ok']} of {f['claims']}, {f['conflicts']} "
            f"409, {f['errors']} errors, {len(f['violations'])} violations)")


def render(paths: list[str], out: Path, plots: bool = True) -> list[Path]:
    """The Markdown summary of the per-backend files at ``out``, and (with
    ``plots``) a throughput plot per file beside it. Returns what was written."""
    runs = []
    for path in paths:
        with open(path) as f:
            data = json.load(f)
        if data.get("benchmark") != "production":
            raise ValueError(f"{path}: not a results file of benchmarks.production")
        runs.append(data)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    written = [out]
    body = ["# Placer against the reference in production-like use", "",
            "Written by `python -m benchmarks.production --render` from "
            + ", ".join(f"`{p}`" for p in paths) + ". Each column is one database: Placer "
            "and the reference served it at the same time, with the same number of workers, "
            "requests alternating between them. A cell is the ratio Placer / reference of "
            "the median latencies (below 1: Placer faster; \"under\": the reference went over "
            "its time cap, so the ratio is below that), and whether it meets the target; "
            "for claims, Placer's successful claims per second over the reference's; at "
            "the sizes with absolute targets, Placer's median in ms.", "",
            "## Summary", "", *summary_lines(runs), ""]
    if any(data.get("throughput") for data in runs):
        body += ["## Throughput against workers", "",
                 "Simulated boots (candidates with limit=1000, a claim on the chosen "
                 "candidate), quota checks and resource-tracker updates from a fixed number "
                 "of client threads for a fixed time: requests answered per second and the "
                 "99th percentile of their latency.", "", *throughput_lines(runs), ""]
    body += ["## The runs", ""]
    for data in runs:
        machine = data.get("machine") or {}
        commit = (data.get("commit") or "?")[:12] + (" (with uncommitted changes)"
                                                     if data.get("dirty") else "")
        body += [f"### {run_label(data)}", "",
                 f"{data.get('date')} to {data.get('finished')}, commit {commit}, "
                 f"{machine.get('cores')} cores, {machine.get('memory_gib')} GiB; "
                 f"{data.get('workers')} workers each; SQLite {data.get('sqlite_version')}; "
                 f"database server: {data.get('database_version')}.", "",
                 f"`{data.get('command')}`", "", *detail_lines(data["results"]), ""]
        if plots and data.get("throughput") and _has_matplotlib():
            path = out.with_name(f"{out.stem}-throughput-{data.get('backend')}.svg")
            plot_throughput(path, data)
            written.append(path)
            body += [f"![Requests per second against workers, {run_label(data)}]"
                     f"({path.name})", ""]
    out.write_text("\n".join(body).rstrip() + "\n")
    return written


def _has_matplotlib() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("# matplotlib is not installed (pip install -e .[benchmarks]): no plots",
              file=sys.stderr)
        return False
    return True


def plot_throughput(path: Path, data: dict) -> None:
    from benchmarks import report

    plt = report._pyplot()
    fig, ax = plt.subplots(figsize=(6.4, 4))
    series: dict[tuple, list] = {}
    for r in data["throughput"]:
        series.setdefault((r["server"], r["shape"], r["size"]), []).append(
            (r["workers"], r["per_second"]))
    for (server, shape, size), points in series.items():
        points.sort()
        xs, ys = zip(*points, strict=True)
        ax.plot(xs, ys, marker="o", linestyle="-" if server == "placer" else "--",
                label=f"{'Placer' if server == 'placer' else 'reference'}, {shape} {_k(size)}")
    workers = sorted({r["workers"] for r in data["throughput"]})
    ax.set_xticks(workers, [str(w) for w in workers])
    ax.set_xlabel("gunicorn workers")
    ax.set_ylabel("requests per second")
    ax.set_ylim(bottom=0)
    ax.set_title(f"Throughput against workers, {run_label(data)}, "
                 f"{(data.get('date') or '')[:10]}")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    report._save(fig, path)


# -- the command -------------------------------------------------------------------------

def _ints(text: str) -> list[int]:
    return [int(x) for x in text.split(",") if x.strip()]


def parse_args(argv: list[str]):
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.production", description=__doc__.split("\n\n")[0],
        epilog=__doc__.split("\n\n", 1)[1], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--backend", choices=["sqlite", *databases.SERVERS], default="sqlite")
    parser.add_argument("--db-server", metavar="URL",
                        help="server URL for postgresql/mysql (default: on 127.0.0.1)")
    parser.add_argument("--sizes", default="1000,10000", help="flat sizes (1000,10000)")
    parser.add_argument("--nested-sizes", default="1000", help="nested sizes (1000)")
    parser.add_argument("--shape", choices=[*scale.SHAPES, "all"], default="all")
    parser.add_argument("--workers", type=int, default=2, help="per server (2)")
    parser.add_argument("--repeat", type=int, default=10, help="Placer's timed runs (10)")
    parser.add_argument("--reference", metavar="VENV",
                        help="the reference's virtualenv (openstack-placement, gunicorn)")
    parser.add_argument("--reference-repeat", type=int, default=5,
                        help="the reference's timed runs (5)")
    parser.add_argument("--reference-cap", type=float, default=60.0,
                        help="seconds after which a reference request is given up (60)")
    parser.add_argument("--unlimited-max", type=int, default=1000,
                        help="time the unlimited candidates up to this size (1000)")
    parser.add_argument("--big-from", type=int, default=100_000,
                        help="from this size: limit=1000 and limit=10 only, against "
                             "Placer's absolute targets (100000)")
    parser.add_argument("--big-reference-repeat", type=int, default=1,
                        help="the reference's timed runs at those sizes (1)")
    parser.add_argument("--claims", type=int, default=400, help="per run of claims (400)")
    parser.add_argument("--writers", default="8,32", help="concurrent claim writers (8,32)")
    parser.add_argument("--claim-flavor", default=FLAVOR, help=f"of each claim ({FLAVOR})")
    parser.add_argument("--mix-size", type=int,
                        help="size of the throughput runs (default: the largest up to 10000; "
                             "0: none)")
    parser.add_argument("--workers-list", default="1,2,4", help="of the throughput runs (1,2,4)")
    parser.add_argument("--mix-threads", type=int, default=8, help="client threads (8)")
    parser.add_argument("--mix-seconds", type=float, default=20.0,
                        help="per server and worker count (20)")
    parser.add_argument("--mix-rt", type=int, default=1,
                        help="resource-tracker updates per boot (1)")
    parser.add_argument("--mix-put-every", type=int, default=5,
                        help="one update in this many PUTs the inventories (5)")
    parser.add_argument("--mix-usages-version", default="1.37",
                        help="microversion of the quota GET /usages (1.37: the reference "
                             "answers 1.39 with a 500 on PostgreSQL)")
    parser.add_argument("--mix-pick", choices=["first", "random"], default="first",
                        help="the candidate a boot claims (first)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", metavar="PATH", help="write the results there")
    parser.add_argument("--render", nargs="+", metavar="JSON",
                        help="instead of running: the summary of these results files")
    parser.add_argument("--out", metavar="PATH", default="production.md",
                        help="with --render: the Markdown file to write (production.md)")
    parser.add_argument("--no-plots", action="store_true", help="with --render: no plots")
    args = parser.parse_args(argv)
    try:
        args.sizes, args.nested_sizes = _ints(args.sizes), _ints(args.nested_sizes)
        args.writers, args.workers_list = _ints(args.writers), _ints(args.workers_list)
        parse_flavor(args.claim_flavor)
    except ValueError:
        parser.error("sizes, writers and workers are comma-separated integers, the flavor "
                     "CLASS:AMOUNT,...")
    if min(args.repeat, args.reference_repeat, args.big_reference_repeat, args.workers,
           args.mix_threads, args.mix_put_every) < 1:
        parser.error("repeats, workers, --mix-threads and --mix-put-every must be at least 1")
    return args


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args = parse_args(argv)
    if args.render:
        for path in render(args.render, Path(args.out), plots=not args.no_plots):
            print(path)
        return 0
    data = run(args, argv)
    print(f"production on {run_label(data)}: {data['date']} to {data['finished']}, commit "
          f"{data['commit']}, {data['command']}")
    print()
    print("\n".join(detail_lines(data["results"])))
    print()
    print("\n".join(summary_lines([data])))
    if data["throughput"]:
        print()
        print("\n".join(throughput_lines([data])))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(data, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())

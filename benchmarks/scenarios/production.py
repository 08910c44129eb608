"""Placer and the reference serving the same scale database at the same
time, per backend and size: each request once to each server to warm up,
then alternately, so that the machine's drift hits both (a reference
request over the cap is given up: its ratio is then a bound); claims of
fresh consumers from concurrent writers, every provider they touched
checked against its capacity; throughput against workers. The requests,
targets and settings are data.toml's ``[production]``.
"""

import concurrent.futures
import contextlib
import http.client
import json
import random
import sqlite3
import statistics
import time
import urllib.parse
import uuid

from benchmarks.harness import machine
from benchmarks.harness.client import Client
from benchmarks.harness.databases import engine_at, version
from benchmarks.harness.servers import Server
from benchmarks.scenarios import DATA, Query, Timing, percentile, progress, scale

D = DATA["production"]
MIX = D["mix"]


def ratio_of(placer: dict | None, reference: dict | None) -> tuple[float | None, bool]:
    """(Placer's median / the reference's, whether it is an upper bound: the
    reference went over its cap); None when either has no time."""
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
    """"met", "missed by 1.6x", "missed: ..." or "-" (no target, or nothing
    to judge). ``target``: {"kind": "max_ratio" | "min_ratio" | "max_ms",
    "value": v}; ``row``: its "placer" and "reference" figures, "ratio" and
    "ratio_bound"."""
    if not target:
        return "-"
    placer, kind, value = row.get("placer") or {}, target["kind"], target["value"]
    ratio = row.get("ratio")
    if placer.get("over_s"):
        return f"missed: Placer over {placer['over_s']:g} s"
    if placer.get("status") or placer.get("error"):
        return f"missed: Placer {placer.get('status') or placer.get('error')}"
    if kind == "max_ms":
        median = placer.get("median_ms")
        return "-" if median is None else "met" if median < value else (
            f"missed by {_factor(median / value)}")
    if kind == "min_ratio" and placer.get("violations"):
        return f"missed: {len(placer['violations'])} violations"
    if ratio is None:
        return "-"
    if kind == "min_ratio":
        return "met" if ratio >= value else f"missed by {_factor(value / ratio)}"
    if ratio <= value:
        return "met"
    # over the cap, the reference's time is unknown: so is the ratio
    return "-" if row.get("ratio_bound") else f"missed by {_factor(ratio / value)}"


def _factor(value: float) -> str:
    """1.6x; 1.03x when that close (1.0x would read as met)."""
    return f"{value:.2f}x" if value < 1.1 else f"{value:.1f}x"


def over_capacity(inventories: dict[str, dict[str, dict]],
                  usages: dict[str, dict[str, int]]) -> list[dict]:
    """Each provider and class whose usage is above its capacity, (total -
    reserved) * allocation_ratio (provider -> class -> record or used)."""
    found = []
    for rp, classes in usages.items():
        for rc, used in classes.items():
            inv = inventories.get(rp, {}).get(rc)
            capacity = 0.0 if inv is None else (
                (inv["total"] - inv.get("reserved", 0)) * inv.get("allocation_ratio", 1.0))
            if used > capacity:
                found.append({"provider": rp, "class": rc, "used": used, "capacity": capacity})
    return found


def requests_for(gen: scale.Generated, size: int) -> list[Query]:
    """The timed GETs at this size (limited ones first: an unlimited
    answer's memory stays with the worker)."""
    by_name = {q.name: q for q in scale.queries(gen)}

    def query(name: str, kind: str, value: float, **kw) -> Query:
        q = by_name[name]
        return Query(kw.pop("as_name", name), q.params, path=q.path, items=q.items,
                     target={"kind": kind, "value": value} if kind else None, **kw)

    if size >= D["big_from"]:
        return [query(name, "max_ms", ms) for name, ms in D["big_targets_ms"].items()]
    out = [query(name, "max_ratio", D["candidates_ratio"]) for name in D["limited"]]
    out.append(query("providers?resources", "max_ratio", D["listings_ratio"]))
    out.append(Query("providers", path="/resource_providers", items="resource_providers",
                     target={"kind": "max_ratio", "value": D["listings_ratio"]}))
    out += [query("usages?project_id", "max_ratio", D["usages_ratio"], version=v,
                  as_name=f"usages?project_id {v}") for v in ("1.37", "1.39")]
    if size <= D["unlimited_max"]:
        out.append(query("unlimited", "", 0))
    return out


def figures(timing: Timing) -> dict:
    return {"median_ms": statistics.median(timing.times) if timing.times else None,
            "p90_ms": percentile(timing.times, 90), "runs": len(timing.times),
            "status": timing.status, "over_s": timing.over_s, "error": timing.error or None,
            "items": timing.items}


def time_requests(servers: dict, reqs: list[Query], repeat: int, reference_repeat: int,
                  tags: dict) -> list[dict]:
    rows = []
    for q in reqs:
        placer = Timing()
        ref = Timing(D["reference_cap_s"]) if "reference" in servers else None
        for run in range(max(repeat, reference_repeat) + 1):  # run 0: the warm-up
            if run <= repeat and not placer.done:
                placer.run(servers["placer"][1], q, timed=run > 0)
            if ref is not None and run <= reference_repeat and not ref.done:
                ref.run(servers["reference"][1], q, timed=run > 0)
                if ref.over_s or (ref.error and not ref.status):
                    server = servers["reference"][0]
                    server.restart()  # a worker still busy, or gone
                    servers["reference"] = (server, Client(server.url, timeout=ref.cap))
                    servers["restarts"] += 1
        row = {**tags, "query": q.name, "kind": "latency", "path": q.url,
               "version": q.version or "1.39", "target": q.target, "placer": figures(placer),
               "reference": figures(ref) if ref else None}
        row["ratio"], row["ratio_bound"] = ratio_of(row["placer"], row["reference"])
        row["verdict"] = verdict(q.target, row)
        rows.append(row)
        progress(f"{q.name}: ratio {row['ratio']}, {row['verdict']}")
    return rows


def claim_bodies(gen: scale.Generated, flavor: dict[str, int], count: int,
                 seed: int) -> list[dict]:
    """``count`` PUT /allocations bodies of ``flavor`` on random sample hosts
    (each class from the provider that has it), the same for each server."""
    rng = random.Random(f"claims {seed}")
    return [{"allocations": {rp: {"resources": {rc: flavor[rc] for rc in classes
                                                if rc in flavor}}
                             for rp, classes in rng.choice(gen.claims).items()},
             "project_id": gen.project, "user_id": gen.user, "consumer_generation": None,
             "consumer_type": "INSTANCE"} for _ in range(count)]


def _error_code(payload: bytes) -> str:
    try:
        return json.loads(payload)["errors"][0].get("code") or "?"
    except (ValueError, KeyError, IndexError, TypeError, AttributeError):
        return "?"


def run_claims(client: Client, bodies: list[dict], writers: int) -> dict:
    """The claims, each for a new consumer, from ``writers`` threads; then
    the check of every provider they touched, and their deletion (not
    timed). A request answered neither 2xx nor 409 is an error."""
    consumers = [str(uuid.uuid4()) for _ in bodies]
    started = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(writers) as pool:
        outcomes = list(pool.map(lambda c, b: _claim(client, c, b), consumers, bodies))
    seconds = time.perf_counter() - started
    ok = [c for c, status, _, _ in outcomes if 200 <= status < 300]
    codes: dict[str, int] = {}
    errors: dict[str, int] = {}  # other failures: "status code" (0: no answer) -> count
    for _, status, code, _ in outcomes:
        if status == 409:
            codes[code] = codes.get(code, 0) + 1
        elif not 200 <= status < 300:
            errors[f"{status} {code}"] = errors.get(f"{status} {code}", 0) + 1
    providers = sorted({rp for body in bodies for rp in body["allocations"]})
    violations = over_capacity(*(
        {rp: client.call("GET", f"/resource_providers/{rp}/{key}")[key] for rp in providers}
        for key in ("inventories", "usages")))
    latencies = [s * 1000 for _, status, _, s in outcomes if status]
    return {"writers": writers, "claims": len(bodies), "ok": len(ok),
            "conflicts": sum(codes.values()), "conflict_codes": codes,
            "errors": sum(errors.values()), "error_statuses": errors,
            "seconds": seconds, "per_second": len(ok) / seconds if seconds else None,
            "attempts_per_second": len(bodies) / seconds if seconds else None,
            "p50_ms": percentile(latencies, 50), "p99_ms": percentile(latencies, 99),
            "providers_checked": len(providers), "violations": violations,
            "not_deleted": delete(client, ok)}


def _claim(client: Client, consumer: str, body: dict) -> tuple[str, int, str, float]:
    """A consumer uuid is never reused: one whose delete failed would
    answer a consumer generation conflict."""
    try:
        status, payload, seconds = client.request("PUT", f"/allocations/{consumer}", body)
    except (OSError, http.client.HTTPException) as exc:
        return consumer, 0, type(exc).__name__, 0.0
    return consumer, status, _error_code(payload) if status >= 400 else "", seconds


def delete(client: Client, consumers: list[str], rounds: int = 5) -> int:
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
        progress(f"{len(left)} claims could not be deleted: the next runs start from other data")
    return len(left)


def time_claims(servers: dict, gen: scale.Generated, args, tags: dict) -> list[dict]:
    flavor = {rc: int(n) for rc, n in (part.split(":") for part in D["claim_flavor"].split(","))}
    bodies = claim_bodies(gen, flavor, args.claims, args.seed)
    target = {"kind": "min_ratio", "value": D["claims_speedup"]}
    rows = []
    for writers in D["writers"]:
        placer = run_claims(servers["placer"][1], bodies, writers)
        reference = (run_claims(servers["reference"][1], bodies, writers)
                     if "reference" in servers else None)
        row = {**tags, "query": f"claims, {writers} writers", "kind": "claims",
               "target": target, "flavor": D["claim_flavor"], "placer": placer,
               "reference": reference, "ratio": throughput_ratio(placer, reference),
               "ratio_bound": False}
        row["verdict"] = verdict(target, row)
        rows.append(row)
        progress(f"{row['query']}: {row['ratio']}, {row['verdict']}")
    return rows


def run_mix(client: Client, gen: scale.Generated, hosts: list[str], seed: int) -> dict:
    """Threads for a while: boots (candidates, a claim on the first), quota
    checks and resource-tracker updates; what they claimed is deleted."""
    candidates = "/allocation_candidates?" + urllib.parse.urlencode(
        {"resources": scale.RESOURCES, "limit": MIX["limit"]})
    quota = "/usages?" + urllib.parse.urlencode({"project_id": gen.project,
                                                 "user_id": gen.user})
    records: list[tuple[str, int, float]] = []  # (kind, status or 0, seconds)
    claimed: list[str] = []
    deadline = time.perf_counter() + MIX["seconds"]

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
            status, payload = send("candidates", "GET", candidates)
            requests = json.loads(payload)["allocation_requests"] if status == 200 else []
            if requests:
                pick = requests[0] if MIX["pick"] == "first" else rng.choice(requests)
                consumer = str(uuid.uuid4())
                status, _ = send("claim", "PUT", f"/allocations/{consumer}", {
                    "allocations": pick["allocations"], "project_id": gen.project,
                    "user_id": gen.user, "consumer_generation": None,
                    "consumer_type": "INSTANCE"})
                if 200 <= status < 300:
                    claimed.append(consumer)
            send("quota", "GET", quota, version=MIX["usages_version"])
            for _ in range(MIX["rt_per_boot"]):
                rp = rng.choice(hosts)
                status, payload = send("inventories", "GET",
                                       f"/resource_providers/{rp}/inventories")
                send("provider usages", "GET", f"/resource_providers/{rp}/usages")
                updates += 1
                if status == 200 and updates % MIX["put_every"] == 0:
                    send("put inventories", "PUT", f"/resource_providers/{rp}/inventories",
                         json.loads(payload))

    started = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(MIX["threads"]) as pool:
        list(pool.map(loop, range(MIX["threads"])))
    figures = mix_figures(records, time.perf_counter() - started, len(claimed))
    figures["not_deleted"] = delete(client, claimed)
    return figures


def mix_figures(records: list[tuple[str, int, float]], seconds: float, boots: int) -> dict:
    def failed(s: int) -> bool:
        return s == 0 or (s >= 400 and s != 409)

    answered = [(k, s, t) for k, s, t in records if s]
    times = [t * 1000 for _, _, t in answered]
    by_kind = {}
    for kind in dict.fromkeys(k for k, _, _ in records):
        mine = [t * 1000 for k, s, t in answered if k == kind]
        by_kind[kind] = {
            "requests": sum(1 for k, _, _ in records if k == kind),
            "conflicts": sum(1 for k, s, _ in answered if k == kind and s == 409),
            "errors": sum(1 for k, s, _ in records if k == kind and failed(s)),
            "p50_ms": percentile(mine, 50), "p99_ms": percentile(mine, 99)}
    return {"seconds": seconds, "requests": len(answered),
            "per_second": len(answered) / seconds if seconds else None,
            "p50_ms": percentile(times, 50), "p99_ms": percentile(times, 99),
            "boots": boots, "boots_per_second": boots / seconds if seconds else None,
            "conflicts": sum(1 for _, s, _ in answered if s == 409),
            "errors": sum(1 for _, s, _ in records if failed(s)), "by_kind": by_kind}


def time_mix(url: str, gen: scale.Generated, args, tags: dict) -> list[dict]:
    rows = []
    for workers in MIX["workers_list"]:
        for label, venv in [("placer", None)] + ([("reference", args.reference)]
                                                 if args.reference else []):
            with Server(workers, connection=url, reference=venv) as server:
                client = Client(server.url, timeout=D["reference_cap_s"] if venv else 600)
                hosts = [rp["uuid"] for rp in client.call("GET", "/resource_providers")[
                    "resource_providers"]]
                figures = run_mix(client, gen, hosts, args.seed + workers)
            rows.append({**tags, "server": label, "workers": workers,
                         "threads": MIX["threads"], **figures})
            progress(f"mix {label}, {workers} workers: {figures['per_second']:.1f} requests/s")
    return rows


def plan(args) -> list[tuple[str, int]]:
    shapes = scale.SHAPES if args.shape == "all" else (args.shape,)
    return [(shape, size) for shape in shapes
            for size in (args.sizes if shape == "flat" else args.nested_sizes)]


def mix_at(args, steps: list[tuple[str, int]]) -> tuple[str, int] | None:
    """The step of the throughput runs: ``--mix-size`` of the first shape
    (default: its largest size up to 10,000; 0: none)."""
    if not steps or args.mix_size == 0:
        return None
    sizes = [size for s, size in steps if s == steps[0][0]]
    if args.mix_size is not None:
        return (steps[0][0], args.mix_size) if args.mix_size in sizes else None
    small = [size for size in sizes if size <= 10_000]
    return (steps[0][0], max(small)) if small else None


def run(args, argv: list[str]) -> dict:
    steps = plan(args)
    mix = mix_at(args, steps)
    data = {"benchmark": "production", **machine.describe(argv, args.reference),
            "backend": args.backend, "sqlite_version": sqlite3.sqlite_version,
            "database_version": None, "workers": args.workers, "repeat": args.repeat,
            "reference_repeat": args.reference_repeat if args.reference else None,
            "reference_cap_s": D["reference_cap_s"], "claims": args.claims,
            "writers": D["writers"], "claim_flavor": D["claim_flavor"],
            "mix": {**MIX, "at": list(mix) if mix else None},
            "databases": [], "results": [], "throughput": []}
    for shape, size in steps:
        step_started = time.perf_counter()
        with scale.generated(args.backend, size, shape) as (url, gen):
            with engine_at(url) as engine:
                data["database_version"] = version(engine)
            tags = {"shape": shape, "size": size}
            big = size >= D["big_from"]
            with contextlib.ExitStack() as stack:
                servers: dict = {"restarts": 0}
                for label, venv in [("placer", None)] + ([("reference", args.reference)]
                                                         if args.reference else []):
                    server = stack.enter_context(Server(args.workers, connection=url,
                                                        reference=venv))
                    servers[label] = (server, Client(server.url, timeout=D["reference_cap_s"]
                                                     if venv else 600))
                data["results"] += time_requests(
                    servers, requests_for(gen, size), args.repeat,
                    D["big_reference_repeat"] if big else args.reference_repeat, tags)
                if not big and args.claims:
                    data["results"] += time_claims(servers, gen, args, tags)
            step = {**tags, "providers": gen.providers, "roots": gen.roots,
                    "consumers": gen.consumers, "allocations": gen.allocations,
                    "generated_s": round(gen.seconds, 1),
                    "reference_restarts": servers["restarts"]}
            if (shape, size) == mix:
                mix_started = time.perf_counter()
                data["throughput"] += time_mix(url, gen, args, tags)
                step["mix_s"] = round(time.perf_counter() - mix_started, 1)
            step["seconds"] = round(time.perf_counter() - step_started, 1)
            data["databases"].append(step)
    return {**data, "finished": machine.now(), "load_average_after": machine.load_average()}


"""Placer and the reference serving the same scale database at the same
time, per backend and size: each request once to each server to warm up,
then alternately, so that the machine's drift hits both (a reference
request over the cap is given up: its ratio is then a bound); claims of
fresh consumers from concurrent writers, every provider they touched
checked against its capacity; throughput against workers. The requests,
targets and settings are data.toml's ``[production]``.
"""

import contextlib
import json
import random
import sqlite3
import time
import urllib.parse
import uuid
from collections import Counter

from benchmarks.harness import machine
from benchmarks.harness.client import Client
from benchmarks.harness.databases import engine_at, version
from benchmarks.harness.servers import Server
from benchmarks.scenarios import DATA, Query, Requests, Timing, in_threads, progress, scale, servers

D = DATA["production"]
MIX = D["mix"]


def ratio_of(placer: dict | None, reference: dict | None,
             key: str = "median_ms") -> tuple[float | None, bool]:
    """(Placer's figure / the reference's, whether it is an upper bound: the
    reference went over its cap); None when either has none."""
    if not placer or placer.get(key) is None or not reference:
        return None, False
    if reference.get("over_s"):
        return placer[key] / (reference["over_s"] * 1000), True
    return (placer[key] / reference[key] if reference.get(key) else None), False


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
    # each compute's resource tracker, every minute: its tree and records
    for name, suffix in D["tracker_reads"].items():
        out.append(Query(name, items=None, request=_each_sample(gen, suffix),
                         target={"kind": "max_ratio", "value": D["tracker_ratio"]}))
    # the fixed cost of an authenticated request: one row
    out.append(Query("resource_classes/VCPU", path="/resource_classes/VCPU", items=None,
                     target={"kind": "max_ratio", "value": D["fixed_cost_ratio"]}))
    if size <= D["unlimited_max"]:
        out.append(query("unlimited", "", 0))
    return out


def _each_sample(gen: scale.Generated, pattern: str):
    """A request per run, on the sample roots in turn ({rp}: its uuid)."""
    runs = iter(range(1 << 62))
    return lambda: (pattern.format(
        rp=gen.sample_providers[next(runs) % len(gen.sample_providers)]), None)


def time_requests(serving: dict, reqs: list[Query], repeat: int, reference_repeat: int,
                  tags: dict) -> list[dict]:
    """Each request on both servers, run by run; a reference stuck on a
    request is restarted (a worker still busy, or gone)."""
    rows = []
    for q in reqs:
        placer = Timing(serving["placer"][1], repeat)
        ref = serving.get("reference") and Timing(serving["reference"][1], reference_repeat,
                                                  cap=D["reference_cap_s"])
        for run in range(max(repeat, reference_repeat) + 1):  # run 0: the warm-up
            placer.run(q, run)
            if ref and run <= reference_repeat and not ref.done:
                ref.run(q, run)
                if ref.over_s or (ref.error and not ref.status):
                    server = serving["reference"][0]
                    server.restart()  # on another port
                    serving["reference"] = (server, Client(server.url, timeout=ref.cap))
                    serving["restarts"] += 1
        row = {**tags, "query": q.name, "kind": "latency", "path": q.url,
               "version": q.version or "1.39", "target": q.target,
               "placer": placer.figures(), "reference": ref.figures() if ref else None}
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


def run_claims(client: Client, bodies: list[dict], writers: int) -> dict:
    """The claims, each for a new consumer (a consumer whose delete failed
    would answer a generation conflict), from ``writers`` threads; then the
    check of every provider they touched, and their deletion (not timed).
    A request answered neither 2xx nor 409 is an error."""
    sent, consumers = Requests(client), [str(uuid.uuid4()) for _ in bodies]
    started = time.perf_counter()
    answers = in_threads(writers, lambda consumer, body: sent.send(
        "claim", "PUT", f"/allocations/{consumer}", body), consumers, bodies)
    seconds = time.perf_counter() - started
    ok = [c for c, (status, _) in zip(consumers, answers, strict=True) if 200 <= status < 300]
    providers = sorted({rp for body in bodies for rp in body["allocations"]})
    violations = over_capacity(*(
        {rp: client.call("GET", f"/resource_providers/{rp}/{key}")[key] for rp in providers}
        for key in ("inventories", "usages")))
    return {"writers": writers, "claims": len(bodies), "ok": len(ok), **sent.tally(),
            "conflict_codes": dict(Counter(r.code for r in sent.records if r.status == 409)),
            "error_statuses": dict(Counter(f"{r.status} {r.code}" for r in sent.records
                                           if r.failed)),
            "seconds": seconds, "per_second": len(ok) / seconds if seconds else None,
            "attempts_per_second": len(bodies) / seconds if seconds else None,
            "providers_checked": len(providers), "violations": violations,
            "not_deleted": delete(client, ok)}


def delete(client: Client, consumers: list[str], rounds: int = 5) -> int:
    """Delete the consumers' allocations (the failed deletes again, one at a
    time: the reference on SQLite answers 500 to some concurrent writes);
    returns how many could not be deleted."""
    sent = Requests(client)

    def one(consumer) -> bool:
        status, _ = sent.send("delete", "DELETE", f"/allocations/{consumer}")
        return 200 <= status < 300 or status == 404

    left = [c for c, done in zip(consumers, in_threads(4, one, consumers), strict=True)
            if not done]
    for _ in range(rounds):
        if not left:
            break
        time.sleep(0.5)
        left = [c for c in left if not one(c)]
    if left:
        progress(f"{len(left)} claims could not be deleted: the next runs start from other data")
    return len(left)


def run_inventory_puts(client: Client, hosts: list[str], writers: int, count: int) -> dict:
    """``count`` inventory PUTs from ``writers`` threads, each thread the
    only writer of its hosts (as each compute is of its own), each PUT
    moving one reserved unit; then every host's generation and inventories
    checked against what its writer last wrote (a lost or doubled write is
    a violation)."""
    sent, mine = Requests(client), [hosts[i::writers] for i in range(writers)]
    state = {rp: client.call("GET", f"/resource_providers/{rp}/inventories") for rp in hosts}
    first = {rp: body["resource_provider_generation"] for rp, body in state.items()}

    def writer(index: int) -> None:
        for n in range(count // writers + (index < count % writers)):
            if not mine[index]:
                return
            rp = mine[index][n % len(mine[index])]
            body = state[rp]
            body["inventories"][D["put_class"]]["reserved"] ^= 1
            status, payload = sent.send("put", "PUT", f"/resource_providers/{rp}/inventories",
                                        body)
            if status == 200:
                body["resource_provider_generation"] = json.loads(payload)[
                    "resource_provider_generation"]
            else:  # refused (the reference on SQLite: 500s): nothing was written
                body["inventories"][D["put_class"]]["reserved"] ^= 1

    started = time.perf_counter()
    in_threads(writers, writer)
    seconds = time.perf_counter() - started
    ok = sum(1 for r in sent.records if r.status == 200)
    violations = []
    for rp, body in state.items():
        now = client.call("GET", f"/resource_providers/{rp}/inventories")
        if now != body:
            violations.append({"provider": rp, "expected_generation":
                               body["resource_provider_generation"], "found": now[
                                   "resource_provider_generation"]})
    return {"writers": writers, "puts": count, "ok": ok, **sent.tally(),
            "error_statuses": dict(Counter(f"{r.status} {r.code}" for r in sent.records
                                           if r.failed)),
            "seconds": seconds, "per_second": ok / seconds if seconds else None,
            "providers_checked": len(state), "violations": violations,
            "generations_moved": sum(state[rp]["resource_provider_generation"] - first[rp]
                                     for rp in state)}


def time_writes(serving: dict, gen: scale.Generated, args, tags: dict) -> list[dict]:
    """Claims, then inventory PUTs, at each number of writers, on each server."""
    flavor = {rc: int(n) for rc, n in (part.split(":") for part in D["claim_flavor"].split(","))}
    bodies = claim_bodies(gen, flavor, args.claims, args.seed)
    target = {"kind": "min_ratio", "value": D["claims_speedup"]}
    hosts = [rp["uuid"] for rp in serving["placer"][1].call(
        "GET", f"/resource_providers?resources={D['put_class']}:1")["resource_providers"]]
    runs = {"claims": lambda client, writers: run_claims(client, bodies, writers),
            "inventory PUTs": lambda client, writers: run_inventory_puts(
                client, hosts, writers, args.claims)}
    rows = []
    for what, timed in runs.items():
        for writers in D["writers"]:
            placer = timed(serving["placer"][1], writers)
            reference = (timed(serving["reference"][1], writers)
                         if "reference" in serving else None)
            row = {**tags, "query": f"{what}, {writers} writers", "kind": "claims",
                   "target": target, "flavor": D["claim_flavor"], "placer": placer,
                   "reference": reference}
            row["ratio"], row["ratio_bound"] = ratio_of(placer, reference, "per_second")
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
    sent, claimed = Requests(client), []
    deadline = time.perf_counter() + MIX["seconds"]

    def loop(index: int) -> None:
        rng = random.Random(f"mix {seed} {index}")
        updates = 0
        while time.perf_counter() < deadline:
            status, payload = sent.send("candidates", "GET", candidates)
            requests = json.loads(payload)["allocation_requests"] if status == 200 else []
            if requests:
                pick = requests[0] if MIX["pick"] == "first" else rng.choice(requests)
                consumer = str(uuid.uuid4())
                status, _ = sent.send("claim", "PUT", f"/allocations/{consumer}", {
                    "allocations": pick["allocations"], "project_id": gen.project,
                    "user_id": gen.user, "consumer_generation": None,
                    "consumer_type": "INSTANCE"})
                if 200 <= status < 300:
                    claimed.append(consumer)
            sent.send("quota", "GET", quota, version=MIX["usages_version"])
            for _ in range(MIX["rt_per_boot"]):
                rp = rng.choice(hosts)
                status, payload = sent.send("inventories", "GET",
                                            f"/resource_providers/{rp}/inventories")
                sent.send("provider usages", "GET", f"/resource_providers/{rp}/usages")
                updates += 1
                if status == 200 and updates % MIX["put_every"] == 0:
                    sent.send("put inventories", "PUT", f"/resource_providers/{rp}/inventories",
                              json.loads(payload))

    started = time.perf_counter()
    in_threads(MIX["threads"], loop)
    figures = mix_figures(sent, time.perf_counter() - started, len(claimed))
    figures["not_deleted"] = delete(client, claimed)
    return figures


def mix_figures(sent: Requests, seconds: float, boots: int) -> dict:
    answered = sum(1 for r in sent.records if r.status)
    return {"seconds": seconds, "requests": answered,
            "per_second": answered / seconds if seconds else None, **sent.tally(),
            "boots": boots, "boots_per_second": boots / seconds if seconds else None,
            "by_kind": {kind: {"requests": sum(r.kind == kind for r in sent.records),
                               **sent.tally(kind)}
                        for kind in dict.fromkeys(r.kind for r in sent.records)}}


def time_mix(url: str, gen: scale.Generated, args, tags: dict) -> list[dict]:
    rows = []
    for workers in MIX["workers_list"]:
        for label, venv in servers(args):
            with Server(workers, connection=url, reference=venv) as server:
                client = Client(server.url, timeout=D["reference_cap_s"] if venv else 600)
                hosts = [rp["uuid"] for rp in client.call("GET", "/resource_providers")[
                    "resource_providers"]]
                figures = run_mix(client, gen, hosts, args.seed + workers)
            rows.append({**tags, "server": label, "workers": workers,
                         "threads": MIX["threads"], **figures})
            progress(f"mix {label}, {workers} workers: {figures['per_second']:.1f} requests/s")
    return rows


def mix_at(args, steps: list[tuple[str, int]]) -> tuple[str, int] | None:
    """The step of the throughput runs: ``--mix-size`` of the first shape
    (default: its largest size up to 10,000; 0: none)."""
    first = steps[0][0] if steps else ""
    sizes = [size for shape, size in steps if shape == first]
    if args.mix_size is not None:
        return (first, args.mix_size) if args.mix_size in sizes else None
    small = [size for size in sizes if size <= 10_000]
    return (first, max(small)) if small else None


def run(args, argv: list[str]) -> dict:
    mix = mix_at(args, scale.steps(args))
    data = machine.header(
        args, argv, "backend", "workers", "repeat", "reference_repeat", "claims",
        sqlite_version=sqlite3.sqlite_version, database_version=None,
        reference_cap_s=D["reference_cap_s"], writers=D["writers"],
        claim_flavor=D["claim_flavor"], mix={**MIX, "at": list(mix) if mix else None},
        databases=[], results=[], throughput=[])
    for shape, size, url, gen in scale.clouds(args):
        step_started, tags, big = time.perf_counter(), {"shape": shape, "size": size}, (
            size >= D["big_from"])
        with engine_at(url) as engine:
            data["database_version"] = version(engine)
        with contextlib.ExitStack() as stack:
            serving: dict = {"restarts": 0}
            for label, venv in servers(args):
                server = stack.enter_context(Server(args.workers, connection=url,
                                                    reference=venv))
                serving[label] = (server, Client(server.url, timeout=D["reference_cap_s"]
                                                 if venv else 600))
            data["results"] += time_requests(
                serving, requests_for(gen, size), args.repeat,
                D["big_reference_repeat"] if big else args.reference_repeat, tags)
            if not big and args.claims:
                data["results"] += time_writes(serving, gen, args, tags)
        step = {**tags, **gen.counts(), "generated_s": round(gen.seconds, 1),
                "reference_restarts": serving["restarts"]}
        if (shape, size) == mix:
            mix_started = time.perf_counter()
            data["throughput"] += time_mix(url, gen, args, tags)
            step["mix_s"] = round(time.perf_counter() - mix_started, 1)
        step["seconds"] = round(time.perf_counter() - step_started, 1)
        data["databases"].append(step)
    return machine.finished(data)

"""N providers written with SQL into a throw-away database (flat: compute
nodes; nested: a root with the disk and two NUMA children), and the
requests whose cost should follow their answer, not the cloud, timed at
each size on Placer and the reference. What it writes: the results page's
scale section. Generations are those the API would have produced."""

import contextlib
import datetime
import random
import time
import urllib.parse
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from benchmarks.harness import machine
from benchmarks.harness.client import Client
from benchmarks.harness.databases import ThrowAwayDatabase, engine_at, prepare
from benchmarks.harness.servers import Server
from benchmarks.scenarios import DATA, Query, progress, seeded_uuid, servers, shapes, time_queries
from placer.db import scores
from placer.db import tables as t

D = DATA["scale"]
CHUNK = 10_000  # rows per multi-row INSERT
RESOURCES = ",".join(f"{rc}:{n}" for rc, n in D["claim"].items())


@dataclass
class Generated:
    """What was written, and what the queries need to know about it."""

    shape: str
    providers: int
    roots: int
    consumers: int
    allocations: int
    seconds: float = 0.0
    aggregates: list[str] = field(default_factory=list)  # uuids, by id
    # claim bodies' allocations: provider uuid -> class -> amount
    claims: list[dict[str, dict[str, int]]] = field(default_factory=list)
    sample_providers: list[str] = field(default_factory=list)  # uuids
    project: str = ""  # external id of a project with about 25 consumers
    user: str = ""

    def counts(self) -> dict[str, int]:
        return {key: getattr(self, key) for key in ("providers", "roots", "consumers",
                                                    "allocations")}


class _Writer:
    """Buffers rows (tuples in COLUMNS order) per table; when one buffer is
    full, flushes every buffer in foreign-key order, straight to the
    driver's executemany (SQLAlchemy's per-row processing would cost more
    than the database's work), or COPY on PostgreSQL with psycopg 3."""

    COLUMNS = {  # the order of each row's values
        t.resource_providers: ("created_at", "id", "uuid", "name", "generation",
                               "root_provider_id", "parent_provider_id"),
        t.inventories: ("created_at", "resource_provider_id", "resource_class_id", "total",
                        "reserved", "min_unit", "max_unit", "step_size", "allocation_ratio"),
        t.resource_provider_traits: ("created_at", "trait_id", "resource_provider_id"),
        t.resource_provider_aggregates: ("created_at", "resource_provider_id", "aggregate_id"),
        t.consumers: ("created_at", "uuid", "project_id", "user_id", "generation",
                      "consumer_type_id"),
        t.allocations: ("created_at", "resource_provider_id", "consumer_id",
                        "resource_class_id", "used"),
    }

    def __init__(self, conn):
        self.conn, self.rows = conn, {table: [] for table in self.COLUMNS}
        self.copy = conn.dialect.name == "postgresql" and conn.dialect.driver == "psycopg"
        self.mark = "?" if conn.dialect.name == "sqlite" else "%s"  # the driver's, positional

    def add(self, table: sa.Table, row: tuple) -> None:
        self.rows[table].append(row)
        if len(self.rows[table]) >= CHUNK:
            self.flush()

    def flush(self) -> None:
        for table, columns in self.COLUMNS.items():
            rows, self.rows[table] = self.rows[table], []
            into = f"{table.name} ({', '.join(columns)})"
            if rows and self.copy:
                dbapi = self.conn.connection.dbapi_connection
                with dbapi.cursor() as cur, cur.copy(f"COPY {into} FROM STDIN") as copy:
                    for row in rows:
                        copy.write_row(row)
            elif rows:
                self.conn.exec_driver_sql(
                    f"INSERT INTO {into} VALUES ({', '.join([self.mark] * len(columns))})", rows)


def _ids(conn, table: sa.Table, names) -> dict[str, int]:
    query = sa.select(table.c.name, table.c.id).where(table.c.name.in_(names))
    return dict(conn.execute(query).all())


def generate(engine: Engine, n: int, shape: str = "flat", seed: int = 0,
             consumers_per_tree: tuple[int, int] = (1, 5)) -> Generated:
    """Write the scenario into the fresh database behind ``engine``; each
    tree holds from ``consumers_per_tree[0]`` to ``[1]`` consumers."""
    started, rng = time.perf_counter(), random.Random(seed)
    prepare(engine)
    now = datetime.datetime.now(datetime.UTC).replace(tzinfo=None)
    roots = max(n // (1 if shape == "flat" else 3), 1)
    custom, aggs, choices = D["custom_trait"], D["aggregates"], D["choices"]
    with engine.begin() as conn:
        if conn.dialect.name == "sqlite":
            conn.exec_driver_sql("PRAGMA cache_size=-262144")  # 256 MiB: indexes stay in memory
        conn.execute(t.traits.insert(), [{"name": custom, "created_at": now}])
        conn.execute(t.consumer_types.insert(), [{"name": "INSTANCE", "created_at": now}])
        classes = _ids(conn, t.resource_classes, ["VCPU", "MEMORY_MB", "DISK_GB"])
        trait_ids = _ids(conn, t.traits, [*D["root_traits"], "HW_CPU_X86_AVX2", custom,
                                          "HW_NUMA_ROOT"])
        instance_type = _ids(conn, t.consumer_types, ["INSTANCE"])["INSTANCE"]
        aggregates = [seeded_uuid(rng) for _ in range(aggs)]
        conn.execute(t.placement_aggregates.insert(), [
            {"id": i + 1, "uuid": a, "created_at": now} for i, a in enumerate(aggregates)])
        writer = _Writer(conn)
        # what SQLAlchemy's DateTime would store (SQLite keeps it as text)
        stamp = now.strftime("%Y-%m-%d %H:%M:%S.%f") if conn.dialect.name == "sqlite" else now
        consumers: list[tuple[str, dict]] = []  # (uuid, provider id -> class -> amount)
        next_id = 1
        uuids: dict[int, str] = {}
        sample_every = max(roots // D["samples"], 1)
        samples: list[dict[int, list[str]]] = []  # provider id -> classes, per sample tree
        for tree in range(roots):
            root = next_id
            tree_providers = [root] if shape == "flat" else [root, root + 1, root + 2]
            next_id += len(tree_providers)
            vcpu, memory, disk = (tuple(rng.choice(c) for c in choices[rc])
                                  for rc in ("VCPU", "MEMORY_MB", "DISK_GB"))
            # provider id -> class -> (total, reserved, ratio)
            inventory: dict[int, dict[str, tuple]] = {}
            if shape == "flat":
                inventory[root] = {"VCPU": vcpu, "MEMORY_MB": memory, "DISK_GB": disk}
            else:
                inventory[root] = {"DISK_GB": disk}
                for numa in tree_providers[1:]:
                    inventory[numa] = {"VCPU": (vcpu[0] // 2, vcpu[1] // 2, vcpu[2]),
                                       "MEMORY_MB": (memory[0] // 2, memory[1] // 2, memory[2])}
            traits = {root: [*D["root_traits"]], **{numa: ["HW_NUMA_ROOT"]
                                                     for numa in tree_providers[1:]}}
            for trait, chance in (("HW_CPU_X86_AVX2", 0.5), (custom, 0.1)):
                if rng.random() < chance:
                    traits[root].append(trait)
            in_aggs = [rng.randrange(aggs)]
            if rng.random() < 0.05:
                in_aggs.append((in_aggs[0] + 1 + rng.randrange(aggs - 1)) % aggs)
            # consumers: each takes every class once, VCPU and MEMORY_MB from
            # one NUMA node (alternating) in the nested shape
            k = rng.randint(*consumers_per_tree)
            fraction = rng.uniform(0.15, 0.45)
            cpu_nodes = tree_providers[1:] or [root]
            placed = [{cpu_nodes[j % len(cpu_nodes)]: {"VCPU": 0, "MEMORY_MB": 0}}
                      for j in range(k)]
            for c in placed:
                c.setdefault(root, {})["DISK_GB"] = 0
            for pid, classes_of in inventory.items():
                for rc, (total, reserved, ratio) in classes_of.items():
                    users = [c for c in placed if rc in c.get(pid, {})]
                    if users:
                        share = int((total - reserved) * ratio * fraction / len(users))
                        for c in users:
                            c[pid][rc] = max(1, min(share, total))
            for pid in tree_providers:
                uuids[pid] = seeded_uuid(rng)
                generation = (1 + bool(traits.get(pid)) + (pid == root)
                              + sum(1 for c in placed if pid in c))
                writer.add(t.resource_providers, (
                    stamp, pid, uuids[pid], f"scale-{tree:06d}"
                    + ("" if pid == root else f"-numa{pid - root - 1}"), generation, root,
                    None if pid == root else root))
                for rc, (total, reserved, ratio) in inventory[pid].items():
                    writer.add(t.inventories, (
                        stamp, pid, classes[rc], total, reserved, 1, total, 1, ratio))
                for trait in traits.get(pid, ()):
                    writer.add(t.resource_provider_traits, (stamp, trait_ids[trait], pid))
            for a in in_aggs:
                writer.add(t.resource_provider_aggregates, (stamp, root, a + 1))
            consumers += [(seeded_uuid(rng), c) for c in placed]
            if tree % sample_every == 0 and len(samples) < D["samples"]:
                samples.append({pid: list(inventory[pid]) for pid in tree_providers})
        projects = max(len(consumers) // D["consumers_per_project"], 1)
        for table, name in ((t.projects, "project"), (t.users, "user")):
            conn.execute(table.insert(), [
                {"id": p + 1, "external_id": f"scale-{name}-{p}", "created_at": now}
                for p in range(projects)])
        allocation_rows = 0
        for i, (consumer, placed_on) in enumerate(consumers):
            writer.add(t.consumers, (stamp, consumer, i % projects + 1,
                                     (i // projects) % projects + 1, 1, instance_type))
            for pid, amounts in placed_on.items():
                for rc, used in amounts.items():
                    allocation_rows += 1
                    writer.add(t.allocations, (stamp, pid, consumer, classes[rc], used))
        writer.flush()
        if conn.dialect.name == "postgresql":
            for table in (t.resource_providers, t.placement_aggregates, t.projects, t.users):
                conn.exec_driver_sql(
                    f"SELECT setval(pg_get_serial_sequence('{table.name}', 'id'), "
                    f"(SELECT max(id) FROM {table.name}))")
    with engine.begin() as conn:  # rows written with SQL: the trees' scores from them
        scores.rebuild(conn)
    _analyze(engine)
    claims = []
    for tree in samples:
        claim: dict[str, dict[str, int]] = {}
        for rc, amount in D["claim"].items():
            pid = next(p for p in reversed(list(tree)) if rc in tree[p])
            claim.setdefault(uuids[pid], {})[rc] = amount
        claims.append(claim)
    return Generated(
        shape=shape, providers=next_id - 1, roots=roots, consumers=len(consumers),
        allocations=allocation_rows, seconds=time.perf_counter() - started,
        aggregates=aggregates, claims=claims,
        sample_providers=[uuids[next(iter(tree))] for tree in samples],
        project="scale-project-0", user="scale-user-0")


def _analyze(engine: Engine) -> None:
    """Planner statistics, as a database that grew over time has them
    (without them PostgreSQL picks nested loops). SQLite gathers none
    unless asked, and Placement never asks: left alone."""
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.exec_driver_sql("ANALYZE")
        elif conn.dialect.name == "mysql":
            names = ", ".join(table.name for table in (*t.metadata.sorted_tables,
                                                       *t.placer_metadata.sorted_tables))
            conn.exec_driver_sql(f"ANALYZE TABLE {names}").fetchall()


@contextlib.contextmanager
def generated(backend: str, size: int, shape: str):
    """``with generated(...) as (url, gen)``: a throw-away database of the
    scenario, and what was written."""
    with ThrowAwayDatabase(backend) as url, engine_at(url) as engine:
        gen = generate(engine, size, shape)
        progress(f"{shape} {size} on {backend}: {gen.providers} providers ({gen.roots} "
                 f"trees), {gen.consumers} consumers, {gen.allocations} allocations "
                 f"generated in {gen.seconds:.1f}s")
        yield url, gen


def steps(args) -> list[tuple[str, int]]:
    """(shape, size) of ``--shape`` ("all": flat, then nested) at ``--sizes``
    (nested: at ``--nested-sizes``, where the command has them)."""
    nested = vars(args).get("nested_sizes", args.sizes)
    return [(shape, size) for shape in shapes(args.shape)
            for size in (nested if shape == "nested" else args.sizes)]


def clouds(args) -> Iterator[tuple[str, int, str, Generated]]:
    """Each step's database on ``--backend``, in turn: (shape, size, its URL,
    what was written); it is dropped when the next one is made."""
    for shape, size in steps(args):
        with generated(args.backend, size, shape) as (url, gen):
            yield shape, size, url, gen


def queries(gen: Generated, size: int | None = None) -> list[Query]:
    """The timed requests, limited ones first: the unlimited query's memory
    stays with the worker and would hide the others' peaks. With ``size``,
    Placer's targets at that size (flat, 100,000 providers)."""
    base = [("resources", RESOURCES)]
    traits = [*base, ("required", f"HW_CPU_X86_AVX2,!{D['custom_trait']}"),
              ("member_of", f"in:{gen.aggregates[0]},{gen.aggregates[1]}")]
    runs = {"claim": 0, "usage": 0}

    def claim() -> tuple[str, dict]:
        allocations = gen.claims[runs["claim"] % len(gen.claims)]
        runs["claim"] += 1
        return f"/allocations/{uuid.uuid4()}", {
            "allocations": {rp: {"resources": r} for rp, r in allocations.items()},
            "project_id": gen.project, "user_id": gen.user, "consumer_generation": None,
            "consumer_type": "INSTANCE"}

    def provider_usages() -> tuple[str, None]:
        rp = gen.sample_providers[runs["usage"] % len(gen.sample_providers)]
        runs["usage"] += 1
        return f"/resource_providers/{rp}/usages", None

    usages = "/usages?" + urllib.parse.urlencode({"project_id": gen.project})
    out = [
        Query("limit=1000", [*base, ("limit", "1000")]),
        Query("limit=10", [*base, ("limit", "10")]),
        Query("traits+member_of limit=1000", [*traits, ("limit", "1000")]),
        # nested: no provider has all three classes, the NUMA nodes have two
        Query("providers?resources", base if gen.shape == "flat" else [
            ("resources", "VCPU:1,MEMORY_MB:1024")], path="/resource_providers",
              items="resource_providers"),
        Query("unlimited", base),
        Query("claim", method="PUT", items=None, request=claim),
        Query("usages?project_id", path=usages, items=None),
        Query("provider usages", items=None, request=provider_usages),
    ]
    if gen.shape == "flat" and size == 100_000:
        for q in out:
            q.target_ms = D["targets_100k"].get(q.name)
    return out


def run(args, argv: list[str]) -> dict:
    """Generate, serve and time each shape at each size."""
    order = {"candidate_order": args.candidate_order} if args.candidate_order else {}
    data = machine.header(args, argv, "backend", "shape", "sizes", "repeat", "reference_repeat",
                          "workers", candidate_order=order, databases=[], results=[])
    for shape, size, url, gen in clouds(args):
        data["databases"].append({"shape": shape, "size": size, **gen.counts(),
                                  "seconds": round(gen.seconds, 1)})
        for label, venv in servers(args):
            with Server(args.workers, connection=url, reference=venv,
                        placer=None if venv else order) as server:
                data["results"] += [r.row(server=label, shape=shape, size=size)
                                    for r in time_queries(
                    Client(server.url), server.measured(), f"{label} {shape} {size}",
                    queries(gen, None if venv else size),
                    args.reference_repeat if venv else args.repeat, args.only)]
    return machine.finished(data)

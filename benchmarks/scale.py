"""The scale scenario: N providers written directly with SQL, and the queries
whose cost should follow the size of their answer, not the size of the cloud.

``generate(engine, n, shape)`` fills a fresh, migrated database (the
project's migrations and standard names) in seconds, with SQLAlchemy Core
multi-row inserts in chunks:

- flat: ``n`` compute nodes (roots) with VCPU, MEMORY_MB and DISK_GB
  inventories of varied sizes, reserved amounts and allocation ratios;
- nested: ``n // 3`` trees of a root (DISK_GB) and two NUMA children
  (VCPU, MEMORY_MB, trait HW_NUMA_ROOT), so ``n`` providers in all.

Roots carry traits (all HW_CPU_X86_SSE42 and COMPUTE_VOLUME_MULTI_ATTACH,
about half HW_CPU_X86_AVX2, a tenth CUSTOM_X) and belong to one of 20
aggregates (a twentieth to a second one). One to five consumers per tree use
about 30% of its capacity (never more than the capacity, never more than
max_unit at once); about 25 consumers per project, whatever ``n``.

Generations are those the API would have produced: a provider starts at 0
and gains one per write that touched it (inventories, traits, aggregates,
and each consumer's allocation); a consumer is at 1 after its one write.
"""

import datetime
import random
import time
import urllib.parse
import uuid
from dataclasses import dataclass, field

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from benchmarks.scenarios import Query
from placer.db import schema_migrations, scores, sync
from placer.db import tables as t

SHAPES = ("flat", "nested")
AGGREGATES = 20
CHUNK = 10_000  # rows per multi-row INSERT
CONSUMERS_PER_PROJECT = 25
CUSTOM_TRAIT = "CUSTOM_X"
ROOT_TRAITS = ("HW_CPU_X86_SSE42", "COMPUTE_VOLUME_MULTI_ATTACH")
CLAIM = {"VCPU": 1, "MEMORY_MB": 1024, "DISK_GB": 10}
SAMPLES = 20  # providers spread over the id range, for claims and usages

# (total, reserved, allocation_ratio) choices per class, for a whole host
_VCPU = ((32, 48, 64, 96, 128), (0, 0, 2, 4), (1.0, 2.0, 4.0, 4.0))
_MEMORY = ((131072, 262144, 393216, 524288, 786432), (512, 2048, 4096), (1.0, 1.0, 1.5))
_DISK = ((960, 1920, 3840, 7680), (0, 10, 50), (1.0, 1.0, 1.2))


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


class _Writer:
    """Buffers rows (tuples in COLUMNS order) per table; when one buffer is
    full, flushes every buffer in foreign-key order. Rows go straight to the
    driver's executemany (multi-row INSERTs): SQLAlchemy's per-row parameter
    processing would cost more than the database's work."""

    COLUMNS = {  # in the tables' column order, so that no row is reordered
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
        self.conn = conn
        self.rows: dict[sa.Table, list[tuple]] = {table: [] for table in self.COLUMNS}
        self.counts = dict.fromkeys(self.COLUMNS, 0)
        self.copy = conn.dialect.name == "postgresql" and conn.dialect.driver == "psycopg"
        self.sql = {}
        for table, columns in self.COLUMNS.items():
            stmt = table.insert().values({c: sa.bindparam(c) for c in columns})
            compiled = stmt.compile(dialect=conn.dialect)
            # positional paramstyles (qmark, format) take tuples, named ones dicts
            order = compiled.positiontup
            self.sql[table] = (str(compiled), None if order is None else
                               [columns.index(name) for name in order])

    def add(self, table: sa.Table, row: tuple) -> None:
        buffer = self.rows[table]
        buffer.append(row)
        if len(buffer) >= CHUNK:
            self.flush()

    def flush(self) -> None:
        for table, columns in self.COLUMNS.items():
            buffer = self.rows[table]
            if not buffer:
                continue
            if self.copy:
                self._copy(table, columns, buffer)
            else:
                sql, order = self.sql[table]
                if order is None:
                    params = [dict(zip(columns, row, strict=True)) for row in buffer]
                elif order == list(range(len(columns))):
                    params = buffer
                else:
                    params = [tuple(row[i] for i in order) for row in buffer]
                self.conn.exec_driver_sql(sql, params)
            self.counts[table] += len(buffer)
            self.rows[table] = []

    def _copy(self, table: sa.Table, columns: tuple[str, ...], rows: list[tuple]) -> None:
        """PostgreSQL (psycopg 3): COPY, several times faster than executemany."""
        dbapi = self.conn.connection.dbapi_connection
        with dbapi.cursor() as cur, cur.copy(
                f"COPY {table.name} ({', '.join(columns)}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)


def _uuid(rng: random.Random) -> str:
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def _names(conn, table: sa.Table, names) -> dict[str, int]:
    rows = conn.execute(sa.select(table.c.name, table.c.id).where(table.c.name.in_(names)))
    return {name: id_ for name, id_ in rows}


def prepare(engine: Engine) -> None:
    """Migrate a fresh database and sync the standard classes and traits."""
    schema_migrations.upgrade(engine)
    with engine.begin() as conn:
        sync.sync_standard_names(conn)


def generate(engine: Engine, n: int, shape: str = "flat", seed: int = 0) -> Generated:
    """Write the scenario into the fresh database behind ``engine``."""
    if shape not in SHAPES:
        raise ValueError(f"unknown shape {shape!r}")
    started = time.perf_counter()
    prepare(engine)
    rng = random.Random(seed)
    now = datetime.datetime.now(datetime.UTC).replace(tzinfo=None)
    per_tree = 1 if shape == "flat" else 3
    roots = max(n // per_tree, 1)
    with engine.begin() as conn:
        if conn.dialect.name == "sqlite":
            conn.exec_driver_sql("PRAGMA cache_size=-262144")  # 256 MiB: indexes stay in memory
        conn.execute(t.traits.insert(), [{"name": CUSTOM_TRAIT, "created_at": now}])
        classes = _names(conn, t.resource_classes, ["VCPU", "MEMORY_MB", "DISK_GB"])
        trait_ids = _names(conn, t.traits, [*ROOT_TRAITS, "HW_CPU_X86_AVX2", CUSTOM_TRAIT,
                                            "HW_NUMA_ROOT"])
        conn.execute(t.consumer_types.insert(), [{"name": "INSTANCE", "created_at": now}])
        instance_type = _names(conn, t.consumer_types, ["INSTANCE"])["INSTANCE"]
        aggregates = [_uuid(rng) for _ in range(AGGREGATES)]
        conn.execute(t.placement_aggregates.insert(), [
            {"id": i + 1, "uuid": a, "created_at": now} for i, a in enumerate(aggregates)])

        writer = _Writer(conn)
        # what SQLAlchemy's DateTime would store (SQLite keeps it as text)
        stamp = now.strftime("%Y-%m-%d %H:%M:%S.%f") if conn.dialect.name == "sqlite" else now
        consumers: list[tuple[str, dict]] = []  # (uuid, provider id -> class -> amount)
        next_id = 1
        uuids: dict[int, str] = {}
        sample_every = max(roots // SAMPLES, 1)
        samples: list[dict[int, list[str]]] = []  # provider id -> classes, per sample tree
        for tree in range(roots):
            root = next_id
            tree_providers = [root] if shape == "flat" else [root, root + 1, root + 2]
            next_id += len(tree_providers)
            vcpu = (rng.choice(_VCPU[0]), rng.choice(_VCPU[1]), rng.choice(_VCPU[2]))
            memory = (rng.choice(_MEMORY[0]), rng.choice(_MEMORY[1]), rng.choice(_MEMORY[2]))
            disk = (rng.choice(_DISK[0]), rng.choice(_DISK[1]), rng.choice(_DISK[2]))
            # provider id -> class -> (total, reserved, ratio)
            inventory: dict[int, dict[str, tuple]] = {}
            if shape == "flat":
                inventory[root] = {"VCPU": vcpu, "MEMORY_MB": memory, "DISK_GB": disk}
            else:
                inventory[root] = {"DISK_GB": disk}
                for numa in tree_providers[1:]:
                    inventory[numa] = {"VCPU": (vcpu[0] // 2, vcpu[1] // 2, vcpu[2]),
                                       "MEMORY_MB": (memory[0] // 2, memory[1] // 2, memory[2])}
            traits = {root: [*ROOT_TRAITS]}
            if rng.random() < 0.5:
                traits[root].append("HW_CPU_X86_AVX2")
            if rng.random() < 0.1:
                traits[root].append(CUSTOM_TRAIT)
            for numa in tree_providers[1:]:
                traits[numa] = ["HW_NUMA_ROOT"]
            in_aggs = [rng.randrange(AGGREGATES)]
            if rng.random() < 0.05:
                in_aggs.append((in_aggs[0] + 1 + rng.randrange(AGGREGATES - 1)) % AGGREGATES)

            # consumers: each takes every class once, VCPU and MEMORY_MB from
            # one NUMA node (alternating) in the nested shape
            k = rng.randint(1, 5)
            fraction = rng.uniform(0.15, 0.45)
            placed: list[dict[int, dict[str, int]]] = []
            for j in range(k):
                cpu_on = root if shape == "flat" else tree_providers[1 + j % 2]
                placed.append({cpu_on: {"VCPU": 0, "MEMORY_MB": 0}})
                placed[-1].setdefault(root, {})["DISK_GB"] = 0
            for pid, classes_of in inventory.items():
                for rc, (total, reserved, ratio) in classes_of.items():
                    users = [c for c in placed if rc in c.get(pid, {})]
                    if not users:
                        continue
                    share = int((total - reserved) * ratio * fraction / len(users))
                    amount = max(1, min(share, total))
                    for c in users:
                        c[pid][rc] = amount
            written = {pid: sum(1 for c in placed if pid in c) for pid in tree_providers}

            for pid in tree_providers:
                parent = None if pid == root else root
                name_suffix = "" if pid == root else f"-numa{pid - root - 1}"
                uuids[pid] = _uuid(rng)
                generation = (1 + bool(traits.get(pid)) + (pid == root) + written[pid])
                writer.add(t.resource_providers, (
                    stamp, pid, uuids[pid], f"scale-{tree:06d}{name_suffix}", generation, root,
                    parent))
                for rc, (total, reserved, ratio) in inventory[pid].items():
                    writer.add(t.inventories, (
                        stamp, pid, classes[rc], total, reserved, 1, total, 1, ratio))
                for trait in traits.get(pid, ()):
                    writer.add(t.resource_provider_traits, (stamp, trait_ids[trait], pid))
            for a in in_aggs:
                writer.add(t.resource_provider_aggregates, (stamp, root, a + 1))
            for c in placed:
                consumers.append((_uuid(rng), c))
            if tree % sample_every == 0 and len(samples) < SAMPLES:
                samples.append({pid: list(inventory[pid]) for pid in tree_providers})

        projects = max(len(consumers) // CONSUMERS_PER_PROJECT, 1)
        conn.execute(t.projects.insert(), [
            {"id": p + 1, "external_id": f"scale-project-{p}", "created_at": now}
            for p in range(projects)])
        conn.execute(t.users.insert(), [
            {"id": u + 1, "external_id": f"scale-user-{u}", "created_at": now}
            for u in range(projects)])
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
        for rc, amount in CLAIM.items():
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
    """Planner statistics, as a database that grew over time has them (the
    autovacuum daemon / InnoDB would gather them soon after such a load;
    without them PostgreSQL picks nested loops). SQLite gathers none unless
    asked, and Placement never asks: left alone."""
    with engine.begin() as conn:
        if conn.dialect.name == "postgresql":
            conn.exec_driver_sql("ANALYZE")
        elif conn.dialect.name == "mysql":
            names = ", ".join(table.name for table in (*t.metadata.sorted_tables,
                                                       *t.placer_metadata.sorted_tables))
            conn.exec_driver_sql(f"ANALYZE TABLE {names}").fetchall()


# -- the queries ------------------------------------------------------------

RESOURCES = ",".join(f"{rc}:{n}" for rc, n in CLAIM.items())
# median targets (ms) at 100k flat providers, SQLite, one worker
TARGETS_100K = {"limit=1000": 150, "limit=10": 30, "traits+member_of limit=1000": 100}
GROWTH_MAX = 1.5  # time at the largest size / at the one before, limited and flat queries
GROWTH_NOISE_MS = 5  # ... or not more than this many milliseconds slower
MEMORY_MAX_MB = 20  # peak RSS at the largest size minus at the smallest, limited queries
FLAT_IN_N = ("claim", "usages?project_id", "provider usages")


def queries(gen: Generated) -> list[Query]:
    """The timed requests, limited ones first: the unlimited query's memory
    stays with the worker and would hide the others' peaks."""
    base = [("resources", RESOURCES)]
    traits = [*base, ("required", f"HW_CPU_X86_AVX2,!{CUSTOM_TRAIT}"),
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
    return [
        Query("limit=1000", [*base, ("limit", "1000")]),
        Query("limit=10", [*base, ("limit", "10")]),
        Query("traits+member_of limit=1000", [*traits, ("limit", "1000")]),
        # nested: no provider has all three classes, the NUMA nodes have two
        Query("providers?resources", base if gen.shape == "flat" else [
            ("resources", "VCPU:1,MEMORY_MB:1024")], path="/resource_providers",
              items="resource_providers"),
        Query("unlimited", base),
        Query("claim", [], method="PUT", items=None, request=claim),
        Query("usages?project_id", [], path=usages, items=None),
        Query("provider usages", [], method="GET", items=None, request=provider_usages),
    ]


def _targets(shape: str, size: int) -> dict[str, float]:
    return TARGETS_100K if shape == "flat" and size == 100_000 else {}


def with_targets(qs: list[Query], shape: str, size: int) -> list[Query]:
    targets = _targets(shape, size)
    for q in qs:
        q.target_ms = targets.get(q.name)
    return qs


# -- the summary ------------------------------------------------------------

def summary(rows: list[tuple[str, str, int, object]]) -> str:
    """Markdown: per server, shape and query, the median latency (and the
    server's CPU time per request) at each size, the slopes of both, the peak
    worker RSS at the extreme sizes and the verdicts. CPU time is what to
    read on a busy machine. ``rows`` are (server, shape, size, runner.Result)."""
    sizes = sorted({size for _, _, size, _ in rows})
    by_key = {(srv, shape, size, r.query): r for srv, shape, size, r in rows}
    lines = []
    head = ["server", "shape", "query", *(f"{_k(s)} ms (CPU)" for s in sizes)]
    if len(sizes) > 1:
        head += [f"{_k(sizes[-1])}/{_k(sizes[0])} (CPU)"]
    if len(sizes) > 2:
        head += [f"{_k(sizes[-1])}/{_k(sizes[-2])} (CPU)"]
    rss = [sizes[0], sizes[-1]] if len(sizes) > 1 else sizes
    head += [*(f"RSS {_k(s)} MiB" for s in rss), "checks"]
    lines += ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    seen = []
    for srv, shape, _, r in rows:
        if (srv, shape, r.query) not in seen:
            seen.append((srv, shape, r.query))
    for srv, shape, name in seen:
        res = [by_key.get((srv, shape, s, name)) for s in sizes]
        med = [r.median_ms if r else None for r in res]
        cpu = [r.cpu_ms if r else None for r in res]
        cells = [srv, shape, name, *(_pair(m, c, 1, 0) for m, c in zip(med, cpu, strict=True))]
        if len(sizes) > 1:
            cells.append(_pair(_ratio(med[-1], med[0]), _ratio(cpu[-1], cpu[0]), 2, 2))
        if len(sizes) > 2:
            cells.append(_pair(_ratio(med[-1], med[-2]), _ratio(cpu[-1], cpu[-2]), 2, 2))
        ends = [res[0], res[-1]] if len(sizes) > 1 else res
        cells += [_f(r.rss_peak_mb if r else None, 0) for r in ends]
        # the targets are Placer's
        cells.append(", ".join(_checks(shape, sizes, name, res)) if srv == "placer" else "")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _pair(value, cpu, digits: int, cpu_digits: int) -> str:
    if value is None:
        return ""
    return _f(value, digits) + ("" if cpu is None else f" ({_f(cpu, cpu_digits)})")


def _checks(shape: str, sizes: list[int], name: str, res: list) -> list[str]:
    out = []
    last = res[-1]
    target = _targets(shape, sizes[-1]).get(name)
    if target is not None and last and last.median_ms is not None:
        verdict = "PASS" if last.median_ms < target else "MISS"
        out.append(f"<{target} ms {verdict}")
    limited = "limit=" in name
    if shape == "flat" and (limited or name in FLAT_IN_N) and len(sizes) > 2 \
            and last and res[-2] and last.median_ms is not None and res[-2].median_ms:
        # a few milliseconds more is noise, not growth, for the smallest requests
        flat = (last.median_ms / res[-2].median_ms < GROWTH_MAX
                or last.median_ms - res[-2].median_ms < GROWTH_NOISE_MS)
        out.append(f"growth<{GROWTH_MAX}x {'PASS' if flat else 'MISS'}")
    if shape == "flat" and limited and len(sizes) > 1 and res[0] and last \
            and res[0].rss_peak_mb is not None and last.rss_peak_mb is not None:
        grown = last.rss_peak_mb - res[0].rss_peak_mb
        out.append(f"RSS+{MEMORY_MAX_MB}MiB {'PASS' if grown <= MEMORY_MAX_MB else 'MISS'}")
    return out


def comparison(rows: list[tuple[str, str, int, object]]) -> str:
    """Markdown: Placer against the reference, per size and query: medians,
    and in brackets the server CPU time per request (steadier when the
    machine is busy)."""
    ref = {(shape, size, r.query): r for srv, shape, size, r in rows if srv == "reference"}
    lines = ["| shape | N | query | reference ms (CPU) | Placer ms (CPU) "
             "| Placer/reference (CPU) |", "|---|---|---|---|---|---|"]
    for srv, shape, size, r in rows:
        other = ref.get((shape, size, r.query))
        if srv != "placer" or other is None:
            continue
        ratio = _pair(_ratio(r.median_ms, other.median_ms), _ratio(r.cpu_ms, other.cpu_ms), 2, 2)
        theirs = _pair(other.median_ms, other.cpu_ms, 1, 0)
        ours = _pair(r.median_ms, r.cpu_ms, 1, 0)
        lines.append(f"| {shape} | {size} | {r.query} | {theirs} | {ours} | {ratio} |")
    return "\n".join(lines)


def _ratio(a, b):
    return a / b if a is not None and b else None


def _f(value, digits: int) -> str:
    return "" if value is None else f"{value:.{digits}f}"


def _k(size: int) -> str:
    return f"{size // 1000}k" if size % 1000 == 0 else str(size)

"""The fixed and scale scenarios (what they build and ask), timing a query,
the throw-away databases, and the results page written from results files.
No server and no timing assertions here.
"""

import json
import pathlib

import pytest
import sqlalchemy as sa

from benchmarks import report
from benchmarks.__main__ import main
from benchmarks.harness import databases
from benchmarks.harness.client import VERSION
from benchmarks.scenarios import SHAPES, fixed, scale, time_queries
from placer import wsgi
from placer.db import engine as db_engine
from placer.db import tables as t
from tests.helpers.api import Api, make_conf


def test_flat_scenario_counts():
    s = fixed.flat()
    assert len(s.providers) == 1010
    assert len({a for p in s.providers for a in p.aggregates}) == 20
    pools = [p for p in s.providers if "MISC_SHARES_VIA_AGGREGATE" in p.traits]
    assert len(pools) == 10
    nodes = [p for p in s.providers if p not in pools]
    assert sum("HW_CPU_X86_AVX2" in p.traits for p in nodes) == 500
    # every node shares an aggregate with exactly one pool
    assert all(sum(bool(set(n.aggregates) & set(p.aggregates)) for p in pools) == 1
               for n in nodes)
    assert len(s.allocations) == 3000
    assert {t for p in s.providers for t in p.traits if t.startswith("CUSTOM_")} == {
        "CUSTOM_GOLD"}


def test_flat_usage_is_about_thirty_percent():
    s = fixed.flat()
    used = {}
    for alloc in s.allocations.values():
        for resources in alloc.values():
            for rc, n in resources.items():
                used[rc] = used.get(rc, 0) + n
    capacity = {}
    for p in s.providers:
        for rc, inv in p.inventories.items():
            ratio = inv.get("allocation_ratio", 1.0)
            capacity[rc] = capacity.get(rc, 0) + (inv["total"] - inv.get("reserved", 0)) * ratio
    for rc in ("VCPU", "MEMORY_MB", "DISK_GB"):
        assert 0.25 < used[rc] / capacity[rc] < 0.35, rc


def test_nested_tree_shape():
    s = fixed.nested(hosts=3)
    assert len(s.providers) == 3 * 9
    assert [p.parent is None for p in s.providers[:9]] == [True] + [False] * 8  # parents first
    pfs = [p for p in s.providers if p.name.endswith(("-pf0", "-pf1"))]
    assert len(pfs) == 12
    assert all("SRIOV_NET_VF" in p.inventories for p in pfs)
    assert {t for p in pfs for t in p.traits if "PHYSNET" in t} == {
        "CUSTOM_PHYSNET_NET0", "CUSTOM_PHYSNET_NET1"}
    # every allocation names providers of the scenario
    uuids = {p.uuid for p in s.providers}
    assert all(set(a) <= uuids for a in s.allocations.values())


def test_wide_queries_and_expected_counts():
    s = fixed.wide()
    assert len(s.providers) == 50 * 9
    assert all(p.inventories["VGPU"]["total"] == 1 for p in s.providers if p.parent)
    by_name = {q.name: q for q in s.queries}
    assert by_name["8 gpu groups isolate"].expected == 40320 * 50
    assert by_name["8 gpu groups isolate limit"].expected == 1000
    assert all(q.target_ms == 200 for q in s.queries if q.limited)
    assert all(q.target_ms is None for q in s.queries if not q.limited)


class FakeClient:
    def __init__(self, count):
        self.body = json.dumps({"allocation_requests": [{}] * count,
                                "provider_summaries": {}}).encode()
        self.calls = 0

    def request(self, method, path, body=None, version=None):
        self.calls += 1
        return 200, self.body, 0.01


def test_run_query_counts_runs_and_candidates():
    s = fixed.wide(hosts=1)
    client = FakeClient(3)
    (result,) = time_queries(client, None, s.name, s.queries[:1], repeat=4)
    assert client.calls == 5  # one warm-up
    assert result.candidates == 3
    assert result.note == "expected 8 candidates"
    assert result.path.startswith("/allocation_candidates?resources=VCPU")


def test_huge_unbounded_queries_are_skipped():
    s = fixed.wide()
    query = next(q for q in s.queries if q.name == "8 gpu groups isolate")
    client = FakeClient(10)
    assert time_queries(client, None, s.name, [query], 1)[0].note.startswith("skipped")
    assert client.calls == 0
    limited = next(q for q in s.queries if q.name == "8 gpu groups isolate limit")
    assert time_queries(client, None, s.name, [limited], 1)[0].candidates == 10


class FailingClient(FakeClient):
    def request(self, method, path, body=None, version=None):
        self.calls += 1
        return 500, b"boom", 0.01


def test_a_failed_query_is_noted_and_not_repeated():
    s = fixed.wide(hosts=1)
    client = FailingClient(0)
    (result,) = time_queries(client, None, s.name, s.queries[1:2], repeat=4)
    assert client.calls == 1 and result.median_ms is None
    assert result.note == (f"failed after 0 s: HTTPError: {s.queries[1].name}: 500 boom")


# -- the scale scenario: generated with SQL, served through the WSGI app ----

@pytest.fixture(scope="module", params=SHAPES)
def generated(request, tmp_path_factory):
    tmp = tmp_path_factory.mktemp(f"scale-{request.param}")
    url = f"sqlite:///{tmp}/scale.sqlite"
    engine = db_engine.create_engine(url)
    gen = scale.generate(engine, 60, request.param)
    yield gen, engine, url, tmp
    engine.dispose()


def test_scale_counts(generated):
    _check_counts(*generated[:2])


def _check_counts(gen, engine):
    with engine.connect() as conn:
        count = conn.execute(sa.select(sa.func.count()).select_from(t.resource_providers))
        assert count.scalar() == gen.providers == gen.roots * (1 if gen.shape == "flat" else 3)
        roots = conn.execute(sa.select(sa.func.count()).where(
            t.resource_providers.c.parent_provider_id.is_(None))).scalar()
        assert roots == gen.roots
        assert conn.execute(sa.select(sa.func.count()).select_from(t.consumers)).scalar() \
            == gen.consumers
        assert conn.execute(sa.select(sa.func.count()).select_from(t.allocations)).scalar() \
            == gen.allocations
        assert len(gen.aggregates) == scale.D["aggregates"]


def test_scale_usage_within_capacity(generated):
    _check_capacity(*generated[:2])


def _check_capacity(gen, engine):
    a, i = t.allocations, t.inventories
    used = sa.select(a.c.resource_provider_id, a.c.resource_class_id,
                     sa.func.sum(a.c.used).label("used"), sa.func.max(a.c.used).label("most")
                     ).group_by(a.c.resource_provider_id, a.c.resource_class_id).subquery()
    with engine.connect() as conn:
        rows = conn.execute(sa.select(used, i.c.total, i.c.reserved, i.c.allocation_ratio,
                                      i.c.max_unit).outerjoin(i, sa.and_(
                                          i.c.resource_provider_id == used.c.resource_provider_id,
                                          i.c.resource_class_id == used.c.resource_class_id))
                            ).all()
    assert rows
    capacity = used_total = 0.0
    for r in rows:
        assert r.total is not None, "allocation without inventory"
        used = int(r.used)  # MySQL sums to Decimal
        assert used <= (r.total - r.reserved) * r.allocation_ratio
        assert r.most <= r.max_unit
        capacity += (r.total - r.reserved) * r.allocation_ratio
        used_total += used
    assert 0.15 < used_total / capacity < 0.45


def test_scale_generations(generated):
    _check_generations(*generated[:2])


def _check_generations(gen, engine):
    """A provider's generation counts the writes the API would have made."""
    rp = t.resource_providers
    with engine.connect() as conn:
        writers = dict(conn.execute(
            sa.select(t.allocations.c.resource_provider_id,
                      sa.func.count(sa.distinct(t.allocations.c.consumer_id)))
            .group_by(t.allocations.c.resource_provider_id)).all())
        with_traits = set(conn.execute(
            sa.select(t.resource_provider_traits.c.resource_provider_id)).scalars())
        with_aggs = set(conn.execute(
            sa.select(t.resource_provider_aggregates.c.resource_provider_id)).scalars())
        with_inv = set(conn.execute(sa.select(t.inventories.c.resource_provider_id)).scalars())
        for row in conn.execute(sa.select(rp.c.id, rp.c.generation, rp.c.root_provider_id,
                                          rp.c.parent_provider_id)):
            expected = ((row.id in with_inv) + (row.id in with_traits) + (row.id in with_aggs)
                        + writers.get(row.id, 0))
            assert row.generation == expected, row
            assert (row.parent_provider_id is None) == (row.root_provider_id == row.id)
        assert set(conn.execute(sa.select(t.consumers.c.generation)).scalars()) == {1}
        orphans = conn.execute(sa.select(sa.func.count()).select_from(t.allocations).where(
            t.allocations.c.consumer_id.not_in(sa.select(t.consumers.c.uuid)))).scalar()
        assert orphans == 0


def test_scale_queries_through_the_app(generated):
    gen, engine, url, tmp = generated
    app = wsgi.create_app(make_conf(tmp, url), db_engine.Database(engine))
    api = Api(app)
    by_name = {q.name: q for q in scale.queries(gen)}
    assert list(by_name) == ["limit=1000", "limit=10", "traits+member_of limit=1000",
                             "providers?resources", "unlimited", "claim",
                             "usages?project_id", "provider usages"]
    answers = {}
    for q in by_name.values():
        path, body = q.request() if q.request else (q.url, None)
        r = api.request(q.method, path, version=VERSION, json=body)
        assert 200 <= r.status_code < 300, (q.name, r.text)
        answers[q.name] = r.json if r.body else None
    unlimited = len(answers["unlimited"]["allocation_requests"])
    assert unlimited >= gen.roots * 0.9  # almost every tree has room for the small request
    assert len(answers["limit=10"]["allocation_requests"]) == 10
    assert 0 < len(answers["traits+member_of limit=1000"]["allocation_requests"]) < unlimited
    assert len(answers["providers?resources"]["resource_providers"]) > 0
    assert answers["usages?project_id"]["usages"]["INSTANCE"]["VCPU"] > 0  # 1.38: by type
    assert answers["provider usages"]["usages"]


def test_scale_generates_on_every_backend(empty_engine, tmp_path):
    """Same data on PostgreSQL (COPY) and MariaDB (multi-row INSERTs), and the
    API can write after it (sequences moved past the generated ids)."""
    gen = scale.generate(empty_engine, 30)
    assert gen.roots == 30
    for check in (_check_counts, _check_capacity, _check_generations):
        check(gen, empty_engine)
    url = empty_engine.url.render_as_string(hide_password=False)
    api = Api(wsgi.create_app(make_conf(tmp_path, url), db_engine.Database(empty_engine)))
    claim = next(q for q in scale.queries(gen) if q.name == "claim")
    path, body = claim.request()
    assert api.put(path, version=VERSION, json=body).status_code == 204
    r = api.post("/resource_providers", version=VERSION, json={"name": "one more"})
    assert r.status_code == 200, r.text
    r = api.get("/allocation_candidates?resources=VCPU:1&limit=5", version=VERSION)
    assert len(r.json["allocation_requests"]) == 5


def test_throw_away_sqlite_database_has_its_own_directory():
    """Without a directory the SQLite file goes in a temporary one, removed on
    drop (databases on servers are the test suite's own, tests/helpers/databases.py)."""
    throw_away = databases.ThrowAwayDatabase("sqlite")
    with throw_away as url:
        path = pathlib.Path(sa.make_url(url).database)
        engine = sa.create_engine(url)
        with engine.begin() as conn:
            conn.exec_driver_sql("CREATE TABLE t (x INTEGER)")
        engine.dispose()
        assert path.exists() and path.stem == throw_away.name
    assert not path.parent.exists()
    assert throw_away.name.startswith("placer_bench_")
    with pytest.raises(ValueError, match="unknown backend"):
        databases.ThrowAwayDatabase("oracle")


# -- the results page: python -m benchmarks report ------------------------------

MACHINE = {"cpu": "Test CPU 9000", "cores": 2, "memory_gib": 8.0, "os": "Test OS 1",
           "kernel": "6.1", "arch": "x86_64", "python": "3.11.7"}


def _row(server, query, median, **extra):
    timed = median is not None
    return {"scenario": "x", "query": query, "candidates": extra.pop("candidates", 1000),
            "size_kb": 123.4, "median_ms": median, "p90_ms": median * 1.25 if timed else None,
            "cpu_ms": median * 0.9 if timed else None, "rss_peak_mb": 90.3 if timed else None,
            "rss_growth_mb": 0.0,
            "target_ms": None, "note": "", "path": "/allocation_candidates?limit=1000",
            "result": "-", "server": server, **extra}


def _fake_results(tmp_path):
    common = {"date": "2026-01-02T03:04:05+00:00", "finished": "2026-01-02T04:00:00+00:00",
              "commit": "0123456789abcdef0123456789abcdef01234567", "dirty": False,
              "machine": MACHINE, "load_average": [0.5, 0.4, 0.3],
              "load_average_after": [1.0, 0.9, 0.8],
              "software": {"python": "3.11.7", "sqlite": "3.40.1", "sqlalchemy": "2.0.1"},
              "reference": {"venv": "/ref", "openstack-placement": "16.0.0",
                            "gunicorn": "23.0.0", "python": "3.11.7", "sqlite": "3.40.1",
                            "SQLAlchemy": "2.0.1"}}
    scale_rows = [
        _row("placer", "limit=1000", 21.44, shape="flat", size=1000, target_ms=150,
             result="PASS"),
        _row("placer", "claim", 2.87, shape="flat", size=1000, candidates=None),
        _row("placer", "limit=1000", 22.06, shape="flat", size=10000),
        _row("placer", "claim", 2.91, shape="flat", size=10000, candidates=None),
        _row("reference", "limit=1000", 84.31, shape="flat", size=1000),
        _row("reference", "claim", 17.77, shape="flat", size=1000, candidates=None),
    ]
    scale_file = {"benchmark": "scale", **common,
                  "command": "python -m benchmarks scale --sizes 1000,10000",
                  "backend": "sqlite", "shape": "flat", "sizes": [1000, 10000],
                  "reference_sizes": [1000], "repeat": 3, "reference_repeat": 2, "workers": 1,
                  "databases": [{"shape": "flat", "size": s, "providers": s, "roots": s,
                                 "consumers": 3 * s, "allocations": 9 * s, "seconds": 0.5}
                                for s in (1000, 10000)],
                  "results": scale_rows}
    flat_rows = [
        {**_row("placer", "small", 42.62), "scenario": "flat"},
        {**_row("placer", "small limit", 27.55, target_ms=100, result="PASS"),
         "scenario": "flat"},
        {**_row("reference", "small limit", 181.4), "scenario": "flat (reference)"},
        {**_row("placer", "huge limit", 30.0), "scenario": "flat"},
        {**_row("reference", "huge limit", None, candidates=None,
                note="failed after 600 s: RemoteDisconnected: closed | no answer"),
         "scenario": "flat (reference)"},
    ]
    scenarios_file = {"benchmark": "scenarios", **common,
                      "command": "python -m benchmarks scenarios all",
                      "version": "1.39", "repeat": 10, "reference_repeat": 5, "workers": 1,
                      "max_candidates": -1, "randomize": False, "dirty": True,
                      "changed_files": ["docs/results/scale.json"],
                      "scenarios": {"flat": {"description": "Compute nodes.", "providers": 1010,
                                             "consumers": 3000, "queries": 3}},
                      "results": flat_rows}
    paths = []
    for name, data in (("scale.json", scale_file), ("scenarios.json", scenarios_file)):
        path = tmp_path / name
        path.write_text(json.dumps(data))
        paths.append(str(path))
    return paths, scale_file, scenarios_file


def _section(page: str, heading: str) -> str:
    return page.split(f"\n{heading}\n", 1)[1].split("\n#", 1)[0]


def _cells(section: str, query: str) -> list[str]:
    header = next(line for line in section.splitlines() if line.startswith("| query |"))
    row = next(line for line in section.splitlines() if line.startswith(f"| {query} |"))
    names = [c.strip() for c in header.strip("|").split("|")]
    return dict(zip(names, (c.strip() for c in row.strip("|").split(" | ")), strict=True))


# matplotlib runs fc-list when it builds its font cache (a fresh home)
@pytest.mark.processes
def test_report_writes_the_tables_and_plots_from_the_results(tmp_path):
    paths, scale_file, scenarios_file = _fake_results(tmp_path)
    out = tmp_path / "results"
    written = report.write(paths, out, [*paths, "--out", str(out)],
                           notes=["Nothing else ran on the machine."])
    plots = ["scale-flat-latency.svg", "scale-flat-memory.svg", "scale-flat-ratio.svg",
             "scenarios-ratio.svg"]
    assert sorted(written) == sorted(["index.md", *plots])
    for name in plots:
        assert (out / name).read_text().lstrip().startswith("<?xml")
        assert "<svg" in (out / name).read_text()
    page = (out / "index.md").read_text()
    # one level-1 heading; the plots are shown with Markdown images
    assert [line for line in page.splitlines() if line.startswith("# ")] == [
        "# Benchmark results"]
    for name in plots:
        assert f"]({name})" in page
    # when, what and where
    assert "2026-01-02T03:04:05+00:00" in page and scale_file["commit"] in page
    assert "Test CPU 9000, 2 cores, 8.0 GiB" in page and "Test OS 1" in page
    assert scale_file["command"] in page and scenarios_file["command"] in page
    assert "python -m benchmarks report " + " ".join(paths) in page
    assert "openstack-placement 16.0.0" in page
    assert "with uncommitted changes to `docs/results/scale.json`" in page
    assert "\nNothing else ran on the machine.\n" in _section(page, "## How they were measured")

    # the tables' numbers are the files'
    rows = {(r["server"], r["query"], r["size"]): r for r in scale_file["results"]}
    at_1k = _section(page, "### 1,000 providers (flat)")
    cells = _cells(at_1k, "limit=1000")
    placer, ref = rows["placer", "limit=1000", 1000], rows["reference", "limit=1000", 1000]
    assert cells["candidates"] == str(placer["candidates"])
    assert cells["Placer median ms"] == f"{placer['median_ms']:.1f}" == "21.4"
    assert cells["Placer p90 ms"] == f"{placer['p90_ms']:.1f}"
    assert cells["Placer CPU ms"] == f"{placer['cpu_ms']:.1f}"
    assert cells["Placer peak RSS MiB"] == f"{placer['rss_peak_mb']:.0f}"
    assert cells["reference median ms"] == f"{ref['median_ms']:.1f}" == "84.3"
    assert cells["reference p90 ms"] == f"{ref['p90_ms']:.1f}"
    assert cells["Placer/reference"] == report.text.ratio_text(
        placer["median_ms"] / ref["median_ms"]) == "0.25"
    assert cells["target"] == "under 150 ms: PASS"
    # 10k: Placer only, and the page says the reference was not run there
    at_10k = _section(page, "### 10,000 providers (flat)")
    assert "The reference was not run at this size." in at_10k
    assert "reference median ms" not in at_10k
    assert _cells(at_10k, "claim")["median ms"] == "2.9"
    assert "**The reference was not run at 10,000 providers**" in page

    flat = _section(page, "### flat")
    small = _cells(flat, "small limit")
    assert small["Placer median ms"] == "27.6" and small["reference median ms"] == "181.4"
    assert small["Placer/reference"] == report.text.ratio_text(27.55 / 181.4) == "0.15"
    assert _cells(flat, "small")["reference median ms"] == ""  # unlimited: Placer only
    huge = _cells(flat, "huge limit")
    assert huge["Placer/reference"] == ""
    assert huge["notes"] == ("reference: failed after 600 s: RemoteDisconnected: "
                             "closed \\| no answer")

    # the same files give the same bytes (no date in the plots)
    again = tmp_path / "again"
    report.write(paths, again, [*paths, "--out", str(out)],
                 notes=["Nothing else ran on the machine."])
    for name in written:
        assert (again / name).read_bytes() == (out / name).read_bytes(), name


def test_report_refuses_a_query_measured_twice(tmp_path):
    paths, _, _ = _fake_results(tmp_path)
    with pytest.raises(report.ReportError, match="two results"):
        report.write([paths[0], paths[0]], tmp_path / "out", [])
    assert main(["report", str(tmp_path / "missing.json"), "--out", str(tmp_path)]) == 1


def _fill_result(shape, order, std, empty, fitting, failure=None, server="placer",
                 **half):
    use = [0.0] * empty + [0.5 + std * (i % 3 - 1) for i in range(6 - empty)]
    return {"order": order, "server": server, "shape": shape,
            "config": {"randomize": order.endswith("random")}, "load_seconds": 1.0,
            "half": {"boots": 40, "placed": 38, "live": 35, "usages_match": True, "hosts": 6,
                     "ram_used_fraction": 0.51, "std_ram_use": std, "max_ram_use": max(use),
                     "empty_hosts": empty, "hosts_fitting_largest": fitting,
                     "ram_use": sorted(use), **half},
            "first_failure": failure, "stopped": "first failure" if failure else "max boots",
            "boots": 120, "placed": 100, "deletes": 10, "failures": 1, "conflicts": 3,
            "conflicts_per_placed": 0.03, "candidates_per_boot": 12.5,
            "end_ram_used_fraction": 0.8,
            "latency": {"candidates": {"count": 120, "median_ms": 10.04, "p90_ms": 14.46},
                        "claim": {"count": 103, "median_ms": 5.0, "p90_ms": 6.0},
                        "delete": {"count": 0, "median_ms": None, "p90_ms": None}},
            "seconds": 12.0}


def _fill_file(tmp_path, **extra):
    failure = {"flavor": "huge", "reason": "no candidates", "boots": 90, "placed": 1234,
               "live": 80, "ram_used_fraction": 0.7349, "a_host_fits": False}
    data = {"benchmark": "fill", "date": "2026-01-03T00:00:00+00:00",
            "finished": "2026-01-03T00:20:00+00:00", "commit": "f" * 40, "dirty": False,
            "machine": MACHINE, "command": "python -m benchmarks fill",
            "version": "1.36", "hosts": 300, "limit": 30,
            "shapes": ["flat"], "orders": ["id", "random", "reference-id"], "max_boots": 6000,
            "seed": 0, "schedulers": 4, "pool": None, "delete_fraction": 0.1, "half": 0.5,
            "flavors": [{"name": "small", "vcpus": 1, "ram_mb": 2048, "disk_gb": 20,
                         "weight": 93},
                        {"name": "huge", "vcpus": 16, "ram_mb": 49152, "disk_gb": 320,
                         "weight": 7}],
            "largest": "huge",
            "host": {"flat": {"VCPU": {"total": 32, "allocation_ratio": 4.0},
                              "MEMORY_MB": {"total": 131072, "reserved": 4096}},
                     "numa_node": {"VCPU": {"total": 16, "allocation_ratio": 4.0}}},
            "workers": 1,
            "results": [_fill_result("flat", "id", 0.4567, 2, 3, failure, empty_most=4),
                        _fill_result("flat", "random", 0.1, 0, 5),
                        _fill_result("flat", "reference-id", 0.12, 0, 4, failure, "reference")],
            "checks": [{"shape": "flat", "check": "pack: more empty hosts", "result": "MISS",
                        "detail": "empty 2 vs 2, fitting 3 vs 3"}],
            **extra}
    path = tmp_path / "fill.json"
    path.write_text(json.dumps(data))
    return str(path), data


def test_report_has_a_fill_section(tmp_path):
    paths, _, _ = _fake_results(tmp_path)
    fill_path, data = _fill_file(tmp_path)
    out = tmp_path / "results"
    written = report.write([*paths, fill_path], out, [*paths, fill_path])
    plots = ["fill-flat-half.svg", "fill-flat-ram-use.svg"]
    assert set(plots) <= set(written)
    page = (out / "index.md").read_text()
    for name in plots:
        assert "<svg" in (out / name).read_text() and f"]({name})" in page
    assert data["command"] in page
    fill_section = page.split("\n## Fill: ", 1)[1]
    assert "`limit=30`" in fill_section and "huge 16 / 49152 / 320 (7%)" in fill_section
    assert "MEMORY_MB 131072 (reserved 4096)" in fill_section
    table = _section(page, "### Fill, flat (300 hosts)")
    lines = [line for line in table.splitlines() if line.startswith("| ")]
    head = [c.strip() for c in lines[0].strip("|").split("|")]
    rows = {r[0]: dict(zip(head, r, strict=True)) for r in
            ([c.strip() for c in line.strip("|").split(" | ")] for line in lines[1:])}
    assert list(rows) == ["id", "random", "reference-id"]
    assert rows["id"]["std dev of RAM use"] == "0.457"
    assert rows["id"]["empty hosts (most possible)"] == "2 (4)"
    assert rows["random"]["empty hosts (most possible)"] == "0"  # a file without the bound
    assert rows["id"]["fit largest"] == "3"
    assert rows["id"]["placed before failure"] == "1,234"
    assert rows["id"]["RAM used at failure"] == "73%"
    assert rows["id"]["failed boot"] == "huge: no candidates"
    assert rows["random"]["placed before failure"] == "none in 120 boots"
    assert rows["random"]["candidates ms"] == "10.0 / 14.5"
    assert rows["random"]["delete ms"] == ""
    assert "- MISS: pack: more empty hosts (empty 2 vs 2, fitting 3 vs 3)" in table
    # the scenarios' pages are unchanged by a fill file beside them
    assert "### flat" in page and "fill" not in _section(page, "### flat")

    # the same order of the same shape in two files is an error
    with pytest.raises(report.ReportError, match="two results"):
        report.write([fill_path, fill_path], tmp_path / "twice", [])

    # a cloud of generations beside it: its own table, checks and plots
    results = [{**r, "cloud": "generations"} for r in data["results"]]
    results[0]["order"] = "spread"
    generations = {"flat": {"VCPU": {"total": 48}, "MEMORY_MB": {"total": 262144}},
                   "numa_node": {}}
    other = tmp_path / "generations.json"
    other.write_text(json.dumps({
        **data, "cloud": "generations", "generations": [generations, generations],
        "results": results, "checks": [{"shape": "flat", "cloud": "generations",
                                        "check": "spread: std dev", "result": "PASS",
                                        "detail": "spread 0.1, random 0.4"}]}))
    written = report.write([fill_path, str(other)], tmp_path / "both", [])
    assert {"fill-flat-half.svg", "fill-flat-generations-half.svg",
            "fill-flat-generations-ram-use.svg"} <= set(written)
    page = (tmp_path / "both" / "index.md").read_text()
    table = _section(page, "### Fill, flat, generations (300 hosts)")
    assert "| spread |" in table and "| id |" not in table
    assert "- PASS: spread: std dev (spread 0.1, random 0.4)" in table
    assert "- MISS" not in table and "- MISS: pack" in _section(page, "### Fill, flat (300 hosts)")
    assert "`--cloud generations`: a third of the hosts each" in page
    assert "VCPU 48, MEMORY_MB 262144; VCPU 48" in page

    # one scheduler: its own table beside the four's
    single = tmp_path / "single.json"
    single.write_text(json.dumps({**data, "schedulers": 1, "checks": [
        {**data["checks"][0], "detail": "one"}]}))
    written = report.write([fill_path, str(single)], tmp_path / "single", [])
    assert "fill-flat-1-scheduler-half.svg" in written
    page = (tmp_path / "single" / "index.md").read_text()
    assert "(one)" in _section(page, "### Fill, flat, 1 scheduler (300 hosts)")
    assert "(one)" not in _section(page, "### Fill, flat (300 hosts)")


def test_the_report_command_writes_the_page(tmp_path, capsys):
    """What it prints is the files it wrote; the page names the command."""
    paths, _, _ = _fake_results(tmp_path)
    out = tmp_path / "page"
    assert main(["report", *paths, "--out", str(out), "--format", "png"]) == 0
    printed = capsys.readouterr().out.split()
    assert printed[0] == str(out / "index.md") and str(out / "scenarios-ratio.png") in printed
    page = (out / "index.md").read_text()
    assert "python -m benchmarks report " + " ".join(paths) in page

"""benchmarks/scenarios/production.py: its ratios and verdicts, the capacity
check of its claims, the requests it times at each size, and the summary the
report renders from results files (hand-written ones here); one run end to
end on a tiny database is marked ``processes``."""

import json
import threading

import pytest

from benchmarks import report
from benchmarks.__main__ import main, parser
from benchmarks.report.production import cell_text
from benchmarks.scenarios import Record, Requests, percentile, production, scale

RATIO = {"kind": "max_ratio", "value": 0.2}
SPEEDUP = {"kind": "min_ratio", "value": 3.0}
MS = {"kind": "max_ms", "value": 150}


def _row(placer_ms, reference, target=RATIO, **placer):
    row = {"placer": {"median_ms": placer_ms, **placer}, "reference": reference}
    row["ratio"], row["ratio_bound"] = production.ratio_of(row["placer"], reference)
    row["verdict"] = production.verdict(target, row)
    return row


def test_ratio_and_verdict_of_latencies():
    met = _row(10.0, {"median_ms": 100.0})
    assert (met["ratio"], met["ratio_bound"], met["verdict"]) == (0.1, False, "met")
    assert _row(20.0, {"median_ms": 100.0})["verdict"] == "met"  # at the target
    missed = _row(32.0, {"median_ms": 100.0})
    assert missed["verdict"] == "missed by 1.6x"
    # the reference answered 500 (usages at 1.39 on PostgreSQL): no ratio, nothing judged
    failed = _row(5.0, {"median_ms": None, "status": 500})
    assert (failed["ratio"], failed["verdict"]) == (None, "-")
    assert cell_text({**failed, "target": RATIO}) == "reference 500"
    # over the cap: the ratio is a bound, enough to meet the target, not to miss it
    capped = _row(50.0, {"median_ms": None, "over_s": 60})
    assert capped["ratio_bound"] and capped["ratio"] == pytest.approx(50 / 60000)
    assert capped["verdict"] == "met"
    assert production.verdict(RATIO, {**capped, "ratio": 0.5}) == "-"
    # Placer failing misses whatever the reference did
    assert _row(None, {"median_ms": 100.0}, status=500)["verdict"] == "missed: Placer 500"
    assert _row(10.0, None)["verdict"] == "-"  # no reference
    assert production.verdict(None, met) == "-"


def test_absolute_targets_and_claims():
    assert _row(83.0, None, MS)["verdict"] == "met"
    assert _row(195.0, None, MS)["verdict"] == "missed by 1.3x"
    fast = {"per_second": 90.0, "violations": []}
    row = {"placer": fast, "reference": {"per_second": 20.0}}
    row["ratio"], bound = production.ratio_of(fast, row["reference"], "per_second")
    assert not bound
    assert row["ratio"] == 4.5 and production.verdict(SPEEDUP, row) == "met"
    assert production.verdict(SPEEDUP, {**row, "ratio": 2.0}) == "missed by 1.5x"
    assert production.verdict(SPEEDUP, {**row, "ratio": 2.98}) == "missed by 1.01x"
    over = {**row, "placer": {**fast, "violations": [{"provider": "a"}, {"provider": "b"}]}}
    assert production.verdict(SPEEDUP, over) == "missed: 2 violations"
    assert production.ratio_of(fast, None, "per_second") == (None, False)
    theirs = {**row, "target": SPEEDUP, "kind": "claims", "verdict": "met",
              "reference": {"per_second": 20.0, "violations": [{"provider": "a"}]}}
    assert cell_text(theirs) == "4.50x (reference: 1 violations), met"


def test_over_capacity():
    inventories = {
        "a": {"VCPU": {"total": 10, "reserved": 2, "allocation_ratio": 1.5},  # 12
              "MEMORY_MB": {"total": 1024, "reserved": 0, "allocation_ratio": 1.0}},
        "b": {"DISK_GB": {"total": 100, "reserved": 10, "allocation_ratio": 1.0}},  # 90
    }
    assert production.over_capacity(inventories, {"a": {"VCPU": 12, "MEMORY_MB": 1024},
                                                   "b": {"DISK_GB": 90}}) == []
    found = production.over_capacity(inventories, {"a": {"VCPU": 13, "MEMORY_MB": 0},
                                                   "b": {"DISK_GB": 91}})
    assert found == [{"provider": "a", "class": "VCPU", "used": 13, "capacity": 12.0},
                     {"provider": "b", "class": "DISK_GB", "used": 91, "capacity": 90.0}]
    # a use without inventory is over a capacity of 0
    assert production.over_capacity(inventories, {"b": {"VCPU": 1}})[0]["capacity"] == 0.0


def test_percentile():
    assert percentile([], 99) is None
    assert percentile([7.0], 99) == 7.0
    assert percentile(list(range(101)), 99) == 99
    assert percentile([1.0, 2.0], 50) == 1.5


def _generated(shape="flat") -> scale.Generated:
    return scale.Generated(
        shape=shape, providers=1000, roots=1000, consumers=3000, allocations=9000,
        aggregates=["agg-0", "agg-1"],
        claims=[{"rp-1": {"VCPU": 1, "MEMORY_MB": 1024, "DISK_GB": 10}},
                {"numa-2": {"VCPU": 1, "MEMORY_MB": 1024}, "root-2": {"DISK_GB": 10}}],
        sample_providers=["rp-1", "root-2"], project="scale-project-0", user="scale-user-0")


def test_requests_at_each_size():
    gen = _generated()
    small = {r.name: r for r in production.requests_for(gen, 1000)}
    assert list(small) == ["limit=1000", "limit=10", "traits+member_of limit=1000",
                           "providers?resources", "providers", "usages?project_id 1.37",
                           "usages?project_id 1.39", "in_tree", "inventories", "aggregates",
                           "traits", "allocations", "resource_classes/VCPU", "unlimited"]
    # the resource tracker's reads go round the sample roots
    tracker = small["inventories"]
    assert [tracker.request() for _ in range(3)] == [
        ("/resource_providers/rp-1/inventories", None),
        ("/resource_providers/root-2/inventories", None),
        ("/resource_providers/rp-1/inventories", None)]
    assert small["in_tree"].request() == ("/resource_providers?in_tree=rp-1", None)
    assert tracker.target == {"kind": "max_ratio", "value": 0.25}
    assert small["limit=10"].url == ("/allocation_candidates?resources=VCPU%3A1%2C"
                                      "MEMORY_MB%3A1024%2CDISK_GB%3A10&limit=10")
    assert small["providers"].url == "/resource_providers"
    assert small["providers"].target == {"kind": "max_ratio", "value": 0.2}
    usages = small["usages?project_id 1.37"]
    assert usages.url == "/usages?project_id=scale-project-0"
    assert (usages.version, small["usages?project_id 1.39"].version) == ("1.37", "1.39")
    assert usages.target["value"] == 0.33 and small["unlimited"].target is None
    one_row = small["resource_classes/VCPU"]  # the fixed cost of a request
    assert (one_row.url, one_row.items, one_row.target) == (
        "/resource_classes/VCPU", None, {"kind": "max_ratio", "value": 0.33})
    assert "unlimited" not in [r.name for r in production.requests_for(gen, 10_000)]
    big = production.requests_for(gen, 100_000)
    assert [(r.name, r.target) for r in big] == [
        ("limit=1000", {"kind": "max_ms", "value": 150}),
        ("limit=10", {"kind": "max_ms", "value": 30})]


def test_claim_bodies():
    gen = _generated("nested")
    flavor = {"VCPU": 2, "MEMORY_MB": 8192, "DISK_GB": 40}
    bodies = production.claim_bodies(gen, flavor, 50, seed=3)
    assert bodies == production.claim_bodies(gen, flavor, 50, seed=3)  # for both servers
    assert bodies != production.claim_bodies(gen, flavor, 50, seed=4)
    layouts = {json.dumps(body["allocations"], sort_keys=True) for body in bodies}
    assert layouts == {
        json.dumps({"rp-1": {"resources": flavor}}, sort_keys=True),
        json.dumps({"numa-2": {"resources": {"VCPU": 2, "MEMORY_MB": 8192}},
                    "root-2": {"resources": {"DISK_GB": 40}}}, sort_keys=True)}
    body = bodies[0]
    assert (body["project_id"], body["consumer_generation"], body["consumer_type"]) == (
        "scale-project-0", None, "INSTANCE")


class FakePlacement:
    """Claims against one provider's VCPU, checked or not, through the
    calls run_claims makes."""

    def __init__(self, capacity: int, checks: bool = True, failed_deletes: int = 0):
        self.capacity, self.checks = capacity, checks
        self.used: dict[str, int] = {}
        self.lock = threading.Lock()
        self.failed_deletes = failed_deletes  # answered 500 before deleting

    def request(self, method, path, body=None, version=None):
        consumer = path.rsplit("/", 1)[1]
        with self.lock:
            if method == "DELETE":
                if self.failed_deletes:
                    self.failed_deletes -= 1
                    return 500, b"", 0.001
                return (204 if self.used.pop(consumer, None) else 404), b"", 0.001
            if consumer in self.used:
                return 409, b'{"errors": [{"code": "placement.concurrent_update"}]}', 0.001
            amount = body["allocations"]["rp"]["resources"]["VCPU"]
            if self.checks and sum(self.used.values()) + amount > self.capacity:
                return 409, b'{"errors": [{"code": "placement.undefined_code"}]}', 0.001
            self.used[consumer] = amount
        return 204, b"", 0.001

    def call(self, method, path, body=None, version=None):
        if path.endswith("/inventories"):
            return {"inventories": {"VCPU": {"total": self.capacity, "reserved": 0,
                                             "allocation_ratio": 1.0}}}
        return {"usages": {"VCPU": sum(self.used.values())}}


@pytest.mark.parametrize("checks", [True, False])
def test_run_claims_counts_conflicts_and_violations(checks):
    server = FakePlacement(capacity=10, checks=checks, failed_deletes=3)
    bodies = [{"allocations": {"rp": {"resources": {"VCPU": 1}}}} for _ in range(30)]
    figures = production.run_claims(server, bodies, writers=4)
    assert figures["claims"] == 30 and figures["providers_checked"] == 1
    if checks:
        assert (figures["ok"], figures["conflicts"], figures["violations"]) == (10, 20, [])
        assert figures["conflict_codes"] == {"placement.undefined_code": 20}
    else:
        assert figures["ok"] == 30 and figures["conflicts"] == 0
        assert figures["violations"] == [{"provider": "rp", "class": "VCPU", "used": 30,
                                          "capacity": 10.0}]
    assert server.used == {} and figures["not_deleted"] == 0  # deleted afterwards
    assert figures["per_second"] == figures["ok"] / figures["seconds"]
    # a second run starts from the same data: new consumers, none left over
    assert production.run_claims(server, bodies, writers=8)["ok"] == figures["ok"]


class FakeInventories:
    """Providers' inventories behind PUTs that check generations, or that
    answer 200 to every third PUT without keeping it (``loses``); every
    fifth PUT is refused with a 500 and not kept (``refuses``)."""

    def __init__(self, hosts, loses: bool = False, refuses: bool = False):
        self.loses, self.refuses, self.puts, self.lock = loses, refuses, 0, threading.Lock()
        self.kept = {rp: {"resource_provider_generation": 3, "inventories": {
            "DISK_GB": {"total": 100, "reserved": 0}}} for rp in hosts}

    def request(self, method, path, body=None, version=None):
        rp = path.split("/")[2]
        with self.lock:
            self.puts += 1
            if self.refuses and self.puts % 5 == 0:
                return 500, b'{"errors": [{"code": "placement.undefined_code"}]}', 0.001
            kept = self.kept[rp]
            if body["resource_provider_generation"] != kept["resource_provider_generation"]:
                return 409, b'{"errors": [{"code": "placement.concurrent_update"}]}', 0.001
            generation = kept["resource_provider_generation"] + 1
            if not (self.loses and self.puts % 3 == 0):
                self.kept[rp] = json.loads(json.dumps(
                    {**body, "resource_provider_generation": generation}))
        return 200, json.dumps({"resource_provider_generation": generation}).encode(), 0.001

    def call(self, method, path, body=None, version=None):
        return json.loads(json.dumps(self.kept[path.split("/")[2]]))


@pytest.mark.parametrize("loses", [False, True])
def test_run_inventory_puts_finds_lost_writes(loses):
    hosts = [f"rp-{i}" for i in range(5)]
    server = FakeInventories(hosts, loses)
    figures = production.run_inventory_puts(server, hosts, writers=3, count=40)
    assert figures["puts"] == 40 and figures["providers_checked"] == 5
    if loses:
        assert figures["violations"] and figures["ok"] < 40
    else:
        assert (figures["ok"], figures["conflicts"], figures["violations"]) == (40, 0, [])
        assert figures["generations_moved"] == 40
        # each PUT moved one reserved unit: host 2, its writer's only one, took 13
        assert server.kept["rp-2"]["inventories"]["DISK_GB"]["reserved"] == 1


def test_a_refused_inventory_put_is_not_a_lost_write():
    hosts = [f"rp-{i}" for i in range(5)]
    figures = production.run_inventory_puts(FakeInventories(hosts, refuses=True), hosts,
                                            writers=3, count=40)
    assert figures["error_statuses"] == {"500 placement.undefined_code": 8}
    assert figures["ok"] == 32 and figures["violations"] == []


def test_mix_figures():
    sent = Requests(client=None)
    sent.records = [Record("candidates", 200, 0.1), Record("claim", 204, 0.02),
                    Record("claim", 409, 0.03), Record("quota", 200, 0.01),
                    Record("inventories", 0, 0.0, "ConnectionResetError")]
    figures = production.mix_figures(sent, seconds=2.0, boots=1)
    assert figures["requests"] == 4 and figures["per_second"] == 2.0
    assert (figures["conflicts"], figures["errors"], figures["boots_per_second"]) == (1, 1, 0.5)
    assert figures["by_kind"]["claim"]["conflicts"] == 1
    assert figures["by_kind"]["inventories"] == {"requests": 1, "conflicts": 0, "errors": 1,
                                                 "p50_ms": None, "p99_ms": None}
    assert figures["p99_ms"] == pytest.approx(percentile([100, 20, 30, 10], 99))


def test_plan_and_mix_size():
    args = parser().parse_args(["production"])
    assert (args.sizes, args.nested_sizes, args.workers, args.repeat,
            args.reference_repeat) == ([100, 1000], [100, 1000], 2, 10, 5)
    # production's defaults are its own: the other timed scenarios keep theirs
    for other in ("scale", "scenarios"):
        theirs = parser().parse_args([other])
        assert (theirs.workers, theirs.repeat, theirs.reference_repeat) == (1, 10, 3)
    assert (production.D["writers"], production.MIX["workers_list"]) == ([8, 32], [1, 2, 4])
    steps = scale.steps(args)
    assert steps == [("flat", 100), ("flat", 1000), ("nested", 100), ("nested", 1000)]
    assert production.mix_at(args, steps) == ("flat", 1000)
    big = parser().parse_args(["production", "--sizes", "100000", "--shape", "flat"])
    assert production.mix_at(big, scale.steps(big)) is None
    assert production.mix_at(parser().parse_args(["production", "--mix-size", "0"]),
                             steps) is None
    nested = parser().parse_args(["production", "--shape", "nested", "--nested-sizes",
                                  "300,3000"])
    assert production.mix_at(nested, scale.steps(nested)) == ("nested", 3000)


def _latency(query, shape, size, placer_ms, reference, target=RATIO):
    row = {"shape": shape, "size": size, "query": query, "kind": "latency",
           "target": target, **_row(placer_ms, reference, target)}
    return row


def _results(backend, version, usages_139):
    results = [
        _latency("limit=1000", "flat", 1000, 10.0, {"median_ms": 200.0}),
        _latency("limit=1000", "flat", 10000, 60.0, {"median_ms": 190.0}),
        _latency("limit=10", "flat", 100000, 45.0, {"median_ms": None, "over_s": 60},
                 {"kind": "max_ms", "value": 30}),
        _latency("usages?project_id 1.39", "flat", 1000, 4.0, usages_139,
                 {"kind": "max_ratio", "value": 0.33}),
    ]
    claims = {"shape": "flat", "size": 1000, "query": "claims, 8 writers", "kind": "claims",
              "target": SPEEDUP,
              "placer": {"per_second": 80.0, "ok": 340, "claims": 400, "conflicts": 60,
                         "errors": 0, "violations": []},
              "reference": {"per_second": 20.0, "ok": 338, "claims": 400, "conflicts": 62,
                            "errors": 0, "violations": []}, "ratio": 4.0, "ratio_bound": False}
    claims["verdict"] = production.verdict(SPEEDUP, claims)
    return {"benchmark": "production", "backend": backend, "database_version": version,
            "date": "2026-11-28T01:00:00+00:00", "finished": "2026-11-28T01:12:00+00:00",
            "commit": "0123456789abcdef", "dirty": False, "workers": 2,
            "sqlite_version": "3.40.1", "machine": {"cores": 2, "memory_gib": 23.5},
            "command": f"python -m benchmarks production --backend {backend}",
            "mix": {"speedup": 5.0}, "results": [*results, claims],
            "throughput": [
                {"shape": "flat", "size": 1000, "server": "placer", "workers": 1,
                 "per_second": 120.0, "p99_ms": 250.0},
                {"shape": "flat", "size": 1000, "server": "reference", "workers": 1,
                 "per_second": 30.0, "p99_ms": 900.0},
                {"shape": "flat", "size": 1000, "server": "placer", "workers": 2,
                 "per_second": 200.0, "p99_ms": 150.0}]}


def _results_files(tmp_path) -> list[str]:
    paths = []
    for backend, version, usages in (
            ("sqlite", "SQLite 3.40.1", {"median_ms": 10.0}),
            ("postgresql", "PostgreSQL 15.14 (Debian 15.14-0+deb12u1) on x86_64-pc-linux-gnu",
             {"median_ms": None, "status": 500})):
        path = tmp_path / f"production-{backend}.json"
        path.write_text(json.dumps(_results(backend, version, usages)))
        paths.append(str(path))
    return paths


@pytest.mark.processes
def test_a_tiny_run_end_to_end(tmp_path, monkeypatch):
    out = tmp_path / "out.json"
    monkeypatch.setitem(production.D, "writers", [4])
    monkeypatch.setitem(production.MIX, "seconds", 1.0)
    monkeypatch.setitem(production.MIX, "workers_list", [1])
    assert main(["production", "--backend", "sqlite", "--sizes", "60", "--shape", "flat",
                 "--workers", "1", "--repeat", "1", "--claims", "30", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    report.write([str(out)], tmp_path / "page", [])
    assert "| limit=10 | ≤ 0.2 | no reference |" in (tmp_path / "page" / "index.md").read_text()
    assert data["benchmark"] == "production" and data["database_version"].startswith("SQLite")
    assert {"date", "commit", "machine", "command", "sqlite_version"} <= data.keys()
    rows = {r["query"]: r for r in data["results"]}
    assert rows["limit=10"]["placer"]["median_ms"] > 0
    assert rows["limit=10"]["placer"]["items"] == 10
    assert rows["limit=10"]["reference"] is None and rows["limit=10"]["verdict"] == "-"
    claims = rows["claims, 4 writers"]["placer"]
    assert claims["violations"] == [] and claims["ok"] + claims["conflicts"] == 30
    (mix,) = data["throughput"]
    assert mix["server"] == "placer" and mix["requests"] > 0 and mix["errors"] == 0


def test_the_results_page_opens_with_the_summary(tmp_path):
    paths = _results_files(tmp_path)
    report.write(paths, tmp_path / "results", ["--out", "results", *paths])
    page = (tmp_path / "results" / "index.md").read_text()
    summary = page.index("## On every database: how much faster, at what size")
    assert summary < page.index("## How they were measured")
    assert "| limit=1000 | ≤ 0.2 | 0.050, met | 0.32, missed by 1.6x |" in page
    assert "### Throughput against workers" in page
    assert "the database server: PostgreSQL 15.14 (Debian 15.14-0+deb12u1)" in page
    assert "## Scenarios" not in page  # production runs are not scenario runs
    # a table per database, its sizes as columns
    sqlite, postgresql = page.index("### SQLite 3.40.1"), page.index("### PostgreSQL 15.14")
    assert summary < sqlite < postgresql
    assert page.count("| query | target | flat 1k | flat 10k | flat 100k |") == 2
    assert ("| limit=10 | under 30 ms at 100k |  |  | 45.0 ms (under 0.00075 of the "
            "reference), missed by 1.5x |") in page
    assert "| usages?project_id 1.39 | ≤ 0.33 | 0.40, missed by 1.2x |  |  |" in page
    assert "| usages?project_id 1.39 | ≤ 0.33 | reference 500 |  |  |" in page
    assert "| claims, 8 writers | ≥ 3x, no violation | 4.00x, met |  |  |" in page
    assert ("| SQLite 3.40.1 | flat 1k | 1 | 120.0 | 250 | 30.0 | 900 | 4.00x | "
            "≥ 5x, missed by 1.2x |") in page
    assert "| PostgreSQL 15.14 | flat 1k | 2 | 200.0 | 150 |  |  |  |  |" in page
    assert "python -m benchmarks production --backend postgresql" in page

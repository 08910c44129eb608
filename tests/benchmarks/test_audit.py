"""The audit benchmark (benchmarks/scenarios/audit.py): a tiny run on SQLite
(without the reference) finds exactly the faults it planted and walks the
providers as nova-manage does, whole and sampled; the report renders its
section from a results file."""

import json

import pytest

from benchmarks import report
from benchmarks.__main__ import main

PLANTED = ("without_inventory", "over_capacity", "split_consumers", "empty_consumers")


@pytest.mark.processes
def test_a_tiny_run_on_sqlite(tmp_path):
    out = tmp_path / "audit.json"
    assert main(["audit", "--sizes", "20,60", "--whole", "30", "--sample", "10",
                 "--repeat", "2", "--workers", "1", "--json", str(out)]) == 0
    data = json.loads(out.read_text())
    assert data["benchmark"] == "audit" and data["backend"] == "sqlite"
    assert {"date", "commit", "command", "machine"} <= data.keys()
    dbs = {db["size"]: db for db in data["databases"]}
    assert dbs[60]["providers"] == 60 and dbs[60]["planted"] == dict.fromkeys(PLANTED, 1)
    assert dbs[60]["allocations"] >= 60 * 2 * 3 + 2  # 2 to 5 consumers, 3 classes, + planted
    rows = {r["size"]: r for r in data["results"]}
    assert [r["server"] for r in data["results"]] == ["placer", "placer"]
    for size, row in rows.items():
        found = row["findings"]
        assert {k: found[k] for k in PLANTED} == dbs[size]["planted"]  # each fault, once
        assert found["unit_violations"] == found["idle_providers"] == 0  # nothing sound
        audit = row["audit"]
        assert audit["query"] == "GET /audit" and audit["median_ms"] > 0
        assert audit["rss_peak_mb"] > 0 and audit["note"] == ""
        assert row["walk"]["requests"] == size + 1 and row["walk"]["per_provider_ms"] > 0
    whole, sampled = rows[20]["walk"], rows[60]["walk"]
    assert not whole["extrapolated"] and whole["timed_requests"] == 21
    assert sampled["extrapolated"] and sampled["timed_requests"] == 11
    assert sampled["seconds"] >= sampled["list_s"]


def _data(backend: str, walks: dict[str, dict]) -> dict:
    return {"benchmark": "audit", "backend": backend, "date": "2026-11-28T09:00:00+00:00",
            "command": f"python -m benchmarks audit --backend {backend}",
            "databases": [{"size": 100_000, "providers": 100_000, "allocations": 1_050_000}],
            "results": [
                {"server": "placer", "size": 100_000, "walk": walks["placer"],
                 "findings": {"over_capacity": 10, "unit_violations": 0, "split_consumers": 10},
                 "audit": {"median_ms": 3456.0, "rss_peak_mb": 180.4}},
                {"server": "reference", "size": 100_000, "walk": walks["reference"]}]}


def test_the_report_section(tmp_path):
    def walk(seconds, ms, extrapolated):
        return {"requests": 100_001, "timed_requests": 2001 if extrapolated else 100_001,
                "extrapolated": extrapolated, "per_provider_ms": ms, "seconds": seconds}

    path = tmp_path / "audit-mysql.json"
    path.write_text(json.dumps(_data("mysql", {"placer": walk(410.2, 4.1, False),
                                               "reference": walk(1320.0, 13.2, True)})))
    report.write([str(path)], tmp_path / "out", [str(path)])
    page = (tmp_path / "out" / "index.md").read_text()
    section = page.split("\n## Audit\n", 1)[1].split("\n## ", 1)[0]
    assert "`GET /resource_providers/{uuid}/allocations`" in section
    assert ("| 1 | MySQL/MariaDB | 100,000 | 1,050,000 | 3.46 | 180 | 100,001 | "
            "1,320.0 s (13.2 ms a provider, **extrapolated** from 2,001) | "
            "410.2 s (4.1 ms a provider) | 382x | "
            "over_capacity 10, split_consumers 10 |") in section
    assert "python -m benchmarks audit --backend mysql" in page  # the run's command

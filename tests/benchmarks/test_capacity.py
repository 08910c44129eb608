"""The capacity benchmark (benchmarks/scenarios/capacity.py): its queries answer
through the app on a generated database of each shape, its checks read the
targets, and the report writes its section."""

import json

import pytest

from benchmarks import report
from benchmarks.__main__ import parser
from benchmarks.scenarios import SHAPES, capacity, scale
from placer import wsgi
from placer.db import engine as db_engine
from placer.schemas import capacity as capacity_schema
from tests.helpers.api import Api, make_conf


@pytest.fixture(scope="module", params=SHAPES)
def generated(request, tmp_path_factory):
    tmp = tmp_path_factory.mktemp(f"capacity-{request.param}")
    url = f"sqlite:///{tmp}/scale.sqlite"
    engine = db_engine.create_engine(url)
    scale.generate(engine, 90, request.param)
    yield request.param, engine, url, tmp
    engine.dispose()


def test_queries_answer_through_the_app(generated):
    shape, engine, url, tmp = generated
    named = capacity.shapes(shape)
    assert len(named) == 20
    assert capacity_schema.configured_shapes([f"{n}={q}" for n, q in named.items()])  # valid shapes
    api = Api(wsgi.create_app(make_conf(tmp, url), db_engine.Database(engine)))
    answers = {}
    for q in capacity.queries(shape):
        if q.path == "/metrics":
            continue  # needs the metrics options: tests/functional/test_capacity_metrics.py
        path, body = q.request() if q.request else (q.path, None)
        r = api.request(q.method, path, version="1.39", json=body)
        assert r.status_code == 200, (q.name, r.text)
        answers[q.name] = r.json
    one = answers["capacity 1 shape"]
    assert one["total"] > 0 and one["roots"]
    assert list(answers["capacity 20 shapes"]["shapes"]) == list(named)
    assert all(len(a["roots"]) <= 100 for a in answers["capacity 20 shapes"]["shapes"].values())
    assert answers["capacity per class"]["resources"]["VCPU"]["free"] > 0


def _row(query, size, median, rss=100.0, result="-"):
    return {"scenario": f"placer flat {size}", "query": query, "median_ms": median,
            "cpu_ms": median, "rss_peak_mb": rss, "result": result, "server": "placer",
            "shape": "flat", "size": size, "backend": "sqlite"}


def test_checks_and_the_report_section(tmp_path):
    rows = [_row("capacity 1 shape", 100_000, 800.0, result="PASS"),
            _row("capacity 20 shapes", 100_000, 2500.0, rss=350.0, result="MISS"),
            _row("metrics exporter+20 shapes", 10_000, 900.0)]
    assert capacity.checks(rows) == [
        "capacity 1 shape at flat 100k: 800 ms < 1000 ms PASS",
        "capacity 20 shapes at flat 100k: 2500 ms < 2000 ms MISS",
        "peak RSS at flat 100k: 350 MiB < 300 MiB MISS",
        "scrape with 20 shapes at flat 10k: 900 ms < 2000 ms PASS"]
    data = {"benchmark": "capacity", "command": "python -m benchmarks capacity --sizes 10000",
            "date": "2026-11-27T22:00:00+00:00", "shape": "flat", "backend": "sqlite",
            "results": rows, "tools": [
                {"server": "placer", "shape": "flat", "size": 10000,
                 "exporter 1+2N requests": 12.5, "exporter requests": 20001,
                 "os-capacity 20 flavors": 3.25},
                {"server": "reference", "shape": "flat", "size": 10000,
                 "exporter 1+2N requests": 40.0, "exporter requests": 20001,
                 "os-capacity 20 flavors": 30.5}]}
    path = tmp_path / "capacity.json"
    path.write_text(json.dumps(data))
    report.write([str(path)], tmp_path / "out", [str(path)])
    page = (tmp_path / "out" / "index.md").read_text()
    section = page.split("\n## Capacity\n", 1)[1]
    assert "| capacity 20 shapes |  | 2500.0 (2500) | 350 | MISS |" in section
    assert "| reference | 10,000 | 40.0 (20,001) | 30.5 |" in section
    assert data["command"] in page


def test_the_benchmarks_command_takes_the_capacity_scenario():
    args = parser().parse_args(["capacity", "--sizes", "100,200", "--tools-sizes", ""])
    assert (args.command, args.sizes, args.tools_sizes, args.shape) == (
        "capacity", [100, 200], [], "flat")

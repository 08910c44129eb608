"""The layers of docs/contributor/architecture.md ("Layers"), as the import
contracts of pyproject.toml ([tool.importlinter]): kept by the code, and
each able to fail, so that a crossing cannot come back by accident
(scripts/test.sh runs lint-imports too; this catches it in a plain pytest
run)."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.processes

ROOT = Path(__file__).resolve().parents[2]
LINT = [sys.executable, "-c",
        "import sys; from importlinter.cli import lint_imports_command; "
        "sys.exit(lint_imports_command())"]


def lint(cwd: Path, *contracts: str, path: Path | None = None) -> subprocess.CompletedProcess:
    args = [*LINT, "--no-cache", "--no-logo"]
    for contract in contracts:
        args += ["--contract", contract]
    env = {**os.environ, "COLUMNS": "200"}  # a report's lines unwrapped
    if path is not None:  # this copy of placer, before the installed one
        env["PYTHONPATH"] = str(path)
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def test_the_code_keeps_every_contract():
    result = lint(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr


# One crossing per contract (the first ones, the crossings the contracts were
# written against): appended to a copy of the package, it breaks that contract.
CROSSINGS = [
    # the engine reading the HTTP layer's query schema
    ("layers", "candidates/search.py", "from placer.schemas import allocation_candidates"),
    ("layers", "db/trees.py", "from placer.http import util"),
    ("layers", "model/inventory.py", "from placer.candidates import service"),
    # past the door: a handler, the database, an annotation in http/
    ("one-door", "handlers/allocation_candidates.py", "from placer.candidates import order"),
    ("one-door", "db/scores.py", "from placer.candidates.order import MISSING"),
    ("one-door", "http/metrics.py",
     "if TYPE_CHECKING:\n    from placer.candidates.service import Timings"),
    # the interface types importing the engine; a module given no layer
    ("candidates-inside", "candidates/store.py", "from placer.candidates import search"),
    ("candidates-inside", "candidates/unplaced.py", "PLACE = None"),
    # the core importing the database or a schema library
    ("pure-core", "candidates/solver.py", "import sqlalchemy"),
    ("pure-core", "model/scores.py", "import jsonschema"),
    # options checking values with the engine or a schema
    ("options", "conf.py", "from placer.candidates import service"),
    ("options", "conf.py", "from placer.schemas import capacity"),
    # the count's parts importing the count; the search importing the count
    ("capacity", "candidates/program.py", "from placer.candidates import count"),
    ("capacity", "candidates/cloud_table.py", "from placer.candidates import program"),
    ("search-not-count", "candidates/search.py", "from placer.candidates import count"),
    ("search-not-count", "candidates/walk.py", "from placer.candidates.program import solve"),
    # the benchmarks tool (module paths from the top: benchmarks/...)
    ("benchmarks", "benchmarks/harness/client.py", "from benchmarks import scenarios"),
    ("report-reads-files", "benchmarks/report/text.py", "from benchmarks.harness import machine"),
    ("report-reads-files", "benchmarks/report/plots.py", "import placer.conf"),
    ("placer-alone", "placer/wsgi.py", "import benchmarks.harness"),
]


@pytest.mark.parametrize(("contract", "module", "line"), CROSSINGS,
                         ids=[f"{c}-{m}" for c, m, _ in CROSSINGS])
def test_a_crossing_breaks_its_contract(tmp_path, contract, module, line):
    for package in (ROOT / "src" / "placer", ROOT / "benchmarks"):
        shutil.copytree(package, tmp_path / package.name,
                        ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    path = module if module.startswith(("benchmarks/", "placer/")) else f"placer/{module}"
    with open(tmp_path / path, "a") as f:
        f.write(f"\n{line}  # noqa\n")
    result = lint(tmp_path, contract, path=tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    # broken by this module (the code itself keeps every contract: the test above)
    assert "BROKEN" in result.stdout
    assert path.removesuffix(".py").replace("/", ".") in result.stdout

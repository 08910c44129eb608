#!/bin/sh
# One command: install into .venv, lint, type-check, check the layers, build
# the documentation (warnings are errors), check the release notes and run the
# whole test suite on SQLite, PostgreSQL and MariaDB, on two cores
# (docs/contributor/testing.md says which servers it expects).
set -e
cd "$(dirname "$0")/.."
sh scripts/install.sh
.venv/bin/ruff check src tests benchmarks
.venv/bin/mypy  # src/placer, as [tool.mypy] in pyproject.toml says
# candidates/ and db/ strictly: the modules they import are read, not reported on
.venv/bin/mypy --strict --follow-imports=silent src/placer/candidates src/placer/db
.venv/bin/lint-imports --no-cache  # the layers: [tool.importlinter] in pyproject.toml
.venv/bin/sphinx-build -q -E -W -b html docs docs/_build/html
.venv/bin/reno lint  # releasenotes/notes: reno's sections, unique ids
# Two pytest-xdist workers (PLACER_TEST_WORKERS; -n 0 runs in one process);
# every test makes its own databases, servers, ports and directories.
exec .venv/bin/python -m pytest -n "${PLACER_TEST_WORKERS:-2}" --durations=20 "$@"

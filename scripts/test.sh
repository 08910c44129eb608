#!/bin/sh
# One command: install into .venv, lint, type-check, build the documentation
# (warnings are errors) and run the whole test suite on SQLite, PostgreSQL and
# MariaDB (docs/contributor/testing.md says which servers it expects).
set -e
cd "$(dirname "$0")/.."
sh scripts/install.sh
.venv/bin/ruff check src tests benchmarks
.venv/bin/mypy  # src/placer, as [tool.mypy] in pyproject.toml says
.venv/bin/sphinx-build -q -E -W -b html docs docs/_build/html
exec .venv/bin/python -m pytest "$@"

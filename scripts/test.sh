#!/bin/sh
# One command: install into .venv, lint, type-check, and run the whole test suite on
# SQLite, PostgreSQL and MariaDB (see README for the servers it expects).
set -e
cd "$(dirname "$0")/.."
sh scripts/install.sh
.venv/bin/ruff check src tests benchmarks
.venv/bin/mypy  # src/placer, as [tool.mypy] in pyproject.toml says
exec .venv/bin/python -m pytest "$@"

#!/bin/sh
# One command: install into .venv what serving needs (nothing is built: no C
# compiler needed) and serve Placer on 127.0.0.1:8778 with the embedded
# defaults (SQLite file ./placer.sqlite, schema created, noauth2).
# scripts/test.sh adds the test and documentation tools to the same .venv.
set -e
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q -e .
exec .venv/bin/placement-api --config-file etc/placement-dev.conf "$@"

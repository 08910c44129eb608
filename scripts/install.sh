#!/bin/sh
# Create .venv (if needed) and install Placer with its test, documentation and
# benchmark-report tools into it.
set -e
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q -e ".[test,docs,benchmarks]"

#!/bin/sh
# One command: install into .venv and serve Placer on 127.0.0.1:8778 with the
# embedded defaults (SQLite file ./placer.sqlite, schema created, noauth2).
set -e
cd "$(dirname "$0")/.."
sh scripts/install.sh
exec .venv/bin/placement-api --config-file etc/placement-dev.conf "$@"

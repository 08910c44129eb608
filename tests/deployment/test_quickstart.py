"""The README's quick start on a fresh clone: it installs what serving
needs, builds nothing (run with CC=/bin/false: no C compiler), and serves."""

import json
import os
import re
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

from tests.helpers.processes import stop_process

pytestmark = pytest.mark.processes

TIME_LIMIT = 600  # seconds: a safety stop for a cold pip cache, not an assertion


def test_quick_start_serves_without_a_compiler(tmp_path):
    clone = tmp_path / "placer"
    subprocess.run(["git", "clone", "-q", str(Path(__file__).parents[2]), str(clone)],
                   check=True)
    env = {k: v for k, v in os.environ.items() if k != "VIRTUAL_ENV"}
    env.update(CC="/bin/false", CXX="/bin/false")
    log = tmp_path / "quickstart.log"
    started = time.monotonic()
    with open(log, "wb") as out:
        proc = subprocess.Popen(["sh", "scripts/quickstart.sh", "--bind", "127.0.0.1:0",
                                 "--workers", "1"], cwd=clone, env=env, stdout=out,
                                stderr=subprocess.STDOUT, start_new_session=True)
    try:
        port = None
        while port is None:
            assert proc.poll() is None, log.read_text(errors="replace")
            assert time.monotonic() - started < TIME_LIMIT, log.read_text(errors="replace")
            found = re.search(r"Listening at: http://127\.0\.0\.1:(\d+)", log.read_text())
            port = found and int(found.group(1))
            time.sleep(0.2)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=30) as answer:
            assert answer.status == 200
            assert json.loads(answer.read())["versions"][0]["max_version"] == "1.39"
    finally:
        stop_process(proc)
    listed = subprocess.run([str(clone / ".venv/bin/python"), "-m", "pip", "list",
                             "--format=json"], capture_output=True, text=True, check=True)
    installed = {p["name"].lower() for p in json.loads(listed.stdout)}
    assert "openstack-placement" in installed
    assert not installed & {"pytest", "uwsgi", "sphinx", "matplotlib"}  # serving only

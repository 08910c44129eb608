"""The documented deployment recipes work as written: the uwsgi and gunicorn
command lines, and the mod_wsgi script (executed the way mod_wsgi does: the
file run as a fresh module, then its ``application`` called per request).

The commands and the script are read from the page that documents them,
docs/deployment/servers.md, so the documentation cannot drift from what is
tested.
"""

import contextlib
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tests.helpers.databases import IN_CI, ThrowAwayDatabase
from tests.helpers.deploy import free_port, request

pytestmark = pytest.mark.processes

PAGE = Path(__file__).parents[2] / "docs" / "deployment" / "servers.md"
DOC = PAGE.read_text()
BIN = Path(sys.executable).parent
TIME_LIMIT = 90.0  # seconds: a safety stop for slow machines, not an assertion


def _documented_command(server: str) -> list[str]:
    found = re.search(rf"- {server}: `({server} [^`]+)`", DOC)
    assert found, f"no {server} command in {PAGE}"
    return shlex.split(found.group(1))


def _documented_wsgi_script() -> str:
    found = re.search(r"```python\n(\s*# placement.wsgi\n.*?)```", DOC, re.S)
    assert found, f"no placement.wsgi script in {PAGE}"
    return textwrap.dedent(found.group(1))


@pytest.fixture
def config_dir(backend, tmp_path):
    """A directory holding a placement.conf for a fresh database."""
    throw_away = ThrowAwayDatabase(backend, tmp_path)
    etc = tmp_path / "etc"
    etc.mkdir()
    (etc / "placement.conf").write_text(
        "[api]\nauth_strategy = noauth2\n"
        f"[placement_database]\nconnection = {throw_away.url}\nsync_on_startup = True\n")
    yield etc
    throw_away.drop()


def _clean_env(**extra) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "OS_PLACEMENT_CONFIG_DIR"}
    env.update(extra)
    return env


@pytest.mark.parametrize("server", ["uwsgi", "gunicorn"])
def test_documented_server_command(server, config_dir, tmp_path):
    argv = _documented_command(server)
    executable = BIN / server
    if not executable.exists():
        message = f"{server} is not installed in {BIN} (pip install -e '.[test]')"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)
    port = free_port()
    # the documented command, listening on a free loopback port instead
    argv = [str(executable)] + [re.sub(r"^(0\.0\.0\.0)?:8778$", f"127.0.0.1:{port}", a)
                                for a in argv[1:]]
    log_path = tmp_path / f"{server}.log"
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(argv, cwd=tmp_path, stdout=log, stderr=subprocess.STDOUT,
                                env=_clean_env(OS_PLACEMENT_CONFIG_DIR=str(config_dir)),
                                start_new_session=True)
    try:
        deadline = time.monotonic() + TIME_LIMIT
        while True:
            try:
                status, body = request(port, "GET", "/")
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"{server} did not serve:\n{log_path.read_text()[-4000:]}")
                time.sleep(0.2)
        assert status == 200, body
        status, body = request(port, "POST", "/resource_providers", {"name": server})
        assert status == 200, body
        created = json.loads(body)["uuid"]
        for _ in range(8):  # whichever process answers, each built its app
            status, body = request(port, "GET", "/resource_providers")
            assert status == 200, body
            assert [p["uuid"] for p in json.loads(body)["resource_providers"]] == [created]
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGINT)  # uwsgi reloads on SIGTERM
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                pass
        with contextlib.suppress(ProcessLookupError):  # the group may be gone
            os.killpg(proc.pid, signal.SIGKILL)  # our own process group only
        proc.wait()
    assert "unable to load app" not in log_path.read_text()


# What mod_wsgi does with a WSGIScriptAlias file: run it as a new module, take
# its ``application``, call it with each request's environ (SCRIPT_NAME is the
# alias). A separate process, so that os.environ and the app start clean.
MOD_WSGI = """
import json, sys, types
import webob

path = sys.argv[1]
module = types.ModuleType("_mod_wsgi_placement")
module.__file__ = path
with open(path) as f:
    exec(compile(f.read(), path, "exec"), module.__dict__)
application = module.__dict__["application"]

def call(method, path, body=None):
    req = webob.Request.blank(path, base_url="http://localhost/placement", method=method)
    req.headers.update({"X-Auth-Token": "admin", "OpenStack-API-Version": "placement 1.39"})
    if body is not None:
        req.content_type = "application/json"
        req.body = json.dumps(body).encode()
    resp = req.get_response(application)
    return [resp.status_code, resp.text]

print(json.dumps([call("POST", "/resource_providers", {"name": "apache"}),
                  call("GET", "/resource_providers")]))
"""


def test_documented_mod_wsgi_script(config_dir, tmp_path):
    script = _documented_wsgi_script()
    assert '"/etc/placement"' in script
    path = tmp_path / "placement.wsgi"
    path.write_text(script.replace('"/etc/placement"', repr(str(config_dir))))
    out = subprocess.run([sys.executable, "-c", MOD_WSGI, str(path)], cwd=tmp_path,
                         env=_clean_env(), capture_output=True, text=True, timeout=TIME_LIMIT)
    assert out.returncode == 0, out.stderr[-4000:]
    (post_status, post_body), (get_status, get_body) = json.loads(out.stdout.splitlines()[-1])
    assert post_status == 200, post_body
    assert get_status == 200, get_body
    assert [p["name"] for p in json.loads(get_body)["resource_providers"]] == ["apache"]

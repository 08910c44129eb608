"""oslo-config-validator with Placer's generator file on the placement.conf
kolla-ansible writes with ``enable_osprofiler`` (tests/data/kolla-placement.conf):
the ``[profiler]`` group it adds is known, as it is to the reference's
generator file, which lists the ``osprofiler`` namespace too."""

import os
import pathlib
import re
import subprocess
import sys

import pytest

pytestmark = pytest.mark.processes

BIN = os.path.dirname(sys.executable)
ROOT = pathlib.Path(__file__).parents[2]
GENERATOR = ROOT / "etc" / "placement" / "config-generator.conf"
KOLLA_CONF = ROOT / "tests" / "data" / "kolla-placement.conf"

# What is left, and why: kolla-ansible also writes [oslo_concurrency] and
# [cache], which no Placement service reads and neither generator file lists
# (the reference's validator reports the same four lines; kolla-ansible
# accepts its exit status 1).
LEFT = [
    "ERROR:oslo_config.validator:oslo_concurrency/lock_path is not part of the sample config",
    "ERROR:oslo_config.validator:cache/backend is not part of the sample config",
    "ERROR:oslo_config.validator:cache/enabled is not part of the sample config",
    "ERROR:oslo_config.validator:cache/memcache_servers is not part of the sample config",
]


def _validate(generator: pathlib.Path) -> tuple[int, list[str]]:
    done = subprocess.run([os.path.join(BIN, "oslo-config-validator"), "--config-file",
                           str(generator), "--input-file", str(KOLLA_CONF)],
                          capture_output=True, text=True, cwd=ROOT, timeout=120, check=False)
    lines = (done.stdout + done.stderr).splitlines()
    return done.returncode, [line for line in lines if line.startswith(("ERROR", "WARNING"))]


def test_kolla_conf_with_osprofiler_has_its_profiler_group():
    text = KOLLA_CONF.read_text()
    assert re.search(r"(?m)^\[profiler\]\nenabled = true\ntrace_sqlalchemy = true\n"
                     r"hmac_keys = \S+\nconnection_string = \S+$", text)


def test_validator_knows_profiler_on_kolla_conf():
    rc, reported = _validate(GENERATOR)
    assert [line for line in reported if "profiler" in line] == []
    assert reported == LEFT
    assert rc == 1  # for LEFT only


def test_validator_reports_profiler_without_the_osprofiler_namespace(tmp_path):
    """The check above can fail: without ``namespace = osprofiler`` the same
    file has its four [profiler] options reported."""
    generator = tmp_path / "config-generator.conf"
    lines = GENERATOR.read_text().splitlines(keepends=True)
    generator.write_text("".join(line for line in lines
                                 if line.strip() != "namespace = osprofiler"))
    assert generator.read_text() != GENERATOR.read_text()
    _, reported = _validate(generator)
    assert [line.rpartition(":")[2] for line in reported if "profiler/" in line] == [
        f"profiler/{name} is not part of the sample config"
        for name in ("enabled", "trace_sqlalchemy", "hmac_keys", "connection_string")]

"""The version scheme: an index that holds the reference cannot replace
Placer with it by "upgrading" (docs/operator/upgrade.md#versions).

Placer's wheel is built from a fresh clone; the reference's 16.0.0 wheel is
downloaded into a directory that serves as the only index. First the
reference installs from there (so the index works and the test cannot pass
by finding nothing), then ``pip install -U openstack-placement`` against it
leaves Placer installed."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.processes

REFERENCE = "openstack-placement==16.0.0"


def _pip(venv: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "--disable-pip-version-check",
                           *args], capture_output=True, text=True, check=True)


def _installed(venv: Path) -> dict[str, str]:
    listed = _pip(venv, "list", "--format=json").stdout
    return {p["name"].lower(): p["version"] for p in json.loads(listed)}


def test_upgrade_against_an_index_with_the_reference_keeps_placer(tmp_path):
    clone = tmp_path / "placer"
    subprocess.run(["git", "clone", "-q", str(Path(__file__).parents[2]), str(clone)],
                   check=True)
    wheels, index = tmp_path / "wheels", tmp_path / "index"
    subprocess.run([sys.executable, "-m", "pip", "-q", "wheel", "--no-deps", "-w", str(wheels),
                    str(clone)], check=True, capture_output=True)
    subprocess.run([sys.executable, "-m", "pip", "-q", "download", "--no-deps", "-d",
                    str(index), REFERENCE], check=True, capture_output=True)
    placer_wheel, = wheels.glob("openstack_placement-*.whl")
    ours = placer_wheel.name.split("-")[1]
    assert ours.startswith("1!")

    # the index serves the reference: a plain install takes it
    plain = tmp_path / "plain"
    subprocess.run([sys.executable, "-m", "venv", str(plain)], check=True)
    _pip(plain, "install", "--no-index", "--find-links", str(index), "--no-deps",
         "openstack-placement")
    assert _installed(plain)["openstack-placement"] == "16.0.0"

    # Placer installed, then upgraded against that index: still Placer
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    _pip(venv, "install", "--no-deps", str(placer_wheel))
    for unpinned in (["-U", "openstack-placement"],
                     ["-U", "--upgrade-strategy", "eager", "openstack-placement>=1.0"]):
        _pip(venv, "install", "--no-index", "--find-links", str(index), "--no-deps",
             *unpinned)
        assert _installed(venv)["openstack-placement"] == ours
    site = _pip(venv, "show", "-f", "openstack-placement").stdout
    assert "placer/__init__.py" in site and "placement/objects" not in site

"""What a results file records about its run: when, which code, on what.

``describe(argv, reference)`` returns the fields that ``python -m
benchmarks --json`` writes beside the results, so that a page made from the
file (``python -m benchmarks.report``) can say how its numbers were made:
the date, the commit of the tree that was measured, the machine, the
command line and, with ``--reference VENV``, what that virtualenv holds.
"""

import datetime
import json
import os
import platform
import shlex
import sqlite3
import subprocess
from pathlib import Path

import sqlalchemy

import placer

# run in the reference's virtualenv: the versions of what serves it
_REFERENCE_VERSIONS = """\
import importlib.metadata as m, json, platform, sqlite3
out = {"python": platform.python_version(), "sqlite": sqlite3.sqlite_version}
for name in ("openstack-placement", "gunicorn", "SQLAlchemy"):
    try:
        out[name] = m.version(name)
    except m.PackageNotFoundError:
        out[name] = None
print(json.dumps(out))
"""


def now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


def describe(argv: list[str], reference: str | None = None,
             module: str = "benchmarks") -> dict:
    tree = Path(placer.__file__).resolve().parent
    # uncommitted changes to tracked files: the commit alone is not what ran
    status = _git(tree, "status", "--porcelain", "--untracked-files=no", strip=False) or ""
    changed = [line[3:] for line in status.splitlines() if line[3:]]
    info = {
        "date": now(),
        "command": f"python -m {module} " + shlex.join(argv),
        "commit": _git(tree, "rev-parse", "HEAD"),
        "dirty": bool(changed),
        "changed_files": changed,  # relative to the repository's root
        "machine": machine(),
        "software": {"python": platform.python_version(), "sqlite": sqlite3.sqlite_version,
                     "sqlalchemy": sqlalchemy.__version__},
    }
    if reference:
        info["reference"] = {"venv": reference, **_reference_versions(reference)}
    return info


def machine() -> dict:
    return {"cpu": _cpu_model(), "cores": os.cpu_count(), "memory_gib": _memory_gib(),
            "os": _os_name(), "kernel": platform.release(), "arch": platform.machine(),
            "python": platform.python_version()}


def _git(tree: Path, *args: str, strip: bool = True) -> str | None:
    try:
        out = subprocess.run(["git", "-C", str(tree), *args], capture_output=True, text=True,
                             timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if out.returncode != 0:
        return None
    return out.stdout.strip() if strip else out.stdout


def _cpu_model() -> str | None:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or None


def _memory_gib() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / 1024 ** 2, 1)
    except OSError:
        pass
    return None


def _os_name() -> str:
    try:
        for line in Path("/etc/os-release").read_text().splitlines():
            if line.startswith("PRETTY_NAME="):
                return line.split("=", 1)[1].strip().strip('"')
    except OSError:
        pass
    return platform.system()


def _reference_versions(venv: str) -> dict:
    python = Path(venv) / "bin" / "python"
    try:
        out = subprocess.run([str(python), "-c", _REFERENCE_VERSIONS], capture_output=True,
                             text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return {}
    if out.returncode != 0:
        return {}
    return json.loads(out.stdout)

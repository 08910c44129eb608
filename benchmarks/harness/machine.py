"""What a results file records of its run: when, which code, on what."""

import datetime
import json
import os
import platform
import shlex
import sqlite3
import subprocess
from pathlib import Path

import sqlalchemy

# run in the reference's virtualenv: the versions of what serves it
_REFERENCE_VERSIONS = """import importlib.metadata as m, json, platform, sqlite3
print(json.dumps({"python": platform.python_version(), "sqlite": sqlite3.sqlite_version,
                  **{name: next((d.version for d in m.distributions(name=name)), None)
                     for name in ("openstack-placement", "gunicorn", "SQLAlchemy")}}))"""


def now() -> str:
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")


def load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def describe(argv: list[str], reference: str | None = None) -> dict:
    """The date, the command, the commit of the tree measured (and its
    uncommitted changes), the machine, the software, and what the
    reference's virtualenv holds."""
    import placer

    tree = Path(placer.__file__).resolve().parent
    status = _run(["git", "-C", str(tree), "status", "--porcelain", "--untracked-files=no"])
    changed = [line[3:] for line in (status or "").splitlines() if line[3:]]
    info = {
        "date": now(), "command": "python -m benchmarks " + shlex.join(argv),
        "commit": (_run(["git", "-C", str(tree), "rev-parse", "HEAD"]) or "").strip() or None,
        "dirty": bool(changed), "changed_files": changed,  # relative to the repository
        "machine": {"cpu": _field("/proc/cpuinfo", "model name", ":") or platform.processor()
                    or None, "cores": os.cpu_count(), "memory_gib": _memory_gib(),
                    "os": (_field("/etc/os-release", "PRETTY_NAME", "=") or platform.system())
                    .strip('"'), "kernel": platform.release(), "arch": platform.machine(),
                    "python": platform.python_version()},
        "software": {"python": platform.python_version(), "sqlite": sqlite3.sqlite_version,
                     "sqlalchemy": sqlalchemy.__version__},
        "placer": str(tree), "cpus": os.cpu_count(), "load_average": load_average(),
    }
    if reference:
        versions = _run([str(Path(reference) / "bin" / "python"), "-c", _REFERENCE_VERSIONS])
        info["reference"] = {"venv": reference, **(json.loads(versions) if versions else {})}
    return info


def header(args, argv: list[str], *options: str, **more) -> dict:
    """A results file's first keys: the benchmark, its run (``describe``),
    these options' values (the reference's repeat only with a reference)
    and ``more``."""
    reference = vars(args).get("reference")
    return {"benchmark": args.command, **describe(argv, reference),
            **{name: getattr(args, name) if name != "reference_repeat" or reference else None
               for name in options}, **more}


def finished(data: dict, **more) -> dict:
    return {**data, "finished": now(), "load_average_after": load_average(),
            **more}


def _run(command: list[str]) -> str | None:
    try:
        out = subprocess.run(command, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return out.stdout if out.returncode == 0 else None


def _field(path: str, name: str, sep: str) -> str | None:
    try:
        lines = Path(path).read_text().splitlines()
    except OSError:
        return None
    return next((line.split(sep, 1)[1].strip() for line in lines if line.startswith(name)), None)


def _memory_gib() -> float | None:
    total = _field("/proc/meminfo", "MemTotal", ":")
    return round(int(total.split()[0]) / 1024 ** 2, 1) if total else None

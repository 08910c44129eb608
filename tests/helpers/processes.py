"""Servers the tests start as processes."""

import http.client
import json
import re
import subprocess
import sys
import time

import pytest

from benchmarks.harness.servers import conf_text, stop_process

TIME_LIMIT = 90.0  # seconds: a safety stop for slow machines, not an assertion


class PlacementApi:
    """placement-api in its own process group, on a loopback port the OS picks."""

    def __init__(self, tmp_path, url: str, workers: int, args=(), **database):
        conf = tmp_path / "placement.conf"
        conf.write_text(conf_text({"api": {"auth_strategy": "noauth2"},
                                   "placement_database": {"connection": url, **database}}))
        self.log_path = tmp_path / "placement-api.log"
        self.port: int | None = None
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "placer.cli.api", "--config-file", str(conf),
                 "--bind", "127.0.0.1:0", "--workers", str(workers), *args],
                stdout=log, stderr=subprocess.STDOUT, start_new_session=True)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def excerpt(self) -> str:
        """The log without the one-line-per-request noise."""
        lines = [line for line in self.log().splitlines() if "placement.requestlog" not in line]
        return "\n".join(lines[-150:])

    def wait_for(self, what: str, check) -> None:
        """Until ``check()`` is true; fails if the server exits meanwhile."""
        deadline = time.monotonic() + TIME_LIMIT
        while not check():
            if self.proc.poll() is not None:
                pytest.fail(f"placement-api exited with {self.proc.returncode} "
                            f"waiting for {what}:\n{self.excerpt()}")
            if time.monotonic() > deadline:
                pytest.fail(f"no {what} in {TIME_LIMIT}s:\n{self.excerpt()}")
            time.sleep(0.1)

    def request(self, path: str) -> tuple[int, http.client.HTTPMessage, dict] | None:
        """(status, headers, body), or None when nothing answers."""
        if self.port is None:
            found = re.search(r"Listening at: http://127\.0\.0\.1:(\d+)", self.log())
            if not found:
                return None
            self.port = int(found.group(1))
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            conn.request("GET", path, headers={"X-Auth-Token": "admin",
                                               "OpenStack-API-Version": "placement 1.39"})
            resp = conn.getresponse()
            return resp.status, resp.headers, json.loads(resp.read() or b"{}")
        except OSError:
            return None
        finally:
            conn.close()

    def status(self, path: str) -> int | None:
        answer = self.request(path)
        return answer and answer[0]

    def workers(self) -> list[int]:
        return [int(p) for p in re.findall(r"Booting worker with pid: (\d+)", self.log())]

    def stop(self) -> None:
        stop_process(self.proc)

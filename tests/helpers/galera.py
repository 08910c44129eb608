"""A throw-away 3-node MariaDB Galera cluster on loopback, for the stress tests.

Each node is a ``mariadbd`` with its own data directory, socket and ports
(client, group communication, IST, SST) under one temporary directory. The
first node bootstraps the cluster (``--wsrep-new-cluster``); the others join
it one at a time and receive their data by rsync SST. ``stop`` kills every
process this module started and removes the directory, whatever happened.

``missing()`` says what is absent from the machine (binaries, provider
library), so callers can skip with a reason.
"""

import os
import pwd
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pymysql

PROVIDERS = ("/usr/lib/galera/libgalera_smm.so", "/usr/lib/galera-4/libgalera_smm.so",
             "/usr/lib/libgalera_smm.so", "/usr/lib64/galera-4/libgalera_smm.so",
             "/usr/lib64/galera/libgalera_smm.so")
SERVER_NAMES = ("mariadbd", "mysqld")
SEARCH_PATH = os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/usr/local/sbin"])
USER, PASSWORD = "placer", "placer"


def _which(*names: str) -> str | None:
    for name in names:
        found = shutil.which(name, path=SEARCH_PATH)
        if found:
            return found
    return None


def server_user() -> str | None:
    """Who the servers run as: ``mysql`` when started by root (root otherwise
    makes the joiner's rsync daemon drop to ``nobody``, who cannot write the
    data directory), else whoever runs the tests."""
    if os.geteuid() != 0:
        return None
    try:
        return pwd.getpwnam("mysql").pw_name
    except KeyError:
        return "root"


def provider_library() -> str | None:
    return next((p for p in PROVIDERS if os.path.exists(p)), None)


def missing() -> list[str]:
    """What this machine lacks to start a cluster (empty: nothing)."""
    absent = []
    if _which(*SERVER_NAMES) is None:
        absent.append("mariadbd")
    if _which("mariadb-install-db", "mysql_install_db") is None:
        absent.append("mariadb-install-db")
    if provider_library() is None:
        absent.append("galera-4 provider (libgalera_smm.so)")
    for tool in ("rsync", "wsrep_sst_rsync"):
        if _which(tool) is None:
            absent.append(tool)
    return absent


def free_ports(count: int) -> list[int]:
    """Loopback ports nobody listens on now (all held open until all are chosen)."""
    sockets = []
    try:
        for _ in range(count):
            s = socket.socket()
            s.bind(("127.0.0.1", 0))
            sockets.append(s)
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


class Node:
    def __init__(self, index: int, base: Path, ports: list[int], cluster_address: str):
        self.index = index
        self.name = f"node{index + 1}"
        self.port, self.gcomm_port, self.ist_port, self.sst_port = ports
        self.dir = base / self.name
        self.datadir = self.dir / "data"
        self.socket = self.dir / "mysqld.sock"
        self.error_log = self.dir / "error.log"
        self.cnf = self.dir / "my.cnf"
        self.cluster_address = cluster_address
        self.proc: subprocess.Popen | None = None

    def write_config(self) -> None:
        self.datadir.mkdir(parents=True)
        # rsync SST runs an rsync daemon as the server's user: it must be able
        # to read and write the data directory and reach it from /.
        user = server_user()
        for path in (self.dir, self.datadir):
            path.chmod(0o755 if user != "root" else 0o777)  # root's daemon drops to nobody
            if user not in (None, "root"):
                shutil.chown(path, user, user)
        provider_options = ";".join([
            f"gmcast.listen_addr=tcp://127.0.0.1:{self.gcomm_port}",
            f"ist.recv_addr=127.0.0.1:{self.ist_port}",
            "gcache.size=16M", "gcache.page_size=16M",
            "evs.suspect_timeout=PT10S", "evs.inactive_timeout=PT30S",
        ])
        user = f"user = {server_user()}\n" if server_user() else ""
        self.cnf.write_text(f"""\
[mysqld]
{user}datadir = {self.datadir}
socket = {self.socket}
pid-file = {self.dir}/mysqld.pid
log-error = {self.error_log}
port = {self.port}
bind-address = 127.0.0.1
skip-name-resolve
skip-log-bin
innodb_buffer_pool_size = 32M
innodb_log_file_size = 16M
innodb_flush_log_at_trx_commit = 0
innodb_use_native_aio = 0
innodb_autoinc_lock_mode = 2
binlog_format = ROW
default_storage_engine = InnoDB
performance_schema = OFF
max_connections = 200
wsrep_on = ON
wsrep_provider = {provider_library()}
wsrep_cluster_name = placer_stress
wsrep_cluster_address = {self.cluster_address}
wsrep_node_name = {self.name}
wsrep_node_address = 127.0.0.1:{self.gcomm_port}
wsrep_node_incoming_address = 127.0.0.1:{self.port}
wsrep_provider_options = "{provider_options}"
wsrep_sst_method = rsync
wsrep_sst_receive_address = 127.0.0.1:{self.sst_port}
wsrep_slave_threads = 2

[client]
socket = {self.socket}
""")

    def install(self) -> None:
        """An initial data directory (the bootstrap node only; joiners get SST)."""
        tool = _which("mariadb-install-db", "mysql_install_db")
        args = [tool, f"--defaults-file={self.cnf}", "--auth-root-authentication-method=normal",
                "--skip-test-db", "--wsrep-on=OFF"]
        if server_user():
            args.append(f"--user={server_user()}")
        result = subprocess.run(args, capture_output=True, text=True, timeout=120)
        if result.returncode != 0:
            raise RuntimeError(f"{self.name}: mariadb-install-db failed:\n"
                               f"{result.stdout}\n{result.stderr}")

    def start(self, bootstrap: bool = False) -> None:
        args = [_which(*SERVER_NAMES), f"--defaults-file={self.cnf}"]
        if bootstrap:
            args.append("--wsrep-new-cluster")
        with open(self.dir / "stdout.log", "wb") as out:
            self.proc = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT,
                                         start_new_session=True,
                                         env={**os.environ, "PATH": SEARCH_PATH})

    def connect(self, **kwargs) -> pymysql.Connection:
        return pymysql.connect(unix_socket=str(self.socket), user="root", autocommit=True,
                               connect_timeout=5, **kwargs)

    def status(self) -> dict[str, str]:
        conn = self.connect()
        try:
            with conn.cursor() as cur:
                cur.execute("SHOW GLOBAL STATUS LIKE 'wsrep_%'")
                return dict(cur.fetchall())
        finally:
            conn.close()

    def wait_synced(self, size: int, deadline: float) -> None:
        last: object = "no answer"
        while time.monotonic() < deadline:
            if self.proc is not None and self.proc.poll() is not None:
                raise RuntimeError(f"{self.name} exited with {self.proc.returncode}:\n"
                                   f"{self.log_tail()}")
            try:
                status = self.status()
                last = {k: status.get(k) for k in ("wsrep_ready", "wsrep_cluster_size",
                                                    "wsrep_local_state_comment")}
                if (status.get("wsrep_ready") == "ON"
                        and status.get("wsrep_local_state_comment") == "Synced"
                        and int(status.get("wsrep_cluster_size", 0)) >= size):
                    return
            except pymysql.err.MySQLError as exc:
                last = exc
            time.sleep(0.2)
        raise RuntimeError(f"{self.name} not synced in a cluster of {size}: {last}\n"
                           f"{self.log_tail()}")

    def url(self, database: str) -> str:
        return f"mysql+pymysql://{USER}:{PASSWORD}@127.0.0.1:{self.port}/{database}"

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)  # its own process group only
            self.proc.wait()

    def log_tail(self, lines: int = 40) -> str:
        try:
            text = self.error_log.read_text(errors="replace").splitlines()
        except OSError:
            return f"({self.error_log}: no log)"
        return f"--- {self.error_log} ---\n" + "\n".join(text[-lines:])


class GaleraCluster:
    """``size`` nodes; ``start`` bootstraps and joins them, ``stop`` tears down."""

    def __init__(self, size: int = 3):
        self.base = Path(tempfile.mkdtemp(prefix="placer-galera-"))
        self.base.chmod(0o755)
        ports = free_ports(4 * size)
        address = "gcomm://" + ",".join(f"127.0.0.1:{ports[4 * i + 1]}" for i in range(size))
        self.nodes = [Node(i, self.base, ports[4 * i:4 * i + 4], address) for i in range(size)]

    def start(self, timeout: float = 120.0) -> None:
        deadline = time.monotonic() + timeout
        first = self.nodes[0]
        for node in self.nodes:
            node.write_config()
        first.install()
        first.start(bootstrap=True)
        first.wait_synced(1, deadline)
        conn = first.connect()
        try:
            with conn.cursor() as cur:
                cur.execute(f"CREATE USER '{USER}'@'%' IDENTIFIED BY '{PASSWORD}'")
                cur.execute(f"GRANT ALL PRIVILEGES ON *.* TO '{USER}'@'%'")
        finally:
            conn.close()
        for size, node in enumerate(self.nodes[1:], start=2):
            node.start()  # one at a time: each joiner takes its SST from a synced donor
            node.wait_synced(size, deadline)
        for node in self.nodes:
            node.wait_synced(len(self.nodes), deadline)

    def create_database(self, name: str) -> None:
        conn = self.nodes[0].connect()
        try:
            with conn.cursor() as cur:
                cur.execute(f"CREATE DATABASE {name}")
        finally:
            conn.close()

    def status(self) -> list[dict[str, str]]:
        return [node.status() for node in self.nodes]

    def logs(self) -> str:
        return "\n".join(node.log_tail() for node in self.nodes)

    def stop(self) -> None:
        try:
            for node in reversed(self.nodes):
                node.stop()
        finally:
            shutil.rmtree(self.base, ignore_errors=True)

"""A database a test can take away and give back, on every backend.

PostgreSQL and MariaDB are reached through a loopback TCP forwarder: cutting
it closes every open connection and turns new ones away (closed right after
accept, as a load balancer with no backend does). The shared servers are
never touched. SQLite "goes away" when the directory holding its file is
renamed: new connections cannot open it.
"""

import contextlib
import os
import socket
import threading

import sqlalchemy as sa

from tests.helpers.databases import ThrowAwayDatabase


class Forwarder:
    """127.0.0.1:<port> -> target, with a switch."""

    def __init__(self, host: str, port: int):
        self.target = (host, port)
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.up = True
        self._sockets: set[socket.socket] = set()
        self._lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:  # closed
                return
            if not self.up:
                client.close()
                continue
            try:
                server = socket.create_connection(self.target)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._sockets.update((client, server))
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, src: socket.socket, dst: socket.socket) -> None:
        with contextlib.suppress(OSError):
            while data := src.recv(65536):
                dst.sendall(data)
        for s in (src, dst):
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)

    def cut(self) -> None:
        self.up = False
        with self._lock:
            sockets, self._sockets = self._sockets, set()
        for s in sockets:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()

    def restore(self) -> None:
        self.up = True

    def close(self) -> None:
        self.cut()
        self.listener.close()


class Outage:
    """A fresh database on ``backend`` whose ``url`` can be cut and restored."""

    def __init__(self, backend: str, tmp_path):
        self.backend = backend
        if backend == "sqlite":
            self._dir = tmp_path / "db"
            self._dir.mkdir()
            self._throw_away = None
            self._forwarder = None
            self.url = f"sqlite:///{self._dir}/placement.sqlite"
            self.internals = [str(self._dir)]
            return
        self._throw_away = ThrowAwayDatabase(backend, tmp_path)
        real = sa.make_url(self._throw_away.url)
        self._forwarder = Forwarder(real.host, real.port)
        self.url = real.set(port=self._forwarder.port).render_as_string(hide_password=False)
        # what a leaked driver error would show
        self.internals = [f"{real.host}", str(self._forwarder.port), self._throw_away.name]

    def cut(self) -> None:
        if self._forwarder:
            self._forwarder.cut()
        else:
            os.rename(self._dir, f"{self._dir}.away")

    def restore(self) -> None:
        if self._forwarder:
            self._forwarder.restore()
        else:
            os.rename(f"{self._dir}.away", self._dir)

    def close(self) -> None:
        if self._forwarder:
            self._forwarder.close()
            self._throw_away.drop()

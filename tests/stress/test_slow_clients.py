"""``placement-api --threads``: clients that send their requests slowly do not
hold the workers. With one worker of four threads, two half-sent requests
stay open while a third client is served, and are answered once complete.
(With the default sync worker the third request would wait until the worker
gave up on the first slow client.)
"""

import socket

import pytest

from tests.helpers.processes import PlacementApi as Server

pytestmark = [pytest.mark.stress, pytest.mark.processes]


def _read_response(sock: socket.socket) -> bytes:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    return data


@pytest.fixture
def threaded_server(tmp_path):
    s = Server(tmp_path, f"sqlite:///{tmp_path}/placement.sqlite", 1,
               ["--threads", "4", "--timeout", "300"], sync_on_startup=True)
    yield s
    s.stop()


def test_slow_clients_do_not_hold_the_worker(threaded_server):
    s = threaded_server
    s.wait_for("answer", lambda: s.status("/") == 200)
    slow = []
    for _ in range(2):
        sock = socket.create_connection(("127.0.0.1", s.port), timeout=120)
        sock.sendall(b"GET / HTTP/1.1\r\nHost: placement\r\n")  # headers not finished
        slow.append(sock)
    try:
        assert s.status("/") == 200
        for sock in slow:
            sock.sendall(b"Connection: close\r\n\r\n")
            assert _read_response(sock).startswith(b"HTTP/1.1 200 ")
    finally:
        for sock in slow:
            sock.close()

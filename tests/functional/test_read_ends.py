"""On MySQL a read's transaction ends (its COMMIT, a round trip) after the
answer is sent, when the WSGI server closes the body (db/engine.py,
``Database.defer_read_ends``; http/app.py): the client does not wait for
it. Elsewhere reads have no such end. Every deferred end runs, whatever
the server does with the body."""

import io
import logging
import sys

import sqlalchemy as sa

from placer import wsgi
from placer.db.tables import traits
from tests.helpers import factories


def _environ(path: str, method: str = "GET") -> dict:
    return {"REQUEST_METHOD": method, "PATH_INFO": path, "QUERY_STRING": "",
            "SERVER_NAME": "127.0.0.1", "SERVER_PORT": "8778", "SERVER_PROTOCOL": "HTTP/1.1",
            "wsgi.url_scheme": "http", "wsgi.input": io.BytesIO(b""), "wsgi.errors": sys.stderr,
            "HTTP_HOST": "127.0.0.1:8778", "HTTP_X_AUTH_TOKEN": "admin",
            "HTTP_OPENSTACK_API_VERSION": "placement 1.39", "wsgi.version": (1, 0),
            "wsgi.multithread": False, "wsgi.multiprocess": True, "wsgi.run_once": False}


def _close(body) -> None:
    if hasattr(body, "close"):  # WSGI: a server closes a body that can be
        body.close()


def _served(app, path: str, method: str = "GET"):
    """(status, the body's bytes, the body not yet closed) as a server sees them."""
    seen = []
    body = app(_environ(path, method), lambda status, headers, exc_info=None: seen.append(status))
    return seen[0], b"".join(body), body


def test_a_read_ends_when_the_server_closes_the_answer(db, conf):
    app = wsgi.create_app(conf, db)
    rp = factories.provider(db, "host", inventory={"VCPU": 8})
    pool = db.engine.pool
    for path, method, reads in ((f"/resource_providers/{rp}/inventories", "GET", 1),
                                ("/resource_classes/VCPU", "GET", 1),
                                # a 404 raised in the read: ended at once
                                ("/resource_classes/CUSTOM_NONE", "GET", 0),
                                ("/resource_classes/VCPU", "HEAD", 0),  # 405
                                (f"/resource_providers/{rp}/nothing", "GET", 0)):
        before = pool.checkedout()
        status, _, body = _served(app, path, method)
        assert status.split()[0] in ("200", "404", "405"), status
        held = pool.checkedout() - before
        assert held == (reads if db.backend == "mysql" else 0), path
        _close(body)
        assert pool.checkedout() == before


def test_every_deferred_read_ends_committed(db):
    """Each connection goes back ended (the pool's reset finds no
    transaction open), reads of one answer as many as they were."""
    db.defer_read_ends()
    for _ in range(3):
        assert db.read(lambda conn: conn.execute(sa.select(sa.func.count())
                                                 .select_from(traits)).scalar()) > 0
    held = db.engine.pool.checkedout()
    db.end_deferred_reads()
    assert held == (3 if db.backend == "mysql" else 0)
    assert db.engine.pool.checkedout() == 0


def test_a_read_that_wrote_is_committed_before_it_returns(db):
    db.defer_read_ends()
    try:
        db.read(lambda conn: conn.execute(traits.insert().values(name="CUSTOM_IN_A_READ")))
        # another connection sees it now: it was committed, not left for later
        seen = db.engine.connect()
        try:
            assert seen.execute(sa.select(traits.c.name).where(
                traits.c.name == "CUSTOM_IN_A_READ")).scalar() == "CUSTOM_IN_A_READ"
        finally:
            seen.close()
        assert db.engine.pool.checkedout() == 0
    finally:
        db.end_deferred_reads()


def test_an_answer_never_closed_is_ended_by_the_next(db, conf):
    app = wsgi.create_app(conf, db)
    _served(app, "/resource_classes/VCPU")  # the body is never closed
    _, _, body = _served(app, "/resource_classes/VCPU")
    assert db.engine.pool.checkedout() == (1 if db.backend == "mysql" else 0)
    _close(body)
    assert db.engine.pool.checkedout() == 0


def test_an_end_that_fails_is_logged_not_raised(db, caplog):
    db.defer_read_ends()
    conn_seen = []

    def read(conn):
        conn_seen.append(conn)
        return conn.execute(sa.select(sa.literal(1))).scalar()

    assert db.read(read) == 1
    if db.backend == "mysql":
        conn_seen[0].connection.driver_connection.close()  # the server went away
    with caplog.at_level(logging.WARNING, logger="placement.db"):
        db.end_deferred_reads()
    ended = [r for r in caplog.records if r.getMessage().startswith("Ending a read")]
    assert len(ended) == (1 if db.backend == "mysql" else 0)
    assert db.engine.pool.checkedout() == 0
    assert db.read(read) == 1  # and the pool serves on
    db.end_deferred_reads()

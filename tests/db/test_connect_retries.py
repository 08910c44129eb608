"""``[placement_database] max_retries`` and ``retry_interval`` at start-up, with
oslo.db's meaning: that many connection attempts (-1: until the database
answers, 0: no check), a warning per failed attempt."""

import logging

import pytest

from placer import exceptions, wsgi
from tests.helpers.api import make_conf
from tests.helpers.faults import Outage

FAILED = "SQL connection failed"


@pytest.fixture
def outage(backend, tmp_path):
    o = Outage(backend, tmp_path)
    yield o
    o.close()


def _conf(tmp_path, outage, max_retries, migrate=True):
    return make_conf(tmp_path, outage.url, placement_database={
        "max_retries": max_retries, "retry_interval": 0, "sync_on_startup": migrate})


def _failures(caplog) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.getMessage().startswith(FAILED)]


def test_gives_up_after_max_retries(outage, tmp_path, caplog):
    outage.cut()
    with caplog.at_level(logging.WARNING), pytest.raises(exceptions.DatabaseUnavailable):
        wsgi.open_database(_conf(tmp_path, outage, 3))
    failures = _failures(caplog)
    assert [m.split(":")[0] for m in failures] == [
        f"{FAILED} (attempt 1, 2 attempts left)", f"{FAILED} (attempt 2, 1 attempts left)",
        f"{FAILED} (attempt 3, 0 attempts left)"]


def test_minus_one_retries_until_the_database_is_back(outage, tmp_path, caplog):
    class RestoreOnThirdFailure(logging.Handler):
        def emit(self, record):
            if record.getMessage().startswith(f"{FAILED} (attempt 3,"):
                outage.restore()

    outage.cut()
    handler = RestoreOnThirdFailure()
    logging.getLogger("placement.db").addHandler(handler)
    try:
        with caplog.at_level(logging.WARNING):
            db = wsgi.open_database(_conf(tmp_path, outage, -1))
    finally:
        logging.getLogger("placement.db").removeHandler(handler)
    assert len(_failures(caplog)) == 3
    assert "unlimited attempts left" in _failures(caplog)[0]
    with db.transaction() as conn:  # and the standard names were synced
        assert conn.exec_driver_sql("SELECT count(*) FROM traits").scalar() > 0
    db.dispose()


def test_zero_retries_does_not_check(outage, tmp_path, caplog):
    """As oslo.db: no start-up check; the first use fails (here: the sync)."""
    outage.cut()
    with caplog.at_level(logging.WARNING), pytest.raises(exceptions.DatabaseUnavailable):
        wsgi.open_database(_conf(tmp_path, outage, 0, migrate=False))
    assert _failures(caplog) == []

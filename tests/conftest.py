"""Shared fixtures: a throw-away database on each backend, and an HTTP client
(the helpers behind them live in tests/helpers/databases.py and api.py).

Backends come from PLACER_TEST_BACKENDS (default: sqlite,postgresql,mysql).
A server that cannot be reached skips its tests, except with CI=true, where
it fails them: CI must prove every backend.

The property and fuzz tests run under one Hypothesis profile, registered
here: derandomized (the same examples on every run) unless
PLACER_FUZZ_RANDOM=1, no deadline, 100 examples unless a test's own
``@settings(max_examples=examples(n))`` says otherwise, and
PLACER_FUZZ_EXAMPLES for every test when it is set (tests/helpers/floors.py).
"""

import os
import subprocess

import pytest
from hypothesis import HealthCheck, settings

from placer import policy, wsgi
from placer.db import engine as db_engine
from placer.db import schema_migrations, sync, tables
from tests.helpers.api import Api, assert_error, make_conf
from tests.helpers.databases import BACKENDS, IN_CI, SERVERS, ThrowAwayDatabase
from tests.helpers.floors import examples

# importable from here too, as before tests/helpers/ held them
__all__ = ["BACKENDS", "IN_CI", "SERVERS", "Api", "ThrowAwayDatabase", "assert_error",
           "make_conf"]

_RANDOM = os.environ.get("PLACER_FUZZ_RANDOM") == "1"
# filter_too_much is off: the candidate query strategies discard what does not
# parse, and a floor (tests/helpers/floors.py) fails a test left with too few
# useful examples instead. A random run keeps Hypothesis' example database,
# so that a failure it finds is tried first next time.
settings.register_profile(
    "placer",
    max_examples=examples(100),
    derandomize=not _RANDOM,
    deadline=None,
    suppress_health_check=[HealthCheck.filter_too_much],
    **({} if _RANDOM else {"database": None}),
)
settings.load_profile("placer")

def pytest_configure(config):
    # matplotlib runs fc-list to build its font cache the first time it is
    # imported on a machine: done here, a report test does not start a process
    try:
        import matplotlib.font_manager  # noqa: F401
    except ImportError:
        pass


@pytest.fixture(autouse=True)
def _processes_are_marked(request, monkeypatch):
    """A test that starts a process carries ``@pytest.mark.processes``, so that
    ``-m "not processes"`` is a run without any; others fail if they start one."""
    if request.node.get_closest_marker("processes"):
        return

    def refused(self, *args, **kwargs):
        raise AssertionError(f"{request.node.nodeid} starts a process: mark it "
                             "@pytest.mark.processes")

    monkeypatch.setattr(subprocess.Popen, "__init__", refused)


@pytest.fixture
def fresh_policy():
    """The policy enforcer is process-wide (``policy.init`` keeps the first):
    a test that builds its own, with other defaults or a file, starts and
    ends without one."""
    policy.reset()
    yield
    policy.reset()


@pytest.fixture(scope="session", params=BACKENDS)
def backend(request) -> str:
    return request.param


@pytest.fixture(scope="session")
def migrated_db(backend, tmp_path_factory):
    """A migrated database on ``backend`` for the whole session."""
    throw_away = ThrowAwayDatabase(backend, tmp_path_factory.mktemp("db"))
    engine = db_engine.create_engine(throw_away.url)
    schema_migrations.upgrade(engine)
    db = db_engine.Database(engine)
    db.write(sync.sync_standard_names)
    yield db
    engine.dispose()
    throw_away.drop()


@pytest.fixture
def empty_engine(backend, tmp_path):
    """An engine on a fresh, unmigrated database on ``backend``."""
    throw_away = ThrowAwayDatabase(backend, tmp_path)
    engine = db_engine.create_engine(throw_away.url)
    yield engine
    engine.dispose()
    throw_away.drop()


def _empty(conn) -> None:
    """Remove everything a test wrote, keeping the synced standard names."""
    for table in tables.placer_metadata.sorted_tables:
        conn.execute(table.delete())
    for table in reversed(tables.metadata.sorted_tables):
        if table.name == "resource_classes":
            conn.execute(table.delete().where(table.c.id >= 10000))
        elif table.name == "resource_providers":
            # MySQL checks the self-references row by row: detach them first
            conn.execute(table.update().values(parent_provider_id=None, root_provider_id=None))
            conn.execute(table.delete())
        elif table.name == "traits":
            conn.execute(table.delete().where(table.c.name.like("CUSTOM\\_%", escape="\\")))
        else:
            conn.execute(table.delete())


@pytest.fixture
def db(migrated_db):
    # an app made on it earlier may have told it to keep the trees' scores
    migrated_db.keep_scores = False
    migrated_db.write(_empty)
    return migrated_db


@pytest.fixture
def conf(tmp_path):
    return make_conf(tmp_path)


@pytest.fixture
def api(db, conf):
    """An HTTP client on a fresh app over the (emptied) backend database."""
    return Api(wsgi.create_app(conf, db))

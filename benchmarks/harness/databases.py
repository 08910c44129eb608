"""Throw-away databases: a new, empty database for one run, dropped after:
a SQLite file, or a uniquely named database on a PostgreSQL or MySQL
server (no other database is touched). The tests add their servers and
their skip-or-fail policy (tests/helpers/databases.py)."""

import contextlib
import tempfile
import uuid

import sqlalchemy as sa
from sqlalchemy.engine import Engine

SERVERS = {  # each backend's default server (where --backend creates its database)
    "postgresql": "postgresql+psycopg://postgres@127.0.0.1:5432/postgres",
    "mysql": "mysql+pymysql://root@127.0.0.1:3306/mysql",
}
BACKENDS = ("sqlite", *SERVERS)


class ThrowAwayDatabase:
    """``create()`` makes the database and returns its URL (kept in ``url``),
    ``drop()`` removes it; or ``with ThrowAwayDatabase(backend) as url:``.
    ``server``: the server's URL (default: ``SERVERS``); ``directory``: where
    the SQLite file goes (default: a temporary directory, removed by
    ``drop``); ``prefix``: of the database's name, which ends in random hex
    digits. ``create`` raises sqlalchemy.exc.OperationalError when the
    server cannot be reached."""

    def __init__(self, backend: str, server: str | None = None, directory=None,
                 prefix: str = "placer_bench"):
        if backend not in BACKENDS:
            raise ValueError(f"unknown backend {backend!r}")
        self.backend, self.server = backend, server or SERVERS.get(backend)
        self.directory, self.name, self.url = directory, f"{prefix}_{uuid.uuid4().hex[:12]}", ""
        self._admin: Engine | None = None
        self._tmp: tempfile.TemporaryDirectory | None = None

    def create(self) -> str:
        if self.backend == "sqlite":
            if self.directory is None:
                self._tmp = tempfile.TemporaryDirectory(prefix="placer-db-")
            self.url = f"sqlite:///{self.directory or self._tmp.name}/{self.name}.sqlite"
            return self.url
        server = sa.make_url(self.server)
        admin = sa.create_engine(server, isolation_level="AUTOCOMMIT")
        try:
            with admin.connect() as conn:
                conn.exec_driver_sql(f"CREATE DATABASE {self.name}")
        except BaseException:
            admin.dispose()
            raise
        self._admin = admin
        self.url = server.set(database=self.name).render_as_string(hide_password=False)
        return self.url

    def drop(self) -> None:
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None
        if self._admin is not None:
            with self._admin.connect() as conn:
                force = " WITH (FORCE)" if self.backend == "postgresql" else ""
                conn.exec_driver_sql(f"DROP DATABASE IF EXISTS {self.name}{force}")
            self._admin.dispose()
            self._admin = None

    def __enter__(self) -> str:
        return self.create()

    def __exit__(self, *exc) -> None:
        self.drop()


@contextlib.contextmanager
def engine_at(url: str):
    """``with engine_at(url) as engine:`` Placer's engine, disposed after."""
    from placer.db import engine as db_engine

    engine = db_engine.create_engine(url)
    try:
        yield engine
    finally:
        engine.dispose()


def prepare(engine: Engine) -> None:
    """Migrate a fresh database and sync the standard classes and traits."""
    from placer.db import schema_migrations, sync

    schema_migrations.upgrade(engine)
    with engine.begin() as conn:
        sync.sync_standard_names(conn)


def version(engine: Engine) -> str:
    """The database server's version ("SQLite 3.40.1" for a file)."""
    with engine.connect() as conn:
        if conn.dialect.name == "sqlite":
            return "SQLite " + conn.exec_driver_sql("SELECT sqlite_version()").scalar()
        return str(conn.exec_driver_sql("SELECT version()").scalar())

"""Schema migrations: runs alembic's scripts for placement-manage db sync and
sync_on_startup. Two histories: the reference's schema (db/alembic/,
version table alembic_version, the reference's revision ids) and Placer's
own tables (db/alembic_placer/, version table placer_alembic_version), so
that the reference's own ``db sync`` after a roll-back meets only
revisions it knows."""

import os

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Connection, Engine

from placer.db.scores import VERSION_TABLE

_SCRIPTS = os.path.join(os.path.dirname(__file__), "alembic")
_PLACER_SCRIPTS = os.path.join(os.path.dirname(__file__), "alembic_placer")


def _config(connection: Connection | None, scripts: str = _SCRIPTS) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", scripts)
    cfg.attributes["connection"] = connection
    return cfg


def upgrade(engine: Engine, revision: str = "head") -> None:
    """The reference's schema to ``revision``; at its head, Placer's tables too."""
    with engine.begin() as conn:
        command.upgrade(_config(conn), revision)
        if revision == "head" or revision == head():
            command.upgrade(_config(conn, _PLACER_SCRIPTS), "head")


def stamp(engine: Engine, revision: str) -> None:
    with engine.begin() as conn:
        command.stamp(_config(conn), revision)


def version(engine: Engine) -> str | None:
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def placer_version(engine: Engine) -> str | None:
    with engine.connect() as conn:
        return MigrationContext.configure(
            conn, opts={"version_table": VERSION_TABLE}).get_current_revision()


def head() -> str | None:
    return ScriptDirectory.from_config(_config(None)).get_current_head()


def placer_head() -> str | None:
    return ScriptDirectory.from_config(_config(None, _PLACER_SCRIPTS)).get_current_head()

"""Schema migrations: runs alembic's scripts (db/alembic/) for placement-manage
db sync and sync_on_startup."""

import os

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Engine

_SCRIPTS = os.path.join(os.path.dirname(__file__), "alembic")


def _config(connection) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", _SCRIPTS)
    cfg.attributes["connection"] = connection
    return cfg


def upgrade(engine: Engine, revision: str = "head") -> None:
    with engine.begin() as conn:
        command.upgrade(_config(conn), revision)


def stamp(engine: Engine, revision: str) -> None:
    with engine.begin() as conn:
        command.stamp(_config(conn), revision)


def version(engine: Engine) -> str | None:
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def head() -> str | None:
    return ScriptDirectory.from_config(_config(None)).get_current_head()

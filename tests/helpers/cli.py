"""Running a command-line entry point in-process, as the tests of the CLIs do,
and a database for them to read."""

import contextlib

from placer import wsgi
from placer.db import engine as db_engine
from placer.db import schema_migrations, sync
from tests.helpers.api import Api, make_conf
from tests.helpers.candidates import Env
from tests.helpers.databases import ThrowAwayDatabase


def runner(main):
    """``run(capsys, *args) -> (exit code, stdout, stderr)`` for ``main``."""

    def run(capsys, *args):
        code = main(list(args))
        out, err = capsys.readouterr()
        return code, out, err

    return run


@contextlib.contextmanager
def cloud(backend: str, tmp_path):
    """(Env, url): a throw-away database of ``backend``, migrated and synced,
    and a named world on an app over it, for commands to read; dropped after."""
    throw_away = ThrowAwayDatabase(backend, tmp_path)
    engine = db_engine.create_engine(throw_away.url)
    try:
        schema_migrations.upgrade(engine)
        db = db_engine.Database(engine)
        db.write(sync.sync_standard_names)
        yield Env(Api(wsgi.create_app(make_conf(tmp_path, throw_away.url), db))), throw_away.url
    finally:
        engine.dispose()
        throw_away.drop()

"""Application factory, and ``application`` for uwsgi, mod_wsgi and gunicorn.

``application`` is a plain function (WSGI servers look it up in the module's
namespace) that builds the app on its first call in each process, from the
configuration the reference would read: ``OS_PLACEMENT_CONFIG_DIR``/placement.conf,
else oslo.config's default locations (/etc/placement/placement.conf ...).
Building it there rather than at import keeps database connections out of a
pre-forking server's master, and a build that fails (database away) is tried
again on the next request instead of leaving the process unable to serve.
"""

import logging
import threading

from oslo_log import log as oslo_log

from placer import collector, exceptions, policy
from placer import conf as placer_conf
from placer.db import engine as db_engine
from placer.db import migration, sync
from placer.http import app as http_app
from placer.http import errors, requestlog
from placer.routes import ROUTES

LOG = logging.getLogger(__name__)


def open_database(conf) -> db_engine.Database:
    """Connect (retrying as ``[placement_database] max_retries`` and
    ``retry_interval`` say), check the database can serve the API, migrate if
    asked to, and sync the standard classes and traits."""
    db_conf = conf.placement_database
    engine = db_engine.create_engine(db_conf.connection, db_conf)
    try:
        db_engine.wait_for_connection(engine, db_conf.max_retries, db_conf.retry_interval)
        db = db_engine.Database(engine)
        db.read(db_engine.check_features)
        if db_conf.sync_on_startup:
            migration.upgrade(engine)
        db.write(sync.sync_standard_names)
    except BaseException:
        engine.dispose()
        raise
    return db


def create_app(conf, db: db_engine.Database | None = None):
    """The whole WSGI application for ``conf`` (and ``db``, for tests)."""
    policy.init(conf)
    db = db or open_database(conf)
    return http_app.wrap(http_app.create_app(db, conf, ROUTES), conf, db)


def init_application(args: list[str] | None = None):
    conf = placer_conf.new_config(args, placer_conf.default_config_files())
    oslo_log.setup(conf, "placement")
    app = create_app(conf)
    collector.tune()
    return app


_lock = threading.Lock()
_application = None


def _refusal(exc: exceptions.DatabaseUnavailable):
    def app(environ, start_response):
        return errors.render(environ, exc.status, exc.detail, None, exc.headers)(
            environ, start_response)
    return app


def application(environ, start_response):
    """The WSGI entry point: the app for the configuration found at first call."""
    global _application
    if _application is None:
        with _lock:
            if _application is None:
                try:
                    _application = init_application()
                except exceptions.DatabaseUnavailable as exc:
                    # the API's outermost middleware gives the answer its
                    # request id, JSON by default and its log line
                    return requestlog.RequestLog(_refusal(exc))(environ, start_response)
    return _application(environ, start_response)

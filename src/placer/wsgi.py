"""Application factory, and ``application`` for uwsgi, mod_wsgi and gunicorn.

``application`` is built on first access from the configuration the reference
would read: ``OS_PLACEMENT_CONFIG_DIR``/placement.conf, else oslo.config's
default locations (/etc/placement/placement.conf ...).
"""

import gc
import logging
import threading

from oslo_log import log as oslo_log

from placer import conf as placer_conf
from placer import policy
from placer.db import engine as db_engine
from placer.db import migration, sync
from placer.http import app as http_app
from placer.routes import ROUTES

LOG = logging.getLogger(__name__)


def open_database(conf) -> db_engine.Database:
    """Connect, migrate if asked to, and sync the standard classes and traits."""
    engine = db_engine.create_engine(conf.placement_database.connection,
                                     conf.placement_database)
    if conf.placement_database.sync_on_startup:
        migration.upgrade(engine)
    db = db_engine.Database(engine)
    db.write(sync.sync_standard_names)
    return db


def create_app(conf, db: db_engine.Database | None = None):
    """The whole WSGI application for ``conf`` (and ``db``, for tests)."""
    policy.init(conf)
    db = db or open_database(conf)
    return http_app.wrap(http_app.create_app(db, conf, ROUTES), conf)


def tune_gc() -> None:
    """For a serving process, once the app is built: move everything imported
    so far out of the collector's sight and collect young objects less often.
    A candidates request makes tens of thousands of short-lived objects, and
    with the defaults repeated full collections cost more than the request's
    own work (measured: benchmarks/ README figures)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(50_000, 20, 20)


def init_application(args: list[str] | None = None):
    conf = placer_conf.new_config(args, placer_conf.default_config_files())
    oslo_log.setup(conf, "placement")
    app = create_app(conf)
    tune_gc()
    return app


_lock = threading.Lock()
_application = None


def __getattr__(name: str):
    global _application
    if name != "application":
        raise AttributeError(name)
    with _lock:
        if _application is None:
            _application = init_application()
    return _application

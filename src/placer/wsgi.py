"""The application factory behind every way Placer is served.

WSGI servers load ``placement.wsgi.api:application`` (uwsgi, mod_wsgi,
gunicorn: the reference's module path), or the ``placement-api`` script as a
WSGI file; both call ``init_application``. It builds the whole app at import
from the configuration the reference reads (``OS_PLACEMENT_CONFIG_DIR``/
placement.conf, else oslo.config's default locations such as
/etc/placement/placement.conf), without touching the database: a broken
configuration fails the import with its reason, and a database that is away
only makes requests answer 503 until it is back (``Database``'s ``prepare``).
``placement-api`` run as a command connects first instead (``open_database``).
"""

import functools
from typing import Any

from oslo_config import cfg
from oslo_log import log as oslo_log

from placer import collector, policy
from placer import conf as placer_conf
from placer.candidates import service
from placer.db import candidates as candidates_db
from placer.db import engine as db_engine
from placer.db import schema_migrations, sync
from placer.http import app as http_app
from placer.route_table import ROUTES, policy_defaults
from placer.schemas import capacity as capacity_schema


def prepare_database(db: db_engine.Database, migrate: bool) -> None:
    """What a database needs before it serves the API: the features checked,
    the schema migrated if ``migrate`` (``sync_on_startup``), the standard
    classes and traits synced. (Making the trees' scores exact, where they
    are kept, is the Database's own first step: db/engine.py.)"""
    db.read(db_engine.check_features)
    if migrate:
        schema_migrations.upgrade(db.engine)
    db.write(sync.sync_standard_names)


def lazy_database(conf: cfg.ConfigOpts) -> db_engine.Database:
    """The database of ``conf``, reached and prepared by the first request that
    needs it. A malformed URL or a missing driver fails here."""
    return db_engine.Database(db_engine.engine_for(conf), prepare=functools.partial(
        prepare_database, migrate=conf.placement_database.sync_on_startup))


def open_database(conf: cfg.ConfigOpts) -> db_engine.Database:
    """The database of ``conf``, connected now (retrying as ``[placement_database]
    max_retries`` and ``retry_interval`` say) and prepared."""
    db_conf = conf.placement_database
    engine = db_engine.engine_for(conf)
    try:
        db_engine.wait_for_connection(engine, db_conf.max_retries, db_conf.retry_interval)
        db = db_engine.Database(engine)
        prepare_database(db, db_conf.sync_on_startup)
    except BaseException:
        engine.dispose()
        raise
    return db


def check_config(conf: cfg.ConfigOpts) -> None:
    """The values that only the engine can check (the candidate order's
    weights, the capacity shapes), as oslo.config's own checks fail: a
    ``ConfigFileValueError`` that stops the start."""
    try:
        service.check_order_weights(conf.placer.candidate_order_weights)
        capacity_schema.configured_shapes(conf.placer.capacity_shapes)
    except ValueError as exc:
        raise cfg.ConfigFileValueError(str(exc)) from None


def create_app(conf: cfg.ConfigOpts, db: db_engine.Database | None = None) -> Any:
    """The whole WSGI application for ``conf`` (and ``db``, for tests and
    ``placement-api``, which opens it first). The configuration tells the
    database here, once, whether its writes keep the trees' scores: only
    the spread and pack orders read them."""
    check_config(conf)
    policy.init(conf, policy_defaults())
    db = db or lazy_database(conf)
    db.keep_scores = service.order_from_conf(conf).scored
    candidates_db.keep_records(db, conf.placer.provider_cache_size)
    return http_app.make(db, conf, ROUTES)


def init_application(args: list[str] | None = None):
    """The app a WSGI server serves: configuration read and checked, logging
    set up as oslo.log's options say, the database left for the first request."""
    conf = placer_conf.new_config(args, placer_conf.default_config_files())
    oslo_log.setup(conf, "placement")
    app = create_app(conf)
    collector.tune()
    return app

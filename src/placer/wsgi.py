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
import logging

from oslo_log import log as oslo_log

from placer import collector, policy
from placer import conf as placer_conf
from placer.candidates import service
from placer.db import engine as db_engine
from placer.db import schema_migrations, scores, sync
from placer.http import app as http_app
from placer.route_table import ROUTES, policy_defaults

LOG = logging.getLogger("placement.db")


def prepare_database(db: db_engine.Database, migrate: bool, scored: bool = False) -> None:
    """What a database needs before it serves the API: the features checked,
    the schema migrated if ``migrate`` (``sync_on_startup``), the standard
    classes and traits synced, and, for an order that reads the trees'
    scores (``scored``), the scores made exact: writes keep them only while
    such an order is configured."""
    db.read(db_engine.check_features)
    if migrate:
        schema_migrations.upgrade(db.engine)
    db.write(sync.sync_standard_names)
    if not scored:
        return
    if not db.read(scores.present):
        LOG.warning("The candidate order needs the trees' score tables, which are missing: "
                    "candidates come in id order until 'placement-manage db sync' "
                    "creates them.")
        return
    # checked first without the lock, so that workers finding them exact
    # (the usual start) do not wait for each other
    rebuilt = db.read(scores.stale) and db.write(scores.make_exact)
    if rebuilt:
        LOG.info("Rebuilt the scores of %d provider trees for the candidate order "
                 "(they did not match the providers: written while the order was id or "
                 "random, or by another service).", rebuilt)


def scored(conf) -> bool:
    """Whether ``conf``'s candidate order reads the trees' scores."""
    return service.order_from_conf(conf).scored


def lazy_database(conf) -> db_engine.Database:
    """The database of ``conf``, reached and prepared by the first request that
    needs it. A malformed URL or a missing driver fails here."""
    keep = scored(conf)
    return db_engine.Database(db_engine.engine_for(conf), prepare=functools.partial(
        prepare_database, migrate=conf.placement_database.sync_on_startup, scored=keep),
        keep_scores=keep)


def open_database(conf) -> db_engine.Database:
    """The database of ``conf``, connected now (retrying as ``[placement_database]
    max_retries`` and ``retry_interval`` say) and prepared."""
    db_conf = conf.placement_database
    engine = db_engine.engine_for(conf)
    try:
        db_engine.wait_for_connection(engine, db_conf.max_retries, db_conf.retry_interval)
        keep = scored(conf)
        db = db_engine.Database(engine, keep_scores=keep)
        prepare_database(db, db_conf.sync_on_startup, keep)
    except BaseException:
        engine.dispose()
        raise
    return db


def create_app(conf, db: db_engine.Database | None = None):
    """The whole WSGI application for ``conf`` (and ``db``, for tests)."""
    policy.init(conf, policy_defaults())
    db = (db or lazy_database(conf)).keeping_scores(scored(conf))
    return http_app.make(db, conf, ROUTES)


def init_application(args: list[str] | None = None):
    """The app a WSGI server serves: configuration read and checked, logging
    set up as oslo.log's options say, the database left for the first request."""
    conf = placer_conf.new_config(args, placer_conf.default_config_files())
    oslo_log.setup(conf, "placement")
    app = create_app(conf)
    collector.tune()
    return app

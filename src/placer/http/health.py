"""``/healthcheck`` for load balancers: oslo.middleware's Healthcheck, served
before authentication.

Its checks are ``[healthcheck] backends``: by default ``placement_database``
(Placer's: 503 when the database does not answer ``SELECT 1``); operators can
add oslo.middleware's ``disable_by_file`` (503 while ``disable_by_file_path``
exists, to drain a node). ``[healthcheck] detailed`` adds each check's details.
"""

import logging
import threading

import sqlalchemy as sa
from oslo_middleware import healthcheck
from oslo_middleware.healthcheck import pluginbase

from placer.db import engine as db_engine

LOG = logging.getLogger("placement.healthcheck")

PATH = "/healthcheck"


class DatabaseCheck(pluginbase.HealthcheckBaseExtension):
    """The ``placement_database`` backend (entry point in oslo.middleware.healthcheck)."""

    def __init__(self, oslo_conf, conf):
        super().__init__(oslo_conf, conf)
        self.database: db_engine.Database | None = None  # HealthCheck hands the API's
        self._lock = threading.Lock()

    def _engine(self) -> sa.Engine:
        with self._lock:
            if self.database is None:  # loaded outside HealthCheck: a pool of its own
                self.database = db_engine.Database(db_engine.engine_for(self.oslo_conf))
            return self.database.engine

    def _select_one(self) -> None:
        with self._engine().connect() as conn:
            conn.exec_driver_sql("SELECT 1")

    def healthcheck(self, server_port: int) -> pluginbase.HealthcheckResult:
        try:
            try:
                self._select_one()
            except sa.exc.DBAPIError as exc:
                if not exc.connection_invalidated:
                    raise
                # a pooled connection closed since its last use (the pool
                # does not ping them): a new one says whether the database is there
                self._select_one()
        except Exception as exc:  # any failure means "do not send traffic here"
            LOG.warning("Health check: the database is unreachable: %s", exc)
            cause = getattr(exc, "orig", None) or exc
            return pluginbase.HealthcheckResult(
                available=False, reason="DATABASE UNAVAILABLE",
                details=f"{type(cause).__name__}: {str(cause).splitlines()[0]}")
        return pluginbase.HealthcheckResult(available=True, reason="OK")


class HealthCheck:
    """Answers ``GET``/``HEAD /healthcheck`` with oslo.middleware's Healthcheck;
    everything else (and what that middleware ignores, e.g. a source outside
    ``allowed_source_ranges``) goes on to the API."""

    def __init__(self, app, conf, db: db_engine.Database | None = None):
        self.application = app
        self.check = healthcheck.Healthcheck(app, conf)
        for extension in self.check._backends:
            if isinstance(extension.obj, DatabaseCheck) and db is not None:
                extension.obj.database = db

    def __call__(self, environ, start_response):
        if environ.get("PATH_INFO") == PATH:
            return self.check(environ, start_response)
        return self.application(environ, start_response)

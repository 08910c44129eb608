"""The falcon application and the WSGI middleware around it."""

import logging

import falcon
import sqlalchemy.exc
from oslo_config import cfg
from oslo_middleware import cors

import placer
from placer import exceptions, microversions
from placer.db.engine import Database
from placer.http import (
    auth,
    bodylimit,
    errors,
    health,
    metrics,
    profiler,
    proxy,
    requestlog,
    routing,
    util,
    version_header,
)
from placer.http.request import Request

LOG = logging.getLogger("placement.api")


class _Bind:
    """Falcon middleware that hands each request its version, context, store
    and route table."""

    def __init__(self, db: Database, conf: cfg.ConfigOpts, routes: routing.Table):
        self.db, self.conf, self.routes = db, conf, routes

    def process_request(self, req: Request, resp: falcon.Response) -> None:
        ctx = req.context
        ctx.version = req.env[errors.MICROVERSION_ENVIRON]
        ctx.auth = req.env[auth.CONTEXT_ENVIRON]  # always set by auth.ContextMiddleware
        ctx.db, ctx.conf, ctx.routes = self.db, self.conf, self.routes
        clen = req.env.get("CONTENT_LENGTH")
        try:
            if clen and int(clen) > 0 and not req.env.get("CONTENT_TYPE"):
                raise exceptions.BadRequest("content-type header required when "
                                            "content-length > 0")
        except ValueError:
            raise exceptions.BadRequest("content-length header must be an integer") from None


def _serve(req: falcon.Request, resp: falcon.Response, status: int, detail: str | None,
           code: str | None = None, headers=None) -> None:
    err = errors.render(req.env, status, detail, code, headers)
    resp.status = err.status
    resp.data = err.body
    resp.content_type = err.content_type and err.headers.get("Content-Type")
    for name, value in (headers or {}).items():
        resp.set_header(name, value)


def _placer_error(req, resp, ex: exceptions.PlacerError, params) -> None:
    _serve(req, resp, ex.status, ex.detail or None, ex.code, getattr(ex, "headers", None))


def _falcon_error(req, resp, ex: falcon.HTTPError, params) -> None:
    _serve(req, resp, ex.status_code, ex.description)


def _unexpected(req, resp, ex: Exception, params) -> None:
    if isinstance(ex, falcon.HTTPError):
        return _falcon_error(req, resp, ex, params)
    if isinstance(ex, sqlalchemy.exc.DataError):
        # A client value the database cannot store (a NUL byte, an
        # out-of-range number): the request is at fault, not the server.
        message = str(ex.orig).splitlines()[0] if ex.orig else str(ex)
        return _serve(req, resp, 400, f"Invalid input: {message}")
    LOG.exception("unexpected error: %s", ex)
    _serve(req, resp, 500, str(ex))


def make(db: Database, conf: cfg.ConfigOpts, routes: routing.Table):
    """The whole WSGI application serving the route table ``routes`` over
    ``db``: the falcon app inside the middleware pipeline (and, with
    ``[profiler] enabled``, osprofiler's middleware around it all, as the
    reference places it)."""
    tracing = profiler.setup(conf, db.engine)  # before _pipeline logs the options
    app = _pipeline(_api(db, conf, routes), conf, routes, db)
    return tracing(app) if tracing else app


def _api(db: Database, conf: cfg.ConfigOpts, routes: routing.Table) -> falcon.App:
    """The bare API (no auth, no microversion negotiation): see ``_pipeline``."""
    app = falcon.App(middleware=[_Bind(db, conf, routes)], request_type=Request,
                     cors_enable=False)
    app.req_options.keep_blank_qs_values = True
    app.req_options.auto_parse_qs_csv = False
    app.req_options.strip_url_path_trailing_slash = False
    # bodiless answers carry no Content-Type (falcon accepts None, its types say str)
    app.resp_options.default_media_type = None  # type: ignore[assignment]
    app.add_error_handler(Exception, _unexpected)
    app.add_error_handler(falcon.HTTPError, _falcon_error)
    app.add_error_handler(exceptions.PlacerError, _placer_error)
    routing.add_routes(app, routes, conf)
    metrics.install(app, conf)  # the route labels, if [placer] metrics_enabled
    return app


class _EndReadsAfterAnswer:
    """Around the API: the request's reads end after the answer is sent
    (``Database.defer_read_ends``), when the WSGI server closes the body."""

    def __init__(self, app, db: Database):
        self.app, self.db = app, db

    def __call__(self, environ, start_response):
        self.db.defer_read_ends()
        try:
            body = self.app(environ, start_response)
        except BaseException:
            self.db.end_deferred_reads()
            raise
        return util.AfterClose(body, self.db.end_deferred_reads)


def _pipeline(app, conf: cfg.ConfigOpts, routes: routing.Table, db: Database):
    """The middleware pipeline, innermost first, as the reference composes it
    (plus the size limit and /healthcheck, which checks ``db``)."""
    config_log = logging.getLogger("placement.wsgi")
    if conf.log_options and config_log.isEnabledFor(logging.DEBUG):
        conf.log_opt_values(config_log, logging.DEBUG)  # at start-up, as the reference
    LOG.info("Placer %s: the Placement API, microversions %s to %s", placer.version(),
             microversions.text(microversions.BASE), microversions.text(microversions.MAX))
    open_paths = routes.open_paths()
    if metrics.enabled(conf) and conf.placer.metrics_open:
        open_paths |= {"/metrics"}  # no token for a static scrape configuration
    if db.backend == "mysql":
        app = _EndReadsAfterAnswer(app, db)
    app = version_header.middleware(app)
    app = auth.ContextMiddleware(app, open_paths)
    if conf.api.auth_strategy == "noauth2":
        app = auth.NoAuth(app, open_paths)
    else:
        app = auth.Keystone(app, conf, open_paths)
    if conf.cors.allowed_origin:
        app = cors.CORS(app, conf)
    app = bodylimit.BodySizeLimit(app, conf)
    app = metrics.middleware(app, conf, routes.paths)  # counts 401s and 413s too
    app = requestlog.RequestLog(app)
    app = health.HealthCheck(app, conf, db)  # before auth; not logged per probe
    app = proxy.middleware(app, conf)
    return app

"""placement-api: serve Placer with gunicorn (multi-process WSGI)."""

import argparse
import os
import signal
import sys

from gunicorn.app.base import BaseApplication
from gunicorn.arbiter import Arbiter

import placer
from placer import collector, exceptions
from placer import conf as placer_conf


class _Arbiter(Arbiter):
    """gunicorn's master, holding its signals across the fork of a worker.

    A new worker runs the master's handlers until gunicorn sets its own; a
    stop signal caught meanwhile was queued where nothing reads it, and the
    worker served on until the master killed it at the end of its graceful
    timeout. Held, it waits for the worker's handlers instead."""

    def spawn_worker(self):
        held = signal.pthread_sigmask(signal.SIG_BLOCK, self.SIGNALS)
        try:
            return super().spawn_worker()  # returns in the master only
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)


def _release_signals(worker) -> None:
    """gunicorn's post_worker_init: the worker's own handlers are set."""
    signal.pthread_sigmask(signal.SIG_UNBLOCK, Arbiter.SIGNALS)


class _Server(BaseApplication):
    def __init__(self, app_factory, options: dict):
        self._factory, self._options = app_factory, options
        super().__init__()

    def load_config(self):
        self.cfg.set("post_worker_init", _release_signals)
        for key, value in self._options.items():
            self.cfg.set(key, value)

    def load(self):
        return self._factory()

    def run(self):
        try:
            _Arbiter(self).run()
        except RuntimeError as exc:  # as gunicorn's own run: a bad setting
            print(f"placement-api: {exc}", file=sys.stderr)
            sys.exit(1)


def build_parser() -> argparse.ArgumentParser:
    """placement-api's command line (docs/operator/commands.md renders it)."""
    parser = argparse.ArgumentParser(prog="placement-api", description=__doc__)
    parser.add_argument("--version", action="version", version=placer.version())
    parser.add_argument("--config-file", action="append", default=[],
                        help="placement.conf to read (repeatable); default: "
                             "$OS_PLACEMENT_CONFIG_DIR/placement.conf or "
                             "/etc/placement/placement.conf")
    parser.add_argument("--config-dir", action="append", default=[])
    parser.add_argument("--bind", default="127.0.0.1:8778", help="HOST:PORT to listen on")
    parser.add_argument("--workers", type=int, default=1, help="worker processes")
    parser.add_argument("--timeout", type=int, default=30,
                        help="seconds a worker may spend on one request before it is "
                             "killed and restarted (gunicorn's worker timeout)")
    parser.add_argument("--worker-class", default="sync",
                        help="gunicorn worker class: sync (one request at a time per "
                             "worker) or gthread (a thread per connection, see --threads)")
    parser.add_argument("--threads", type=int, default=1,
                        help="threads per worker; more than 1 selects the gthread worker, "
                             "so slow clients do not hold a whole worker")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)

    oslo_args = [a for f in args.config_file for a in ("--config-file", f)]
    oslo_args += [a for d in args.config_dir for a in ("--config-dir", d)]
    default_files = None if oslo_args else placer_conf.default_config_files()
    from placer import wsgi

    try:
        # Parse once up front so a bad or incomplete config fails loudly here.
        conf = placer_conf.new_config(oslo_args, default_files)
        wsgi.check_config(conf)
    except Exception as exc:  # oslo.config's errors say what is missing
        print(f"placement-api: configuration error: {exc}", file=sys.stderr)
        return 1

    from oslo_log import log as oslo_log

    from placer.db import engine
    from placer.http import metrics

    oslo_log.setup(conf, "placement")  # the workers inherit it
    try:
        # Connect (with the configured retries), migrate if asked to and sync
        # the standard names once, here, before any worker exists: workers
        # then need no database to boot, so one respawned while the database
        # is away starts anyway and serves when it is back.
        db = wsgi.open_database(conf)
    except exceptions.DatabaseUnavailable:
        print("placement-api: the database cannot be reached", file=sys.stderr)
        return 1
    except exceptions.UnsupportedDatabase as exc:
        print(f"placement-api: {exc.detail}", file=sys.stderr)
        return 1
    # With metrics, the workers write theirs to files that GET /metrics sums:
    # the directory must be set before prometheus_client is first imported,
    # which building the app below does.
    metrics_dir = metrics.prepare_multiprocess() if metrics.enabled(conf) else None
    # Build the app once here too: every handler module is imported before
    # the fork, so a broken install fails here, and workers share the code;
    # where the candidate order keeps the trees' scores, they are made exact
    # now, once (the workers then find them so).
    wsgi.create_app(conf, db)
    try:
        db.make_ready()
    except exceptions.DatabaseUnavailable:
        print("placement-api: the database cannot be reached", file=sys.stderr)
        return 1
    db.dispose()

    def factory():
        db = engine.Database(engine.engine_for(conf))
        app = wsgi.create_app(conf, db)
        collector.tune()  # in the worker: preload_app is off
        return app

    # gunicorn's control socket is one per user by default: servers would share it
    master = os.getpid()
    try:
        _Server(factory, {"bind": args.bind, "workers": args.workers, "timeout": args.timeout,
                          "worker_class": args.worker_class, "threads": args.threads,
                          "accesslog": None, "preload_app": False,
                          "control_socket_disable": True}).run()
    finally:
        if os.getpid() == master:  # a worker's exit passes through here too
            metrics.cleanup(metrics_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())

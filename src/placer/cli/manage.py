"""placement-manage: database administration, as the reference's command.

    placement-manage [--config-file PATH ...] [--config-dir DIR] db sync
    placement-manage ... db version | db stamp REV | db online_data_migrations [--max-count N]
    placement-manage ... explain [--microversion X.Y] "QUERY"   (Placer's own: cli/explain.py)
    placement-manage ... capacity [--shape NAME=QUERY] [--json]   (Placer's own: cli/capacity.py)
    placement-manage ... scores rebuild | drop                   (Placer's own: cli/scores.py)
    placement-manage ... audit [--kind K]... [--fix] [--nova] [--json]  (Placer's own: cli/audit.py)

Arguments are parsed by oslo.config (sub-command options), so the usage text,
the logging options and the config file lookup are the reference's. Output and
exit codes too: ``db version`` prints the revision (``None`` if unversioned);
``online_data_migrations`` prints a summary table and exits 0 when nothing is
left, 1 when ``--max-count`` stopped it with work done, 2 when migrations failed
and none made progress, 127 for a bad ``--max-count``. Errors exit 1.
"""

import argparse
import logging
import sys
import traceback

import prettytable
from oslo_config import cfg

import placer
from placer import conf as placer_conf
from placer.cli import audit, capacity, explain, scores
from placer.db import data_migrations, schema_migrations
from placer.db import engine as db_engine

LOG = logging.getLogger("placement.manage")
PROG = "placement-manage"
DEFAULT_BATCH = 50


def db_sync(conf) -> int:
    engine = db_engine.engine_for(conf)
    try:
        schema_migrations.upgrade(engine, "head")
    finally:
        engine.dispose()
    return 0


def db_version(conf) -> int:
    engine = db_engine.engine_for(conf)
    try:
        print(schema_migrations.version(engine))
    finally:
        engine.dispose()
    return 0


def db_stamp(conf) -> int:
    engine = db_engine.engine_for(conf)
    try:
        schema_migrations.stamp(engine, conf.command.version)
    finally:
        engine.dispose()
    return 0


def _run_batch(db: db_engine.Database, conf, max_count: int) -> tuple[dict, bool]:
    """One pass over the migrations sharing ``max_count`` rows between them.

    Returns {name: (found, done)} for the migrations that ran, and whether any
    of them raised. Later migrations are skipped once the budget is used up.
    """
    results: dict[str, tuple[int, int]] = {}
    failed = False
    ran = 0
    for fn in data_migrations.MIGRATIONS:
        try:
            found, done = db.write(fn, conf, max_count - ran)
        except Exception:
            msg = f"Error attempting to run {fn!r}"
            print(msg)
            LOG.exception(msg)
            failed = True
            found = done = 0
        if found:
            print(f"{found} rows matched query {fn.__name__}, {done} migrated")
        results[fn.__name__] = (found, done)
        ran += done
        if ran >= max_count:
            break
    return results, failed


def db_online_data_migrations(conf) -> int:
    max_count = conf.command.max_count
    limited = max_count is not None
    if limited:
        try:
            max_count = int(max_count)
        except ValueError:
            max_count = -1
        if max_count < 1:
            print("Must supply a positive value for max_count")
            return 127
    else:
        max_count = DEFAULT_BATCH
        print(f"Running batches of {max_count} until complete")

    db = db_engine.Database(db_engine.engine_for(conf))
    totals: dict[str, list[int]] = {}
    try:
        while True:
            results, failed = _run_batch(db, conf, max_count)
            ran = 0
            for name, (found, done) in results.items():
                total = totals.setdefault(name, [0, 0])
                total[0] += found
                total[1] += done
                ran += done
            if limited or not ran:
                break
    finally:
        db.dispose()

    table = prettytable.PrettyTable(["Migration", "Total Found", "Completed"])
    for name, (found, done) in totals.items():
        table.add_row([name, found, done])
    print(table)

    # With --max-count, failures are not final while others progressed: their
    # work may be what the failing ones were waiting for.
    if failed and not (limited and ran):
        print("Some migrations failed unexpectedly. Check log for details.")
        return 2
    return 1 if ran else 0


def _add_db_parsers(subparsers) -> None:
    subparsers.required = False  # so that a bare "placement-manage" prints help
    db = subparsers.add_parser("db")
    db.set_defaults(func=lambda conf: db.print_help())
    actions = db.add_subparsers(description="database commands")

    def action(name, func, text):
        parser = actions.add_parser(name, help=text, description=text)
        parser.set_defaults(func=func)
        return parser

    action("sync", db_sync, "Sync the database to the current version.")
    action("version", db_version, "Report the current database version.")
    stamp = action("stamp", db_stamp, "Stamp the revision table with the given version.")
    stamp.add_argument("version", help="the version to stamp")
    online = action("online_data_migrations", db_online_data_migrations,
                    "Run the online data migrations.")
    online.add_argument("--max-count", metavar="<number>",
                        help="Maximum number of objects to consider")
    explain.add_parser(subparsers)  # Placer's own: docs/operator/explain.md
    capacity.add_parser(subparsers)  # Placer's own: docs/operator/capacity.md
    scores.add_parser(subparsers)  # Placer's own: docs/operator/candidate-order.md
    audit.add_parser(subparsers)  # Placer's own: docs/operator/audit.md


def cli_config() -> cfg.ConfigOpts:
    """A ConfigOpts with every placement option; add CLI options, then parse_args."""
    conf = cfg.ConfigOpts()
    placer_conf.register_opts(conf)
    return conf


def parse_args(conf: cfg.ConfigOpts, argv: list[str], prog: str,
               version: str | None = None) -> int | None:
    """Parse ``argv`` and the config files into ``conf``, as the reference does.

    Returns None when parsed, else the exit code: argparse's for --help,
    --version and usage errors, 1 (with a message) for missing files or options.
    """
    try:
        conf(argv, project="placement", prog=prog, version=version,
             default_config_files=placer_conf.default_config_files())
    except SystemExit as exc:
        return 0 if exc.code is None else exc.code if isinstance(exc.code, int) else 1
    except cfg.Error as exc:
        print(f"{prog}: {exc}", file=sys.stderr)
        return 1
    return None


def cli_parser(conf: cfg.ConfigOpts, prog: str, argv: list[str]) -> argparse.ArgumentParser:
    """The argparse parser oslo.config builds for ``conf``'s command line, as
    ``parse_args`` uses it, for the docs: built by parsing ``argv`` (which must
    be valid) without reading any file or the environment."""
    try:
        conf(argv, project="placement", prog=prog, version=placer.version(),
             default_config_files=[], default_config_dirs=[], use_env=False)
    except cfg.RequiredOptError:
        pass  # [placement_database] connection: no file was read; the parser is whole
    parser = conf._oparser  # oslo.config has no public accessor for it
    assert parser is not None
    return parser


def manage_config() -> cfg.ConfigOpts:
    """placement-manage's options: every placement option and the sub-commands."""
    conf = cli_config()
    conf.register_cli_opt(cfg.SubCommandOpt("db", dest="command", title="Command",
                                            help="Available DB commands",
                                            handler=_add_db_parsers))
    return conf


def build_parser() -> argparse.ArgumentParser:
    """placement-manage's command line (docs/operator/commands.md renders it)."""
    return cli_parser(manage_config(), PROG, [])


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    conf = manage_config()
    failed = parse_args(conf, argv, PROG, placer.version())
    if failed is not None:
        return failed

    try:
        func = conf.command.func
    except cfg.NoSuchOptError:  # no category given
        conf.print_help()
        return 1
    try:
        return func(conf) or 0
    except Exception as exc:
        # The reference lets these escape as a traceback (exit 1); say the
        # same thing shorter, with the traceback under --debug.
        if conf.debug:
            traceback.print_exc()
        print(f"{PROG}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())

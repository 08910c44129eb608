"""placement-status upgrade check: the reference's readiness checks.

Built on oslo.upgradecheck as the reference is, so the table, the check names
and the exit codes are the same: 0 success, 1 warning, 2 failure, 255 when a
check itself blew up (e.g. the database is not migrated).
"""

import argparse
import sys

from oslo_config import cfg
from oslo_upgradecheck import common_checks, upgradecheck

import placer
from placer.candidates import service
from placer.cli.manage import cli_config, cli_parser, parse_args
from placer.db import data_migrations, scores
from placer.db import engine as db_engine

PROG = "placement-status"
_RUN_MIGRATIONS = 'Run the "placement-manage db online_data_migrations" command.'


class Checks(upgradecheck.UpgradeCommands):
    """The checks, in the reference's order and with its names and texts."""

    def __init__(self, conf: cfg.ConfigOpts):
        self.conf = conf
        self._db: db_engine.Database | None = None

    def _read(self, fn):
        if self._db is None:  # built before the config is parsed: connect late
            self._db = db_engine.Database(db_engine.engine_for(self.conf))
        return self._db.read(fn)

    def close(self) -> None:
        if self._db is not None:
            self._db.dispose()

    def _check_root_provider_ids(self) -> upgradecheck.Result:
        # A failure since Train: the block-on-null migration refuses to run.
        if self._read(data_migrations.count_missing_root_ids):
            return upgradecheck.Result(
                upgradecheck.Code.FAILURE,
                details="There is at least one resource provider table record which "
                        f"misses its root provider id. {_RUN_MIGRATIONS}")
        return upgradecheck.Result(upgradecheck.Code.SUCCESS)

    def _check_incomplete_consumers(self) -> upgradecheck.Result:
        missing = self._read(data_migrations.count_incomplete_consumers)
        if missing:
            return upgradecheck.Result(
                upgradecheck.Code.WARNING,
                details=f"There are {missing} incomplete consumers table records for "
                        f"existing allocations. {_RUN_MIGRATIONS}")
        return upgradecheck.Result(upgradecheck.Code.SUCCESS)

    def _check_policy_json(self) -> upgradecheck.Result:
        return common_checks.check_policy_json(self, self.conf)

    def _check_scores(self) -> upgradecheck.Result:
        # Placer's own: the trees' scores, read (and kept) only by the spread
        # and pack orders; under id or random they are left as they are
        order = service.order_from_conf(self.conf)
        if not order.scored:
            return upgradecheck.Result(upgradecheck.Code.SUCCESS)
        if not self._read(scores.present):
            return upgradecheck.Result(
                upgradecheck.Code.WARNING,
                details=f"[placer] candidate_order is {order.name} but the score tables "
                        "are missing: candidates come in id order until "
                        "'placement-manage db sync' creates them.")
        stale = self._read(scores.stale)
        if stale:
            return upgradecheck.Result(
                upgradecheck.Code.WARNING,
                details=f"The scores of {stale} provider trees do not match their "
                        "inventories and allocations (written while an API node ran "
                        "another candidate order, or by another service such as the "
                        f"reference Placement, or with SQL): {order.name} ranks those trees "
                        "by old scores. placement-api makes them exact when it starts; "
                        "or run 'placement-manage scores rebuild'.")
        return upgradecheck.Result(upgradecheck.Code.SUCCESS)

    _upgrade_checks = (
        ("Missing Root Provider IDs", _check_root_provider_ids),
        ("Incomplete Consumers", _check_incomplete_consumers),
        ("Policy File JSON to YAML Migration", _check_policy_json),
        ("Candidate Order Scores", _check_scores),
    )


def build_parser() -> argparse.ArgumentParser:
    """placement-status's command line (docs/operator/commands.md renders it)."""
    conf = cli_config()
    upgradecheck.register_cli_options(conf, Checks(conf))
    return cli_parser(conf, PROG, ["upgrade", "check"])


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    conf = cli_config()
    checks = Checks(conf)
    upgradecheck.register_cli_options(conf, checks)
    failed = parse_args(conf, argv, PROG, placer.version())
    if failed is not None:
        return failed
    # oslo.upgradecheck reads --json from its module-level CONF, which only its
    # own main() sets; the reference never sets it and so ignores --json.
    upgradecheck.CONF = conf
    try:
        return upgradecheck.run(conf)
    finally:
        upgradecheck.CONF = None
        checks.close()


if __name__ == "__main__":
    sys.exit(main())

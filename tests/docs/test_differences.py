"""docs/api/differences.md names everything Placer adds to what an operator
configures and runs: every option of the [placer] group, every policy rule
beyond the reference's, and every placement-manage sub-command of its own."""

import argparse
import pathlib
import re

from placer import conf as placer_conf
from placer import policy
from placer.cli import manage

PAGE = (pathlib.Path(__file__).parents[2] / "docs" / "api" / "differences.md").read_text()
REFERENCE_COMMANDS = {"db"}  # placement-manage's sub-commands in the reference


def _named(word: str) -> bool:
    return re.search(rf"(?<![\w.:]){re.escape(word)}(?![\w])", PAGE) is not None


def test_every_placer_option_is_named():
    names = [opt.name for opt in dict(placer_conf.list_opts())["placer"]]
    assert len(names) >= 10
    assert [n for n in names if not _named(n)] == []


def test_every_placer_policy_rule_is_named():
    rules = [policy.METRICS_SHOW, policy.ALLOCATION_CANDIDATES_EXPLAIN, policy.CAPACITY_SHOW]
    assert [r for r in rules if f"`{r}`" not in PAGE] == []


def test_every_own_sub_command_is_named():
    subparsers = argparse.ArgumentParser().add_subparsers()
    manage._add_db_parsers(subparsers)
    own = [c for c in subparsers.choices if c not in REFERENCE_COMMANDS]
    assert {"explain", "capacity", "scores"} <= set(own)
    assert [c for c in own if f"placement-manage {c}" not in PAGE] == []

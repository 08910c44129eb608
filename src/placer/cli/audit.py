"""placement-manage audit: what is inconsistent in the configured database,
and the fixes that are always safe (Placer's own sub-command).

    placement-manage audit [--kind KIND]... [--limit N] [--idle-days D]
                           [--json] [--fix] [--nova]

Reads the findings of GET /audit in one consistent read (db/audit.py,
``Database.snapshot_read``) and prints a table per kind that has any, or
with ``--json`` GET /audit's body. ``--fix`` deletes the empty consumers and
the unused project and user rows found, and nothing else (db/audit_fixes.py:
each delete re-checks its condition in its own statement, so a consumer
written since the read is left alone), then reads again and deletes what the
first deletes freed (the project of a deleted consumer) or what ``--limit``
left out, until nothing more goes. ``--nova`` adds the cross-check with
Nova's API (cli/audit_nova.py), whose ``--fix`` removes orphaned consumers and
source leftovers.

Exit codes, as nova-manage placement audit's: 0 nothing found; 3 found (and
with ``--fix``, something is left: a kind it does not fix, or a row written
since the read); 4 found, and ``--fix`` fixed all of it; 1 an error, with
why on standard error (a bad option, the database unreachable, a Nova
cross-check refused).
"""

import json
import sys
from typing import Any

import sqlalchemy as sa

from placer import exceptions
from placer.cli import output
from placer.db import audit as audit_db
from placer.db import audit_fixes
from placer.db import engine as db_engine

PROG = "placement-manage audit"
NOVA_KINDS = ("orphaned", "source_leftovers", "unallocated_servers")
FOUND, FIXED = 3, 4


class _Usage(Exception):
    """A bad option value: exit 1 with the reason."""


def add_parser(subparsers) -> None:
    text = ("Find what is inconsistent in the database (GET /audit's findings); "
            "with --fix, delete empty consumers and unused projects and users.")
    parser = subparsers.add_parser("audit", help=text, description=text)
    parser.add_argument("--kind", action="append", default=[], metavar="KIND",
                        help="a kind of finding to look for (repeatable; default: every "
                             f"kind): {', '.join(audit_db.KINDS)}")
    parser.add_argument("--limit", default=str(audit_db.DEFAULT_LIMIT), metavar="N",
                        help="the most items shown per kind; the counts are always "
                             f"whole (default: {audit_db.DEFAULT_LIMIT})")
    parser.add_argument("--idle-days", default=str(audit_db.DEFAULT_IDLE_DAYS),
                        metavar="DAYS",
                        help="how long a provider without inventory, allocations or "
                             "children must be unchanged to be idle (default: "
                             f"{audit_db.DEFAULT_IDLE_DAYS})")
    parser.add_argument("--json", action="store_true",
                        help="print GET /audit's answer (with --nova, its kinds too; "
                             "with --fix, what was deleted under \"fixed\")")
    parser.add_argument("--fix", action="store_true",
                        help="delete the empty consumers and unused projects and users "
                             "found, and nothing else (with --nova, also orphaned "
                             "consumers and source leftovers)")
    # not "nova": oslo.config refuses a sub-command argument named as a group
    parser.add_argument("--nova", action="store_true", dest="cross_check_nova",
                        help="cross-check the consumers with Nova's servers and "
                             "migrations ([nova] options)")
    parser.set_defaults(func=run)


def run(conf) -> int:
    command = conf.command
    try:
        kinds = _kinds(command.kind, audit_db.KINDS)
        limit = _integer("--limit", command.limit, 1)
        idle_days = _integer("--idle-days", command.idle_days, 0)
    except _Usage as exc:
        return _error(str(exc))
    db = db_engine.Database(db_engine.engine_for(conf))
    try:
        findings = db.snapshot_read(audit_db.findings, kinds, limit, idle_days)
        fixed: dict[str, list[str]] = {}
        left_alone: dict[str, list[dict[str, str]]] = {}
        if command.cross_check_nova:
            from placer.cli import audit_nova  # only with --nova: keystoneauth and all

            try:
                nova = audit_nova.run(conf, db, command.fix)
            except audit_nova.Refused as exc:
                return _error(f"the Nova cross-check refused: {exc}")
            findings.update(nova.findings)
            fixed.update(nova.fixed)
            left_alone.update(getattr(nova, "left_alone", None) or {})
        if command.fix and any(f["count"] for f in findings.values()):
            fixable = [k for k in kinds if k in audit_db.FIXABLE]
            fixed.update(fix(db, findings, fixable, limit, idle_days,
                             again=any(fixed.values())))
    except exceptions.DatabaseUnavailable:
        return _error("the database cannot be reached ([placement_database] connection)")
    except sa.exc.SQLAlchemyError as exc:
        return _error(f"database error: {getattr(exc, 'orig', None) or exc}")
    finally:
        db.dispose()
    if command.json:
        body: dict[str, Any] = {"findings": findings}
        if command.fix:
            body["fixed"] = fixed
        if left_alone:
            body["left_alone"] = left_alone
        print(json.dumps(body, indent=1))
    else:
        print(report(findings, fixed if command.fix else None, left_alone))
    return exit_code(findings, fixed, audit_db.FIXABLE)


def fix(db: db_engine.Database, findings: dict[str, dict], kinds: list[str], limit: int,
        idle_days: int, again: bool = False) -> dict[str, list[str]]:
    """Delete what ``findings`` lists of the fixable ``kinds``, then read them
    again and delete what is found there, until a pass deletes nothing (or
    finds nothing): {kind: what was deleted}. ``again``: read again even if
    the first pass deleted nothing (the Nova fixes freed rows). The passes are
    bounded by what the first read counted, so that new garbage written
    meanwhile cannot keep it running."""
    fixed: dict[str, list[str]] = {kind: [] for kind in kinds}
    if not kinds:
        return fixed
    passes = 2 + sum(-(-findings[kind]["count"] // limit) for kind in kinds)
    current = findings
    for n in range(passes):
        deleted = _fix_pass(db, current, kinds)
        for kind, ids in deleted.items():
            fixed[kind].extend(ids)
        if not any(deleted.values()) and not (again and n == 0):
            break
        current = db.snapshot_read(audit_db.findings, kinds, limit, idle_days)
        if not any(current[kind]["count"] for kind in kinds):
            break
    return fixed


def _fix_pass(db: db_engine.Database, findings: dict[str, dict],
              kinds: list[str]) -> dict[str, list[str]]:
    """One pass: the consumers first (which may leave projects and users
    unused), each batch in a write transaction of its own."""
    deleted: dict[str, list[str]] = {}
    for kind in sorted(kinds, key=lambda k: k != "empty_consumers"):
        items = findings[kind]["items"]
        deleted[kind] = []
        for start in range(0, len(items), audit_fixes.BATCH):
            batch = items[start:start + audit_fixes.BATCH]
            if kind == "empty_consumers":
                deleted[kind] += db.write(audit_fixes.delete_empty_consumers, batch)
            else:
                deleted[kind] += db.write(audit_fixes.delete_unused, kind, batch)
    return deleted


def exit_code(findings: dict[str, dict], fixed: dict[str, list[str]],
              fixable: tuple[str, ...]) -> int:
    """0 nothing found; 4 found and all of it fixed; 3 found, some left."""
    found = {kind: f for kind, f in findings.items() if f["count"]}
    if not found:
        return 0
    if not fixed:
        return FOUND
    for kind, f in found.items():
        done = set(fixed.get(kind, ()))
        listed = {_key(kind, item) for item in f["items"]}
        if len(done) < f["count"] or not listed <= done:
            return FOUND
    return FIXED


def _key(kind: str, item: dict) -> str:
    return item["external_id"] if kind in ("unused_projects", "unused_users") else \
        item.get("consumer", item.get("resource_provider", ""))


def _kinds(given: list[str], known: tuple[str, ...]) -> list[str]:
    unknown = [k for k in given if k not in known]
    if unknown:
        raise _Usage(f"unknown --kind {', '.join(unknown)}; the kinds are "
                     f"{', '.join(known)}")
    return [k for k in known if k in given] if given else list(known)


def _integer(option: str, text: str, least: int) -> int:
    try:
        value = int(text)
    except ValueError:
        value = least - 1
    if value < least:
        raise _Usage(f"{option} must be an integer of {least} or more, not {text!r}")
    return value


def _error(reason: str) -> int:
    print(f"{PROG}: {reason}", file=sys.stderr)
    return 1


# -- the readable report --------------------------------------------------------


def _resources(resources: dict[str, int]) -> str:
    return ", ".join(f"{rc}={amount}" for rc, amount in resources.items())


def _over_capacity(item: dict) -> list:
    consumers = ", ".join(f"{c['consumer']} ({c['used']})" for c in item["consumers"][:3])
    more = len(item["consumers"]) - 3
    return [item["resource_provider"], item["name"], item["resource_class"],
            item["capacity"], item["used"], item["excess"],
            consumers + (f" and {more} more" if more > 0 else "")]


def _split(item: dict) -> list:
    roots = "\n".join(f"{r['name'] or r['uuid']}: {_resources(r['resources'])}"
                      for r in item["roots"])
    return [item["consumer"], item["project_id"], item["user_id"], item["consumer_type"],
            item["generation"], item["updated_at"], roots]


_OWNER = ["Consumer", "Project", "User", "Type", "Generation", "Updated"]

# kind -> (columns, row of an item)
_COLUMNS: dict[str, tuple[list[str], Any]] = {
    "over_capacity": (["Provider", "Name", "Class", "Capacity", "Used", "Excess",
                       "Largest consumers"], _over_capacity),
    "unit_violations": (["Consumer", "Provider", "Class", "Used", "min_unit", "max_unit",
                         "step_size", "Violates"],
                        lambda i: [i["consumer"], i["resource_provider"], i["resource_class"],
                                   i["used"], i["min_unit"], i["max_unit"], i["step_size"],
                                   ", ".join(i["violates"])]),
    "without_inventory": (["Consumer", "Provider", "Class", "Used"],
                          lambda i: [i["consumer"], i["resource_provider"],
                                     i["resource_class"], i["used"]]),
    "split_consumers": ([*_OWNER, "Roots"], _split),
    "empty_consumers": (_OWNER, lambda i: [i["consumer"], i["project_id"], i["user_id"],
                                           i["consumer_type"], i["generation"],
                                           i["updated_at"]]),
    "idle_providers": (["Provider", "Name", "Generation", "Updated"],
                       lambda i: [i["resource_provider"], i["name"], i["generation"],
                                  i["updated_at"]]),
    "unused_projects": (["Project"], lambda i: [i["external_id"]]),
    "unused_users": (["User"], lambda i: [i["external_id"]]),
}


def _generic(items: list[dict]) -> tuple[list[str], Any]:
    """Columns for a kind this module does not know (the Nova kinds): the
    items' keys, nested values as JSON."""
    columns = list(items[0]) if items else []

    def row(item: dict) -> list:
        return [v if isinstance(v, (str, int, float)) or v is None else json.dumps(v)
                for v in (item.get(c) for c in columns)]

    return columns, row


def report(findings: dict[str, dict], fixed: dict[str, list[str]] | None,
           left_alone: dict[str, list[dict[str, str]]] | None = None) -> str:
    """The findings as a table per kind that has any, then what was fixed,
    and what the Nova fixes left alone (changed since it was read)."""
    parts = []
    for kind, found in findings.items():
        if not found["count"]:
            continue
        items = found["items"]
        columns, row = _COLUMNS.get(kind) or _generic(items)
        shown = "" if len(items) == found["count"] else f" (the first {len(items)} shown)"
        parts.append(f"{kind}: {found['count']} found{shown}")
        parts.append(output.table(columns, [row(item) for item in items]))
    if not parts:
        parts.append("Nothing found: " + ", ".join(f"{kind} 0" for kind in findings))
    if fixed is not None:
        total = sum(len(ids) for ids in fixed.values())
        parts.append(f"Fixed: {total} deleted" + "".join(
            f", {kind} {len(ids)}" for kind, ids in fixed.items()))
        rows = [[kind, key] for kind, ids in fixed.items() for key in ids]
        if rows:
            parts.append(output.table(["Kind", "Deleted"], rows))
    rows = [[kind, item["consumer"], item["reason"]]
            for kind, items in (left_alone or {}).items() for item in items]
    if rows:
        parts.append(f"Left alone: {len(rows)}")
        parts.append(output.table(["Kind", "Consumer", "Why"], rows))
    return "\n".join(parts)

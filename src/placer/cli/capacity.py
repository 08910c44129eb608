"""placement-manage capacity: how much is left, for an operator at a shell.

    placement-manage capacity
    placement-manage capacity --shape m1.small=resources=VCPU:1,MEMORY_MB:2048 --json

Counts the shapes of ``[placer] capacity_shapes`` and those given with
``--shape NAME=QUERY`` (repeatable; a name given both ways takes the
command line's), as POST /capacity does, from one read of the configured
database: a table of each shape's total and the roots it fits on, or with
``--json`` POST /capacity's answer. Without any shape, the free capacity
per class (GET /capacity without resources). Exit 0 with the answer, 1
with the error text for a shape the API would answer 400.
"""

import json
import sys

from placer import exceptions
from placer.candidates import service
from placer.cli import output
from placer.db import candidates as db_candidates
from placer.db import class_totals
from placer.db import engine as db_engine
from placer.db import resource_providers as providers_db
from placer.schemas import capacity as capacity_schema

PROG = "placement-manage capacity"


def add_parser(subparsers) -> None:
    text = "Count how many copies of each capacity shape fit, or the free capacity per class."
    parser = subparsers.add_parser("capacity", help=text, description=text)
    parser.add_argument("--shape", action="append", default=[], metavar="NAME=QUERY",
                        help="a shape to count besides [placer] capacity_shapes, e.g. "
                             "m1.large=resources=VCPU:4,MEMORY_MB:8192 (repeatable)")
    parser.add_argument("--json", action="store_true", help="print POST /capacity's answer")
    parser.set_defaults(func=run)


def run(conf) -> int:
    try:
        wanted = dict(capacity_schema.split_shape(v)
                      for v in [*conf.placer.capacity_shapes, *conf.command.shape])
        requests = {name: capacity_schema.parse_shape(name, text)
                    for name, text in wanted.items()}
    except (ValueError, exceptions.BadRequest) as exc:
        print(f"{PROG}: {getattr(exc, 'detail', exc)}", file=sys.stderr)
        return 1
    db = db_engine.Database(db_engine.engine_for(conf))
    budget = conf.placer.capacity_time_budget
    try:
        if not requests:
            totals = db.read(class_totals.summary, providers_db.ProviderFilter())
            print(_classes(totals.get(None, {}), conf.command.json))
            return 0
        counts = db_candidates.reader(db)(
            lambda store: service.count_shapes(store, requests, budget))
    except exceptions.BadRequest as exc:  # an unknown class or trait
        print(f"{PROG}: {exc.detail}", file=sys.stderr)
        return 1
    finally:
        db.dispose()
    body = {"shapes": {name: service.count_body(count) for name, count in counts.items()}}
    print(json.dumps(body, indent=1) if conf.command.json else _shapes(body, wanted))
    return 0



def _shapes(body: dict, queries: dict[str, str]) -> str:
    rows = []
    for name, answer in body["shapes"].items():
        roots = answer["roots"]
        most = f"{roots[0]['name'] or roots[0]['uuid']} ({roots[0]['fits']})" if roots else ""
        total = f"{answer['total']}" + ("" if answer["exact"] else " (at least)")
        rows.append([name, queries[name], total, len(roots), most, answer["inexact"]])
    return output.table(["Shape", "Query", "Fits", "Roots", "Most on one root", "Not proven"], rows)


def _classes(totals: dict, as_json: bool) -> str:
    if as_json:
        return json.dumps({"resources": totals}, indent=1)
    return output.table(["Class", "Capacity", "Used", "Free"],
                  [[rc, t["capacity"], t["used"], t["free"]] for rc, t in totals.items()])

"""placement-manage explain "<query>": GET /allocation_candidates/explain's
answer as a readable report, read from the configured database.

    placement-manage explain "resources=VCPU:4&required=HW_CPU_X86_AVX2"
    placement-manage explain --microversion 1.28 "resources=VCPU:4&provider=<uuid>"

The query is the candidates query (``provider=<uuid>`` adds the report on
one provider and its tree). Exit 0 with the report, 1 with the error text
for a query the API would answer 400.
"""

import sys

from placer import exceptions, microversions
from placer.candidates import service
from placer.cli import output
from placer.db import candidates as db_candidates
from placer.db import engine as db_engine
from placer.schemas import allocation_candidates as candidates_schema
from placer.schemas import query_string

PROG = "placement-manage explain"


def add_parser(subparsers) -> None:
    text = "Explain an allocation candidates query: what each constraint leaves."
    parser = subparsers.add_parser("explain", help=text, description=text)
    parser.add_argument("query", help="the GET /allocation_candidates query string, "
                                      "optionally with provider=<uuid>")
    parser.add_argument("--microversion", default=microversions.text(microversions.MAX),
                        help="the placement microversion to read the query at "
                             "(1.10 or later; default: the latest)")
    parser.set_defaults(func=run)


def run(conf) -> int:
    try:
        version = _microversion(conf.command.microversion)
        # read as the API reads its query string, so the same 400s follow
        raw = conf.command.query.lstrip("?").encode("utf-8", "surrogateescape")
        pairs = query_string.parse(raw)
        request, provider = candidates_schema.parse_explain_query(pairs, version)
        db = db_engine.Database(db_engine.engine_for(conf))
        try:
            result = service.explain(
                db_candidates.reader(db), request, provider,
                max_candidates=conf.placement.max_allocation_candidates,
                strategy=conf.placement.allocation_candidates_generation_strategy,
                order=service.order_from_conf(conf))
        finally:
            db.dispose()
    except exceptions.BadRequest as exc:
        print(f"{PROG}: {exc.detail}", file=sys.stderr)
        return 1
    print(report(service.explanation_body(result)))
    return 0


def _microversion(text: str) -> tuple[int, int]:
    try:
        major, minor = (int(part) for part in text.split("."))
    except ValueError:
        major = minor = -1
    if not microversions.ALLOCATION_CANDIDATES <= (major, minor) <= microversions.MAX:
        raise exceptions.BadRequest(
            f"--microversion must be from {microversions.text(microversions.ALLOCATION_CANDIDATES)}"
            f" to {microversions.text(microversions.MAX)}, not {text}")
    return major, minor



def _group_title(group: dict) -> str:
    name = f"group {group['suffix']}" if group["suffix"] else "unsuffixed group"
    asked = ", ".join(f"{rc}:{n}" for rc, n in group["resources"].items()) or "no resources"
    return f"{name} ({asked})"


def report(body: dict) -> str:
    """The explain answer (its JSON body) as text tables."""
    roots = "1 root" if body["roots"] == 1 else f"{body['roots']} roots"
    out = [f"Candidates: {body['candidates']}, on {roots}", *_order(body["order"]), ""]
    for group in body["groups"]:
        out += [f"Funnel of the {_group_title(group)}:", output.table(
            ["Constraint", "Value", "Providers", "Trees", "Detail"],
            [[s["constraint"], s["value"], s.get("providers"), s.get("trees"),
              s.get("detail", "")] for s in group["funnel"]]), ""]
    out += ["Request-wide:", output.table(
        ["Constraint", "Value", "Trees", "Candidates", "Detail"],
        [[s["constraint"], s["value"], s.get("trees"), s.get("candidates"),
          s.get("detail", "")] for s in body["request"]]), ""]
    first = body["first_empty"]
    if first is None:
        out.append("No constraint empties the answer.")
    else:
        where = ("request-wide" if first["group"] is None
                 else f"group {first['group']}" if first["group"] else "unsuffixed group")
        out += [f"Empty after: {first['constraint']} {first['value']} ({where})".rstrip(),
                f"  {first['message']}"]
    if "provider" in body:
        p = body["provider"]
        out += ["", f"Provider {p['name']} ({p['uuid']}):", _failures(p["failures"]),
                "", f"Its tree, rooted at {p['tree']['name']} ({p['tree']['uuid']}):",
                _failures(p["tree"]["failures"])]
    return "\n".join(out)


def _order(order: dict) -> list[str]:
    """The order in force, and for spread and pack the answer's trees."""
    if "trees" not in order:
        return [f"Order: {order['name']}"]
    return [f"Order: {order['name']} (pool {order['pool']:g}; the exact order, before the "
            "pool's random draw)", output.table(
                ["Tree", "Candidates", "Rank", "Free per mille"],
                [[t["name"] or t["root_provider_uuid"], t["candidates"], t["rank"],
                  ", ".join(f"{rc}:{f}" for rc, f in t["free"].items())]
                 for t in order["trees"]])]


def _failures(failures: list[dict]) -> str:
    if not failures:
        return "  fails no constraint"
    return output.table(["Group", "Constraint", "Value", "Detail"],
                  [["(request)" if f["group"] is None else f["group"] or "(unsuffixed)",
                    f["constraint"], f["value"], f["detail"]] for f in failures])

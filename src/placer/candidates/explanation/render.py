"""The explanation as GET /allocation_candidates/explain answers it
(schemas/responses.py describes the body)."""

import dataclasses
from typing import Any

from placer.candidates.explanation.steps import Explanation, OrderReport, ProviderReport, Step
from placer.candidates.order import WEIGHT_UNIT


def body(explanation: Explanation) -> dict[str, Any]:
    first = explanation.first_empty
    out: dict[str, Any] = {
        "candidates": explanation.candidates,
        "roots": explanation.roots,
        "groups": [{"suffix": g.suffix, "resources": dict(g.resources),
                    "funnel": [_step(s) for s in steps]} for g, steps in explanation.groups],
        "request": [_step(s) for s in explanation.request_steps],
        "first_empty": None if first is None else {
            "group": first.group, "constraint": first.constraint, "value": first.value,
            "message": first.message},
    }
    if explanation.provider is not None:
        out["provider"] = _provider(explanation.provider)
    if explanation.order is not None:
        out["order"] = _order(explanation.order)
    return out


def _order(report: OrderReport) -> dict[str, Any]:
    order = report.order
    out: dict[str, Any] = {"name": order.name}
    if report.trees is not None:
        out["weights"] = {rc: w / WEIGHT_UNIT for rc, w in sorted(order.weights.items())}
        out["pool"] = order.pool
        out["trees"] = [{"root_provider_uuid": t.root.uuid, "name": t.root.name,
                         "candidates": t.candidates, "rank": t.rank, "free": t.free}
                        for t in report.trees]
    return out


def _step(step: Step) -> dict[str, Any]:
    out: dict[str, Any] = {"constraint": step.constraint, "value": step.value}
    for name in ("providers", "trees", "candidates"):
        if getattr(step, name) is not None:
            out[name] = getattr(step, name)
    if step.detail:
        out["detail"] = step.detail
    return out


def _provider(report: ProviderReport) -> dict[str, Any]:
    return {
        "uuid": report.provider.uuid,
        "name": report.provider.name,
        "root_provider_uuid": report.root.uuid,
        "failures": [dataclasses.asdict(f) for f in report.failures],
        "tree": {"uuid": report.root.uuid, "name": report.root.name,
                 "failures": [dataclasses.asdict(f) for f in report.tree_failures]},
    }

"""The production runs' summary: a table per database, a column per shape and size."""

from benchmarks.report.text import BACKENDS, head, number, ratio_text, row, short_size, times_text

NO_REFERENCE = "no reference"


TARGETS = {"max_ms": "under {:g} ms", "min_ratio": "≥ {:g}x, no violation", "max_ratio": "≤ {:g}"}


def target_text(target: dict | None) -> str:
    return TARGETS[target["kind"]].format(target["value"]) if target else ""


def figure_text(figures: dict | None) -> str:
    """A server's median (ms), or why it has none."""
    if figures is None:
        return NO_REFERENCE
    if figures.get("over_s"):
        return f"over {figures['over_s']:g} s"
    if figures.get("status"):
        return str(figures["status"])
    if figures.get("error"):
        return "failed"
    return number(figures.get("median_ms"), 1)


def cell_text(row: dict) -> str:
    """One summary cell: ratio (or median, for absolute targets) and verdict."""
    placer, reference = row.get("placer") or {}, row.get("reference")
    target = row.get("target") or {}
    judged = row.get("verdict", "-")
    if row.get("kind") == "claims":
        ratio = row.get("ratio")
        text = times_text(ratio, 2) if ratio is not None else (
            NO_REFERENCE if reference is None else "")
        violations = len(placer.get("violations") or [])
        text += f", {violations} violations" if violations else ""
        theirs = len((reference or {}).get("violations") or [])
        text += f" (reference: {theirs} violations)" if theirs else ""
    elif target.get("kind") == "max_ms":
        text = f"{figure_text(placer)} ms"
        if reference is not None and row.get("ratio") is not None:
            text += f" ({'under ' if row.get('ratio_bound') else ''}"
            text += f"{ratio_text(row['ratio'])} of the reference)"
    elif placer.get("median_ms") is None:
        text = f"Placer {figure_text(placer)}"
    elif reference is None:
        text = NO_REFERENCE
    elif row.get("ratio") is None:
        text = f"reference {figure_text(reference)}"
    else:
        text = ("under " if row.get("ratio_bound") else "") + ratio_text(row["ratio"])
    return f"{text}, {judged}" if judged != "-" and text else (text or judged)


def run_label(data: dict) -> str:
    version = data.get("database_version") or ""
    if data.get("backend") == "postgresql" and version.startswith("PostgreSQL"):
        return " ".join(version.split()[:2])  # PostgreSQL 15.4
    if "MariaDB" in version:
        return "MariaDB " + version.split("-")[0]
    if version:
        return version if data.get("backend") != "mysql" else f"MySQL {version}"
    return BACKENDS.get(data.get("backend"), str(data.get("backend")))


def summary_lines(runs: list[dict]) -> list[str]:
    """A table per database: rows, the queries; columns, its runs' shapes and
    sizes (smallest first, flat before nested); where two runs timed a
    query at one size, the later one's figure."""
    by_database: dict[str, list[dict]] = {}
    for data in runs:
        by_database.setdefault(run_label(data), []).append(data)
    lines: list[str] = []
    for label, found in by_database.items():
        found.sort(key=lambda data: data.get("date") or "")
        results = [r for data in found for r in data["results"]]
        columns = sorted(dict.fromkeys((r["shape"], r["size"]) for r in results),
                         key=lambda step: (step[0] != "flat", step[1]))
        cells = {(r["shape"], r["size"], r["query"]): r for r in results}
        targets: dict[str, list[str]] = {}  # the ratio's, then absolute ones with their sizes
        for r in (r for r in results if r.get("target")):
            text = target_text(r["target"])
            if r["target"]["kind"] == "max_ms":
                text += f" at {short_size(r['size'])}"
            if text not in targets.setdefault(r["query"], []):
                targets[r["query"]].append(text)
        lines += [f"### {label}", "", *head("query", "target", *(
            f"{shape} {short_size(size)}" for shape, size in columns))]
        # in the newest run's order
        for query in dict.fromkeys(r["query"] for data in reversed(found)
                                   for r in data["results"]):
            lines.append(row(query, "; ".join(targets.get(query, [])), *(
                "" if (r := cells.get((shape, size, query))) is None else cell_text(r)
                for shape, size in columns)))
        lines.append("")
    return lines[:-1]


def throughput_lines(runs: list[dict]) -> list[str]:
    lines = head("database", "data", "workers", "Placer requests/s", "Placer p99 ms",
                 "reference requests/s", "reference p99 ms", "Placer/reference throughput",
                 "target")
    for data in runs:
        found: dict[tuple, dict[str, dict]] = {}
        for r in data.get("throughput") or []:
            found.setdefault((r["shape"], r["size"], r["workers"]), {})[r["server"]] = r
        target = (data.get("mix") or {}).get("speedup")
        for (shape, size, workers), pair in found.items():
            p, r = pair.get("placer"), pair.get("reference")
            ratio = p["per_second"] / r["per_second"] if p and r and r["per_second"] else None
            judged = "" if target is None or ratio is None else (
                "met" if ratio >= target else f"missed by {target / ratio:.1f}x")
            lines.append(row(run_label(data), f"{shape} {short_size(size)}", str(workers),
                             *(number(x and x[k], d) for x in (p, r)
                               for k, d in (("per_second", 1), ("p99_ms", 0))),
                             times_text(ratio, 2),
                             f"≥ {target:g}x, {judged}" if judged else ""))
    return lines

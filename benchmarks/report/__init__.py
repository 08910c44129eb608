"""The results page, written from results files: ``python -m benchmarks
report FILE... --out docs/results`` (the page, ``index.md``, and its plots,
from the same numbers, so that they cannot disagree: regenerate them, do
not edit them). A query (or a fill order of a shape) measured in two files
is an error. Nothing here imports a scenario: the files are the interface.
"""

import json
import shlex
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.report import plots, production, text
from benchmarks.report.text import TEXTS, cell, head, number, ratio_text, row, size_text

PAGE = "index.md"
# (key, title, digits) of the query tables' columns; "reference" columns are the reference's
PLACER_COLUMNS = (("candidates", "candidates", None), ("size_kb", "KiB", 0),
                  ("median_ms", "median ms", 1), ("p90_ms", "p90 ms", 1),
                  ("cpu_ms", "CPU ms", 1), ("rss_peak_mb", "peak RSS MiB", 0))
REFERENCE_COLUMNS = tuple((key, f"reference {title}", digits)
                          for key, title, digits in PLACER_COLUMNS[2:])
FILL_COLUMNS = ("order", "std dev of RAM use", "fullest host", "empty hosts (most possible)",
                "fit largest", "placed before failure", "RAM used at failure", "failed boot",
                "conflicts per placed", "candidates ms", "claim ms", "delete ms")
SCHEDULERS = 4  # the fill runs' default: other counts are labelled


class ReportError(Exception):
    pass


@dataclass
class Run:
    number: int
    path: str
    data: dict

    @property
    def kind(self) -> str:
        """The benchmark; a scale run in a [placer] candidate_order is "order"."""
        return "order" if self.data["benchmark"] == "scale" and order_of(self) else (
            self.data["benchmark"])

    def rows(self) -> list[dict]:
        """The results, each with ``run``; scenarios' with ``group``."""
        return [{**r, "run": self.number, "group": r["scenario"].removesuffix(" (reference)")}
                for r in self.data["results"]]


@dataclass
class Pair:
    """One query of one group (scenario, or shape and size) on both servers."""

    query: str
    placer: dict | None = None
    reference: dict | None = None

    @property
    def ratio(self) -> float | None:
        p = self.placer and self.placer.get("median_ms")
        r = self.reference and self.reference.get("median_ms")
        return p / r if p is not None and r else None


@dataclass
class Out:
    """Where the page's plots go, and the names of those written."""

    dir: Path
    fmt: str
    written: list[str] = field(default_factory=list)

    def plot(self, stem: str, draw, *args) -> str:
        name = f"{stem}.{self.fmt}"
        draw(self.dir / name, *args)
        self.written.append(name)
        return name


def order_of(run: Run) -> str:
    """The [placer] candidate_order a scale run was served in ('' if unset)."""
    return (run.data.get("candidate_order") or {}).get("candidate_order", "")


def load(paths: list[str]) -> list[Run]:
    runs = []
    for n, path in enumerate(paths, 1):
        with open(path) as f:
            runs.append(Run(n, path, json.load(f)))
        if not isinstance(runs[-1].data, dict) or "results" not in runs[-1].data:
            raise ReportError(f"{path}: not a results file of python -m benchmarks")
    return runs


def _twice(what: str, first: dict, run: int) -> ReportError:
    return ReportError(f"{what} is in two results (runs {first['run']} and {run})")


def pairs(rows: list[dict], key) -> dict[object, list[Pair]]:
    """Group -> its queries, in the order they were run (Placer's first)."""
    groups: dict[object, dict[str, Pair]] = {}
    for r in rows:
        pair = groups.setdefault(key(r), {}).setdefault(r["query"], Pair(r["query"]))
        if getattr(pair, r["server"]) is not None:
            raise _twice(f"{r['query']!r} of {key(r)!r} ({r['server']})",
                         getattr(pair, r["server"]), r["run"])
        setattr(pair, r["server"], r)
    return {k: list(v.values()) for k, v in groups.items()}


def table(group_pairs: list[Pair], with_reference: bool) -> list[str]:
    """Columns not named "reference" are Placer's."""
    columns = PLACER_COLUMNS + (REFERENCE_COLUMNS if with_reference else ())
    lines = head("query", *(title if not with_reference or key == "candidates" else
                            f"Placer {title}" for key, title, _ in PLACER_COLUMNS),
                 *(title for _, title, _ in columns[len(PLACER_COLUMNS):]),
                 *(["Placer/reference"] if with_reference else []), "target", "notes")
    for pair in group_pairs:
        p, r = pair.placer or {}, pair.reference or {}
        cells = [number((p if n < len(PLACER_COLUMNS) else r).get(key), digits)
                 for n, (key, _, digits) in enumerate(columns)]
        cells += [ratio_text(pair.ratio)] if with_reference else []
        target = p.get("target_ms")
        cells.append(f"under {target:g} ms: {p.get('result', '')}" if target else "")
        notes = [p.get("note"), "" if p else "not run on Placer",
                 r.get("note") and "reference: " + r["note"]]
        if None not in (p.get("candidates"), r.get("candidates")) and (
                r["candidates"] != p["candidates"]):
            notes.append(f"reference: {r['candidates']} candidates")
        lines.append(row(cell(pair.query), *cells, cell("; ".join(filter(None, notes)))))
    return lines


def requests_table(rows: list[tuple[str, str]]) -> list[str]:
    """(query, path) rows; paths shown decoded (``:`` and ``,`` plain)."""
    return head("query", "request") + [
        row(cell(query), "`" + urllib.parse.unquote(path if " " in path else "GET " + path)
            .replace("|", "%7C") + "`") for query, path in rows if path]


def settings(runs: list[Run], *parts) -> list[str]:
    """"Settings: run 1: ...; run 2: ...": each part a function of a run's
    data, giving its text or nothing."""
    return ["Settings: " + "; ".join(
        f"run {run.number}: " + ", ".join(filter(None, (part(run.data) for part in parts)))
        for run in runs) + ".", ""]


def _reference_repeat(d: dict) -> str:
    return d.get("reference_repeat") and f"reference `--reference-repeat {d['reference_repeat']}`"


def _timed(runs: list[Run], *parts) -> list[str]:
    """The settings of runs of timed queries."""
    return settings(runs, *parts, lambda d: f"`--repeat {d['repeat']}`",
                    lambda d: text.workers(d.get("workers")), _reference_repeat)


def where_when(runs: list[Run]) -> str:
    """The databases and days of ``runs``, for a plot's title: "SQLite, 2026-11-27"."""
    days = sorted({str(run.data.get("date", ""))[:10] for run in runs} - {""})
    return ", ".join(_backends(runs) + ([" to ".join(dict.fromkeys([days[0], days[-1]]))]
                                        if days else []))


def _backends(runs: list[Run]) -> list[str]:
    return sorted({text.BACKENDS.get(b, b) for b in (run.data.get("backend", "sqlite")
                                                     for run in runs)})


# -- the sections, in the page's order ----------------------------------------------

def _production_section(runs: list[Run], out: Out) -> list[str]:
    """Placer against the reference on each database."""
    data = [r.data for r in runs]
    lines = ["## On every database: how much faster, at what size", "",
             TEXTS["production_intro"].format(runs=", ".join(str(r.number) for r in runs)), "",
             *production.summary_lines(data), ""]
    if any(d.get("throughput") for d in data):
        lines += ["### Throughput against workers", "", TEXTS["throughput_intro"], "",
                  *production.throughput_lines(data), ""]
    return lines


def _runs_section(runs: list[Run], argv: list[str], notes: list[str]) -> list[str]:
    lines = ["## How they were measured", ""]
    for note in notes:  # what the files cannot know, such as other load on the machine
        lines += [note, ""]
    for m in sorted({json.dumps(r.data.get("machine"), sort_keys=True) for r in runs}):
        lines += [text.prose("machine", **json.loads(m)) if m != "null" else
                  TEXTS["no_machine"], ""]
    for run in runs:
        d, soft, ref = run.data, run.data.get("software") or {}, run.data.get("reference")
        line = text.prose("run_software", number=run.number, path=cell(run.path),
                         **{"python": "?", "sqlite": "?", "sqlalchemy": "?", **soft})
        line += text.prose("run_reference", **ref) if ref else ""
        if d.get("database_version"):
            line += f"; the database server: {d['database_version']}"
        lines += [line + ".", ""]
    lines += head("run", "benchmark", "started (UTC)", "finished (UTC)", "commit",
                  "load average before / after")
    for run in runs:
        d = run.data
        commit, changed = d.get("commit") or "not recorded", d.get("changed_files")
        if d.get("commit") and d.get("dirty"):
            commit += " with uncommitted changes" + (
                " to " + ", ".join(f"`{f}`" for f in changed) if changed else "")
        load = " / ".join(", ".join(f"{x:.2f}" for x in d[k]) for k in
                          ("load_average", "load_average_after") if d.get(k))
        lines.append(row(str(run.number), d["benchmark"], d.get("date", "not recorded"),
                         d.get("finished", ""), commit, load))
    return lines + ["", TEXTS["commands"], "", "```sh", *(
        run.data.get("command") or f"# run {run.number}: command not recorded" for run in runs),
        "python -m benchmarks report " + shlex.join(argv), "```", ""]


def _scale_section(runs: list[Run], out: Out) -> list[str]:
    grouped = pairs([r for run in runs for r in run.rows()], lambda r: (r["shape"], r["size"]))
    lines = []
    for shape in dict.fromkeys(shape for shape, _ in grouped):
        by_size = {size: ps for (s, size), ps in grouped.items() if s == shape}
        sizes = sorted(by_size)
        with_ref = [s for s in sizes if any(p.reference for p in by_size[s])]
        lines += [f"## Scale: {shape} shape, {', '.join(_backends(runs))}", "",
                  TEXTS["scale_intro"], *([TEXTS["scale_nested"], ""] if shape == "nested"
                                          else [])]
        lines += _timed(runs, lambda d: "sizes " + ", ".join(map(size_text, d["sizes"])))
        if missing := [size_text(s) for s in sizes if s not in with_ref]:
            lines += [TEXTS["scale_no_reference"].format(sizes=", ".join(missing), which=(
                "that size" if len(missing) == 1 else "those sizes")), ""]
        dbs = sorted((db for run in runs for db in run.data.get("databases", [])
                      if db.get("shape") == shape), key=lambda db: db["size"])
        if dbs:
            lines += head("providers", "trees", "consumers", "allocations", "generated in s")
            lines += [row(*(size_text(db[k]) for k in ("providers", "roots", "consumers",
                                                       "allocations")), str(db["seconds"]))
                      for db in dbs] + [""]
        lines += _scale_summary(by_size)
        title = f"scale ({shape}), {where_when(runs)}"
        latency = out.plot(f"scale-{shape}-latency", plots.plot_by_size,
                           f"Median latency, {title}", "median latency, ms (log scale)",
                           "median_ms", True, by_size)
        memory = out.plot(f"scale-{shape}-memory", plots.plot_by_size,
                          f"Peak worker RSS, {title}", "peak RSS, MiB", "rss_peak_mb", False,
                          by_size)
        lines += ["### Latency", "", f"![{TEXTS['scale_latency_alt']}]({latency})", ""]
        if with_ref:
            ratio = out.plot(f"scale-{shape}-ratio", plots.plot_ratios,
                             f"Placer / reference, {title}",
                             {f"{size_text(s)} providers": [(p.query, p.ratio)
                                                            for p in by_size[s]]
                              for s in with_ref})
            lines += ["### Placer against the reference", "",
                      f"![{TEXTS['scale_ratio_alt']}]({ratio})", ""]
        lines += ["### Memory", "", f"![{TEXTS['scale_memory_alt']}]({memory})", ""]
        for size in sizes:
            lines += [f"### {size_text(size)} providers ({shape})", "", *(
                ["The reference was not run at this size.", ""] if size not in with_ref
                and with_ref else []), *table(by_size[size], size in with_ref), ""]
        lines += [f"### Requests ({shape})", "", TEXTS["scale_requests"].format(
            size=size_text(sizes[-1])), "", *requests_table([
                (p.query, (p.placer or p.reference or {}).get("path", ""))
                for p in by_size[sizes[-1]]]), ""]
    return lines


def _scale_summary(by_size: dict[int, list[Pair]]) -> list[str]:
    """The limited requests at the largest size, and the largest with the reference."""
    sizes = sorted(by_size)
    ref_sizes = [s for s in sizes if any(p.reference for p in by_size[s])]
    lines = []
    for size in sorted({sizes[-1], *ref_sizes[-1:]}, reverse=True):
        items = []
        for p in (p for p in by_size[size] if "limit=" in p.query):
            line = f"- `{p.query}`: Placer {number(p.placer and p.placer.get('median_ms'), 1)} ms"
            if p.reference and p.reference.get("median_ms") is not None:
                line += (f", reference {number(p.reference['median_ms'], 1)} ms "
                         f"(Placer/reference {ratio_text(p.ratio)}, "
                         f"{text.times_text(1 / p.ratio if p.ratio else None)} faster)")
            elif p.reference:
                line += f", reference: {cell(p.reference.get('note') or 'no time')}"
            items.append(line)
        if items:
            lines += [f"Limited requests at {size_text(size)} providers (median latency):", "",
                      *items, ""]
    return lines


def _scenarios_section(runs: list[Run], out: Out) -> list[str]:
    grouped = pairs([r for run in runs for r in run.rows()], lambda r: r["group"])
    described = {k: v for run in runs for k, v in (run.data.get("scenarios") or {}).items()}
    lines = [f"## Scenarios: {', '.join(grouped)}", "", TEXTS["scenarios_intro"],
             *_timed(runs, lambda d: f"microversion {d['version']}")]
    compared = {g: [p for p in ps if p.reference] for g, ps in grouped.items()}
    compared = {g: ps for g, ps in compared.items() if ps}
    if compared:
        ratio = out.plot("scenarios-ratio", plots.plot_ratios,
                         f"Placer / reference, limited queries, {where_when(runs)}",
                         {g: [(f"{g}: {p.query}", p.ratio) for p in ps]
                          for g, ps in compared.items()})
        lines += [_scenarios_summary(compared), "",
                  f"![Placer/reference median latency of each limited query]({ratio})", ""]
    for group, group_pairs in grouped.items():
        lines += [f"### {group}", ""]
        if info := described.get(group):
            desc = (info.get("description") or "").strip().rstrip(".")
            lines += [f"{cell(desc)}: {size_text(info['providers'])} providers, "
                      f"{size_text(info['consumers'])} consumers.", ""]
        lines += table(group_pairs, group in compared) + [""]
    return lines + ["### Requests (scenarios)", "", TEXTS["scenarios_requests"], "",
                    *requests_table([(f"{g}: {p.query}", (p.placer or p.reference or {})
                                      .get("path", "")) for g, ps in grouped.items()
                                     for p in ps]), ""]


def _scenarios_summary(compared: dict[str, list[Pair]]) -> str:
    timed = [(g, p) for g, ps in compared.items() for p in ps]
    both = [(g, p) for g, p in timed if p.ratio is not None]
    goal = text.REFERENCE_RATIO
    line = text.prose("scenarios_summary", both=len(both), goal=goal, times=f"{1 / goal:.0f}",
                     passed=sum(p.ratio <= goal for _, p in both))
    if both:
        (low_group, low), (high_group, high) = (f(both, key=lambda gp: gp[1].ratio)
                                                for f in (min, max))
        line += (f" From {ratio_text(low.ratio)} ({low_group} `{low.query}`) to "
                 f"{ratio_text(high.ratio)} ({high_group} `{high.query}`).")
    if missed := [f"{g} `{p.query}` ({ratio_text(p.ratio)})" for g, p in both if p.ratio > goal]:
        line += " Above it: " + ", ".join(missed) + "."
    if failed := [f"{g} `{p.query}` ({cell(p.reference.get('note') or 'no time')})"
                  for g, p in timed if p.ratio is None]:
        line += " Without a reference time: " + "; ".join(failed) + "."
    return line


def _order_section(runs: list[Run], out: Out) -> list[str]:
    series: dict[tuple[str, str], dict[int, dict[str, dict]]] = {}
    for run in runs:
        backend = run.data.get("backend", "sqlite")
        for r in run.rows():
            if r["server"] == "placer":
                series.setdefault((text.BACKENDS.get(backend, backend), order_of(run)), {}
                                  ).setdefault(r["size"], {})[r["query"]] = r
    queries = list(dict.fromkeys(q for sizes in series.values() for rows in sizes.values()
                                 for q in rows))
    lines = ["## Candidate order: what it costs", "", TEXTS["order_intro"], "",
             *head("backend", "order", "providers", *queries)]
    lines += [row(backend, label, size_text(size), *(
        "" if (r := sizes[size].get(q)) is None else
        f"{number(r['median_ms'], 1)} ({number(r.get('cpu_ms'), 0)})" for q in queries))
        for (backend, label), sizes in series.items() for size in sorted(sizes)]
    plot = out.plot("order-latency", plots.plot_orders,
                    f"limit=1000 by candidate order and backend, {where_when(runs)}", series)
    return lines + ["", f"![{TEXTS['order_alt']}]({plot})", ""]


def fill_rows(runs: list[Run]) -> dict[str, list[dict]]:
    """Label (shape, and cloud and schedulers where not the default) -> its
    orders' results, in the order they were run."""
    shapes: dict[str, dict[str, dict]] = {}
    for run in runs:
        for r in run.data["results"]:
            r = {**r, "schedulers": run.data.get("schedulers", SCHEDULERS), "run": run.number}
            orders = shapes.setdefault(_fill_label(r), {})
            if r["order"] in orders:
                raise _twice(f"fill order {r['order']!r} of {_fill_label(r)}",
                             orders[r["order"]], run.number)
            orders[r["order"]] = r
    return {key: list(orders.values()) for key, orders in shapes.items()}


def _fill_label(r: dict) -> str:
    """'flat', 'flat, generations' (a cloud of other than identical hosts),
    'flat, 1 scheduler' (other than the default count)."""
    label = r["shape"]
    if r.get("cloud", "identical") != "identical":
        label += f", {r['cloud']}"
    if (schedulers := r.get("schedulers", SCHEDULERS)) != SCHEDULERS:
        label += f", {schedulers} scheduler{'s' if schedulers > 1 else ''}"
    return label


def _fill_cells(r: dict) -> list[str]:
    half, failure = r["half"], r.get("first_failure") or {}
    times = [r["latency"].get(kind) or {} for kind in ("candidates", "claim", "delete")]
    return [cell(r["order"]), number(half["std_ram_use"], 3), f"{half['max_ram_use']:.0%}",
            str(half["empty_hosts"]) + (f" ({half['empty_most']})" if "empty_most" in half
                                        else ""),
            str(half["hosts_fitting_largest"]),
            size_text(failure["placed"]) if failure else f"none in {size_text(r['boots'])} boots",
            f"{failure['ram_used_fraction']:.0%}" if failure else "",
            cell(f"{failure['flavor']}: {failure['reason']}") if failure else "",
            number(r.get("conflicts_per_placed"), 3),
            *(f"{number(t['median_ms'], 1)} / {number(t['p90_ms'], 1)}"
              if t.get("median_ms") is not None else "" for t in times)]


def _fill_section(runs: list[Run], out: Out) -> list[str]:
    first = runs[0].data
    flavors = ", ".join(f"{f['name']} {f['vcpus']} / {f['ram_mb']} / {f['disk_gb']} "
                        f"({f['weight']}%)" for f in first.get("flavors", []))
    lines = ["## Fill: candidate order and how the cloud fills", "", TEXTS["fill_intro"].format(
        schedulers=first.get("schedulers"), delete=first.get("delete_fraction", 0),
        limit=first.get("limit"), version=first.get("version"),
        flavors=flavors or "not recorded", largest=first.get("largest"),
        workers=text.workers(first.get("workers")))]
    lines += settings(runs, lambda d: f"{size_text(d['hosts'])} hosts",
                      lambda d: f"`--limit {d['limit']}`",
                      lambda d: f"at most {size_text(d['max_boots'])} boots per order",
                      lambda d: f"seed {d['seed']}", lambda d: f"{d['schedulers']} schedulers",
                      lambda d: text.workers(d.get("workers")))
    if host := first.get("host"):
        lines += [TEXTS["fill_host"].format(flat=_inventory_text(host.get("flat", {})),
                                            numa=_inventory_text(host.get("numa_node", {}))), ""]
    for run in runs:
        if len(generations := run.data.get("generations") or []) > 1:
            lines += [TEXTS["fill_generations"].format(
                run=run.number, cloud=run.data.get("cloud"),
                generations="; ".join(_inventory_text(g["flat"]) for g in generations)), ""]
    checks: dict[str, list[dict]] = {}  # label -> its checks
    for run in runs:
        for c in run.data.get("checks", []):
            label = _fill_label({**c, "schedulers": run.data.get("schedulers", SCHEDULERS)})
            checks.setdefault(label, []).append(c)
    for label, rows in fill_rows(runs).items():
        mine = [run for run in runs if any(r["run"] == run.number for r in rows)]
        hosts = ", ".join(size_text(h) for h in sorted({r.data["hosts"] for r in mine}))
        lines += [f"### Fill, {label} ({hosts} hosts)", "", *head(*FILL_COLUMNS),
                  *(row(*_fill_cells(r)) for r in rows), "",
                  *(f"- {c['result']}: {cell(c['check'])} ({cell(c['detail'])})"
                    for c in checks.get(label, [])), *([""] if label in checks else [])]
        stem, when = "fill-" + label.replace(", ", "-").replace(" ", "-"), where_when(mine)
        bars = out.plot(f"{stem}-half", plots.plot_fill_bars,
                        f"At half full, {label}, {when}", rows, first.get("largest", "largest"))
        use = out.plot(f"{stem}-ram-use", plots.plot_fill_use,
                       f"Host RAM use at half full, {label}, {when}", rows)
        lines += [f"![{TEXTS['fill_bars_alt']}]({bars})", "", f"![{TEXTS['fill_use_alt']}]({use})",
                  ""]
    return lines


def _inventory_text(inventories: dict) -> str:
    parts = []
    for rc, inv in inventories.items():
        extra = ", ".join(filter(None, [
            f"reserved {inv['reserved']}" if inv.get("reserved") else "",
            f"allocation ratio {inv['allocation_ratio']:g}"
            if inv.get("allocation_ratio", 1.0) != 1.0 else ""]))
        parts.append(f"{rc} {inv['total']}" + (f" ({extra})" if extra else ""))
    return ", ".join(parts)


def _capacity_section(runs: list[Run], out: Out) -> list[str]:
    """GET and POST /capacity and the capacity gauges per run (shape and
    backend), and what the tools' scrapes cost against the same database."""
    lines = ["## Capacity", "", TEXTS["capacity_intro"], ""]
    for run in runs:
        d = run.data
        sizes = sorted({r["size"] for r in d["results"]})
        lines += [f"Run {run.number}: {d.get('shape')} providers on {d.get('backend')}.", "",
                  *head("query", *(f"{size_text(s)} ms (CPU)" for s in sizes), "peak RSS MiB",
                        "result")]
        for query in dict.fromkeys(r["query"] for r in d["results"]):
            by_size = {r["size"]: r for r in d["results"] if r["query"] == query}
            found = [by_size[s] for s in sizes if s in by_size]
            lines.append(row(cell(query), *(
                f"{number(by_size[s]['median_ms'], 1)} ({number(by_size[s]['cpu_ms'], 0)})"
                if s in by_size else "" for s in sizes),
                " / ".join(number(r.get("rss_peak_mb"), 0) for r in found),
                " / ".join(r.get("result", "-") for r in found)))
        lines.append("")
        if d.get("tools"):
            lines += [TEXTS["capacity_tools"], "", *head(
                "server", "providers", "openstack-exporter (requests)", "os-capacity, 20 flavors")]
            lines += [row(t["server"], size_text(t["size"]),
                          f"{number(t['exporter 1+2N requests'], 1)} "
                          f"({t['exporter requests']:,})",
                          number(t["os-capacity 20 flavors"], 1)) for t in d["tools"]] + [""]
    return lines


def _walk_text(walk: dict | None) -> str:
    """A 1 + N walk's seconds, marked where extrapolated from a sample."""
    if not walk:
        return ""
    how = (f", **extrapolated** from {walk['timed_requests']:,}" if walk["extrapolated"]
           else "")
    return f"{walk['seconds']:,.1f} s ({walk['per_provider_ms']:.1f} ms a provider{how})"


def _audit_section(runs: list[Run], out: Out) -> list[str]:
    """Placer's GET /audit beside nova-manage's 1 + N requests, per backend and size."""
    lines = ["## Audit", "", TEXTS["audit_intro"], "", *head(
        "run", "backend", "providers", "allocations", "Placer `GET /audit` s", "peak RSS MiB",
        "1 + N requests", "reference 1 + N", "Placer 1 + N", "reference 1 + N / `GET /audit`",
        "found")]
    for run in runs:
        d = run.data
        for db in d["databases"]:
            mine = {r["server"]: r for r in d["results"] if r["size"] == db["size"]}
            placer, ref = mine.get("placer", {}), mine.get("reference", {})
            audit = placer.get("audit") or {}
            seconds = audit.get("median_ms") and audit["median_ms"] / 1000
            lines.append(row(str(run.number), text.BACKENDS.get(d["backend"], d["backend"]),
                             size_text(db["providers"]), size_text(db["allocations"]),
                             number(seconds, 2), number(audit.get("rss_peak_mb"), 0),
                             size_text(db["providers"] + 1), _walk_text(ref.get("walk")),
                             _walk_text(placer.get("walk")), text.times_text(
                                 ref.get("walk") and seconds and ref["walk"]["seconds"] / seconds),
                             cell(", ".join(
                                 f"{k} {v}" for k, v in (placer.get("findings") or {}).items()
                                 if v))))
    return lines + [""]


SECTIONS = {"production": _production_section, "runs": None, "scale": _scale_section,
            "scenarios": _scenarios_section, "order": _order_section, "fill": _fill_section,
            "capacity": _capacity_section, "audit": _audit_section}


def write(paths: list[str], out_dir: Path, argv: list[str], fmt: str = "svg",
          notes: list[str] | None = None) -> list[str]:
    """Write the page and the plots; returns the names of the files written."""
    runs = load(paths)
    out_dir.mkdir(parents=True, exist_ok=True)
    out = Out(out_dir, fmt)
    body = [TEXTS["comment"], "", "# Benchmark results", "",
            TEXTS["intro"].format(ratio=text.REFERENCE_RATIO), ""]
    for kind, section in SECTIONS.items():
        mine = [run for run in runs if run.kind == kind]
        if section is None:
            body += _runs_section(runs, argv, notes or [])
        elif mine:
            body += section(mine, out)
    page = "\n".join(body).rstrip() + "\n"
    while "\n\n\n" in page:
        page = page.replace("\n\n\n", "\n\n")
    (out_dir / PAGE).write_text(page)
    return [PAGE, *out.written]

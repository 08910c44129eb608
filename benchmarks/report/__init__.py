"""The results page, written from results files: ``python -m benchmarks
report FILE... --out docs/results`` (the page, ``index.md``, and its plots,
from the same numbers, so that they cannot disagree: regenerate them, do
not edit them). A results file is what one run of ``python -m benchmarks
SCENARIO --json PATH`` wrote; a query (or a fill order of a shape) measured
in two files is an error. Nothing here imports a scenario: the files are
the interface.
"""

import json
import shlex
import tomllib
import urllib.parse
from dataclasses import dataclass
from pathlib import Path

from benchmarks.report import plots, production
from benchmarks.report.text import (
    BACKENDS,
    REFERENCE_RATIO,
    cell,
    number,
    ratio_text,
    size_text,
    times_text,
    workers,
)

PAGE = "index.md"
COMMENT = ("% Written by `python -m benchmarks report` from the results files named "
           "below: regenerate it, do not edit it.")
TEXTS = tomllib.loads((Path(__file__).parent / "texts.toml").read_text())

# digits per column
FORMATS = {"candidates": None, "size_kb": 0, "median_ms": 1, "p90_ms": 1, "cpu_ms": 1,
           "rss_peak_mb": 0}
PLACER_COLUMNS = (("candidates", "candidates"), ("size_kb", "KiB"),
                  ("median_ms", "median ms"), ("p90_ms", "p90 ms"), ("cpu_ms", "CPU ms"),
                  ("rss_peak_mb", "peak RSS MiB"))
REFERENCE_COLUMNS = (("median_ms", "reference median ms"), ("p90_ms", "reference p90 ms"),
                     ("cpu_ms", "reference CPU ms"), ("rss_peak_mb", "reference peak RSS MiB"))


class ReportError(Exception):
    pass


@dataclass
class Run:
    number: int
    path: str
    data: dict

    @property
    def kind(self) -> str:
        if "benchmark" in self.data:
            return self.data["benchmark"]
        return "scale" if "sizes" in self.data else "scenarios"

    def rows(self) -> list[dict]:
        """The results, each with ``server`` and ``run``; scale results with
        ``shape`` and ``size``, the others with ``group`` (the scenario)."""
        out = []
        for r in self.data["results"]:
            row = {**r, "run": self.number}
            if self.kind == "scale":
                if not {"server", "shape", "size"} <= row.keys():
                    # written before these fields: the scenario is "placer flat 1000"
                    server, shape, size = r["scenario"].split()
                    row.update(server=server, shape=shape, size=int(size))
            else:
                reference = r["scenario"].endswith(" (reference)")
                row.setdefault("server", "reference" if reference else "placer")
                row["group"] = r["scenario"].removesuffix(" (reference)")
            out.append(row)
        return out


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


def load(paths: list[str]) -> list[Run]:
    runs = []
    for n, path in enumerate(paths, 1):
        with open(path) as f:
            data = json.load(f)
        if not isinstance(data, dict) or "results" not in data:
            raise ReportError(f"{path}: not a results file of python -m benchmarks")
        runs.append(Run(n, path, data))
    return runs


def pairs(rows: list[dict], key) -> dict[object, list[Pair]]:
    """Group -> its queries, in the order they were run (Placer's first)."""
    groups: dict[object, dict[str, Pair]] = {}
    for row in rows:
        group = groups.setdefault(key(row), {})
        pair = group.setdefault(row["query"], Pair(row["query"]))
        if getattr(pair, row["server"]) is not None:
            raise ReportError(f"{row['query']!r} of {key(row)!r} ({row['server']}) is in "
                              f"two results (runs {getattr(pair, row['server'])['run']} and "
                              f"{row['run']})")
        setattr(pair, row["server"], row)
    return {k: list(v.values()) for k, v in groups.items()}


def table(group_pairs: list[Pair], with_reference: bool) -> list[str]:
    """Columns not named "reference" are Placer's."""
    head = ["query", *(title if not with_reference or key == "candidates" else f"Placer {title}"
                       for key, title in PLACER_COLUMNS)]
    if with_reference:
        head += [title for _, title in REFERENCE_COLUMNS] + ["Placer/reference"]
    head += ["target", "notes"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for pair in group_pairs:
        p, r = pair.placer or {}, pair.reference or {}
        cells = [cell(pair.query)]
        cells += [number(p.get(k), FORMATS[k]) for k, _ in PLACER_COLUMNS]
        if with_reference:
            cells += [number(r.get(k), FORMATS[k]) for k, _ in REFERENCE_COLUMNS]
            cells.append(ratio_text(pair.ratio))
        target = p.get("target_ms")
        cells.append(f"under {target:g} ms: {p.get('result', '')}" if target else "")
        notes = []
        if p.get("note"):
            notes.append(p["note"])
        if not p:
            notes.append("not run on Placer")
        if r.get("note"):
            notes.append("reference: " + r["note"])
        if (p.get("candidates") is not None and r.get("candidates") is not None
                and r["candidates"] != p["candidates"]):
            notes.append(f"reference: {r['candidates']} candidates")
        cells.append(cell("; ".join(notes)))
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def requests_table(rows: list[tuple[str, str]]) -> list[str]:
    """(query, path) rows; paths shown decoded (``:`` and ``,`` plain)."""
    lines = ["| query | request |", "|---|---|"]
    for query, path in rows:
        if not path:
            continue
        shown = path if " " in path else "GET " + path
        lines.append(f"| {cell(query)} | `{urllib.parse.unquote(shown).replace('|', '%7C')}` |")
    return lines


# -- the page --------------------------------------------------------------------

def _runs_section(runs: list[Run], argv: list[str], notes: list[str]) -> list[str]:
    out = ["## How they were measured", ""]
    for note in notes:  # what the files cannot know, such as other load on the machine
        out += [note, ""]
    machines = {json.dumps(r.data.get("machine"), sort_keys=True) for r in runs}
    for m in sorted(machines):
        machine = json.loads(m)
        if machine:
            out.append(
                f"Machine: {machine.get('cpu')}, {machine.get('cores')} cores, "
                f"{machine.get('memory_gib')} GiB of memory, {machine.get('os')} "
                f"(Linux {machine.get('kernel')}, {machine.get('arch')}).")
        else:
            out.append("Machine: not recorded in the results file.")
        out.append("")
    for run in runs:
        d = run.data
        soft = d.get("software") or {}
        ref = d.get("reference") or {}
        line = (f"Run {run.number} (`{cell(run.path)}`): Placer with Python "
                f"{soft.get('python', '?')}, SQLite {soft.get('sqlite', '?')}, SQLAlchemy "
                f"{soft.get('sqlalchemy', '?')}")
        if ref:
            line += (f"; the reference, openstack-placement {ref.get('openstack-placement')} "
                     f"with gunicorn {ref.get('gunicorn')}, Python {ref.get('python')}, "
                     f"SQLite {ref.get('sqlite')}, SQLAlchemy {ref.get('SQLAlchemy')}")
        if d.get("database_version"):
            line += f"; the database server: {d['database_version']}"
        out += [line + ".", ""]
    out += ["| run | benchmark | started (UTC) | finished (UTC) | commit | "
            "load average before / after |", "|---|---|---|---|---|---|"]
    for run in runs:
        d = run.data
        commit = d.get("commit") or "not recorded"
        if d.get("commit") and d.get("dirty"):
            changed = d.get("changed_files")
            commit += (" with uncommitted changes" if not changed else
                       " with uncommitted changes to " + ", ".join(f"`{f}`" for f in changed))
        load = " / ".join(", ".join(f"{x:.2f}" for x in d[k]) for k in
                          ("load_average", "load_average_after") if d.get(k))
        out.append(f"| {run.number} | {run.kind} | {d.get('date', 'not recorded')} | "
                   f"{d.get('finished', '')} | {commit} | {load} |")
    out += ["", "The commands, from the repository's root with Placer installed "
            "(`pip install -e .[benchmarks]`), the reference in the virtualenv named by "
            "`--reference`:", "", "```sh"]
    for run in runs:
        out.append(run.data.get("command") or f"# run {run.number}: command not recorded")
    out += ["python -m benchmarks report " + shlex.join(argv), "```", ""]
    return out


def where_when(runs: list[Run]) -> str:
    """The databases and days of ``runs``, for a plot's title: "SQLite, 2026-11-27"."""
    backends = sorted({BACKENDS.get(b, b) for b in
                       (run.data.get("backend", "sqlite") for run in runs)})
    days = sorted({str(run.data.get("date", ""))[:10] for run in runs} - {""})
    return ", ".join(backends + ([" to ".join(dict.fromkeys([days[0], days[-1]]))]
                                 if days else []))


def _scale_section(runs: list[Run], out_dir: Path, written: list[str], fmt: str) -> list[str]:
    rows = [row for run in runs for row in run.rows()]
    grouped = pairs(rows, lambda r: (r["shape"], r["size"]))
    out = []
    shapes = list(dict.fromkeys(shape for shape, _ in grouped))
    backends = sorted({BACKENDS.get(b, b) for b in
                       (run.data.get("backend", "sqlite") for run in runs)})
    for shape in shapes:
        by_size = {size: ps for (s, size), ps in grouped.items() if s == shape}
        sizes = sorted(by_size)
        with_ref = [s for s in sizes if any(p.reference for p in by_size[s])]
        out += [f"## Scale: {shape} shape, {', '.join(backends)}", "", TEXTS["scale_intro"]]
        if shape == "nested":
            out += ["In the nested shape a tree is a root with DISK_GB and two NUMA "
                    "children with VCPU and MEMORY_MB: N providers are N/3 trees.", ""]
        settings = []
        for run in runs:
            d = run.data
            text = (f"run {run.number}: sizes {', '.join(size_text(s) for s in d.get('sizes', []))}"
                    f", `--repeat {d.get('repeat')}`, {workers(d.get('workers'))}")
            if d.get("reference_repeat"):
                text += f", reference `--reference-repeat {d['reference_repeat']}`"
            if d.get("randomize"):
                text += ", randomize_allocation_candidates on"
            settings.append(text)
        out += ["Settings: " + "; ".join(settings) + ".", ""]
        if with_ref != sizes:
            missing = [size_text(s) for s in sizes if s not in with_ref]
            out += [f"**The reference was not run at {', '.join(missing)} providers**: "
                    "no reference numbers exist for "
                    f"{'that size' if len(missing) == 1 else 'those sizes'}.", ""]
        dbs = [db for run in runs for db in run.data.get("databases", [])
               if db.get("shape") == shape]
        if dbs:
            out += ["| providers | trees | consumers | allocations | generated in s |",
                    "|---|---|---|---|---|"]
            out += [f"| {size_text(db['providers'])} | {size_text(db['roots'])} | "
                    f"{size_text(db['consumers'])} | {size_text(db['allocations'])} | "
                    f"{db['seconds']} |" for db in sorted(dbs, key=lambda db: db["size"])]
            out.append("")
        out += _scale_summary(by_size)

        latency = f"scale-{shape}-latency.{fmt}"
        plots.plot_by_size(out_dir / latency,
                           f"Median latency, scale ({shape}), {where_when(runs)}",
                     "median latency, ms (log scale)", "median_ms", True, by_size)
        memory = f"scale-{shape}-memory.{fmt}"
        plots.plot_by_size(out_dir / memory,
                           f"Peak worker RSS, scale ({shape}), {where_when(runs)}",
                     "peak RSS, MiB", "rss_peak_mb", False, by_size)
        written += [latency, memory]
        out += ["### Latency", "",
                f"![Median latency of each request against the number of providers, "
                f"Placer and the reference, log-log]({latency})", ""]
        if with_ref:
            ratio = f"scale-{shape}-ratio.{fmt}"
            plots.plot_ratios(out_dir / ratio,
                              f"Placer / reference, scale ({shape}), {where_when(runs)}",
                        {f"{size_text(s)} providers": [(p.query, p.ratio) for p in by_size[s]]
                         for s in with_ref})
            written.append(ratio)
            out += ["### Placer against the reference", "",
                    f"![Placer/reference median latency per request at each size]({ratio})",
                    ""]
        out += ["### Memory", "",
                f"![Peak RSS of the server worker per request against the number of "
                f"providers]({memory})", ""]
        for size in sizes:
            has_ref = size in with_ref
            out += [f"### {size_text(size)} providers ({shape})", ""]
            if not has_ref and with_ref:
                out += ["The reference was not run at this size.", ""]
            out += table(by_size[size], has_ref) + [""]
        largest = by_size[sizes[-1]]
        out += [f"### Requests ({shape})", "",
                f"As sent at {size_text(sizes[-1])} providers (claims and provider usages "
                "change provider and consumer at each run; the last one is shown):", ""]
        out += requests_table([(p.query, (p.placer or p.reference or {}).get("path", ""))
                               for p in largest]) + [""]
    return out


def _scale_summary(by_size: dict[int, list[Pair]]) -> list[str]:
    sizes = sorted(by_size)
    out = []
    largest = sizes[-1]
    ref_sizes = [s for s in sizes if any(p.reference for p in by_size[s])]
    for size in sorted({largest, *ref_sizes[-1:]}, reverse=True):
        items = []
        for p in by_size[size]:
            if "limit=" not in p.query:
                continue
            text = f"`{p.query}`: Placer {number(p.placer and p.placer.get('median_ms'), 1)} ms"
            if p.reference and p.reference.get("median_ms") is not None:
                text += (f", reference {number(p.reference['median_ms'], 1)} ms "
                         f"(Placer/reference {ratio_text(p.ratio)}, "
                         f"{times_text(1 / p.ratio if p.ratio else None)} faster)")
            elif p.reference:
                text += f", reference: {cell(p.reference.get('note') or 'no time')}"
            items.append(text)
        if items:
            out += [f"Limited requests at {size_text(size)} providers (median latency):", ""]
            out += [f"- {item}" for item in items] + [""]
    return out


def _scenarios_section(runs: list[Run], out_dir: Path, written: list[str],
                       fmt: str) -> list[str]:
    rows = [row for run in runs for row in run.rows()]
    grouped = pairs(rows, lambda r: r["group"])
    described = {}
    for run in runs:
        described.update(run.data.get("scenarios") or {})
    out = [f"## Scenarios: {', '.join(grouped)}", "", TEXTS["scenarios_intro"]]
    settings = []
    for run in runs:
        d = run.data
        text = (f"run {run.number}: microversion {d.get('version')}, "
                f"`--repeat {d.get('repeat')}`, {workers(d.get('workers'))}")
        if d.get("reference_repeat"):
            text += f", reference `--reference-repeat {d['reference_repeat']}`"
        if d.get("only"):
            text += f", reference timed only on `{d['only']}`"
        if d.get("max_candidates", -1) != -1:
            text += f", max_allocation_candidates {d['max_candidates']}"
        if d.get("randomize"):
            text += ", randomize_allocation_candidates on"
        settings.append(text)
    out += ["Settings: " + "; ".join(settings) + ".", ""]
    compared = {g: [p for p in ps if p.reference] for g, ps in grouped.items()}
    compared = {g: ps for g, ps in compared.items() if ps}
    if compared:
        out += _scenarios_summary(compared)
        ratio = f"scenarios-ratio.{fmt}"
        bars = {g: [(f"{g}: {p.query}", p.ratio) for p in ps] for g, ps in compared.items()}
        plots.plot_ratios(out_dir / ratio,
                    f"Placer / reference, limited queries, {where_when(runs)}", bars)
        written.append(ratio)
        out += [f"![Placer/reference median latency of each limited query]({ratio})", ""]
    for group, group_pairs in grouped.items():
        info = described.get(group) or {}
        out += [f"### {group}", ""]
        if info:
            desc = (info.get("description") or "").strip().rstrip(".")
            out += [f"{cell(desc)}: {size_text(info['providers'])} providers, "
                    f"{size_text(info['consumers'])} consumers.", ""]
        has_ref = group in compared
        out += table(group_pairs, has_ref) + [""]
    out += ["### Requests (scenarios)", "",
            "Aggregate uuids are generated anew for each run.", ""]
    out += requests_table([(f"{g}: {p.query}", (p.placer or p.reference or {}).get("path", ""))
                           for g, ps in grouped.items() for p in ps]) + [""]
    return out


def _scenarios_summary(compared: dict[str, list[Pair]]) -> list[str]:
    timed = [(g, p) for g, ps in compared.items() for p in ps]
    both = [(g, p) for g, p in timed if p.ratio is not None]
    passed = [(g, p) for g, p in both if p.ratio <= REFERENCE_RATIO]
    out = [f"Limited queries timed on both servers: {len(both)}; Placer/reference at most "
           f"{REFERENCE_RATIO} ({1 / REFERENCE_RATIO:.0f}x faster or more) in {len(passed)} "
           "of them."]
    if both:
        low = min(both, key=lambda gp: gp[1].ratio)
        high = max(both, key=lambda gp: gp[1].ratio)
        out[-1] += (f" From {ratio_text(low[1].ratio)} ({low[0]} `{low[1].query}`) to "
                    f"{ratio_text(high[1].ratio)} ({high[0]} `{high[1].query}`).")
    missed = [f"{g} `{p.query}` ({ratio_text(p.ratio)})" for g, p in both
              if p.ratio > REFERENCE_RATIO]
    if missed:
        out[-1] += " Above it: " + ", ".join(missed) + "."
    failed = [(g, p) for g, p in timed if p.ratio is None]
    if failed:
        out[-1] += " Without a reference time: " + "; ".join(
            f"{g} `{p.query}` ({cell(p.reference.get('note') or 'no time')})"
            for g, p in failed) + "."
    return [out[-1], ""]


FILL_COLUMNS = ("order", "std dev of RAM use", "fullest host", "empty hosts (most possible)",
                "fit largest",
                "placed before failure", "RAM used at failure", "failed boot",
                "conflicts per placed",
                "candidates ms", "claim ms", "delete ms")


def order_of(run: Run) -> str:
    """The [placer] candidate_order a scale run was served in ('' if unset)."""
    return (run.data.get("candidate_order") or {}).get("candidate_order", "")


def _order_section(runs: list[Run], out_dir: Path, written: list[str], fmt: str) -> list[str]:
    series: dict[tuple[str, str], dict[int, dict[str, dict]]] = {}
    for run in runs:
        backend = BACKENDS.get(run.data.get("backend", "sqlite"), run.data.get("backend"))
        options = run.data.get("candidate_order") or {}
        label = order_of(run)
        if "candidate_order_pool" in options:
            label += f", pool {options['candidate_order_pool']:g}"
        for row in run.rows():
            if row["server"] == "placer":
                series.setdefault((backend, label), {}).setdefault(row["size"], {})[
                    row["query"]] = row
    queries = list(dict.fromkeys(q for sizes in series.values() for rows in sizes.values()
                                 for q in rows))
    out = ["## Candidate order: what it costs", "", TEXTS["order_intro"], "",
           "| backend | order | providers | " + " | ".join(queries) + " |",
           "|---|---|---|" + "---|" * len(queries)]
    for (backend, label), sizes in series.items():
        for size in sorted(sizes):
            cells = []
            for q in queries:
                r = sizes[size].get(q)
                cells.append("" if r is None else
                             f"{number(r['median_ms'], 1)} ({number(r.get('cpu_ms'), 0)})")
            out.append(f"| {backend} | {label} | {size_text(size)} | " + " | ".join(cells) + " |")
    out.append("")
    plot = f"order-latency.{fmt}"
    plt = plots.pyplot()
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    for (backend, label), sizes in series.items():
        points = [(size, rows["limit=1000"]["median_ms"]) for size, rows in sorted(sizes.items())
                  if "limit=1000" in rows]
        if points:
            ax.plot(*zip(*points, strict=True), marker="o", label=f"{backend}, {label}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    plots.plain_log_labels(ax.yaxis)
    plots.size_axis(ax, sorted({s for sizes in series.values() for s in sizes}))
    ax.set_ylabel("median latency, ms (log scale)")
    ax.set_title(f"limit=1000 by candidate order and backend, {where_when(runs)}")
    ax.legend(fontsize=8)
    plots.save(fig, out_dir / plot)
    written.append(plot)
    out += [f"![limit=1000 median latency against the number of providers, per order and "
            f"backend]({plot})", ""]
    return out


SCHEDULERS = 4  # the fill runs' default: other counts are labelled


def fill_rows(runs: list[Run]) -> dict[str, list[dict]]:
    """Label (shape, and cloud and schedulers where not the default) -> its
    orders' results, in the order they were run."""
    shapes: dict[str, dict[str, dict]] = {}
    for run in runs:
        for r in run.data["results"]:
            r = {**r, "schedulers": run.data.get("schedulers", SCHEDULERS)}
            orders = shapes.setdefault(_fill_label(r), {})
            if r["order"] in orders:
                raise ReportError(f"fill order {r['order']!r} of {_fill_label(r)} is in two "
                                  f"results (runs {orders[r['order']]['run']} and "
                                  f"{run.number})")
            orders[r["order"]] = {**r, "run": run.number}
    return {key: list(orders.values()) for key, orders in shapes.items()}


def _fill_label(r: dict) -> str:
    """'flat', 'flat, generations' (a cloud of other than identical hosts),
    'flat, 1 scheduler' (other than the default count)."""
    label = r["shape"]
    if r.get("cloud", "identical") != "identical":
        label += f", {r['cloud']}"
    schedulers = r.get("schedulers", SCHEDULERS)
    if schedulers != SCHEDULERS:
        label += f", {schedulers} scheduler{'s' if schedulers > 1 else ''}"
    return label


def _fill_cells(r: dict) -> list[str]:
    half, failure, lat = r["half"], r.get("first_failure"), r["latency"]

    def ms(kind):
        t = lat.get(kind) or {}
        return (f"{number(t['median_ms'], 1)} / {number(t['p90_ms'], 1)}"
                if t.get("median_ms") is not None else "")

    return [cell(r["order"]), number(half["std_ram_use"], 3), f"{half['max_ram_use']:.0%}",
            str(half["empty_hosts"]) + (f" ({half['empty_most']})" if "empty_most" in half
                                        else ""),
            str(half["hosts_fitting_largest"]),
            size_text(failure["placed"]) if failure else f"none in {size_text(r['boots'])} boots",
            f"{failure['ram_used_fraction']:.0%}" if failure else "",
            cell(f"{failure['flavor']}: {failure['reason']}") if failure else "",
            number(r.get("conflicts_per_placed"), 3), ms("candidates"), ms("claim"),
            ms("delete")]


def _fill_section(runs: list[Run], out_dir: Path, written: list[str], fmt: str) -> list[str]:
    by_shape = fill_rows(runs)
    first = runs[0].data
    flavors = ", ".join(f"{f['name']} {f['vcpus']} / {f['ram_mb']} / {f['disk_gb']} "
                        f"({f['weight']}%)" for f in first.get("flavors", []))
    out = ["## Fill: candidate order and how the cloud fills", "",
           TEXTS["fill_intro"].format(schedulers=first.get("schedulers"),
                             delete=first.get("delete_fraction", 0), limit=first.get("limit"),
                             version=first.get("version"), flavors=flavors or "not recorded",
                             largest=first.get("largest"),
                             workers=workers(first.get("workers")))]
    settings = []
    for run in runs:
        d = run.data
        text = (f"run {run.number}: {size_text(d.get('hosts', 0))} hosts, `--limit "
                f"{d.get('limit')}`, at most {size_text(d.get('max_boots', 0))} boots per "
                f"order, seed {d.get('seed')}, {d.get('schedulers')} schedulers, "
                f"{workers(d.get('workers'))}")
        if d.get("pool") is not None:
            text += f", candidate_order_pool {d['pool']:g}"
        settings.append(text)
    out += ["Settings: " + "; ".join(settings) + ".", ""]
    if any(not run.data.get("candidate_order_known", True) for run in runs):
        out += ["**The Placer measured had no `[placer] candidate_order` option**: it "
                "ignored the option, so its spread and pack orders were served in id "
                "order, like its id order.", ""]
    host = first.get("host") or {}
    if host:
        out += [f"Each host: {_inventory_text(host.get('flat', {}))}; nested, the root "
                f"holds the DISK_GB and two NUMA children each "
                f"{_inventory_text(host.get('numa_node', {}))}.", ""]
    for run in runs:
        generations = run.data.get("generations") or []
        if len(generations) > 1:
            out += [f"Run {run.number}, `--cloud {run.data.get('cloud')}`: a third of the "
                    f"hosts each, the oldest enrolled first (lowest ids): " + "; ".join(
                        _inventory_text(g["flat"]) for g in generations)
                    + " (nested: two NUMA children with half the VCPU and MEMORY_MB each).", ""]
    checks: dict[str, list[dict]] = {}  # label -> its checks
    for run in runs:
        schedulers = run.data.get("schedulers", SCHEDULERS)
        for c in run.data.get("checks", []):
            checks.setdefault(_fill_label({**c, "schedulers": schedulers}), []).append(c)
    for label, rows in by_shape.items():
        hosts = {run.data.get("hosts") for run in runs if any(r["run"] == run.number
                                                             for r in rows)}
        out += [f"### Fill, {label} ({', '.join(size_text(h) for h in sorted(hosts))} hosts)",
                "", "| " + " | ".join(FILL_COLUMNS) + " |", "|" + "---|" * len(FILL_COLUMNS)]
        out += ["| " + " | ".join(_fill_cells(r)) + " |" for r in rows] + [""]
        if label in checks:
            out += [f"- {c['result']}: {cell(c['check'])} ({cell(c['detail'])})"
                    for c in checks[label]] + [""]
        stem = "fill-" + label.replace(", ", "-").replace(" ", "-")
        bars, use = f"{stem}-half.{fmt}", f"{stem}-ram-use.{fmt}"
        when = where_when([run for run in runs if any(r["run"] == run.number for r in rows)])
        plots.plot_fill_bars(out_dir / bars, f"At half full, {label}, {when}", rows,
                       first.get("largest", "largest"))
        plots.plot_fill_use(out_dir / use, f"Host RAM use at half full, {label}, {when}", rows)
        written += [bars, use]
        out += [f"![At half full, per order: standard deviation of the hosts' RAM use, "
                f"empty hosts, hosts fitting the largest flavor]({bars})", "",
                f"![The hosts' RAM use at half full, fullest first, per order]({use})", ""]
    return out


def _capacity_section(runs: list[Run]) -> list[str]:
    """GET and POST /capacity and the capacity gauges per run (shape and
    backend), and what the tools' scrapes cost against the same database."""
    out = ["## Capacity", "", TEXTS["capacity_intro"], ""]
    for run in runs:
        d = run.data
        sizes = sorted({r["size"] for r in d["results"]})
        out += [f"Run {run.number}: {d.get('shape')} providers on {d.get('backend')}.", "",
                "| query | " + " | ".join(f"{size_text(s)} ms (CPU)" for s in sizes)
                + " | peak RSS MiB | result |",
                "|---|" + "---|" * len(sizes) + "---|---|"]
        queries = list(dict.fromkeys(r["query"] for r in d["results"]))
        for query in queries:
            rows = {r["size"]: r for r in d["results"] if r["query"] == query}
            cells = [f"{number(rows[s]['median_ms'], 1)} ({number(rows[s]['cpu_ms'], 0)})"
                     if s in rows else "" for s in sizes]
            rss = " / ".join(number(rows[s].get("rss_peak_mb"), 0) for s in sizes if s in rows)
            verdicts = " / ".join(rows[s].get("result", "-") for s in sizes if s in rows)
            out.append(f"| {cell(query)} | " + " | ".join(cells) + f" | {rss} | {verdicts} |")
        out.append("")
        tools = d.get("tools") or []
        if tools:
            out += ["What today's tools ask for the same answers, against the same database, "
                    "one request after another as they send them (seconds for one scrape):",
                    "", "| server | providers | openstack-exporter (requests) | "
                    "os-capacity, 20 flavors |", "|---|---|---|---|"]
            for t in tools:
                out.append(f"| {t['server']} | {size_text(t['size'])} | "
                           f"{number(t['exporter 1+2N requests'], 1)} "
                           f"({t['exporter requests']:,}) | "
                           f"{number(t['os-capacity 20 flavors'], 1)} |")
            out.append("")
    return out


def _production_section(runs: list[Run]) -> list[str]:
    """Placer against the reference on each database (benchmarks/production.py)."""
    data = [r.data for r in runs]
    out = ["## On every database: how much faster, at what size", "",
           TEXTS["production_intro"].format(runs=", ".join(str(r.number) for r in runs)), "",
           *production.summary_lines(data), ""]
    if any(d.get("throughput") for d in data):
        out += ["### Throughput against workers", "", TEXTS["throughput_intro"], "",
                *production.throughput_lines(data), ""]
    return out


def _inventory_text(inventories: dict) -> str:
    parts = []
    for rc, inv in inventories.items():
        text = f"{rc} {inv['total']}"
        extra = [f"reserved {inv['reserved']}" if inv.get("reserved") else "",
                 f"allocation ratio {inv['allocation_ratio']:g}"
                 if inv.get("allocation_ratio", 1.0) != 1.0 else ""]
        extra = [e for e in extra if e]
        parts.append(text + (f" ({', '.join(extra)})" if extra else ""))
    return ", ".join(parts)


def write(paths: list[str], out_dir: Path, argv: list[str], fmt: str = "svg",
          notes: list[str] | None = None) -> list[str]:
    """Write the page and the plots; returns the names of the files written."""
    runs = load(paths)
    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[str] = []
    body = [COMMENT, "", "# Benchmark results", "",
            TEXTS["intro"].format(ratio=REFERENCE_RATIO), ""]
    production_runs = [r for r in runs if r.kind == "production"]
    if production_runs:  # the answer to "how much faster, where": first
        body += _production_section(production_runs)
    body += _runs_section(runs, argv, notes or [])
    # scale runs in a [placer] candidate_order have their own section
    order_runs = [r for r in runs if r.kind == "scale" and order_of(r)]
    scale_runs = [r for r in runs if r.kind == "scale" and not order_of(r)]
    fill_runs = [r for r in runs if r.kind == "fill"]
    capacity_runs = [r for r in runs if r.kind == "capacity"]
    scenario_runs = [r for r in runs
                     if r.kind not in ("scale", "fill", "capacity", "production")]
    if scale_runs:
        body += _scale_section(scale_runs, out_dir, written, fmt)
    if scenario_runs:
        body += _scenarios_section(scenario_runs, out_dir, written, fmt)
    if order_runs:
        body += _order_section(order_runs, out_dir, written, fmt)
    if fill_runs:
        body += _fill_section(fill_runs, out_dir, written, fmt)
    if capacity_runs:
        body += _capacity_section(capacity_runs)
    text = "\n".join(body).rstrip() + "\n"
    while "\n\n\n" in text:
        text = text.replace("\n\n\n", "\n\n")
    (out_dir / PAGE).write_text(text)
    return [PAGE, *written]




def summary(data: dict) -> str:
    """One run's results, as the page shows them, without plots: what the
    command prints."""
    run = Run(1, "", data)
    if run.kind == "production":
        out = production.summary_lines([data]) + [""] + production.throughput_lines([data])
    elif run.kind == "capacity":
        out = _capacity_section([run])[2:]
    elif run.kind == "fill":
        out = [line for label, rows in fill_rows([run]).items() for line in (
            f"{label}:", "", "| " + " | ".join(FILL_COLUMNS) + " |",
            "|" + "---|" * len(FILL_COLUMNS), *("| " + " | ".join(_fill_cells(r)) + " |"
                                                for r in rows), "")]
    elif run.kind == "span":
        out = [json.dumps(data["spans"], indent=1)]
    else:
        key = ((lambda r: (r["shape"], r["size"])) if run.kind == "scale"
               else (lambda r: r["group"]))
        out = [line for group, ps in pairs(run.rows(), key).items() for line in (
            str(group), "", *table(ps, any(p.reference for p in ps)), "")]
    checks = [c if isinstance(c, str) else f"{c['result']} {c['shape']}, {c['cloud']}: "
              f"{c['check']} ({c['detail']})" for c in data.get("checks", [])]
    return "\n".join(out + checks)

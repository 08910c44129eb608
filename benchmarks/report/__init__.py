"""The results page, written from results files: ``python -m benchmarks
report FILE... --out docs/results`` (the page, ``index.md``, and its plots,
from the same numbers, so that they cannot disagree: regenerate them, do
not edit them). A query (or a fill order of a shape) measured in two files
is an error. Nothing here imports a scenario: the files are the interface.
"""

import json
import shlex
import tomllib
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path

from benchmarks.report import plots, production
from benchmarks.report.text import (
    BACKENDS,
    REFERENCE_RATIO,
    cell,
    head,
    number,
    ratio_text,
    row,
    size_text,
    times_text,
    workers,
)

PAGE = "index.md"
COMMENT = ("% Written by `python -m benchmarks report` from the results files named "
           "below: regenerate it, do not edit it.")
TEXTS = tomllib.loads((Path(__file__).parent / "texts.toml").read_text())

# (key, title, digits) of the query tables' columns; "reference" columns are the reference's
PLACER_COLUMNS = (("candidates", "candidates", None), ("size_kb", "KiB", 0),
                  ("median_ms", "median ms", 1), ("p90_ms", "p90 ms", 1),
                  ("cpu_ms", "CPU ms", 1), ("rss_peak_mb", "peak RSS MiB", 0))
REFERENCE_COLUMNS = (("median_ms", "reference median ms", 1), ("p90_ms", "reference p90 ms", 1),
                     ("cpu_ms", "reference CPU ms", 1),
                     ("rss_peak_mb", "reference peak RSS MiB", 0))
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
        if self.data["benchmark"] == "scale" and order_of(self):
            return "order"
        return self.data["benchmark"]

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
            data = json.load(f)
        if not isinstance(data, dict) or "results" not in data:
            raise ReportError(f"{path}: not a results file of python -m benchmarks")
        runs.append(Run(n, path, data))
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
    names = ["query", *(title if not with_reference or key == "candidates" else
                        f"Placer {title}" for key, title, _ in PLACER_COLUMNS)]
    if with_reference:
        names += [title for _, title, _ in REFERENCE_COLUMNS] + ["Placer/reference"]
    lines = head(*names, "target", "notes")
    for pair in group_pairs:
        p, r = pair.placer or {}, pair.reference or {}
        cells = [cell(pair.query), *(number(p.get(k), d) for k, _, d in PLACER_COLUMNS)]
        if with_reference:
            cells += [number(r.get(k), d) for k, _, d in REFERENCE_COLUMNS]
            cells.append(ratio_text(pair.ratio))
        target = p.get("target_ms")
        cells.append(f"under {target:g} ms: {p.get('result', '')}" if target else "")
        notes = [p.get("note"), "" if p else "not run on Placer",
                 r.get("note") and "reference: " + r["note"]]
        if None not in (p.get("candidates"), r.get("candidates")) and (
                r["candidates"] != p["candidates"]):
            notes.append(f"reference: {r['candidates']} candidates")
        lines.append(row(*cells, cell("; ".join(filter(None, notes)))))
    return lines


def requests_table(rows: list[tuple[str, str]]) -> list[str]:
    """(query, path) rows; paths shown decoded (``:`` and ``,`` plain)."""
    lines = head("query", "request")
    for query, path in rows:
        shown = urllib.parse.unquote(path if " " in path else "GET " + path)
        lines += [row(cell(query), f"`{shown.replace('|', '%7C')}`")] if path else []
    return lines


def settings(runs: list[Run], *parts) -> list[str]:
    """"Settings: run 1: ...; run 2: ...": each part a function of a run's
    data, giving its text or nothing."""
    texts = [", ".join(filter(None, (part(run.data) for part in parts))) for run in runs]
    return ["Settings: " + "; ".join(f"run {run.number}: {text}"
                                     for run, text in zip(runs, texts, strict=True)) + ".", ""]


def _reference_repeat(d: dict) -> str:
    return d.get("reference_repeat") and f"reference `--reference-repeat {d['reference_repeat']}`"


def where_when(runs: list[Run]) -> str:
    """The databases and days of ``runs``, for a plot's title: "SQLite, 2026-11-27"."""
    days = sorted({str(run.data.get("date", ""))[:10] for run in runs} - {""})
    return ", ".join(_backends(runs) + ([" to ".join(dict.fromkeys([days[0], days[-1]]))]
                                        if days else []))


def _backends(runs: list[Run]) -> list[str]:
    return sorted({BACKENDS.get(b, b) for b in (run.data.get("backend", "sqlite")
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
        m = json.loads(m)
        lines += [f"Machine: {m.get('cpu')}, {m.get('cores')} cores, {m.get('memory_gib')} "
                  f"GiB of memory, {m.get('os')} (Linux {m.get('kernel')}, {m.get('arch')})."
                  if m else "Machine: not recorded in the results file.", ""]
    for run in runs:
        d, soft, ref = run.data, run.data.get("software") or {}, run.data.get("reference")
        line = (f"Run {run.number} (`{cell(run.path)}`): Placer with Python "
                f"{soft.get('python', '?')}, SQLite {soft.get('sqlite', '?')}, SQLAlchemy "
                f"{soft.get('sqlalchemy', '?')}")
        if ref:
            line += (f"; the reference, openstack-placement {ref.get('openstack-placement')} "
                     f"with gunicorn {ref.get('gunicorn')}, Python {ref.get('python')}, "
                     f"SQLite {ref.get('sqlite')}, SQLAlchemy {ref.get('SQLAlchemy')}")
        if d.get("database_version"):
            line += f"; the database server: {d['database_version']}"
        lines += [line + ".", ""]
    lines += head("run", "benchmark", "started (UTC)", "finished (UTC)", "commit",
                  "load average before / after")
    for run in runs:
        d = run.data
        commit = d.get("commit") or "not recorded"
        if d.get("commit") and d.get("dirty"):
            changed = d.get("changed_files")
            commit += (" with uncommitted changes" if not changed else
                       " with uncommitted changes to " + ", ".join(f"`{f}`" for f in changed))
        load = " / ".join(", ".join(f"{x:.2f}" for x in d[k]) for k in
                          ("load_average", "load_average_after") if d.get(k))
        lines.append(row(str(run.number), d["benchmark"], d.get("date", "not recorded"),
                         d.get("finished", ""), commit, load))
    lines += ["", "The commands, from the repository's root with Placer installed "
              "(`pip install -e .[benchmarks]`), the reference in the virtualenv named by "
              "`--reference`:", "", "```sh"]
    lines += [run.data.get("command") or f"# run {run.number}: command not recorded"
              for run in runs]
    return lines + ["python -m benchmarks report " + shlex.join(argv), "```", ""]


def _scale_section(runs: list[Run], out: Out) -> list[str]:
    grouped = pairs([r for run in runs for r in run.rows()], lambda r: (r["shape"], r["size"]))
    lines = []
    for shape in dict.fromkeys(shape for shape, _ in grouped):
        by_size = {size: ps for (s, size), ps in grouped.items() if s == shape}
        sizes = sorted(by_size)
        with_ref = [s for s in sizes if any(p.reference for p in by_size[s])]
        lines += [f"## Scale: {shape} shape, {', '.join(_backends(runs))}", "",
                  TEXTS["scale_intro"]]
        if shape == "nested":
            lines += ["In the nested shape a tree is a root with DISK_GB and two NUMA "
                      "children with VCPU and MEMORY_MB: N providers are N/3 trees.", ""]
        lines += settings(runs, lambda d: "sizes " + ", ".join(map(size_text, d["sizes"])),
                          lambda d: f"`--repeat {d['repeat']}`",
                          lambda d: workers(d.get("workers")), _reference_repeat)
        if with_ref != sizes:
            missing = [size_text(s) for s in sizes if s not in with_ref]
            lines += [f"**The reference was not run at {', '.join(missing)} providers**: "
                      "no reference numbers exist for "
                      f"{'that size' if len(missing) == 1 else 'those sizes'}.", ""]
        dbs = [db for run in runs for db in run.data.get("databases", [])
               if db.get("shape") == shape]
        if dbs:
            lines += head("providers", "trees", "consumers", "allocations", "generated in s")
            lines += [row(*(size_text(db[k]) for k in ("providers", "roots", "consumers",
                                                       "allocations")), str(db["seconds"]))
                      for db in sorted(dbs, key=lambda db: db["size"])] + [""]
        lines += _scale_summary(by_size)
        title = f"scale ({shape}), {where_when(runs)}"
        latency = out.plot(f"scale-{shape}-latency", plots.plot_by_size,
                           f"Median latency, {title}", "median latency, ms (log scale)",
                           "median_ms", True, by_size)
        memory = out.plot(f"scale-{shape}-memory", plots.plot_by_size,
                          f"Peak worker RSS, {title}", "peak RSS, MiB", "rss_peak_mb", False,
                          by_size)
        lines += ["### Latency", "",
                  f"![Median latency of each request against the number of providers, "
                  f"Placer and the reference, log-log]({latency})", ""]
        if with_ref:
            ratio = out.plot(f"scale-{shape}-ratio", plots.plot_ratios,
                             f"Placer / reference, {title}",
                             {f"{size_text(s)} providers": [(p.query, p.ratio)
                                                            for p in by_size[s]]
                              for s in with_ref})
            lines += ["### Placer against the reference", "",
                      f"![Placer/reference median latency per request at each size]({ratio})",
                      ""]
        lines += ["### Memory", "", f"![Peak RSS of the server worker per request against "
                  f"the number of providers]({memory})", ""]
        for size in sizes:
            lines += [f"### {size_text(size)} providers ({shape})", ""]
            if size not in with_ref and with_ref:
                lines += ["The reference was not run at this size.", ""]
            lines += table(by_size[size], size in with_ref) + [""]
        lines += [f"### Requests ({shape})", "",
                  f"As sent at {size_text(sizes[-1])} providers (claims and provider usages "
                  "change provider and consumer at each run; the last one is shown):", ""]
        lines += requests_table([(p.query, (p.placer or p.reference or {}).get("path", ""))
                                 for p in by_size[sizes[-1]]]) + [""]
    return lines


def _scale_summary(by_size: dict[int, list[Pair]]) -> list[str]:
    """The limited requests at the largest size, and the largest with the reference."""
    sizes = sorted(by_size)
    ref_sizes = [s for s in sizes if any(p.reference for p in by_size[s])]
    lines = []
    for size in sorted({sizes[-1], *ref_sizes[-1:]}, reverse=True):
        items = []
        for p in (p for p in by_size[size] if "limit=" in p.query):
            text = f"`{p.query}`: Placer {number(p.placer and p.placer.get('median_ms'), 1)} ms"
            if p.reference and p.reference.get("median_ms") is not None:
                text += (f", reference {number(p.reference['median_ms'], 1)} ms "
                         f"(Placer/reference {ratio_text(p.ratio)}, "
                         f"{times_text(1 / p.ratio if p.ratio else None)} faster)")
            elif p.reference:
                text += f", reference: {cell(p.reference.get('note') or 'no time')}"
            items.append(f"- {text}")
        if items:
            lines += [f"Limited requests at {size_text(size)} providers (median latency):", "",
                      *items, ""]
    return lines


def _scenarios_section(runs: list[Run], out: Out) -> list[str]:
    grouped = pairs([r for run in runs for r in run.rows()], lambda r: r["group"])
    described = {k: v for run in runs for k, v in (run.data.get("scenarios") or {}).items()}
    lines = [f"## Scenarios: {', '.join(grouped)}", "", TEXTS["scenarios_intro"]]
    lines += settings(runs, lambda d: f"microversion {d['version']}",
                      lambda d: f"`--repeat {d['repeat']}`",
                      lambda d: workers(d.get("workers")), _reference_repeat)
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
        if group in described:
            info = described[group]
            desc = (info.get("description") or "").strip().rstrip(".")
            lines += [f"{cell(desc)}: {size_text(info['providers'])} providers, "
                      f"{size_text(info['consumers'])} consumers.", ""]
        lines += table(group_pairs, group in compared) + [""]
    lines += ["### Requests (scenarios)", "", "Aggregate uuids are generated anew for each run.",
              ""]
    return lines + requests_table([
        (f"{g}: {p.query}", (p.placer or p.reference or {}).get("path", ""))
        for g, ps in grouped.items() for p in ps]) + [""]


def _scenarios_summary(compared: dict[str, list[Pair]]) -> str:
    timed = [(g, p) for g, ps in compared.items() for p in ps]
    both = [(g, p) for g, p in timed if p.ratio is not None]
    passed = [(g, p) for g, p in both if p.ratio <= REFERENCE_RATIO]
    text = (f"Limited queries timed on both servers: {len(both)}; Placer/reference at most "
            f"{REFERENCE_RATIO} ({1 / REFERENCE_RATIO:.0f}x faster or more) in {len(passed)} "
            "of them.")
    if both:
        low = min(both, key=lambda gp: gp[1].ratio)
        high = max(both, key=lambda gp: gp[1].ratio)
        text += (f" From {ratio_text(low[1].ratio)} ({low[0]} `{low[1].query}`) to "
                 f"{ratio_text(high[1].ratio)} ({high[0]} `{high[1].query}`).")
    missed = [f"{g} `{p.query}` ({ratio_text(p.ratio)})" for g, p in both
              if p.ratio > REFERENCE_RATIO]
    if missed:
        text += " Above it: " + ", ".join(missed) + "."
    failed = [f"{g} `{p.query}` ({cell(p.reference.get('note') or 'no time')})"
              for g, p in timed if p.ratio is None]
    return text + (" Without a reference time: " + "; ".join(failed) + "." if failed else "")


def _order_section(runs: list[Run], out: Out) -> list[str]:
    series: dict[tuple[str, str], dict[int, dict[str, dict]]] = {}
    for run in runs:
        label = (BACKENDS.get(run.data.get("backend", "sqlite"), run.data.get("backend")),
                 order_of(run))
        for r in run.rows():
            if r["server"] == "placer":
                series.setdefault(label, {}).setdefault(r["size"], {})[r["query"]] = r
    queries = list(dict.fromkeys(q for sizes in series.values() for rows in sizes.values()
                                 for q in rows))
    lines = ["## Candidate order: what it costs", "", TEXTS["order_intro"], "",
             *head("backend", "order", "providers", *queries)]
    for (backend, label), sizes in series.items():
        for size in sorted(sizes):
            lines.append(row(backend, label, size_text(size), *(
                "" if (r := sizes[size].get(q)) is None else
                f"{number(r['median_ms'], 1)} ({number(r.get('cpu_ms'), 0)})" for q in queries)))
    plot = out.plot("order-latency", plots.plot_orders,
                    f"limit=1000 by candidate order and backend, {where_when(runs)}", series)
    return lines + ["", f"![limit=1000 median latency against the number of providers, per "
                    f"order and backend]({plot})", ""]


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
    schedulers = r.get("schedulers", SCHEDULERS)
    if schedulers != SCHEDULERS:
        label += f", {schedulers} scheduler{'s' if schedulers > 1 else ''}"
    return label


def _fill_cells(r: dict) -> list[str]:
    half, failure = r["half"], r.get("first_failure")
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
        workers=workers(first.get("workers")))]
    lines += settings(runs, lambda d: f"{size_text(d['hosts'])} hosts",
                      lambda d: f"`--limit {d['limit']}`",
                      lambda d: f"at most {size_text(d['max_boots'])} boots per order",
                      lambda d: f"seed {d['seed']}", lambda d: f"{d['schedulers']} schedulers",
                      lambda d: workers(d.get("workers")))
    if any(not run.data.get("candidate_order_known", True) for run in runs):
        lines += ["**The Placer measured had no `[placer] candidate_order` option**: it "
                  "ignored the option, so its spread and pack orders were served in id "
                  "order, like its id order.", ""]
    host = first.get("host") or {}
    if host:
        lines += [f"Each host: {_inventory_text(host.get('flat', {}))}; nested, the root "
                  f"holds the DISK_GB and two NUMA children each "
                  f"{_inventory_text(host.get('numa_node', {}))}.", ""]
    for run in runs:
        generations = run.data.get("generations") or []
        if len(generations) > 1:
            lines += [f"Run {run.number}, `--cloud {run.data.get('cloud')}`: a third of the "
                      f"hosts each, the oldest enrolled first (lowest ids): " + "; ".join(
                          _inventory_text(g["flat"]) for g in generations)
                      + " (nested: two NUMA children with half the VCPU and MEMORY_MB each).",
                      ""]
    checks: dict[str, list[dict]] = {}  # label -> its checks
    for run in runs:
        for c in run.data.get("checks", []):
            label = _fill_label({**c, "schedulers": run.data.get("schedulers", SCHEDULERS)})
            checks.setdefault(label, []).append(c)
    for label, rows in fill_rows(runs).items():
        mine = [run for run in runs if any(r["run"] == run.number for r in rows)]
        lines += [f"### Fill, {label} "
                  f"({', '.join(size_text(h) for h in sorted({r.data['hosts'] for r in mine}))}"
                  " hosts)", "", *head(*FILL_COLUMNS)]
        lines += [row(*_fill_cells(r)) for r in rows] + [""]
        if label in checks:
            lines += [f"- {c['result']}: {cell(c['check'])} ({cell(c['detail'])})"
                      for c in checks[label]] + [""]
        stem, when = "fill-" + label.replace(", ", "-").replace(" ", "-"), where_when(mine)
        bars = out.plot(f"{stem}-half", plots.plot_fill_bars,
                        f"At half full, {label}, {when}", rows, first.get("largest", "largest"))
        use = out.plot(f"{stem}-ram-use", plots.plot_fill_use,
                       f"Host RAM use at half full, {label}, {when}", rows)
        lines += [f"![At half full, per order: standard deviation of the hosts' RAM use, "
                  f"empty hosts, hosts fitting the largest flavor]({bars})", "",
                  f"![The hosts' RAM use at half full, fullest first, per order]({use})", ""]
    return lines


def _inventory_text(inventories: dict) -> str:
    parts = []
    for rc, inv in inventories.items():
        extra = [f"reserved {inv['reserved']}" if inv.get("reserved") else "",
                 f"allocation ratio {inv['allocation_ratio']:g}"
                 if inv.get("allocation_ratio", 1.0) != 1.0 else ""]
        extra = ", ".join(filter(None, extra))
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
            lines += ["What today's tools ask for the same answers, against the same "
                      "database, one request after another as they send them (seconds for "
                      "one scrape):", "", *head("server", "providers",
                                                "openstack-exporter (requests)",
                                                "os-capacity, 20 flavors")]
            lines += [row(t["server"], size_text(t["size"]),
                          f"{number(t['exporter 1+2N requests'], 1)} "
                          f"({t['exporter requests']:,})",
                          number(t["os-capacity 20 flavors"], 1)) for t in d["tools"]] + [""]
    return lines


SECTIONS = {"production": _production_section, "runs": None, "scale": _scale_section,
            "scenarios": _scenarios_section, "order": _order_section, "fill": _fill_section,
            "capacity": _capacity_section}


def write(paths: list[str], out_dir: Path, argv: list[str], fmt: str = "svg",
          notes: list[str] | None = None) -> list[str]:
    """Write the page and the plots; returns the names of the files written."""
    runs = load(paths)
    out_dir.mkdir(parents=True, exist_ok=True)
    out = Out(out_dir, fmt)
    body = [COMMENT, "", "# Benchmark results", "",
            TEXTS["intro"].format(ratio=REFERENCE_RATIO), ""]
    for kind, section in SECTIONS.items():
        mine = [run for run in runs if run.kind == kind]
        if section is None:
            body += _runs_section(runs, argv, notes or [])
        elif mine:
            body += section(mine, out)
    text = "\n".join(body).rstrip() + "\n"
    while "\n\n\n" in text:
        text = text.replace("\n\n\n", "\n\n")
    (out_dir / PAGE).write_text(text)
    return [PAGE, *out.written]

"""The results page's plots (matplotlib): reproducible SVG files (fixed
ids, no date), the same bytes from the same numbers."""

import math
from pathlib import Path

from benchmarks.report.text import REFERENCE_RATIO, number, ratio_text, short_size


def pyplot():
    import matplotlib
    matplotlib.use("Agg")
    matplotlib.rcParams.update({"svg.hashsalt": "placer-results", "svg.fonttype": "path",
                                "font.size": 9})
    from matplotlib import pyplot
    return pyplot


def save(fig, path: Path) -> None:
    if path.suffix == ".svg":  # no date: the same numbers give the same file
        fig.savefig(path, format="svg", metadata={"Date": None}, bbox_inches="tight")
    else:
        fig.savefig(path, dpi=150, bbox_inches="tight")
    pyplot().close(fig)


def plain_log_labels(axis) -> None:
    """0.1, 1, 10 rather than powers of ten; 2 and 5 times those too when
    the axis spans less than three decades."""
    from matplotlib import ticker

    def some(value, _):
        mantissa = round(value / 10 ** math.floor(math.log10(value)), 6) if value > 0 else 0
        return f"{value:g}" if mantissa in (2, 5) else ""

    axis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    low, high = axis.get_view_interval()
    axis.set_minor_formatter(ticker.FuncFormatter(some) if low > 0 and high / low < 1000
                             else ticker.NullFormatter())


def size_axis(ax, sizes: list[int]) -> None:
    ax.set_xscale("log")
    ax.set_xticks(sizes, [short_size(s) for s in sizes])
    ax.minorticks_off()
    ax.set_xlabel("resource providers")


def plot_by_size(path: Path, title: str, ylabel: str, field: str, log_y: bool,
                 by_size: dict[int, list]) -> None:
    """One line per query and server (Placer solid, the reference dashed)."""
    plt = pyplot()
    sizes = sorted(by_size)
    queries = list(dict.fromkeys(p.query for s in sizes for p in by_size[s]))
    fig, ax = plt.subplots(figsize=(8, 4.8))
    colors = plt.get_cmap("tab10")
    for i, query in enumerate(queries):
        for server, style, marker in (("placer", "-", "o"), ("reference", "--", "s")):
            points = []
            for size in sizes:
                pair = next((p for p in by_size[size] if p.query == query), None)
                row = pair and getattr(pair, server)
                if row and row.get(field) is not None:
                    points.append((size, row[field]))
            if points:
                xs, ys = zip(*points, strict=True)
                ax.plot(xs, ys, linestyle=style, marker=marker, color=colors(i % 10),
                        label=f"{query} ({'Placer' if server == 'placer' else 'reference'})")
    size_axis(ax, sizes)
    if log_y:
        ax.set_yscale("log")
        plain_log_labels(ax.yaxis)
    else:
        ax.set_ylim(bottom=0)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8,
              title="solid: Placer, dashed: reference", title_fontsize=8)
    save(fig, path)


def plot_ratios(path: Path, title: str, series: dict[str, list[tuple[str, float | None]]],
                ) -> None:
    """Horizontal bars of Placer/reference (log scale): ``series`` maps a
    legend label to (query, ratio or None) bars; None is written "n/a"."""
    plt = pyplot()
    queries = list(dict.fromkeys(q for bars in series.values() for q, _ in bars))
    # side by side when a query is in several series, else one bar per line
    grouped = sum(len(bars) for bars in series.values()) > len(queries)
    n = len(series) if grouped else 1
    height = 0.8 / n
    fig, ax = plt.subplots(figsize=(8, 1.2 + 0.3 * len(queries) * max(n, 1.3)))
    colors = plt.get_cmap("tab10")
    values = [v for bars in series.values() for _, v in bars if v]
    low = min([*values, REFERENCE_RATIO, 1.0]) / 3
    high = max([*values, 1.0]) * 3
    for j, (label, bars) in enumerate(series.items()):
        labelled = False  # one legend entry per series
        for q, value in bars:
            y = queries.index(q) + ((j - (n - 1) / 2) * height if grouped else 0)
            if value:
                # the bar starts at the axis' left end (a log scale has no 0)
                ax.barh(y, value - low, height=height * 0.9, left=low, color=colors(j % 10),
                        label=None if labelled else label)
                labelled = True
                ax.text(value * 1.08, y, ratio_text(value), va="center", fontsize=7)
            else:
                ax.text(low * 1.08, y, "no reference time (see the table)", va="center",
                        fontsize=7, color="0.4")
    ax.set_xscale("log")
    ax.set_xlim(low, high)
    plain_log_labels(ax.xaxis)
    ax.axvline(1.0, color="0.3", linewidth=0.8)
    ax.axvline(REFERENCE_RATIO, color="tab:red", linewidth=0.8, linestyle="--")
    top = ax.get_xaxis_transform()  # x: data, y: axes fraction
    ax.text(1.0, 1.01, "same", fontsize=7, color="0.3", ha="center", va="bottom",
            transform=top)
    ax.text(REFERENCE_RATIO, 1.01, f"{1 / REFERENCE_RATIO:.0f}x faster", fontsize=7,
            color="tab:red", ha="center", va="bottom", transform=top)
    ax.set_yticks(range(len(queries)), queries)
    ax.set_ylim(len(queries) - 0.5, -0.5)
    ax.set_xlabel("Placer / reference, median latency (log scale; lower: Placer faster)")
    ax.set_title(title, pad=14)
    ax.grid(True, axis="x", which="major", alpha=0.3)
    if len(series) > 1:
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8)
    save(fig, path)


def plot_fill_bars(path: Path, title: str, rows: list[dict], largest: str) -> None:
    """Std dev of RAM use, empty hosts and hosts fitting the largest flavor
    at half full, one bar per order (the reference's hatched)."""
    plt = pyplot()
    panels = (("std_ram_use", "std dev of host RAM use"), ("empty_hosts", "empty hosts"),
              ("hosts_fitting_largest", f"hosts fitting {largest}"))
    fig, axes = plt.subplots(1, 3, figsize=(9, 0.9 + 0.3 * len(rows)), sharey=True)
    colors = plt.get_cmap("tab10")
    orders = [r["order"] for r in rows]
    for ax, (key, label) in zip(axes, panels, strict=True):
        for i, r in enumerate(rows):
            value = r["half"][key]
            ax.barh(i, value, color=colors(i % 10), height=0.7,
                    hatch="//" if r.get("server") == "reference" else None)
            ax.text(value, i, f" {number(value, 3 if key == 'std_ram_use' else None)}",
                    va="center", fontsize=7)
        ax.set_xlabel(label)
        ax.set_xlim(0, max([r["half"][key] for r in rows] + [1e-9]) * 1.3)
        ax.grid(True, axis="x", alpha=0.3)
    axes[0].set_yticks(range(len(orders)), orders)
    axes[0].set_ylim(len(orders) - 0.5, -0.5)
    fig.suptitle(title)
    fig.tight_layout()
    save(fig, path)


def plot_fill_use(path: Path, title: str, rows: list[dict]) -> None:
    """Each order's hosts sorted by RAM use at half full: flat is even."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(8, 4.2))
    colors = plt.get_cmap("tab10")
    for i, r in enumerate(rows):
        use = sorted(r["half"]["ram_use"], reverse=True)
        xs = [(k + 0.5) / len(use) * 100 for k in range(len(use))]
        ax.plot(xs, [u * 100 for u in use], color=colors(i % 10),
                linestyle="--" if r.get("server") == "reference" else "-", label=r["order"])
    ax.set_xlim(0, 100)
    ax.set_ylim(0, 100)
    ax.set_xlabel("hosts, fullest first (% of the hosts)")
    ax.set_ylabel("RAM used, % of the host's capacity")
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8,
              title="dashed: reference", title_fontsize=8)
    save(fig, path)


def plot_orders(path: Path, title: str, series: dict[tuple[str, str], dict[int, dict]]) -> None:
    """limit=1000's median against the size, one line per backend and order."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(7.5, 4.5))
    for (backend, label), sizes in series.items():
        points = [(size, rows["limit=1000"]["median_ms"]) for size, rows in sorted(sizes.items())
                  if "limit=1000" in rows]
        if points:
            ax.plot(*zip(*points, strict=True), marker="o", label=f"{backend}, {label}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    plain_log_labels(ax.yaxis)
    size_axis(ax, sorted({s for sizes in series.values() for s in sizes}))
    ax.set_ylabel("median latency, ms (log scale)")
    ax.set_title(title)
    ax.legend(fontsize=8)
    save(fig, path)

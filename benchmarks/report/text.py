"""Formatting the results' figures, and the page's prose (texts.toml)."""

import collections
import math
import tomllib
from pathlib import Path

REFERENCE_RATIO = 0.2  # the goal: limited queries at least 5x faster than the reference
BACKENDS = {"sqlite": "SQLite", "postgresql": "PostgreSQL", "mysql": "MySQL/MariaDB"}
TEXTS = tomllib.loads((Path(__file__).parent / "texts.toml").read_text())


def prose(key: str, **values) -> str:
    """A text of texts.toml with its {names} filled in ("None" where one is missing)."""
    return TEXTS[key].format_map(collections.defaultdict(lambda: None, values))


def number(value, digits: int | None) -> str:
    if value is None:
        return ""
    return str(value) if digits is None else f"{value:.{digits}f}"


def ratio_text(value: float | None) -> str:
    """Two significant digits, never fewer than two decimals: 1.05, 0.14, 0.0032."""
    if value is None:
        return ""
    if value <= 0:
        return "0"
    digits = max(2, 1 - math.floor(math.log10(value)))
    return f"{value:.{digits}f}"


def times_text(speedup: float | None, digits: int = 1) -> str:
    """How many times faster (or more throughput): "5.0x", from 10 on "19x".
    A ratio of latencies (Placer / reference) is ``times_text(1 / ratio)``."""
    if not speedup:
        return ""
    return f"{speedup:.0f}x" if speedup >= 10 else f"{speedup:.{digits}f}x"


def cell(text) -> str:
    """Text safe in a Markdown table cell."""
    return (str(text).replace("\\", "\\\\").replace("|", "\\|").replace("<", "&lt;")
            .replace("`", "\\`").replace("*", "\\*").replace("\n", " "))


def row(*cells: str) -> str:
    """A Markdown table's row."""
    return "| " + " | ".join(cells) + " |"


def head(*names: str) -> list[str]:
    """A Markdown table's header and rule."""
    return [row(*names), "|" + "---|" * len(names)]


def size_text(size: int) -> str:
    return f"{size:,}"


def short_size(size: int) -> str:
    if size >= 1000 and size % 1000 == 0:
        return f"{size // 1000}k"
    return str(size)


def workers(n) -> str:
    return "one worker" if n in (None, 1) else f"{n} workers"

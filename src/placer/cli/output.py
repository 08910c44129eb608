"""What the placement-manage commands print: tables as the reference's
commands print theirs (prettytable, left-aligned)."""

from typing import Any

import prettytable


def table(columns: list[str], rows: list[list[Any]]) -> str:
    """The rows under their columns; a None cell is printed empty."""
    out = prettytable.PrettyTable(columns)
    out.align = "l"
    for row in rows:
        out.add_row(["" if cell is None else cell for cell in row])
    return out.get_string()

"""`gpufleet cost` on a terminal: its tables fitted to the terminal's width.

Figures never wrap; names and quantities wrap between words; when that is still too wide, the columns
that matter least are left out, in DROP_ORDER, and a line under the tables names them (`--wide` shows
every column, as the plain report does). A pipe or a file always gets the plain report, every column."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

if TYPE_CHECKING:
    from gpufleet.cost import CostReport, TableView

DROP_ORDER = (
    "envelope/mo",
    "sched h/mo",
    "inst-h/mo",
    "hourly min",
    "price/h od / spot",
    "price",
    "hourly max",
    "cloud region",
    "spot",
    "quantity",
)
"""Columns left out, first to last, until a table fits; the name, the size and the month always stay."""

_SUMMARY_STYLES = (
    (r"(?m)^total: .*$", "bold"),
    (r"OVER BUDGET", "bold white on red"),
    (r"above the \d+% alert", "bold yellow"),
    (r"within budget", "green"),
    (r"UNCONFIRMED", "yellow"),
)


WRAPPING = frozenset({"quantity"})
"""Prose columns that wrap between words; every other cell stays on one line, as in the plain report."""


def rich_table(view: TableView, dropped: Sequence[str] = (), prose_width: int | None = None) -> Table:
    """The table's cells, in the plain report's order, without the `dropped` columns; prose columns
    `prose_width` wide (else as wide as their longest word)."""
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, header_style="bold")
    kept = [index for index, name in enumerate(view.header) if name not in dropped]
    for index in kept:
        name = view.header[index]
        prose = name in WRAPPING
        table.add_column(
            name,
            justify="right" if index >= view.numeric_from else "left",
            no_wrap=not prose,
            min_width=max(_width(view, index), prose_width or 0) if prose else _width(view, index),
        )
    for row in view.rows:
        table.add_row(*(escape(row[index]) for index in kept))
    return table


def _width(view: TableView, index: int) -> int:
    """The narrowest the column can be: its widest cell, or for prose its longest word."""
    cells = [view.header[index], *(row[index] for row in view.rows)]
    if view.header[index] in WRAPPING:
        return max((len(word) for cell in cells for word in cell.split()), default=0)
    return max((len(cell) for cell in cells), default=0)


GAP = 3
"""Columns apart: one space of padding each side of rich's blank divider."""


def fitted(view: TableView, width: int) -> tuple[Table, list[str]]:
    """The table within `width` columns without cutting a cell or a word, and the columns left out to
    get there (none when it fits as it is); a prose column takes the width the others leave."""
    dropped: list[str] = []
    candidates = [name for name in DROP_ORDER if name in view.header]
    while True:
        kept = [i for i, name in enumerate(view.header) if name not in dropped]
        needed = sum(_width(view, i) for i in kept) + GAP * (len(kept) - 1)
        if needed <= width or not candidates:
            break
        dropped.append(candidates.pop(0))
    prose = [i for i in kept if view.header[i] in WRAPPING]
    spare = max(0, width - needed)
    widths = [
        min(max(len(row[i]) for row in view.rows) if view.rows else 0, _width(view, i) + spare) for i in prose
    ]
    return rich_table(view, dropped, max(widths, default=None)), dropped


def print_cost_text(report: CostReport, console: Console, *, wide: bool = False) -> None:
    """The text report: on a terminal its tables drawn by rich and fitted to the width (all columns
    with `wide`, where the terminal wraps the long lines); elsewhere the plain report."""
    from gpufleet.cost import other_table, pool_table, render_text, text_summary, text_title

    if not console.is_terminal or wide:
        console.print(render_text(report), end="", markup=False, highlight=False, soft_wrap=True)
        return
    views = ([pool_table(report)] if report.pools else []) + ([other_table(report)] if report.other else [])
    console.print(Text(text_title(report), style="bold"), soft_wrap=True)
    if not report.pools:
        console.print("no GPU pools found")
    left_out: list[str] = []
    for view in views:
        table, dropped = fitted(view, console.width)
        left_out.extend(name for name in dropped if name not in left_out)
        console.print()
        console.print(table)
    if left_out:
        console.print(
            f"\nleft out to fit {console.width} columns: {', '.join(left_out)} (--wide: every column)",
            style="dim",
            soft_wrap=True,
        )
    summary = Text("\n" + "\n".join(text_summary(report)))
    for pattern, style in _SUMMARY_STYLES:
        summary.highlight_regex(pattern, style)
    console.print(summary, soft_wrap=True)

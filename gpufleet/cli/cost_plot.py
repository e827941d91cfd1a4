"""`gpufleet cost --plot FILE`: the month's cost drawn, as `gpufleet simulate --plot` draws a replay.

Top: the cost accrued over the month, day by day, for the estimate (each pool's and each kind of other
line's share stacked, so the band each adds shows) and for the envelope (every pool at its maximum size
all month), against the budget and its alert threshold, with the day each line crosses the alert.
Bottom: each line's monthly estimate and envelope (pools one by one, the other lines summed by kind).
The monthly figures are the report's own: an estimate accrues evenly over the month's hours (the
catalogue's 730). PNG or SVG by the file's suffix; matplotlib's Agg backend only (never a window), and no
date in the file, so one report writes the same bytes.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from gpufleet.cli.common import BadInput
from gpufleet.plotfiles import FORMATS, plot_path_problem, write_plot

if TYPE_CHECKING:
    from gpufleet.cost import CostReport

HOURS_PER_MONTH = 730
DAYS = HOURS_PER_MONTH / 24
_COLOURS = (
    "#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b",
    "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#aec7e8",
)  # fmt: skip


def check_plots(plots: Sequence[Path]) -> None:
    """Each --plot path names .png or .svg in a directory that exists: checked before any pricing."""
    for path in plots:
        problem = plot_path_problem(path)
        if problem:
            raise BadInput(problem)


def alert_day(monthly: float, threshold: float) -> float | None:
    """The day of the month an evenly accruing `monthly` reaches `threshold`; None when it never does."""
    if monthly <= 0 or threshold > monthly:
        return None
    return round(DAYS * threshold / monthly, 1)


def _lines(report: CostReport) -> list[tuple[str, float, float]]:
    """(label, monthly estimate, monthly envelope): each pool, then the other lines summed by kind
    (every VPN, every endpoint...), in the report's order."""
    found = [(f"pool {p.pool}", p.monthly_estimate, p.monthly_envelope) for p in report.pools]
    kinds: dict[str, list[float]] = {}
    counts: dict[str, int] = {}
    for other in report.other:
        totals = kinds.setdefault(other.kind, [0.0, 0.0])
        totals[0] += other.monthly_estimate
        totals[1] += other.monthly_envelope
        counts[other.kind] = counts.get(other.kind, 0) + 1
    found += [
        (f"{kind} ({counts[kind]})", estimate, envelope) for kind, (estimate, envelope) in kinds.items()
    ]
    return found


def render(report: CostReport, suffix: str) -> bytes:
    """The plot of `report` as a `.png` or `.svg` file's bytes."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    from matplotlib.figure import Figure

    if suffix not in FORMATS:
        raise ValueError(f"a plot is written as {' or '.join(FORMATS)}, not {suffix!r}")
    lines = _lines(report)
    days = [0.0, DAYS]
    figure = Figure(figsize=(11, 7), dpi=100, layout="constrained")
    top, bottom = figure.subplots(2, 1, height_ratios=(3, 2))
    base = 0.0
    for index, (label, monthly, _) in enumerate(lines):
        colour = _COLOURS[index % len(_COLOURS)]
        top.fill_between(days, [0.0, base], [0.0, base + monthly], color=colour, alpha=0.35, label=label)
        base += monthly
    top.plot(days, [0.0, report.monthly_estimate], color="#333333", linewidth=1.6, label="estimate")
    top.plot(
        days,
        [0.0, report.monthly_envelope],
        color="#d62728",
        linestyle="--",
        linewidth=1.2,
        label="envelope (every pool at its max)",
    )
    if report.budget is not None:
        budget = report.budget
        threshold = budget.monthly * budget.alert_percent / 100
        top.axhline(budget.monthly, color="#000000", linewidth=1.0, label=f"budget {budget.declared}")
        top.axhline(
            threshold,
            color="#000000",
            linestyle=":",
            linewidth=1.0,
            label=f"alert at {budget.alert_percent}%",
        )
        for name, monthly in (("estimate", report.monthly_estimate), ("envelope", report.monthly_envelope)):
            day = alert_day(monthly, threshold)
            if day is not None:
                top.annotate(
                    f"{name}: alert on day {day:g}",
                    (day, threshold),
                    textcoords="offset points",
                    xytext=(4, 6) if day < DAYS * 0.6 else (-140, 6),
                    fontsize="small",
                )
    top.set_xlim(0, DAYS)
    top.set_ylim(bottom=0)
    top.set_xlabel(f"days of a month ({HOURS_PER_MONTH} h)")
    top.set_ylabel(f"cost accrued ({report.currency})")
    top.set_title(f"stack {report.stack}: the month's cost")
    top.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")
    top.grid(alpha=0.3)
    positions = list(range(len(lines)))
    bottom.barh(
        positions, [envelope for _, _, envelope in lines], color="#d62728", alpha=0.25, label="envelope"
    )
    bottom.barh(positions, [monthly for _, monthly, _ in lines], color="#1f77b4", label="estimate")
    bottom.set_yticks(positions, [label for label, _, _ in lines], fontsize="small")
    bottom.invert_yaxis()
    bottom.set_xlabel(f"{report.currency} a month")
    bottom.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")
    bottom.grid(axis="x", alpha=0.3)
    # No date in the file: the same report writes the same bytes.
    metadata = {"Date": None} if suffix == ".svg" else {"Software": None}
    buffer = io.BytesIO()
    with matplotlib.rc_context({"svg.hashsalt": "gpufleet"}):
        figure.savefig(buffer, format=suffix[1:], metadata=metadata)
    return buffer.getvalue()


def write_plots(report: CostReport, plots: Sequence[Path]) -> None:
    """Each plot whole or not at all: staged beside its target under a name of its own, then renamed."""
    for target in plots:
        data = render(report, target.suffix.lower())
        try:
            write_plot(target, data)
        except OSError as exc:
            raise BadInput(f"cannot write --plot {target}: {exc.strerror or exc}") from None

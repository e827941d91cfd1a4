"""The replay drawn: demand (queued jobs), capacity (launched and booted instances, the group's max)
and the cumulative cost, over the trace. PNG or SVG by the file's suffix; matplotlib's Agg backend
only (never a window). With two results (``--compare``) both are drawn, the base dashed."""

from __future__ import annotations

import io
from collections.abc import Sequence

from gpufleet.plotfiles import FORMATS
from gpufleet.simulate.model import Result


def render(results: Sequence[tuple[str, Result]], suffix: str) -> bytes:
    """The plot of ``results`` (label, result) as a ``.png`` or ``.svg`` file's bytes."""
    import matplotlib

    matplotlib.use("Agg", force=True)
    from matplotlib.figure import Figure

    if suffix not in FORMATS:
        raise ValueError(f"a plot is written as {' or '.join(FORMATS)}, not {suffix!r}")
    first = results[0][1]
    hours = [m / 60 for m in range(len(first.trace))]
    figure = Figure(figsize=(10, 5.5), dpi=100, layout="constrained")
    top, bottom = figure.subplots(2, 1, sharex=True, height_ratios=(2, 1))
    top.plot(hours, first.trace.jobs, color="#888888", linewidth=1.2, label="queued jobs (demand)")
    colours = ("#1f77b4", "#d62728")
    for index, (label, result) in enumerate(results):
        style = "--" if len(results) > 1 and index == 0 else "-"
        colour = colours[index % len(colours)]
        suffix_label = f" ({label})" if label else ""
        top.step(
            hours,
            result.launched,
            where="post",
            color=colour,
            linestyle=style,
            linewidth=1.4,
            label=f"instances launched{suffix_label}",
        )
        top.step(
            hours,
            result.booted,
            where="post",
            color=colour,
            linestyle=":",
            linewidth=1.0,
            label=f"booted{suffix_label}",
        )
        bottom.plot(
            hours,
            result.cumulative_cost,
            color=colour,
            linestyle=style,
            linewidth=1.4,
            label=f"cumulative cost{suffix_label}",
        )
    top.step(
        hours, first.max_allowed, where="post", color="#2ca02c", linewidth=0.8, alpha=0.7, label="group max"
    )
    top.set_ylabel("jobs / instances")
    top.set_title(f"pool {first.pool.name} on {first.trace.name}")
    top.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")
    top.grid(alpha=0.3)
    bottom.set_ylabel(f"cost ({first.pool.currency})")
    bottom.set_xlabel(f"hours from {first.trace.start.strftime('%a %Y-%m-%d %H:%M %Z')}")
    bottom.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")
    bottom.grid(alpha=0.3)
    # No date in the file: the same replay writes the same bytes.
    metadata = {"Date": None} if suffix == ".svg" else {"Software": None}
    buffer = io.BytesIO()
    with matplotlib.rc_context({"svg.hashsalt": "gpufleet"}):
        figure.savefig(buffer, format=suffix[1:], metadata=metadata)
    return buffer.getvalue()

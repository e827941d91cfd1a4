"""`gpufleet cost`: price a stack from the GPU catalogue, or what a change adds against the base branch."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from gpufleet import cli, finite
from gpufleet.cli.common import BadInput, ProjectDir, StackRefs, Timeout, _emit, app, fail
from gpufleet.cli.price_options import (
    Currency,
    OutputFile,
    PriceFormat,
    _currency,
    _price_format,
    _priced_stack,
)
from gpufleet.engine import DEFAULT_TIMEOUT
from gpufleet.helptext import examples
from gpufleet.redact import redactor

if TYPE_CHECKING:
    from gpufleet.cost import CostDiff, CostReport


_COST_JSON_HINT = "write it on the base branch with `gpufleet cost -s STACK --format json > FILE`"


def read_cost_json(path: Path) -> Any:
    """`--compare FILE`: the base branch's `gpufleet cost --format json` document, parsed."""
    from gpufleet.safe_json import JsonLimitError, loads_limited

    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise BadInput(f"cannot read --compare {path}: {exc.strerror or exc}; {_COST_JSON_HINT}") from None
    except UnicodeDecodeError as exc:
        raise BadInput(f"--compare {path}: byte {exc.start} is not UTF-8; {_COST_JSON_HINT}") from None
    if not text.strip():
        raise BadInput(f"--compare {path} is empty; {_COST_JSON_HINT}")
    try:
        return loads_limited(text)
    except json.JSONDecodeError as exc:
        raise BadInput(
            f"--compare {path}:{exc.lineno}: invalid JSON ({exc.msg}); {_COST_JSON_HINT}"
        ) from None
    except JsonLimitError as exc:
        raise BadInput(f"--compare {path}: {exc}; {_COST_JSON_HINT}") from None


def print_cost_text(report: CostReport, console: Console, *, wide: bool = False) -> None:
    """The text report, its tables fitted to a terminal (gpufleet/costview.py)."""
    from gpufleet.costview import print_cost_text as fitted_report

    fitted_report(report, console, wide=wide)


@app.command(
    epilog=examples(
        [
            ("gpufleet cost -s prod", "per pool, total, budget, prices used"),
            ("gpufleet cost -s prod --currency CNY", "converted with the catalogue's rates"),
            ("gpufleet cost -s prod --wide", "every column, however wide the terminal"),
            ("gpufleet cost -s prod --format json > base.json", "on the base branch, then on the PR:"),
            ("gpufleet cost -s prod --compare base.json --format markdown", "what it adds a month"),
            ("gpufleet cost -s prod --plot cost.png", "the month's cost drawn, against the budget"),
        ],
        [
            "Exit status: 0 priced, 2 bad input (stack config, usage profile, compare file, currency, "
            "plot path)."
        ],
    ),
)
def cost(  # noqa: PLR0917 - typer maps each parameter to an option
    project_dir: ProjectDir = Path(),
    stack: Annotated[str, typer.Option("--stack", "-s", help="Stack to price (Pulumi.<stack>.yaml).")] = ...,  # type: ignore[assignment]
    compare: Annotated[
        Path | None,
        typer.Option(
            "--compare",
            metavar="BASE.json",
            help="Show what changes against this `gpufleet cost --format json` of the base branch, per "
            "line, per month.",
        ),
    ] = None,
    currency: Currency = None,
    fmt: PriceFormat = "text",
    output: OutputFile = None,
    stack_refs: StackRefs = None,
    timeout: Timeout = DEFAULT_TIMEOUT,
    wide: Annotated[
        bool, typer.Option("--wide", help="Every column of the tables, however wide the terminal.")
    ] = False,
    plot: Annotated[
        list[Path] | None,
        typer.Option(
            "--plot",
            metavar="FILE",
            help="Also draw the month's cost (accrued day by day, per line, against the budget) to "
            "FILE.png or FILE.svg.",
        ),
    ] = None,
) -> None:
    """Price the stack from the GPU catalogue, per pool and in total.

    Hourly and monthly, against the budget, with the catalogue prices and rates used.

    --compare shows what a change adds or saves per line, per month, against the base branch."""
    from gpufleet.cli.cost_plot import check_plots, write_plots
    from gpufleet.cost import CostError, estimate_stack

    try:
        check_plots(plot or [])
        selected = _price_format(fmt)
        code = _currency(currency)
        base = read_cost_json(compare) if compare is not None else None
        graph, source = _priced_stack(project_dir, stack, stack_refs, timeout)
        try:
            report = estimate_stack(graph, currency=code, source=source)
        except CostError as exc:
            raise BadInput(str(exc)) from None
        # Priced from the plain values; an instance type (or any text) that is a secret reads `[secret]`.
        report = redactor(graph).value(report)
        write_plots(report, plot or [])
        for path in plot or []:
            cli.err.print(f"wrote {escape(str(path))}", soft_wrap=True)
        if compare is not None:
            change = _cost_diff(base, report, compare)
            if isinstance(base, Mapping) and base.get("stack") not in (None, "", report.stack):
                cli.err.print(
                    f"[yellow]note:[/] {escape(str(compare))} prices stack {escape(str(base['stack']))}, "
                    f"compared here with stack {escape(report.stack)}",
                    soft_wrap=True,
                )
            _emit(render_cost_diff(change, selected), output)
        elif selected == "text" and output is None:
            print_cost_text(report, cli.out, wide=wide)
        else:
            _emit(render_cost(report, selected), output)
    except BadInput as exc:
        raise fail(exc) from None


def render_cost(report: CostReport, fmt: str) -> str:
    from gpufleet.cost import render_markdown, render_text

    if fmt == "json":
        # Not `report.dumps()`: that writes NaN/Infinity as Python's json does.
        return finite.dumps(report.to_json())
    return render_markdown(report) if fmt == "markdown" else render_text(report)


def render_cost_diff(change: CostDiff, fmt: str) -> str:
    from gpufleet.cost import render_diff_markdown, render_diff_text

    if fmt == "json":
        return finite.dumps(change.to_json())
    return render_diff_markdown(change) if fmt == "markdown" else render_diff_text(change)


def _cost_diff(base: Any, report: CostReport, path: Path) -> CostDiff:
    from gpufleet.cost import CostError, diff

    try:
        return diff(base, report, base_label=f"--compare {path}")
    except CostError as exc:
        raise BadInput(str(exc)) from None
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        # The version matched but a line or total is malformed (a hand-edited or truncated file).
        problem = f"missing {exc.args[0]!r}" if isinstance(exc, KeyError) else str(exc)
        raise BadInput(
            f"--compare {path}: not a gpufleet cost JSON document ({problem}); {_COST_JSON_HINT}"
        ) from None

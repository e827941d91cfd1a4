"""`gpufleet simulate`: replay a pool's scaling rules on a demand trace."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from gpufleet import cli
from gpufleet.cli.common import BadInput, ProjectDir, _emit, app, fail
from gpufleet.cli.price_options import Currency, OutputFile, PriceFormat


@app.command(
    epilog="Examples:\n\n"
    "  [bold]gpufleet simulate experiments -s dev --trace scenario:forgotten-weekend[/]\n\n"
    "  [bold]gpufleet simulate experiments -s dev --trace jobs.csv --plot sim.png[/]\n\n"
    "  [bold]gpufleet simulate experiments -s dev -t jobs.csv --base-ref main -f markdown[/]\n\n"
    "Scenarios: livestream-spike, forgotten-weekend, diurnal-training. A CSV trace has the header "
    "minute,queued_jobs,gpu_util and a row a minute.\n\n"
    "Exit status: 0 replayed, 2 bad input (stack config, pool, trace, compare file, plot path).",
)
def simulate(  # noqa: PLR0917 - typer maps each parameter to an option
    pool: Annotated[
        str, typer.Argument(metavar="POOL", help="The pool to replay (a key of gpufleet:fleet.pools).")
    ],
    project_dir: ProjectDir = Path(),
    stack: Annotated[
        str, typer.Option("--stack", "-s", help="Stack of the pool (Pulumi.<stack>.yaml).")
    ] = ...,  # type: ignore[assignment]
    trace: Annotated[
        str,
        typer.Option(
            "--trace",
            "-t",
            metavar="TRACE",
            help="A CSV file (minute,queued_jobs,gpu_util) or scenario:NAME.",
        ),
    ] = ...,  # type: ignore[assignment]
    compare: Annotated[
        Path | None,
        typer.Option("--compare", metavar="BASE_STACK_FILE", help="Replay the base branch's stack file too."),
    ] = None,
    base_ref: Annotated[
        str | None,
        typer.Option("--base-ref", metavar="REF", help="Replay the stack file as it is at this git ref too."),
    ] = None,
    plot: Annotated[
        list[Path] | None,
        typer.Option(
            "--plot",
            metavar="FILE",
            help="Write demand, capacity and cost over time to FILE.png or FILE.svg.",
        ),
    ] = None,
    boot: Annotated[
        str, typer.Option("--boot", metavar="DURATION", help="Time a new instance takes to take work.")
    ] = "4m",
    start: Annotated[
        str | None,
        typer.Option(
            "--start", metavar="TIME", help="First minute of an index trace (ISO 8601 with offset)."
        ),
    ] = None,
    currency: Currency = None,
    fmt: PriceFormat = "text",
    output: OutputFile = None,
) -> None:
    """Replay a pool's scaling rules minute by minute on a demand trace, before paying for them.

    Cost, queue wait, scale events, time at max and oscillations.

    --compare or --base-ref replays the base branch's spec beside this one on the same trace."""
    from gpufleet.simulate.command import SimulateInputError, run, write_files
    from gpufleet.simulate.pools import SimulateError

    try:
        result = run(
            project_dir,
            stack,
            pool,
            trace,
            fmt=fmt,
            compare=compare,
            base_ref=base_ref,
            plots=plot or [],
            boot=boot,
            start=start,
            currency=currency,
        )
        write_files(result.files)
        _emit(result.text, output)
        for path in result.files:
            cli.err.print(f"wrote {escape(str(path))}", soft_wrap=True)
    except SimulateError as exc:
        details = exc.details if isinstance(exc, SimulateInputError) else []
        raise fail(BadInput(str(exc), details)) from None
    except BadInput as exc:
        raise fail(exc) from None

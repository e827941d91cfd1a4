"""`gpufleet advise`: advice on a stack's fleet, with the numbers behind it."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

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

advise_app = typer.Typer(
    name="advise",
    help="Advice on a stack's fleet, with the numbers behind it.",
    no_args_is_help=True,
    rich_markup_mode="rich",
)
app.add_typer(advise_app)


@advise_app.command(
    "buy-vs-rent",
    epilog=examples(
        [
            ("gpufleet advise buy-vs-rent -s prod", "per pool: rent, own, ratio, verdict"),
            ("gpufleet advise buy-vs-rent -s prod --currency CNY --format markdown", ""),
        ],
        [
            "Renting is the pool's monthly estimate; owning is the whole cost of the servers a month: "
            "purchase over the hardware's life, power (kW x price per kWh x PUE), hosting, maintenance "
            "and staff share, from the catalogue's defaults or the stack's onprem.hardware. Consider "
            "buying when renting costs more than twice owning.",
            "Exit status: 0 advised, 2 bad input (stack config, usage profile, currency).",
        ],
    ),
)
def buy_vs_rent(  # noqa: PLR0917 - typer maps each parameter to an option
    project_dir: ProjectDir = Path(),
    stack: Annotated[
        str, typer.Option("--stack", "-s", help="Stack to advise on (Pulumi.<stack>.yaml).")
    ] = ...,  # type: ignore[assignment]
    currency: Currency = None,
    fmt: PriceFormat = "text",
    output: OutputFile = None,
    stack_refs: StackRefs = None,
    timeout: Timeout = DEFAULT_TIMEOUT,
) -> None:
    """Per GPU pool: keep renting, or consider buying the servers.

    Renting at the usage profile's utilisation against owning at the catalogue's purchase price.

    Every number behind each verdict is shown."""
    from gpufleet.advise import advise_stack, render_advice_json, render_advice_markdown, render_advice_text
    from gpufleet.cost import CostError

    try:
        selected = _price_format(fmt)
        code = _currency(currency)
        graph, source = _priced_stack(project_dir, stack, stack_refs, timeout)
        try:
            rows = advise_stack(graph, currency=code, source=source)
        except CostError as exc:
            raise BadInput(str(exc)) from None
        if selected == "json":
            rendered = render_advice_json(rows, stack, code or "USD")
        elif selected == "markdown":
            rendered = render_advice_markdown(rows, stack)
        else:
            rendered = render_advice_text(rows, stack)
        _emit(rendered, output)
    except BadInput as exc:
        raise fail(exc) from None

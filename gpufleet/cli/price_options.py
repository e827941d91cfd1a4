"""The options and inputs of the commands that price a stack: `cost`, `advise buy-vs-rent` and `simulate`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from gpufleet.cli.common import _FORMAT_ALIASES, BadInput, _run, _stack_file, read_stack_references
from gpufleet.cli.fleet_view import load_fleet
from gpufleet.graph import ResourceGraph
from gpufleet.project import ProjectError, load_project

_PRICE_FORMATS = ("text", "json", "markdown")

Currency = Annotated[
    str | None,
    typer.Option(
        "--currency",
        help="Report in this currency, converted with the catalogue's rates table (USD, CNY). "
        "Default: the stack's budget currency.",
    ),
]
PriceFormat = Annotated[str, typer.Option("--format", "-f", help="text, json or markdown.")]
OutputFile = Annotated[
    Path | None, typer.Option("--output", "-o", help="Write the report to this file instead of stdout.")
]


def _price_format(value: str) -> str:
    fmt = _FORMAT_ALIASES.get(value.strip().lower(), value.strip().lower())
    if fmt not in _PRICE_FORMATS:
        raise BadInput(f"--format {value!r} is not allowed here; allowed: {', '.join(_PRICE_FORMATS)}")
    return fmt


def _currency(value: str | None) -> str | None:
    """`--currency`, checked against the catalogue's rates before anything runs."""
    if value is None:
        return None
    from gpufleet.components.catalog import CatalogError, load_catalog

    try:
        known = load_catalog().per_usd
    except CatalogError as exc:
        raise BadInput(f"the GPU catalogue cannot be read: {exc}") from None
    code = value.strip().upper()
    if code not in known:
        raise BadInput(
            f"--currency {value!r}: the catalogue's rates table has no rate for it; "
            f"known: {', '.join(sorted(known))}"
        )
    return code


def _priced_stack(
    project_dir: Path, stack: str, stack_refs: Path | None, timeout: float
) -> tuple[ResourceGraph, str]:
    """The stack's program run and its stack file (relative to the project), as `check` finds them."""
    references = read_stack_references(stack_refs)
    try:
        project = load_project(project_dir)
    except ProjectError as exc:
        raise BadInput(str(exc)) from None
    # A bad spec (a usage profile of 30 h a day) is listed field by field before the program runs.
    load_fleet(project.root, stack)
    return _run(project.root, stack, references, timeout), _stack_file(project, stack)

"""`gpufleet preflight`: what each GPU quota must allow for the stack's pools at their maximum size, held
against the real quotas (read with the user's credentials) or, with `--offline`, those the stack declares
in `gpufleet:quotas`. The quota table is also shown by `gpufleet plan`. An instance type the program reads
as a secret reads `[secret]` in both, as everywhere else a stack is reported."""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from gpufleet import cli
from gpufleet.cli.common import (
    EXIT_BAD_INPUT,
    EXIT_OK,
    EXIT_VIOLATION,
    BadInput,
    ProjectDir,
    StackRefs,
    Timeout,
    _run,
    app,
    fail,
    read_stack_references,
)
from gpufleet.engine import DEFAULT_TIMEOUT
from gpufleet.graph import ResourceGraph
from gpufleet.helptext import examples
from gpufleet.policies.fit.quotas import Need
from gpufleet.redact import redactor


def quota_rows(needs: list[Need], quotas: dict[str, dict[str, float]]) -> list[dict[str, Any]]:
    rows = []
    for need in needs:
        have = quotas.get(need.site, {}).get(need.code)
        rows.append(
            {
                "site": need.site,
                "code": need.code,
                "name": need.name,
                "unit": need.unit,
                "need": need.vcpus,
                "quota": have,
                "short": have is not None and need.vcpus > have,
                "pools": need.pools,
            }
        )
    return rows


def render_quotas(rows: list[dict[str, Any]], console: Console, *, source: str) -> None:
    table = Table(title=f"GPU quotas at maximum size ({source})", title_justify="left")
    for column in ("site", "quota", "need", "quota value", "pools"):
        table.add_column(
            column, justify="right" if column in ("need", "quota value") else "left", overflow="fold"
        )
    for row in rows:
        have = row["quota"]
        value = "not declared" if have is None else f"{have:g}"
        if row["short"]:
            value = f"[red]{value} (short by {row['need'] - have:g})[/]"
        table.add_row(
            escape(row["site"]),
            escape(f"{row['code']} {row['name']}"),
            f"{row['need']} {row['unit']}",
            value,
            escape("; ".join(row["pools"])),
        )
    console.print(table)


def render_preflight(graph: ResourceGraph, console: Console, project_root: Path | None = None) -> None:
    """`plan`'s launch section: quota needs against declared quotas, and what each pool pays."""
    from gpufleet.preflight.needs import distributed_over_links, prices, quota_needs
    from gpufleet.preflight.settings import QuotaFileError, declared_fits, declared_quotas

    hide = redactor(graph)
    needs, unsized = quota_needs(graph)
    try:
        declared = declared_quotas(graph.config, project_root)
    except QuotaFileError as exc:
        raise BadInput(str(exc)) from None
    if needs:
        render_quotas(hide.value(quota_rows(needs, declared)), console, source="gpufleet:quotas")
    for line in unsized:
        console.print(f"[yellow]quota need unknown:[/] {escape(hide.text(line))}", soft_wrap=True)
    rows = hide.value(prices(graph))
    if rows:
        table = Table(title="price per instance an hour (spot, on-demand)", title_justify="left")
        for column in ("pool", "type", "region", "spot", "on-demand", "buys"):
            table.add_column(column, justify="right" if column in ("spot", "on-demand") else "left")
        for row in rows:
            table.add_row(
                escape(row.pool),
                escape(row.instance_type),
                escape(row.region),
                "unpriced" if row.spot is None else f"{row.spot:.2f} {row.currency}",
                "unpriced" if row.on_demand is None else f"{row.on_demand:.2f} {row.currency}",
                row.buys,
            )
        console.print(table)
    fleet = graph.config.get("gpufleet:fleet")
    spec = json.loads(fleet) if isinstance(fleet, str) and fleet.startswith("{") else fleet
    links = list((spec or {}).get("links") or {}) if isinstance(spec, dict) else []
    for line in distributed_over_links(graph, declared_fits(graph.config), links):
        console.print(f"[yellow]hybrid link:[/] {escape(hide.text(line))}", soft_wrap=True)


def read_live_quotas(needs: list[Need]) -> dict[str, dict[str, float]]:
    """The real quotas of every site the needs name, read through `gpufleet.preflight.clients.READERS`."""
    from gpufleet.preflight import clients

    wanted: dict[tuple[str, str], set[str]] = defaultdict(set)
    for need in needs:
        wanted[(need.cloud, need.region)].add(need.code)
    readers: dict[str, clients.QuotaReader] = {}
    found: dict[str, dict[str, float]] = {}
    for (cloud, region), codes in sorted(wanted.items()):
        if cloud not in readers:
            readers[cloud] = clients.READERS[cloud]()
        found[f"{cloud}:{region}"] = readers[cloud].read(region, sorted(codes))
    return found


@app.command(
    epilog=examples(
        [
            ("gpufleet preflight -s prod", "the real quotas, read with your cloud credentials"),
            ("gpufleet preflight -s prod --offline", "the quotas declared in gpufleet:quotas"),
            ("gpufleet preflight -s prod --format json", "the comparison as JSON"),
        ]
    ),
)
def preflight(  # noqa: PLR0917 - typer maps each parameter to an option
    project_dir: ProjectDir = Path(),
    stack: Annotated[str, typer.Option("--stack", "-s", help="Stack name (Pulumi.<stack>.yaml).")] = ...,  # type: ignore[assignment]
    offline: Annotated[
        bool, typer.Option("--offline", help="Compare with the quotas declared in gpufleet:quotas only.")
    ] = False,
    output_format: Annotated[str, typer.Option("--format", help="text or json.")] = "text",
    stack_refs: StackRefs = None,
    timeout: Timeout = DEFAULT_TIMEOUT,
) -> None:
    """Say before deploy whether the GPU quotas let every pool reach its maximum size: the vCPUs
    (Tencent Cloud: instances) each quota (per cloud, region and purchase option) must allow, against
    the real quotas or the declared ones. Exit 0 when they do, 1 on a shortfall, 2 when the quotas
    cannot be read (no credentials)."""
    from gpufleet.preflight import clients
    from gpufleet.preflight.needs import quota_needs
    from gpufleet.preflight.settings import QuotaFileError, declared_quotas

    if output_format not in ("text", "json"):
        raise fail(BadInput(f"--format {output_format!r} is not one of text, json"))
    try:
        references = read_stack_references(stack_refs)
        graph = _run(project_dir, stack, references, timeout)
        needs, unsized = quota_needs(graph)
        if offline:
            quotas = declared_quotas(graph.config, project_dir)
            source = "declared in gpufleet:quotas"
        else:
            quotas = read_live_quotas(needs)
            source = "read from the clouds"
    except QuotaFileError as exc:
        raise fail(BadInput(str(exc))) from None
    except clients.NoCredentials as exc:
        cli.err.print(f"error: cannot read the quotas: {escape(str(exc))}", soft_wrap=True)
        raise typer.Exit(EXIT_BAD_INPUT) from None
    except BadInput as exc:
        raise fail(exc) from None
    # The quotas are read with the plain instance types; one that is a secret reads `[secret]` here.
    hide = redactor(graph)
    rows = hide.value(quota_rows(needs, quotas))
    unsized = [hide.text(line) for line in unsized]
    short = [row for row in rows if row["short"]]
    if output_format == "json":
        document = {"stack": stack, "source": source, "quotas": rows, "unsized": unsized}
        cli.out.print_json(json.dumps(document))
    else:
        if rows:
            render_quotas(rows, cli.out, source=source)
        else:
            cli.out.print("no GPU pool draws on a quota")
        for line in unsized:
            cli.out.print(f"[yellow]quota need unknown:[/] {escape(line)}", soft_wrap=True)
        undeclared = [row for row in rows if row["quota"] is None]
        if short:
            cli.out.print(
                f"[red]{len(short)} quota{'' if len(short) == 1 else 's'} short[/]: launches beyond them fail"
            )
        elif undeclared:
            cli.out.print(f"{len(undeclared)} quota(s) not known: declare them in gpufleet:quotas")
        else:
            cli.out.print("every quota covers the pools at their maximum size")
    raise typer.Exit(EXIT_VIOLATION if short else EXIT_OK)

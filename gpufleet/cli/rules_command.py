"""`gpufleet rules`: the guardrail rules as implemented, as a table, JSON or the Markdown reference."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from gpufleet import cli
from gpufleet.cli.common import BadInput, app, fail
from gpufleet.components import clouds as registry
from gpufleet.helptext import examples


def _config_cell(config: Mapping[str, Mapping[str, Any]]) -> str:
    if not config:
        return "-"
    return "\n".join(f"{key} = {json.dumps(schema.get('default'))}" for key, schema in config.items())


_CLOUD_LETTERS = {p.key: p.letter for p in registry.PROFILES.values()} | {
    registry.KUBERNETES: registry.KUBERNETES_LETTER
}
_WIDE_TABLE = 120
_SEVERITY_STYLES = {"critical": "bold white on red", "high": "bold red", "medium": "yellow", "low": "blue"}


def render_rules_table(rows: Sequence[Mapping[str, Any]], console: Console) -> None:
    """The catalogue as a table: one column per attribute on a wide terminal; on a narrow one the rule's
    attributes share its first cell, so that descriptions keep a readable width."""
    wide = console.width >= _WIDE_TABLE
    table = Table(
        title=f"gpufleet guardrails: {len(rows)} rules",
        caption=f"clouds: {registry.letters_legend()}. "
        "`gpufleet rules --format json` has the full config schemas.",
        title_justify="left",
        caption_justify="left",
        show_lines=True,
        expand=True,
    )
    table.add_column("rule", min_width=11, max_width=30, overflow="fold")
    if wide:
        table.add_column("clouds", no_wrap=True)
        table.add_column("level", no_wrap=True)
        table.add_column("config (default)", ratio=1, overflow="fold")
    table.add_column("checks, and the fix", ratio=3, overflow="fold")
    for row in rows:
        level = str(row["enforcement"])
        severity = str(row["severity"])
        rule = f"[bold cyan]{escape(str(row['id']))}[/]\n{escape(str(row['policy']))}"
        clouds = " ".join(_CLOUD_LETTERS.get(c, c) for c in row["clouds"])
        level_text = ("[bold]mandatory[/]" if level == "mandatory" else escape(level)) + (
            f"\n[{_SEVERITY_STYLES.get(severity, 'default')}]{escape(severity)}[/]"
        )
        config = escape(_config_cell(row["config"]))
        about = escape(str(row["description"]))
        if row["config"] and not wide:
            about += f"\nconfig: {config}".replace("\n", "; ").replace("; config: ", "\nconfig: ", 1)
        if row["remediation"]:
            about += f"\n[dim]fix: {escape(str(row['remediation']))}[/]"
        if row["url"]:
            about += f"\n[blue]{escape(str(row['url']))}[/]"
        if wide:
            table.add_row(rule, clouds, level_text, config, about)
        else:
            table.add_row(f"{rule}\n{clouds}\n{level_text}", about)
    console.print(table)


@app.command(
    epilog=examples(
        [
            ("gpufleet rules", "every rule as a table"),
            (f"gpufleet rules --family storage --cloud {registry.CHINA_CLOUDS[0]} --format json", ""),
            ("gpufleet rules --format markdown > docs/rules.md", "the rules reference page"),
        ]
    ),
)
def rules(
    fmt: Annotated[str, typer.Option("--format", "-f", help="text, json or markdown.")] = "text",
    family: Annotated[
        str | None,
        typer.Option(
            "--family",
            help="Only this family: storage, kms, access, iam, audit, network, cost, k8s, resilience, ops.",
        ),
    ] = None,
    cloud: Annotated[
        str | None,
        typer.Option(
            "--cloud",
            help=f"Only rules for this cloud: {', '.join([*registry.CLOUDS, registry.KUBERNETES])}.",
        ),
    ] = None,
) -> None:
    """List the guardrail rules as implemented: id, policy, clouds, enforcement, severity, config."""
    from gpufleet import report
    from gpufleet.policies.registry import default_registry
    from gpufleet.policies.rule import CLOUDS, FAMILIES

    try:
        if fmt not in ("text", "json", "markdown"):
            raise BadInput(f"--format {fmt!r} is not a rules format; allowed: text, json, markdown")
        if family is not None and family not in FAMILIES.values():
            raise BadInput(
                f"--family {family!r} is not a rule family; allowed: {', '.join(FAMILIES.values())}"
            )
        if cloud is not None and cloud not in CLOUDS:
            raise BadInput(f"--cloud {cloud!r} is not a cloud; allowed: {', '.join(CLOUDS)}")
    except BadInput as exc:
        raise fail(exc) from None
    rows = [
        row
        for row in report.rules_table(default_registry())
        if (family is None or row["family"] == family) and (cloud is None or cloud in row["clouds"])
    ]
    if fmt == "json":
        cli.out.print(
            report.render_rules(rows, "json"), end="", markup=False, highlight=False, soft_wrap=True
        )
    elif fmt == "markdown":
        from gpufleet.docs import render_rules_markdown

        wanted = {row["id"] for row in rows}
        # Written verbatim: the page is compared byte for byte with docs/rules.md.
        typer.echo(
            render_rules_markdown(
                (p for p in default_registry() if p.rule.id in wanted), engine="GF-ENGINE-001" in wanted
            ),
            nl=False,
        )
    else:
        render_rules_table(rows, cli.out)

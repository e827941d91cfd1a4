"""`gpufleet preflight`: what each GPU quota must allow for the stack's pools at their maximum size, held
against the real quotas (read with the user's credentials) or, with `--offline`, those the stack declares
in `gpufleet:quotas`, and the other launch and fit findings (GF-FIT-002..006). The quota lines are also
shown by `gpufleet plan`. An instance type the program reads as a secret reads `[secret]` in both, as
everywhere else a stack is reported."""

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
from gpufleet.findings import Finding
from gpufleet.graph import ResourceGraph
from gpufleet.helptext import examples
from gpufleet.policies.fit.quotas import Need
from gpufleet.redact import redactor

QUOTA_RULE = "GF-FIT-001"


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
    """One line per quota (site, code and name, need, value), then the pools that draw on it: lines, not
    a table, so that long pool names read whole at any terminal width."""
    console.print(f"GPU quotas at maximum size ({escape(source)})", soft_wrap=True)
    for row in rows:
        have = row["quota"]
        value = "not declared" if have is None else f"quota {have:g}"
        if row["short"]:
            value = f"[red]{value} (short by {row['need'] - have:g})[/]"
        console.print(
            f"  {escape(row['site'])} {escape(row['code'])} {escape(row['name'])}: need "
            f"{row['need']} {row['unit']}, {value}",
            soft_wrap=True,
        )
        for pool in row["pools"]:
            console.print(f"      {escape(pool)}", soft_wrap=True)


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


def fit_findings(graph: ResourceGraph, project_dir: Path) -> list[Finding]:
    """The other launch and fit rules' findings (GF-FIT-002..006: subnet addresses, image architecture,
    GPU memory, the network of distributed work, the price ceiling), judged with the project's policy
    config and the stack's own declarations; GF-FIT-001 is the quota table itself."""
    from gpufleet.evaluate import evaluate_stack
    from gpufleet.policies.fit import POLICIES
    from gpufleet.policies.registry import default_registry
    from gpufleet.policy_config import PolicyConfigError, load_policy_config

    try:
        config = load_policy_config(None, list(default_registry()), project_dir=project_dir)
        others = [policy for policy in POLICIES if policy.rule.id != QUOTA_RULE]
        result = evaluate_stack(graph, others, config, project_root=project_dir)
    except PolicyConfigError as exc:
        raise BadInput("; ".join(exc.problems)) from None
    # The engine's own findings (GF-ENGINE-*: what it could not look inside) belong to `check`.
    fit = [f for f in result.violations if f.rule_id.startswith("GF-FIT-")]
    return sorted(fit, key=lambda f: (f.rule_id, f.urn))


def render_findings(findings: list[dict[str, Any]], console: Console) -> None:
    if not findings:
        console.print("no launch or fit finding (GF-FIT-002..006)")
        return
    console.print("launch and fit findings (GF-FIT-002..006)")
    for finding in findings:
        color = "red" if finding["enforcement"] == "mandatory" else "yellow"
        console.print(
            f"  [{color}]{finding['rule_id']} {finding['enforcement']}[/]: {escape(finding['message'])}",
            soft_wrap=True,
        )


def render_text(
    rows: list[dict[str, Any]], unsized: list[str], findings: list[dict[str, Any]], source: str
) -> None:
    """`preflight`'s text: the quota lines, the needs that could not be sized, the verdict on the
    quotas, then the other launch and fit findings."""
    if rows:
        render_quotas(rows, cli.out, source=source)
    else:
        cli.out.print("no GPU pool draws on a quota")
    for line in unsized:
        cli.out.print(f"[yellow]quota need unknown:[/] {escape(line)}", soft_wrap=True)
    short = [row for row in rows if row["short"]]
    undeclared = [row for row in rows if row["quota"] is None]
    if short:
        cli.out.print(
            f"[red]{len(short)} quota{'' if len(short) == 1 else 's'} short[/]: launches beyond them fail"
        )
    elif undeclared:
        cli.out.print(f"{len(undeclared)} quota(s) not known: declare them in gpufleet:quotas")
    else:
        cli.out.print("every quota covers the pools at their maximum size")
    render_findings(findings, cli.out)


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
    the real quotas or the declared ones; then what else would make a launch fail or a job not fit
    (GF-FIT-002..006). Exit 0 when nothing does, 1 on a shortfall or a mandatory finding, 2 when the
    quotas cannot be read (no credentials)."""
    from gpufleet.preflight import clients
    from gpufleet.preflight.needs import quota_needs
    from gpufleet.preflight.settings import QuotaFileError, declared_quotas

    if output_format not in ("text", "json"):
        raise fail(BadInput(f"--format {output_format!r} is not one of text, json"))
    try:
        references = read_stack_references(stack_refs)
        graph = _run(project_dir, stack, references, timeout)
        needs, unsized = quota_needs(graph)
        found = fit_findings(graph, project_dir)
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
    findings = [
        {"rule_id": f.rule_id, "enforcement": f.enforcement, "urn": f.urn, "message": f.message}
        for f in found
    ]
    findings = hide.value(findings)
    mandatory = [f for f in findings if f["enforcement"] == "mandatory"]
    if output_format == "json":
        document = {
            "stack": stack,
            "source": source,
            "quotas": rows,
            "unsized": unsized,
            "findings": findings,
        }
        cli.out.print_json(json.dumps(document))
    else:
        render_text(rows, unsized, findings, source)
    raise typer.Exit(EXIT_VIOLATION if short or mandatory else EXIT_OK)

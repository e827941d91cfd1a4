"""`gpufleet plan`: the resource tree, counts and outputs of a program run offline, and its fleet spec."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.tree import Tree

from gpufleet import cli, finite
from gpufleet.cli.common import (
    BadInput,
    ProjectDir,
    StackRefs,
    Timeout,
    _run,
    app,
    fail,
    read_stack_references,
    write_atomically,
)
from gpufleet.cli.fleet_view import load_fleet, render_fleet
from gpufleet.cli.plan_settings import _fmt, key_settings
from gpufleet.engine import DEFAULT_TIMEOUT
from gpufleet.engine_monitor import STACK_TYPE
from gpufleet.graph import Resource, ResourceGraph, is_secret
from gpufleet.helptext import examples
from gpufleet.hybrid_view import print_hybrid
from gpufleet.redact import redacted_graph, redacted_json


def _label(resource: Resource) -> str:
    settings = key_settings(resource)
    kind = "[magenta]component[/] " if resource.is_component else ""
    line = f"{kind}[cyan]{escape(resource.type)}[/] [bold]{escape(resource.name)}[/]"
    return f"{line}  [dim]{escape(settings)}[/]" if settings else line


def render_plan(graph: ResourceGraph, console: Console) -> None:
    """The resource tree, counts, outputs and notes; secrets are shown as `[secret]`."""
    graph = redacted_graph(graph)
    stack = next((r for r in graph if r.type == STACK_TYPE), None)
    counted = [r for r in graph if r.type != STACK_TYPE]
    components = sum(1 for r in counted if r.is_component)
    console.print(
        Panel(
            "Values below are [bold]synthetic[/]: the program ran offline against mock outputs "
            "(ids, ARNs and names are made up). Nothing was created in any cloud.",
            title="gpufleet plan",
            border_style="yellow",
        )
    )
    title = (
        f"[bold]stack {escape(graph.stack)}[/] (project {escape(graph.project)}): "
        f"{len(counted) - components} resources in {components} component{'' if components == 1 else 's'}"
    )
    tree = Tree(title)

    def add(branch: Tree, urn: str) -> None:
        children = graph.children(urn)
        # Components first, then resources by type and name, so related settings line up.
        for child in sorted(children, key=lambda r: (r.custom, r.type, r.name)):
            node = branch.add(_label(child))
            add(node, child.urn)

    if stack is not None:
        add(tree, stack.urn)
    for orphan in (r for r in counted if r.parent is None or graph.get(r.parent) is None):
        node = tree.add(_label(orphan))
        add(node, orphan.urn)
    console.print(tree)

    counts = Table(title="resources by type", show_lines=False, title_justify="left")
    counts.add_column("type")
    counts.add_column("count", justify="right")
    by_type: dict[str, int] = defaultdict(int)
    for resource in counted:
        by_type[resource.type] += 1
    for token, count in sorted(by_type.items()):
        counts.add_row(escape(token), str(count))
    console.print(counts)

    if graph.outputs:
        outputs = Table(title="stack outputs", title_justify="left")
        outputs.add_column("name")
        outputs.add_column("value (synthetic)")
        for name, value in graph.outputs.items():
            outputs.add_row(escape(name), escape("[secret]" if is_secret(value) else _fmt(value)))
        console.print(outputs)
    opaque = graph.opaque
    if opaque:
        console.print(
            f"[yellow]not inspected:[/] {len(opaque)} component{'' if len(opaque) == 1 else 's'} built by a "
            "provider plugin could not be looked inside offline (GF-ENGINE-001); no policy judges what "
            "they create",
            soft_wrap=True,
        )
        for item in opaque:
            name = item.get("name") or item["urn"].rsplit("::", 1)[-1]
            line = f"  - {name} ({item['type']}): {item['why']}"
            console.print(escape(line), soft_wrap=True)
    for note in graph.notes:
        console.print(f"[yellow]note:[/] {escape(note)}", soft_wrap=True)


def write_graph_json(path: Path, graph: ResourceGraph) -> None:
    """`plan --json`: the graph with every secret as `[secret]`, strict JSON (no NaN or Infinity)."""
    try:
        text = finite.dumps(redacted_json(graph), default=str)
    except RecursionError:
        raise BadInput(
            f"cannot write {path}: the program registered a value nested too deeply for JSON"
        ) from None
    write_atomically(path, text)


@app.command(
    epilog=examples(
        [
            ("gpufleet plan -s dev", "the project in the current directory"),
            ("gpufleet plan ../photo-archive -s prod --json graph.json", "any Pulumi Python project"),
            ("gpufleet plan -s prod --stack-refs refs.json", "outputs for pulumi.StackReference"),
        ]
    ),
)
def plan(
    project_dir: ProjectDir = Path(),
    stack: Annotated[str, typer.Option("--stack", "-s", help="Stack name (Pulumi.<stack>.yaml).")] = ...,  # type: ignore[assignment]
    json_file: Annotated[
        Path | None, typer.Option("--json", help="Also write the resource graph as JSON to this file.")
    ] = None,
    stack_refs: StackRefs = None,
    timeout: Timeout = DEFAULT_TIMEOUT,
) -> None:
    """Run the program offline and show what it would build, grouped by component, and the effective
    fleet spec with every default filled in."""
    try:
        references = read_stack_references(stack_refs)
        fleet = load_fleet(project_dir, stack)
        graph = _run(project_dir, stack, references, timeout)
        if json_file is not None:
            write_graph_json(json_file, graph)
    except BadInput as exc:
        raise fail(exc) from None
    render_plan(graph, cli.out)
    from gpufleet.cli.preflight_command import render_preflight

    try:
        render_preflight(graph, cli.out, project_dir)  # quotas at max size, spot and on-demand prices
    except BadInput as exc:
        raise fail(exc) from None
    if fleet is not None:
        print_hybrid(fleet.spec, graph, cli.out)  # a hybrid fleet as one: baseline, sites, links
        render_fleet(fleet, cli.out)
    if json_file is not None:
        cli.out.print(f"resource graph written to {escape(str(json_file))}")

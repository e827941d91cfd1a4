"""The `gpufleet` command line: see what a Pulumi program builds, and check it, without a cloud account."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.tree import Tree

from gpufleet import __version__
from gpufleet.engine import STACK_TYPE, EngineError, run_program
from gpufleet.graph import Resource, ResourceGraph, is_secret
from gpufleet.project import ProjectError, load_project

if TYPE_CHECKING:
    from gpufleet.evaluate import StackResult
    from policies.rule import GfPolicy

EXIT_OK, EXIT_VIOLATION, EXIT_BAD_INPUT = 0, 1, 2

app = typer.Typer(
    name="gpufleet",
    help="Hybrid GPU fleets on Pulumi: see what a stack builds and check it against the guardrails, "
    "offline (no Pulumi CLI, no cloud credentials).",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode="rich",
    pretty_exceptions_enable=False,
)

out = Console(highlight=False)
err = Console(stderr=True, highlight=False)


class BadInput(Exception):
    """Input the user can fix; printed as one paragraph, exit status 2."""


def fail(message: str) -> typer.Exit:
    text = " ".join(line.strip() for line in message.strip().splitlines() if line.strip())
    err.print(f"[bold red]error:[/] {escape(text)}", soft_wrap=True)
    return typer.Exit(EXIT_BAD_INPUT)


def _version(value: bool) -> None:
    if value:
        out.print(f"gpufleet {__version__}")
        raise typer.Exit(EXIT_OK)


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version and exit.")
    ] = False,
) -> None:
    """Hybrid GPU fleets on Pulumi, with guardrails and cost before deploy."""


ProjectDir = Annotated[
    Path,
    typer.Argument(help="Directory of the Pulumi project (the one holding Pulumi.yaml).", show_default=True),
]


def _run(project_dir: Path, stack: str) -> ResourceGraph:
    try:
        return run_program(project_dir, stack)
    except EngineError as exc:
        raise BadInput(str(exc)) from None


# -- plan ------------------------------------------------------------------------------------------

# Type token -> (label, camelCase input path) shown beside each resource. `*` walks every list item.
KEY_SETTINGS: dict[str, list[tuple[str, str]]] = {
    "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration": [
        ("sse", "rules.*.applyServerSideEncryptionByDefault.sseAlgorithm"),
        ("key", "rules.*.applyServerSideEncryptionByDefault.kmsMasterKeyId"),
    ],
    "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock": [
        ("block acls", "blockPublicAcls"),
        ("block policy", "blockPublicPolicy"),
        ("ignore acls", "ignorePublicAcls"),
        ("restrict", "restrictPublicBuckets"),
    ],
    "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration": [
        ("transition days", "rules.*.transitions.*.days"),
        ("class", "rules.*.transitions.*.storageClass"),
        ("expire days", "rules.*.expiration.days"),
    ],
    "aws:s3/bucketVersioning:BucketVersioning": [("versioning", "versioningConfiguration.status")],
    "aws:kms/key:Key": [("rotation", "enableKeyRotation"), ("usage", "keyUsage")],
    "aws:kms/externalKey:ExternalKey": [("origin", "keyUsage"), ("enabled", "enabled")],
    "aws:ec2/launchTemplate:LaunchTemplate": [
        ("type", "instanceType"),
        ("IMDS", "metadataOptions.httpTokens"),
        ("hop limit", "metadataOptions.httpPutResponseHopLimit"),
        ("disk encrypted", "blockDeviceMappings.*.ebs.encrypted"),
        ("volume", "blockDeviceMappings.*.ebs.volumeType"),
        ("key pair", "keyName"),
    ],
    "aws:ec2/instance:Instance": [
        ("type", "instanceType"),
        ("IMDS", "metadataOptions.httpTokens"),
        ("root encrypted", "rootBlockDevice.encrypted"),
        ("public ip", "associatePublicIpAddress"),
        ("key pair", "keyName"),
    ],
    "aws:autoscaling/group:Group": [
        ("min", "minSize"),
        ("max", "maxSize"),
        ("on-demand %", "mixedInstancesPolicy.instancesDistribution.onDemandPercentageAboveBaseCapacity"),
        ("types", "mixedInstancesPolicy.launchTemplate.overrides.*.instanceType"),
    ],
    "aws:autoscaling/schedule:Schedule": [
        ("recurrence", "recurrence"),
        ("min", "minSize"),
        ("max", "maxSize"),
        ("tz", "timeZone"),
    ],
    "aws:autoscaling/policy:Policy": [("kind", "policyType"), ("cooldown", "cooldown")],
    "aws:cloudwatch/metricAlarm:MetricAlarm": [
        ("metric", "metricName"),
        ("threshold", "threshold"),
        ("periods", "evaluationPeriods"),
        ("period s", "period"),
    ],
    "aws:cloudwatch/logGroup:LogGroup": [("retention days", "retentionInDays"), ("kms", "kmsKeyId")],
    "aws:cloudtrail/trail:Trail": [("multi-region", "isMultiRegionTrail"), ("kms", "kmsKeyId")],
    "aws:budgets/budget:Budget": [
        ("limit", "limitAmount"),
        ("unit", "limitUnit"),
        ("alert %", "notifications.*.threshold"),
    ],
    "aws:ec2/securityGroup:SecurityGroup": [
        ("ingress ports", "ingress.*.fromPort"),
        ("from", "ingress.*.cidrBlocks.*"),
    ],
    "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule": [
        ("port", "fromPort"),
        ("from", "cidrIpv4"),
    ],
    "aws:iam/rolePolicyAttachment:RolePolicyAttachment": [("policy", "policyArn")],
    "aws:ec2/vpc:Vpc": [("cidr", "cidrBlock")],
    "aws:ec2/subnet:Subnet": [("cidr", "cidrBlock"), ("public ip", "mapPublicIpOnLaunch")],
    "aws:ec2/vpnConnection:VpnConnection": [
        ("ike", "tunnel1IkeVersions"),
        ("phase 1", "tunnel1Phase1EncryptionAlgorithms"),
    ],
    "alicloud:oss/bucket:Bucket": [
        ("sse", "serverSideEncryptionRule.sseAlgorithm"),
        ("key", "serverSideEncryptionRule.kmsMasterKeyId"),
        ("versioning", "versioning.status"),
        ("transition days", "lifecycleRules.*.transitions.*.days"),
    ],
    "alicloud:kms/key:Key": [("origin", "origin"), ("rotation", "automaticRotation")],
    "alicloud:ecs/instance:Instance": [
        ("type", "instanceType"),
        ("public bandwidth", "internetMaxBandwidthOut"),
        ("key pair", "keyName"),
        ("disk", "systemDiskCategory"),
    ],
    "alicloud:ess/scalingGroup:ScalingGroup": [
        ("min", "minSize"),
        ("max", "maxSize"),
        ("on-demand %", "onDemandPercentageAboveBaseCapacity"),
    ],
    "alicloud:ess/scalingConfiguration:ScalingConfiguration": [
        ("types", "instanceTypes"),
        ("spot", "spotStrategy"),
        ("disk encrypted", "systemDiskEncrypted"),
    ],
    "alicloud:log/store:Store": [("retention days", "retentionPeriod")],
    "alicloud:ecs/securityGroupRule:SecurityGroupRule": [("ports", "portRange"), ("from", "cidrIp")],
    "tencentcloud:Cos/bucket:Bucket": [
        ("sse", "encryptionAlgorithm"),
        ("key", "kmsId"),
        ("acl", "acl"),
        ("versioning", "versioningEnable"),
    ],
    "tencentcloud:Kms/key:Key": [("rotation", "keyRotationEnabled"), ("enabled", "isEnabled")],
    "tencentcloud:Instance/instance:Instance": [
        ("type", "instanceType"),
        ("public ip", "allocatePublicIp"),
        ("disk", "systemDiskType"),
    ],
    "tencentcloud:As/scalingGroup:ScalingGroup": [
        ("min", "minSize"),
        ("max", "maxSize"),
        ("cooldown", "defaultCooldown"),
    ],
    "tencentcloud:As/scalingConfig:ScalingConfig": [
        ("types", "instanceTypes"),
        ("charge", "instanceChargeType"),
    ],
    "tencentcloud:Cls/topic:Topic": [("retention days", "period")],
    "kubernetes:core/v1:ResourceQuota": [("hard", "spec.hard")],
    "kubernetes:scheduling.k8s.io/v1:PriorityClass": [("value", "value")],
}
_SETTINGS_TEXT_LIMIT = 90


def _walk(value: Any, parts: Sequence[str]) -> Iterator[Any]:
    if is_secret(value):
        yield "[secret]"
        return
    if not parts:
        if value is not None:
            yield value
        return
    head, rest = parts[0], parts[1:]
    if head == "*":
        if isinstance(value, list):
            for item in value:
                yield from _walk(item, rest)
        return
    if isinstance(value, dict) and head in value:
        yield from _walk(value[head], rest)


def _fmt(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return ",".join(_fmt(v) for v in value)
    if isinstance(value, dict):
        return ",".join(f"{k}={_fmt(v)}" for k, v in value.items())
    return str(value)


def key_settings(resource: Resource) -> str:
    """`label=value` pairs for the inputs that matter for this type (see KEY_SETTINGS)."""
    shown: list[str] = []
    for label, path in KEY_SETTINGS.get(resource.type, ()):
        values = list(dict.fromkeys(_fmt(v) for v in _walk(resource.inputs, path.split("."))))
        if values:
            shown.append(f"{label}={'/'.join(values)}")
    text = "  ".join(shown)
    return text if len(text) <= _SETTINGS_TEXT_LIMIT else text[: _SETTINGS_TEXT_LIMIT - 1] + "…"


def _label(resource: Resource) -> str:
    settings = key_settings(resource)
    kind = "[magenta]component[/] " if resource.is_component else ""
    line = f"{kind}[cyan]{escape(resource.type)}[/] [bold]{escape(resource.name)}[/]"
    return f"{line}  [dim]{escape(settings)}[/]" if settings else line


def render_plan(graph: ResourceGraph, console: Console) -> None:
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
    for note in graph.notes:
        console.print(f"[yellow]note:[/] {escape(note)}", soft_wrap=True)


@app.command(
    epilog="Examples:\n\n"
    "  [bold]gpufleet plan -s dev[/]                 the project in the current directory\n\n"
    "  [bold]gpufleet plan ../photo-archive -s prod --json graph.json[/]   any Pulumi Python project",
)
def plan(
    project_dir: ProjectDir = Path(),
    stack: Annotated[str, typer.Option("--stack", "-s", help="Stack name (Pulumi.<stack>.yaml).")] = ...,  # type: ignore[assignment]
    json_file: Annotated[
        Path | None, typer.Option("--json", help="Also write the resource graph as JSON to this file.")
    ] = None,
) -> None:
    """Run the program offline and show what it would build, grouped by component."""
    try:
        graph = _run(project_dir, stack)
        if json_file is not None:
            try:
                graph.write(json_file)
            except OSError as exc:
                raise BadInput(f"cannot write {json_file}: {exc.strerror or exc}") from None
    except BadInput as exc:
        raise fail(str(exc)) from None
    render_plan(graph, out)
    if json_file is not None:
        out.print(f"resource graph written to {escape(str(json_file))}")


# -- check ---------------------------------------------------------------------------------------

REPORT_FORMATS = ("json", "text", "sarif", "junit", "markdown")
REPORT_FILES = {
    "json": "gpufleet.json",
    "text": "gpufleet.txt",
    "sarif": "gpufleet.sarif",
    "junit": "gpufleet.junit.xml",
    "markdown": "gpufleet.md",
}
_FORMAT_ALIASES = {"md": "markdown", "txt": "text", "xml": "junit"}


def parse_formats(value: str) -> list[str]:
    formats: list[str] = []
    for raw in (part.strip().lower() for part in value.split(",")):
        item = _FORMAT_ALIASES.get(raw, raw)
        if item not in REPORT_FORMATS:
            raise BadInput(f"--format {raw!r} is not a report format; allowed: {', '.join(REPORT_FORMATS)}")
        if item not in formats:
            formats.append(item)
    return formats


def render_report(results: Sequence[StackResult], fmt: str, policies: Sequence[GfPolicy]) -> str:
    if fmt == "json":
        document = {"version": 1, "stacks": [result.to_json() for result in results]}
        return json.dumps(document, indent=2, default=str) + "\n"
    from gpufleet import report

    return report.render(results, fmt, policies, repo_root=Path.cwd())


def _stacks(project_dir: Path, stack: str | None, all_stacks: bool) -> list[str]:
    if bool(stack) == all_stacks:
        raise BadInput("pass exactly one of --stack/-s STACK or --all-stacks")
    if stack:
        return [stack]
    try:
        project = load_project(project_dir)
    except ProjectError as exc:
        raise BadInput(str(exc)) from None
    found = project.stacks()
    if not found:
        raise BadInput(f"no stack files (Pulumi.<stack>.yaml) in {project.stack_config_dir}")
    return found


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


@app.command(
    epilog="Examples:\n\n"
    "  [bold]gpufleet check -s dev[/]                         JSON report on stdout\n\n"
    "  [bold]gpufleet check --all-stacks --format sarif,junit,markdown --output-dir reports[/]\n\n"
    "Exit status: 0 no mandatory violation, 1 a mandatory violation, 2 bad input.",
)
def check(  # noqa: PLR0917 - typer maps each parameter to an option
    project_dir: ProjectDir = Path(),
    stack: Annotated[str | None, typer.Option("--stack", "-s", help="Stack to check.")] = None,
    all_stacks: Annotated[bool, typer.Option("--all-stacks", help="Check every stack file.")] = False,
    formats: Annotated[
        str, typer.Option("--format", "-f", help="Comma-separated: json, text, sarif, junit, markdown.")
    ] = "json",
    output_dir: Annotated[
        Path | None, typer.Option("--output-dir", "-o", help="Write each report to a file here.")
    ] = None,
    policy_config: Annotated[
        Path | None, typer.Option("--policy-config", help="Policy pack config (Pulumi's JSON shape).")
    ] = None,
) -> None:
    """Run the program offline and judge it with the guardrail policies."""
    # The policy pack is imported only when judging: `plan` stays quick to start.
    from gpufleet import evaluate
    from gpufleet.policy_config import PolicyConfigError, load_policy_config
    from policies.registry import default_registry

    try:
        selected = parse_formats(formats)
        names = _stacks(project_dir, stack, all_stacks)
        policies = list(default_registry())
        config = load_policy_config(policy_config, policies, project_dir=project_dir)
        results = [evaluate.evaluate_stack(_run(project_dir, name), policies, config) for name in names]
    except (BadInput, PolicyConfigError) as exc:
        raise fail(str(exc)) from None
    rendered = {fmt: render_report(results, fmt, policies) for fmt in selected}
    if output_dir is None:
        out.print(rendered[selected[0]], end="", markup=False, highlight=False, soft_wrap=True)
    else:
        output_dir.mkdir(parents=True, exist_ok=True)
        for fmt, text in rendered.items():
            _write_atomic(output_dir / REPORT_FILES[fmt], text)
        out.print(f"reports written to {escape(str(output_dir))}: {', '.join(selected)}")
    violated = any(result.mandatory_violations for result in results)
    raise typer.Exit(EXIT_VIOLATION if violated else EXIT_OK)


def main() -> None:
    app(prog_name="gpufleet")


if __name__ == "__main__":
    main()

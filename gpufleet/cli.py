"""The `gpufleet` command line: see what a Pulumi program builds, check it and price it, without a cloud
account."""

from __future__ import annotations

import fnmatch
import json
import math
import sys
import time
from collections import defaultdict
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from pydantic import BaseModel
from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table
from rich.text import Text
from rich.tree import Tree

from gpufleet import __version__, finite
from gpufleet.atomic import write_files_atomically
from gpufleet.engine import DEFAULT_TIMEOUT, STACK_TYPE, EngineError, run_program
from gpufleet.graph import Resource, ResourceGraph, is_secret
from gpufleet.helptext import examples
from gpufleet.hybrid_view import print_hybrid
from gpufleet.project import Project, ProjectError, load_project, load_stack_config
from gpufleet.redact import redacted_graph, redacted_json
from gpufleet.sandbox import collector_paused

if TYPE_CHECKING:
    from components.spec import FleetSpec
    from gpufleet.cost import CostDiff, CostReport
    from gpufleet.policy_config import PolicyConfigError
    from policies.rule import GfPolicy

EXIT_OK, EXIT_VIOLATION, EXIT_BAD_INPUT = 0, 1, 2

app = typer.Typer(
    name="gpufleet",
    help="Hybrid GPU fleets on Pulumi: see what a stack builds, check it against the guardrails and "
    "price it, offline (no Pulumi CLI, no cloud credentials).",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode="rich",
    pretty_exceptions_enable=False,
)

out = Console(highlight=False)
err = Console(stderr=True, highlight=False)


class BadInput(Exception):
    """Input the user can fix, exit status 2: one paragraph, or a heading and one line per problem."""

    def __init__(self, message: str, details: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.details = list(details)


def fail(problem: BadInput | str) -> typer.Exit:
    """Print `error: ...` on stderr (never a traceback) and return the exit for status 2."""
    message = str(problem)
    details = problem.details if isinstance(problem, BadInput) else []
    text = " ".join(line.strip() for line in message.strip().splitlines() if line.strip())
    err.print(f"[bold red]error:[/] {escape(text)}", soft_wrap=True)
    for line in details:
        err.print(f"  {escape(line)}", soft_wrap=True)
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


def _run(
    project_dir: Path,
    stack: str,
    stack_references: Mapping[str, Mapping[str, Any]] | None = None,
    timeout: float = DEFAULT_TIMEOUT,
) -> ResourceGraph:
    if not 0 < timeout < math.inf:
        raise BadInput(f"--timeout {timeout:g}: give the seconds a program may run, a positive number (300)")
    try:
        return run_program(project_dir, stack, stack_references=stack_references, timeout=timeout)
    except EngineError as exc:
        from gpufleet.suggest import stack_hint

        raise BadInput(str(exc) + stack_hint(project_dir, stack)) from None


def write_stdout(text: str) -> None:
    """A report exactly as rendered (rich would expand tabs and turn `:name:` into emoji)."""
    sys.stdout.write(text)
    sys.stdout.flush()


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


# -- the fleet spec, as `plan` shows it ----------------------------------------------------------------


def _stack_file(project: Project, stack: str) -> str:
    """The stack file relative to the project directory, in POSIX form (`stacks/Pulumi.dev.yaml`)."""
    path = project.stack_file(stack)
    try:
        return path.relative_to(project.root).as_posix()
    except ValueError:
        return path.as_posix()


@dataclass(frozen=True)
class FleetView:
    """A stack's parsed fleet spec beside the mapping written in its stack file."""

    source: str
    spec: FleetSpec
    given: Any


def load_fleet(project_dir: Path, stack: str) -> FleetView | None:
    """The stack's `gpufleet:fleet`, validated; None when the stack has no such key (any other program).

    Raises BadInput listing every problem of the spec, one per line."""
    from components.spec import CONFIG_KEY, SpecError, load_fleet_from_config

    try:
        project = load_project(project_dir)
        config = load_stack_config(project, stack)
    except ProjectError as exc:
        raise BadInput(str(exc)) from None
    if CONFIG_KEY not in config.values:
        return None
    source = _stack_file(project, stack)
    try:
        spec = load_fleet_from_config(config.values, source)
    except SpecError as exc:
        count = len(exc.errors)
        raise BadInput(
            f"{source}: invalid {CONFIG_KEY} ({count} problem{'' if count == 1 else 's'}):",
            exc.format().splitlines(),
        ) from None
    given = config.values[CONFIG_KEY]
    if isinstance(given, str):
        try:
            given = json.loads(given)
        except json.JSONDecodeError:
            given = {}
    return FleetView(source=source, spec=spec, given=given)


# Marks a field the stack file leaves out (None is a value a file may write).
_ABSENT: Any = object()


def _field_description(model: BaseModel, name: str) -> str:
    info = type(model).model_fields.get(name)
    return (info.description or "") if info is not None else ""


def _spec_value(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, list):
        return "[" + ", ".join(_spec_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_spec_value(v)}" for k, v in value.items()) + "}"
    return _fmt(value)


_DEFAULT_MARK = "  [yellow](default)[/]"


def _spec_leaf(name: str, shown: str, given: bool, description: str) -> str:
    about = f"  [dim]{escape(description)}[/]" if description else ""
    return f"{escape(name)}: [bold]{escape(shown)}[/]{'' if given else _DEFAULT_MARK}{about}"


def _add_spec_node(branch: Tree, name: str, value: Any, *, dumped: Any, given: Any, description: str) -> None:
    """One field: a branch for models and mappings, a leaf for everything else. `given` is the same
    field in the stack file, or a sentinel when the file leaves it out."""
    written = given is not _ABSENT
    if isinstance(value, BaseModel):
        node = branch.add(escape(name) + ("" if written else _DEFAULT_MARK))
        _add_spec_fields(node, value, dumped, given if isinstance(given, Mapping) else {})
    elif isinstance(value, Mapping) and value:
        node = branch.add(escape(name))
        for key, item in value.items():
            sub_given = given.get(key, _ABSENT) if isinstance(given, Mapping) else _ABSENT
            _add_spec_node(node, str(key), item, dumped=dumped[key], given=sub_given, description="")
    else:
        branch.add(_spec_leaf(name, _spec_value(dumped), written, description))


def _add_spec_fields(
    branch: Tree, model: BaseModel, dumped: Mapping[str, Any], given: Mapping[str, Any]
) -> None:
    for name in type(model).model_fields:
        value = getattr(model, name)
        description = _field_description(model, name)
        if type(model).model_fields[name].annotation is type(None):
            # Reserved for later (on-prem baseline, private links): no value can be set yet.
            continue
        _add_spec_node(
            branch, name, value, dumped=dumped[name], given=given.get(name, _ABSENT), description=description
        )


def render_fleet(fleet: FleetView, console: Console) -> None:
    """The effective fleet spec: every value, marked as written in the stack file or taken by default."""
    from components.spec import CONFIG_KEY

    tree = Tree(
        f"[bold]effective {CONFIG_KEY}[/] of {escape(fleet.source)}: values marked (default) are not in "
        "the stack file"
    )
    given = fleet.given if isinstance(fleet.given, Mapping) else {}
    _add_spec_fields(tree, fleet.spec, fleet.spec.defaults_view(), given)
    console.print(tree)


def read_stack_references(path: Path | None) -> dict[str, dict[str, Any]] | None:
    """`--stack-refs FILE`: JSON `{"org/project/stack": {"output": value}}` for `pulumi.StackReference`."""
    if path is None:
        return None
    example = 'e.g. {"acme/network/prod": {"vpc_id": "vpc-0abc"}}'
    from gpufleet.safe_json import MAX_DEPTH, JsonLimitError, loads_limited

    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise BadInput(f"cannot read --stack-refs {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise BadInput(
            f"--stack-refs {path}: byte {exc.start} is not UTF-8; write the file as UTF-8 JSON, {example}"
        ) from None
    try:
        data = loads_limited(text)
    except json.JSONDecodeError as exc:
        raise BadInput(
            f"--stack-refs {path}:{exc.lineno}: invalid JSON ({exc.msg}); expected an object of "
            f"stack name -> outputs, {example}"
        ) from None
    except JsonLimitError as exc:
        raise BadInput(
            f"--stack-refs {path}: {exc}; expected an object of stack name -> outputs (finite numbers, "
            f"at most {MAX_DEPTH} levels deep), {example}"
        ) from None
    if not isinstance(data, dict):
        raise BadInput(
            f"--stack-refs {path}: the top level is a {type(data).__name__}; expected an object of "
            f"stack name -> outputs, {example}"
        )
    for name, outputs in data.items():
        if not isinstance(outputs, dict):
            raise BadInput(
                f"--stack-refs {path}: {name}: expected an object of output name -> value, "
                f"got {type(outputs).__name__}"
            )
    return data


StackRefs = Annotated[
    Path | None,
    typer.Option(
        "--stack-refs",
        help='JSON file of stack reference outputs: {"org/project/stack": {"output": value}}.',
    ),
]
Timeout = Annotated[
    float,
    typer.Option(
        "--timeout",
        metavar="SECONDS",
        help="Stop the program after this many seconds (exit 2): it runs in a child process.",
    ),
]


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
    render_plan(graph, out)
    if fleet is not None:
        print_hybrid(fleet.spec, graph, out)  # a hybrid fleet as one: baseline, sites, links
        render_fleet(fleet, out)
    if json_file is not None:
        out.print(f"resource graph written to {escape(str(json_file))}")


# -- check ---------------------------------------------------------------------------------------

_FORMAT_ALIASES = {"md": "markdown", "txt": "text", "xml": "junit"}


def parse_formats(value: str) -> list[str]:
    from gpufleet import report

    formats: list[str] = []
    for raw in (part.strip().lower() for part in value.split(",")):
        if not raw:
            continue
        item = _FORMAT_ALIASES.get(raw, raw)
        if item not in report.FORMATS:
            raise BadInput(f"--format {raw!r} is not a report format; allowed: {', '.join(report.FORMATS)}")
        if item not in formats:
            formats.append(item)
    if not formats:
        raise BadInput(f"--format is empty; allowed: {', '.join(report.FORMATS)}")
    return formats


def select_rules(policies: Sequence[GfPolicy], value: str | None) -> tuple[list[GfPolicy], bool]:
    """`--rules GF-STOR-001,GF-COST-*`: rule ids or policy names, shell-style wildcards allowed.

    The selected policies, and whether the engine's own GF-ENGINE-001 (component-not-inspected) is
    among the rules asked for."""
    from gpufleet.policy_config import ENGINE_POLICY, ENGINE_RULE_ID

    if value is None:
        return list(policies), True
    wanted: set[str] = set()
    engine = False
    for pattern in (part.strip() for part in value.split(",")):
        if not pattern:
            continue
        matched = {
            p.rule.id
            for p in policies
            if fnmatch.fnmatchcase(p.rule.id, pattern.upper()) or fnmatch.fnmatchcase(p.name, pattern.lower())
        }
        engine_matched = fnmatch.fnmatchcase(ENGINE_RULE_ID, pattern.upper()) or fnmatch.fnmatchcase(
            ENGINE_POLICY, pattern.lower()
        )
        if not matched and not engine_matched:
            raise BadInput(
                f"--rules {pattern}: matches no rule id or policy name; rule ids look like GF-STOR-001 "
                "(wildcards allowed: GF-COST-*); run `gpufleet rules` for the list"
            )
        wanted |= matched
        engine = engine or engine_matched
    if not wanted and not engine:
        raise BadInput("--rules is empty; give rule ids or policy names, e.g. GF-STOR-001,GF-COST-*")
    return [p for p in policies if p.rule.id in wanted], engine


def _stacks(project_dir: Path, stack: str | None, all_stacks: bool) -> tuple[Project, list[str]]:
    if bool(stack) == all_stacks:
        raise BadInput("pass exactly one of --stack/-s STACK or --all-stacks")
    try:
        project = load_project(project_dir)
    except ProjectError as exc:
        raise BadInput(str(exc)) from None
    if stack:
        return project, [stack]
    found = project.stacks()
    if not found:
        raise BadInput(f"no stack files (Pulumi.<stack>.yaml) in {project.stack_config_dir}")
    return project, found


BUDGET_POLICY = "stack-has-budget-alert"


def stack_cost(graph: ResourceGraph, source: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The check JSON's `cost` block (DESIGN.md contract) and the per-cloud monthly estimates that
    GF-COST-002 holds each budget against, both from one pricing of the graph."""
    from gpufleet import cost

    try:
        priced = cost.estimate_stack(graph, source=source)
    except cost.CostError as exc:
        raise BadInput(str(exc)) from None
    by_cloud = priced.monthly_by_cloud()
    given: dict[str, Any] = {
        # A non-finite estimate (a pool of 10**307 instances) is no estimate GF-COST-002 can hold a budget
        # against: left out, and the cost block says why.
        "monthly_estimates": {
            cloud: {"amount": amount, "currency": priced.currency}
            for cloud, amount in by_cloud.items()
            if math.isfinite(amount)
        }
    }
    if priced.budget is not None:
        # Alibaba Cloud has no budget resource: the spec's declared budget is what GF-COST-002 checks there.
        given["budgets"] = {"monthly": priced.budget.monthly, "currency": priced.budget.currency}
    block, replaced = finite.finite(cost.cost_block(priced), "cost")
    if replaced:
        block["notes"] = [finite.note(replaced)]
    return block, given


def with_estimates(config: dict[str, Any], given: dict[str, Any]) -> dict[str, Any]:
    """The policy config for one stack: the budget rule gets the usage-based estimates and the spec's
    declared budget, unless the config already sets them."""
    entry = config.get(BUDGET_POLICY)
    settings = {"enforcementLevel": entry} if isinstance(entry, str) else dict(entry or {})
    for key, value in given.items():
        if settings.get(key) is None:
            settings[key] = value
    return {**config, BUDGET_POLICY: settings}


_TEXT_STYLES = (
    (r"\bGF-[A-Z0-9]+-\d{3}\b", "bold cyan"),
    (r"\[mandatory\]", "bold red"),
    (r"\[advisory\]", "yellow"),
    (r"(?m)^  CRITICAL$", "bold white on red"),
    (r"(?m)^  HIGH$", "bold red"),
    (r"(?m)^  MEDIUM$", "bold yellow"),
    (r"(?m)^  LOW$", "bold blue"),
    (r"(?m)^stack \S+", "bold"),
    (r"passed: no policy violations", "green"),
    (r"(?m)^  cost: .*$", "magenta"),
)


def print_text_report(text: str, console: Console) -> None:
    """The text report, coloured for a terminal (plain when stdout is a pipe or a file)."""
    styled = Text(text)
    for pattern, style in _TEXT_STYLES:
        styled.highlight_regex(pattern, style)
    console.print(styled, end="", soft_wrap=True)


@app.command(
    epilog=examples(
        [
            ("gpufleet check -s dev", "JSON report on stdout"),
            ("gpufleet check -s dev --format text", "readable in a terminal"),
            (
                "gpufleet check --all-stacks --jobs 2 --format sarif,junit,markdown --output-dir reports",
                "every stack, two at a time, three reports",
            ),
            (
                "gpufleet check -s dev --enforce GF-COST-004=advisory --set GF-AUD-002.min_days=365",
                "enforcement and rule config for one run",
            ),
            ("gpufleet check -s prod --rules 'GF-STOR-*,GF-KMS-001'", "quote wildcards from the shell"),
            ("gpufleet check -s prod --strict", "fail on components that could not be looked inside"),
        ],
        ["Exit status: 0 no mandatory violation, 1 a mandatory violation, 2 bad input."],
    ),
)
def check(  # noqa: PLR0917 - typer maps each parameter to an option
    project_dir: ProjectDir = Path(),
    stack: Annotated[str | None, typer.Option("--stack", "-s", help="Stack to check.")] = None,
    all_stacks: Annotated[bool, typer.Option("--all-stacks", help="Check every stack file.")] = False,
    list_stacks: Annotated[
        bool,
        typer.Option(
            "--list-stacks",
            help="Print every stack and the clouds it uses (--format json or text) and exit: the CI matrix.",
        ),
    ] = False,
    formats: Annotated[
        str,
        typer.Option(
            "--format", "-f", help="Comma-separated: json, text, sarif, junit, markdown (several need -o)."
        ),
    ] = "json",
    output_dir: Annotated[
        Path | None, typer.Option("--output-dir", "-o", help="Write each report to a file here.")
    ] = None,
    policy_config: Annotated[
        Path | None,
        typer.Option(
            "--policy-config",
            help="Policy pack config (Pulumi's JSON shape; YAML by extension). Default: the project's "
            "policy-config.json, if any.",
        ),
    ] = None,
    enforce: Annotated[
        list[str] | None,
        typer.Option(
            "--enforce",
            metavar="RULE=LEVEL",
            help="Enforcement level for a rule id or policy name, or all=LEVEL "
            "(advisory, mandatory, remediate, disabled). Repeatable.",
        ),
    ] = None,
    set_values: Annotated[
        list[str] | None,
        typer.Option(
            "--set",
            metavar="RULE.KEY=VALUE",
            help="A policy config value, JSON or a plain string (GF-AUD-002.min_days=365). Repeatable.",
        ),
    ] = None,
    rules: Annotated[
        str | None,
        typer.Option("--rules", help="Only these rules: ids or policy names, wildcards allowed (GF-COST-*)."),
    ] = None,
    stack_refs: StackRefs = None,
    strict: Annotated[
        bool,
        typer.Option(
            "--strict",
            help="Fail (exit 1) when a component could not be looked inside offline (GF-ENGINE-001: "
            "remote components, Helm charts and releases, kustomize): its children were not judged. "
            "Same as --enforce GF-ENGINE-001=mandatory.",
        ),
    ] = False,
    timeout: Timeout = DEFAULT_TIMEOUT,
    checkov: Annotated[
        bool | None,
        typer.Option(
            "--checkov/--no-checkov",
            help="Also judge with checkov (run once for every stack). Default: when it is installed "
            "(.venv-checkov/, $GPUFLEET_CHECKOV or PATH); --checkov makes its absence an error.",
            show_default=False,
        ),
    ] = None,
    checkov_bin: Annotated[
        Path | None, typer.Option("--checkov-bin", help="The checkov executable to run.")
    ] = None,
    checkov_config: Annotated[
        Path | None,
        typer.Option(
            "--checkov-config",
            help="checkov checks to skip, each with its reason. Default: the project's checkov-config.json.",
        ),
    ] = None,
    jobs: Annotated[
        int,
        typer.Option(
            "--jobs",
            "-j",
            help="With --all-stacks: check this many stacks at once, each in its own process "
            "(0: one per CPU).",
        ),
    ] = 1,
    explain_overlap: Annotated[
        bool,
        typer.Option(
            "--explain-overlap",
            help="Show where each rule and its nearest checkov checks agree and disagree on the same "
            "resources.",
        ),
    ] = False,
) -> None:
    """Run the program offline and judge it with the guardrail policies and checkov, and price it."""
    # The policy pack is imported only when judging: `plan` stays quick to start.
    from gpufleet import allstacks, evaluate, remediation_fields, report
    from gpufleet.checkov import command as checkov_command
    from gpufleet.checkov.config import load_checkov_skips
    from gpufleet.policy_config import PolicyConfigError
    from policies.registry import default_registry

    if list_stacks:
        _list_stacks(project_dir, formats, bool(stack) or all_stacks or output_dir is not None)
    try:
        selected = parse_formats(formats)
        if len(selected) > 1 and output_dir is None:
            raise BadInput(
                f"--format {','.join(selected)} names {len(selected)} reports and stdout takes one: "
                "pass --output-dir DIR to write each to its file there"
            )
        # Checked before any stack runs so a mistyped path does not cost a whole evaluation.
        if output_dir is not None and output_dir.exists() and not output_dir.is_dir():
            raise BadInput(
                f"--output-dir {output_dir} is a file; pass a directory (created if missing) "
                "to write the reports in"
            )
        project, names = _stacks(project_dir, stack, all_stacks)
        try:
            jobs = allstacks.parse_jobs(jobs)
        except ValueError as exc:
            raise BadInput(str(exc)) from None
        everything = list(default_registry())
        policies, engine_rule = select_rules(everything, rules)
        config = _policy_config(policy_config, project.root, everything, enforce or (), set_values or ())
        references = read_stack_references(stack_refs)
        checkov_binary = checkov_command.resolve(checkov, checkov_bin, project.root)
        checkov_skips = load_checkov_skips(checkov_config, project.root)

        def check_one(name: str) -> allstacks.Outcome:
            try:
                # The program would stop at the first bad spec too, but folded into one paragraph: checking
                # the spec first lists each problem on its own line.
                fleet = load_fleet(project.root, name)
                graph = _run(project.root, name, references, timeout)
                stack_file = _stack_file(project, name)
                # Pricing and judging allocate much and free little: the collector would walk the whole
                # graph again and again for nothing.
                with collector_paused():
                    block, estimates = stack_cost(graph, stack_file)
                    started = time.perf_counter()
                    result = evaluate.evaluate_stack(
                        graph,
                        policies,
                        with_estimates(config, estimates),
                        strict=strict,
                        engine_rule=engine_rule,
                    )
                    result.pack_seconds = time.perf_counter() - started
            except BadInput as exc:
                if not all_stacks:
                    raise
                return allstacks.error_result(name, project.name, str(exc), exc.details), None
            result.stack_file = stack_file
            result.cost = block
            if fleet is not None:
                result.violations = remediation_fields.in_spec_terms(
                    result.violations,
                    remediation_fields.Context(
                        fleet.spec,
                        stack_file,
                        remediation_fields.settings_of(everything, config),
                        monthly_estimate=block.get("monthly_estimate"),
                    ),
                )
            return result, graph

        outcomes = allstacks.check_stacks(names, check_one, project=project.name, jobs=jobs)
        results = [result for result, _ in outcomes]
        checked = [(result, graph) for result, graph in outcomes if graph is not None]
        checkov_command.attach(
            [result for result, _ in checked],
            [graph for _, graph in checked],
            checkov_binary,
            enabled=checkov,
            skips=checkov_skips,
            pack_seconds=[result.pack_seconds for result, _ in checked],
            overlap_rules=[(p.rule.id, p.rule.checkov) for p in policies] if explain_overlap else None,
        )
    except checkov_command.CheckovUnavailable as exc:
        raise fail(BadInput(str(exc))) from None
    except PolicyConfigError as exc:
        raise fail(_config_problem(exc)) from None
    except BadInput as exc:
        raise fail(exc) from None

    try:
        rendered = report.write_reports(results, selected, None, policies=policies, repo_root=project.root)
        if output_dir is not None:
            output_dir.mkdir(parents=True, exist_ok=True)
            write_files_atomically({output_dir / report.FILE_NAMES[fmt]: rendered[fmt] for fmt in selected})
    except OSError as exc:
        raise fail(BadInput(f"cannot write the reports to {output_dir}: {exc.strerror or exc}")) from None
    if output_dir is None:
        text = rendered[selected[0]]
        if selected[0] == "text":
            print_text_report(text, out)
        else:
            write_stdout(text)
    else:
        for fmt in selected:
            out.print(f"wrote {escape(str(output_dir / report.FILE_NAMES[fmt]))}", soft_wrap=True)
        total = [f for r in results for f in r.violations]
        mandatory = sum(1 for f in total if f.enforcement == "mandatory")
        out.print(
            f"{len(results)} stack{'' if len(results) == 1 else 's'}: {mandatory} mandatory, "
            f"{len(total) - mandatory} advisory violations"
        )
    broken = [result for result in results if result.error is not None]
    for result in broken:
        error = result.error or {}
        fail(BadInput(str(error.get("message")), error.get("details") or ()))
    if broken:
        raise typer.Exit(EXIT_BAD_INPUT)
    raise typer.Exit(EXIT_VIOLATION if report.exit_code(results) else EXIT_OK)


def _list_stacks(project_dir: Path, fmt: str, other_selection: bool) -> None:
    from gpufleet import stacklist

    try:
        if other_selection:
            raise BadInput("--list-stacks lists every stack on stdout: drop -s/--all-stacks/--output-dir")
        write_stdout(stacklist.render(stacklist.list_stacks(project_dir), fmt))
    except stacklist.StackListError as exc:
        raise fail(BadInput(str(exc))) from None
    except BadInput as exc:
        raise fail(exc) from None
    raise typer.Exit(EXIT_OK)


def _policy_config(
    path: Path | None,
    project_root: Path,
    policies: Sequence[GfPolicy],
    enforce: Sequence[str],
    set_values: Sequence[str],
) -> dict[str, Any]:
    """The policy config file overlaid with --enforce/--set; the problems of both are reported together."""
    from gpufleet.policy_config import PolicyConfigError, apply_overrides, load_policy_config

    try:
        loaded = load_policy_config(path, policies, project_dir=project_root)
    except PolicyConfigError as file_error:
        try:
            apply_overrides({}, policies, enforce=enforce, set_values=set_values)
        except PolicyConfigError as override_error:
            raise PolicyConfigError([*file_error.problems, *override_error.problems]) from None
        raise
    return apply_overrides(loaded, policies, enforce=enforce, set_values=set_values)


def _config_problem(exc: PolicyConfigError) -> BadInput:
    if len(exc.problems) == 1:
        return BadInput(exc.problems[0])
    return BadInput(f"invalid policy configuration ({len(exc.problems)} problems):", exc.problems)


# -- waivers -------------------------------------------------------------------------------------


@app.command(
    epilog="Examples:\n\n"
    "  [bold]gpufleet waivers[/]                    every waiver in force, every stack\n\n"
    "  [bold]gpufleet waivers -s prod --expired --format json[/]",
)
def waivers(  # noqa: PLR0917 - typer maps each parameter to an option
    project_dir: ProjectDir = Path(),
    stack: Annotated[str | None, typer.Option("--stack", "-s", help="Only this stack.")] = None,
    expired: Annotated[bool, typer.Option("--expired", help="List expired waivers too.")] = False,
    fmt: Annotated[str, typer.Option("--format", "-f", help="text or json.")] = "text",
    policy_config: Annotated[
        Path | None, typer.Option("--policy-config", help="Policy pack config (default: policy-config.json).")
    ] = None,
    timeout: Timeout = DEFAULT_TIMEOUT,
) -> None:
    """List every waiver in force (policy-config.json and gpufleet:waive:* tags) with its age and expiry."""
    from gpufleet import evaluate
    from gpufleet import waivers as waiver_list
    from gpufleet.policy_config import PolicyConfigError
    from policies.registry import default_registry

    try:
        if fmt not in ("text", "json"):
            raise BadInput(f"--format {fmt!r} is not a waivers format; allowed: text, json")
        project, names = _stacks(project_dir, stack, all_stacks=stack is None)
        policies = list(default_registry())
        config = _policy_config(policy_config, project.root, policies, (), ())
        results = []
        for name in names:
            graph = _run(project.root, name, None, timeout)
            with collector_paused():
                results.append(evaluate.evaluate_stack(graph, policies, config))
    except PolicyConfigError as exc:
        raise fail(_config_problem(exc)) from None
    except BadInput as exc:
        raise fail(exc) from None
    rows = waiver_list.listing(results, project.root, expired=expired)
    write_stdout(waiver_list.render_listing(rows, fmt))


# -- rules ---------------------------------------------------------------------------------------


def _config_cell(config: Mapping[str, Mapping[str, Any]]) -> str:
    if not config:
        return "-"
    return "\n".join(f"{key} = {json.dumps(schema.get('default'))}" for key, schema in config.items())


_CLOUD_LETTERS = {"aws": "A", "alicloud": "L", "tencentcloud": "T", "kubernetes": "K"}
_WIDE_TABLE = 120
_SEVERITY_STYLES = {"critical": "bold white on red", "high": "bold red", "medium": "yellow", "low": "blue"}


def render_rules_table(rows: Sequence[Mapping[str, Any]], console: Console) -> None:
    """The catalogue as a table: one column per attribute on a wide terminal; on a narrow one the rule's
    attributes share its first cell, so that descriptions keep a readable width."""
    wide = console.width >= _WIDE_TABLE
    table = Table(
        title=f"gpufleet guardrails: {len(rows)} rules",
        caption="clouds: A AWS, L Alibaba Cloud, T Tencent Cloud, K Kubernetes. "
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
            ("gpufleet rules --family storage --cloud alicloud --format json", ""),
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
        typer.Option("--cloud", help="Only rules for this cloud: aws, alicloud, tencentcloud, kubernetes."),
    ] = None,
) -> None:
    """List the guardrail rules as implemented: id, policy, clouds, enforcement, severity, config."""
    from gpufleet import report
    from policies.registry import default_registry
    from policies.rule import CLOUDS, FAMILIES

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
        out.print(report.render_rules(rows, "json"), end="", markup=False, highlight=False, soft_wrap=True)
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
        render_rules_table(rows, out)


# -- cost ------------------------------------------------------------------------------------------

_PRICE_FORMATS = ("text", "json", "markdown")
_COST_JSON_HINT = "write it on the base branch with `gpufleet cost -s STACK --format json > FILE`"

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
    from components.catalog import CatalogError, load_catalog

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


def write_atomically(path: Path, text: str) -> None:
    """Readers of `path` see the old file or the whole new one, never a half-written report."""
    try:
        write_files_atomically({path: text})
    except OSError as exc:
        raise BadInput(f"cannot write {path}: {exc.strerror or exc}") from None


def write_graph_json(path: Path, graph: ResourceGraph) -> None:
    """`plan --json`: the graph with every secret as `[secret]`, strict JSON (no NaN or Infinity)."""
    try:
        text = finite.dumps(redacted_json(graph), default=str)
    except RecursionError:
        raise BadInput(
            f"cannot write {path}: the program registered a value nested too deeply for JSON"
        ) from None
    write_atomically(path, text)


def print_cost_text(report: CostReport, console: Console, *, wide: bool = False) -> None:
    """The text report, its tables fitted to a terminal (gpufleet/costview.py)."""
    from gpufleet.costview import print_cost_text as fitted_report

    fitted_report(report, console, wide=wide)


def _emit(text: str, output: Path | None) -> None:
    if output is None:
        write_stdout(text)
        return
    write_atomically(output, text)
    out.print(f"wrote {escape(str(output))}", soft_wrap=True)


@app.command(
    epilog=examples(
        [
            ("gpufleet cost -s prod", "per pool, total, budget, prices used"),
            ("gpufleet cost -s prod --currency CNY", "converted with the catalogue's rates"),
            ("gpufleet cost -s prod --wide", "every column, however wide the terminal"),
            ("gpufleet cost -s prod --format json > base.json", "on the base branch, then on the PR:"),
            ("gpufleet cost -s prod --compare base.json --format markdown", "what it adds a month"),
        ],
        ["Exit status: 0 priced, 2 bad input (stack config, usage profile, compare file, currency)."],
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
) -> None:
    """Price the stack from the GPU catalogue, per pool and in total.

    Hourly and monthly, against the budget, with the catalogue prices and rates used.

    --compare shows what a change adds or saves per line, per month, against the base branch."""
    from gpufleet.cost import CostError, estimate_stack

    try:
        selected = _price_format(fmt)
        code = _currency(currency)
        base = read_cost_json(compare) if compare is not None else None
        graph, source = _priced_stack(project_dir, stack, stack_refs, timeout)
        try:
            report = estimate_stack(graph, currency=code, source=source)
        except CostError as exc:
            raise BadInput(str(exc)) from None
        if compare is not None:
            change = _cost_diff(base, report, compare)
            if isinstance(base, Mapping) and base.get("stack") not in (None, "", report.stack):
                err.print(
                    f"[yellow]note:[/] {escape(str(compare))} prices stack {escape(str(base['stack']))}, "
                    f"compared here with stack {escape(report.stack)}",
                    soft_wrap=True,
                )
            _emit(render_cost_diff(change, selected), output)
        elif selected == "text" and output is None:
            print_cost_text(report, out, wide=wide)
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


# -- advise ----------------------------------------------------------------------------------------

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


# -- new -----------------------------------------------------------------------------------------


def _shell_arg(value: str) -> str:
    import shlex

    return shlex.quote(value)


@app.command(
    "new",
    epilog=examples(
        [
            ("gpufleet new --list", "the golden templates"),
            (
                "gpufleet new ml-dev --from dev-sandbox --project vision --team ml-platform "
                "--cost-center cc-042 --budget 3000 --region us-east-1",
                "",
            ),
            ("gpufleet new llm-train --from training ... --region us-east-1 --replica-region us-west-2", ""),
        ],
        [
            "Nothing is asked interactively: every value is an option, so CI can run it.",
            "Exit status: 0 written, 2 bad input (nothing written).",
        ],
    ),
)
def new(  # noqa: PLR0917 - typer maps each parameter to an option
    stack: Annotated[
        str | None, typer.Argument(help="Name of the new stack (Pulumi.<stack>.yaml).", show_default=False)
    ] = None,
    project_dir: ProjectDir = Path(),
    template: Annotated[
        str | None, typer.Option("--from", metavar="TEMPLATE", help="Golden template (see --list).")
    ] = None,
    list_templates: Annotated[
        bool, typer.Option("--list", help="List the templates with a one-line description and exit.")
    ] = False,
    project: Annotated[str | None, typer.Option("--project", help="Cost tag `project`.")] = None,
    team: Annotated[str | None, typer.Option("--team", help="Cost tag `team`.")] = None,
    cost_center: Annotated[str | None, typer.Option("--cost-center", help="Cost tag `cost-center`.")] = None,
    budget: Annotated[
        float | None, typer.Option("--budget", help="Monthly budget in USD (alerts at 80%).")
    ] = None,
    region: Annotated[str | None, typer.Option("--region", help="AWS region of the fleet.")] = None,
    replica_region: Annotated[
        str | None,
        typer.Option("--replica-region", help="Second AWS region for the checkpoint replica (training)."),
    ] = None,
    timezone: Annotated[
        str | None,
        typer.Option("--timezone", help="IANA zone of the off-hours schedule. Default: the region's."),
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing stack file.")] = False,
) -> None:
    """Write a new stack file from a golden template, validated before it is written."""
    from gpufleet import new as templates

    if list_templates:
        rows = templates.list_templates()
        width = max(len(t.name) for t in rows)
        for row in rows:
            out.print(f"{row.name.ljust(width)}  {row.description}", markup=False, soft_wrap=True)
            needs = ", ".join(row.required_options)
            out.print(f"{'':{width}}  needs {needs}", markup=False, soft_wrap=True)
        raise typer.Exit(EXIT_OK)
    try:
        if stack is None:
            raise BadInput("pass the new stack's name: gpufleet new STACK --from TEMPLATE, or --list")
        if template is None:
            known = ", ".join(t.name for t in templates.list_templates())
            raise BadInput(f"pass --from TEMPLATE; known templates: {known}")
        values: dict[str, str | float | None] = {
            "project": project,
            "team": team,
            "cost_center": cost_center,
            "budget": budget,
            "region": region,
            "replica_region": replica_region,
            "timezone": timezone,
        }
        try:
            created = templates.create_stack(project_dir, stack, template, values, force=force)
        except templates.NewStackError as exc:
            raise BadInput(str(exc), exc.details) from None
    except BadInput as exc:
        raise fail(exc) from None
    where = "" if project_dir == Path() else f" {_shell_arg(str(project_dir))}"
    name = _shell_arg(stack)
    cwd = f" --cwd{where}" if where else ""
    steps = [
        (f"gpufleet plan{where} -s {name}", "see what it builds, every default filled in"),
        (f"gpufleet check{where} -s {name}", "judge it against the guardrails and price it"),
        (f"pulumi stack init {name}{cwd}", "then pulumi up, where the CLI and credentials are"),
    ]
    width = max(len(command) for command, _ in steps)
    lines = [f"wrote {created.relative} from template {template}", "next:"]
    lines += [f"  {command.ljust(width)}   {why}" for command, why in steps]
    for line in lines:
        out.print(line, markup=False, highlight=False, soft_wrap=True)


# -- simulate --------------------------------------------------------------------------------------


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
            err.print(f"wrote {escape(str(path))}", soft_wrap=True)
    except SimulateError as exc:
        details = exc.details if isinstance(exc, SimulateInputError) else []
        raise fail(BadInput(str(exc), details)) from None
    except BadInput as exc:
        raise fail(exc) from None


def main() -> None:
    app(prog_name="gpufleet")


if __name__ == "__main__":
    main()

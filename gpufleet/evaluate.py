"""Run the policy pack's policies on a ResourceGraph with the real pulumi_policy argument types.

This mirrors what `pulumi preview --policy-pack policies` does, so that a finding offline is a finding under
the real engine and the other way round:

- the Pulumi engine analyzes every registration that reaches its step generator: custom resources,
  components, explicit providers, and the default providers it creates itself (`pulumi:providers:<pkg>`
  named `default_<version>`, configured from the stack's `<pkg>:*` config). Offline programs never register
  default providers, so they are synthesized here the same way;
- each resource policy receives `ResourceValidationArgs` built as `_PolicyAnalyzerServicer.Analyze` builds
  them: `unknown_checking_proxy(deserialize_properties(inputs))`, the resource options, its provider,
  the policy's reconciled config and the stack tags;
- each stack policy receives every resource as a `PolicyResource` whose parent, dependencies and property
  dependencies point at the other `PolicyResource` objects. The engine sends resource *outputs* to stack
  policies; in a preview those are the inputs plus what the provider computes, which the offline graph has
  as synthetic mock outputs, so stack policies see the inputs overlaid with the recorded outputs;
- numbers are floats, as every value that crosses the Analyzer protocol in a protobuf Struct is;
- enforcement and config are reconciled like the Pulumi CLI (`gpufleet.policy_config`); disabled policies
  do not run; `remediate` reports as mandatory; `not_applicable` is recorded, not reported; an
  `UnknownValueError` that escapes a policy becomes the servicer's advisory "can't run policy" diagnostic;
- any other exception a policy raises (the pack's own policies never do: `policies.rule` wraps them) is the
  finding "could not be judged: internal error <type>" for that policy and resource, not the end of the run.

What the engine sends is built in `gpufleet.analyzer_inputs`; findings and stack results are
`gpufleet.findings`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from inspect import isawaitable
from pathlib import Path
from typing import Any

from pulumi_policy import (
    EnforcementLevel,
    PolicyProviderResource,
    PolicyResource,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    StackValidationArgs,
    StackValidationPolicy,
)
from pulumi_policy.deserialize import SPECIAL_SIG_KEY, _deserialize_property
from pulumi_policy.policy import _NotApplicableError
from pulumi_policy.proxy import UnknownValueError, _DictProxy, _ListProxy

from gpufleet.analyzer_inputs import (
    _wire_int,
    analyzed_resources,
    default_stack_tags,
    provider_resource,
    resource_options,
    stack_props,
    wire_form,
)
from gpufleet.findings import (
    Finding,
    StackResult,
    WaivedFinding,
    opaque_findings,
    placeholder_notes,
    redact_secrets,
)
from gpufleet.graph import Resource, ResourceGraph
from gpufleet.policies.memo import evaluation
from gpufleet.policies.rule import CannotTell, GfPolicy, GfResourcePolicy, Unjudged, internal_error_message
from gpufleet.policies.waivers import Settings, Waiver
from gpufleet.policies.waivers import today as waiver_today
from gpufleet.policy_config import (
    PolicyConfigError,
    engine_enforcement,
    resolve_policy_config,
    waiver_settings,
)
from gpufleet.redact import redactor, secret_texts

ENGINE = "crossguard"
PACK_NAME = "gpufleet"
# `PolicyPack` always reports this version over gRPC (the CLI reads the real one from PulumiPolicy.yaml);
# the servicer's "can't run policy" message quotes it, so the offline message does too.
SERVED_PACK_VERSION = "0.0.1"


# --- evaluation --------------------------------------------------------------------------------------


def _proxied(value: Any, path: list[str]) -> Any:
    """`pulumi_policy.proxy._proxy_helper(value, path)`: the same proxies with the same paths, without
    the path list it copies for every scalar."""
    if isinstance(value, list):
        items = [
            _proxied(item, [*path, str(index)]) if isinstance(item, list | dict) else item
            for index, item in enumerate(value)
        ]
        return _ListProxy(items, path)
    if isinstance(value, dict):
        entries = {}
        for key in value:
            item = value[key]
            entries[key] = _proxied(item, [*path, str(key)]) if isinstance(item, list | dict) else item
        return _DictProxy(entries, path)
    return value


def policy_props(values: Mapping[str, Any]) -> Any:
    """What a policy reads of a resource's properties, as the servicer builds it:
    `unknown_checking_proxy(deserialize_properties(wire_form(values)))` in one pass over the values
    instead of three (a value with a special signature, a secret or an asset, is built by those three).
    `tests/evaluate/test_policy_props.py` holds the two to the same objects."""
    # As `deserialize_properties`: the top level is a map, never read as a signature.
    entries = {}
    for key, item in values.items():
        kind = type(item)
        if kind is str or kind is float or kind is bool or item is None:
            entries[key] = item
        else:
            entries[key] = _policy_value(item, [str(key)])
    return _DictProxy(entries, [])


def _policy_value(value: Any, path: list[str]) -> Any:
    """`wire_form`, `_deserialize_property` and the proxy of one value, `path` its proxy's path."""
    kind = type(value)
    if kind is dict:
        return _policy_map(value, path)
    if kind is list or kind is tuple:
        return _policy_list(value, path)
    if kind is int:
        return _wire_int(value)
    # The rest in the order of `wire_form`'s tests.
    if kind is str or kind is float or value is None or isinstance(value, bool):
        return value
    if isinstance(value, int):
        return _wire_int(value)
    if isinstance(value, Mapping):
        return _policy_map(value, path)
    if isinstance(value, list | tuple):
        return _policy_list(value, path)
    return value


def _policy_map(value: Mapping[str, Any], path: list[str]) -> Any:
    if SPECIAL_SIG_KEY in value:
        return _proxied(_deserialize_property(wire_form(value)), path)
    entries = {}
    for key, item in value.items():
        kind = type(item)
        if kind is str or kind is float or kind is bool or item is None:
            entries[key] = item
        else:
            entries[key] = _policy_value(item, [*path, str(key)])
    return _DictProxy(entries, path)


def _policy_list(value: Sequence[Any], path: list[str]) -> Any:
    items = []
    for index, item in enumerate(value):
        kind = type(item)
        if kind is str or kind is float or kind is bool or item is None:
            items.append(item)
        else:
            items.append(_policy_value(item, [*path, str(index)]))
    return _ListProxy(items, path)


def _run(result: Any) -> None:
    if result is not None and isawaitable(result):
        loop = asyncio.new_event_loop()
        try:
            loop.run_until_complete(result)
        finally:
            loop.close()


def _unknown_message(policy: GfPolicy, error: UnknownValueError) -> str:
    return (
        f"can't run policy '{policy.name}' from policy pack "
        f"'{PACK_NAME}@v{SERVED_PACK_VERSION}' during preview: {error.message}"
    )


def _cannot_tell(error: UnknownValueError) -> bool:
    if isinstance(error, Unjudged):
        return all(isinstance(entry.error, CannotTell) for entry in error.entries)
    return isinstance(error, CannotTell)


def _strict_unknown_message(error: UnknownValueError, urn: str) -> str:
    """`check --strict`: the resource, the property and why the mandatory rule fails on it."""
    text = error.message
    if not isinstance(error, Unjudged) and urn:
        text = f"'{urn.rsplit('::', 1)[-1]}' could not be judged at preview: the {text}"
    return (
        f"{text}; it is unknown until apply, and --strict fails a mandatory rule on a value it cannot "
        "judge: make the value known at preview (a literal or a config value) or judge the stack after apply"
    )


class _Reporter:
    """A policy's `report_violation`. For a resource policy `resource_urn` is set to the analyzed resource
    before each call: the engine attributes the violation to that resource whatever URN the policy passes;
    a stack policy's violation carries the URN it reports ("" for the whole stack)."""

    def __init__(
        self, collector: _Collector, policy: GfPolicy, level: EnforcementLevel, types: Mapping[str, str]
    ) -> None:
        self.collector = collector
        self.policy = policy
        self.rule_id = policy.rule.id
        self.enforcement = level.value
        self.severity = policy.severity.value if policy.severity else ""
        self.remediation = policy.remediation_steps or ""
        self.types = types
        self.resource_urn: str | None = None
        # The platform's waiver settings, read by the pack's waiver wrapper (gpufleet.policies.rule._waiving).
        self.waiver_settings: Settings | None = collector.waiver_settings

    def __call__(self, message: str, urn: str | None = None) -> None:
        self.collector.findings.append(self._finding(message, urn))

    def waived(self, message: str, urn: str | None, waiver: Waiver) -> None:
        """A violation a waiver applies to (called by the pack's waiver wrapper, policies.rule)."""
        self.collector.waived.append(WaivedFinding(self._finding(message, urn), waiver))

    def _finding(self, message: str, urn: str | None) -> Finding:
        if message and not isinstance(message, str):
            raise TypeError("Expected message to be a string")
        if urn is not None and not isinstance(urn, str):
            raise TypeError("Expected urn to be a string")
        where = self.resource_urn if self.resource_urn is not None else (urn or "")
        return Finding(
            rule_id=self.rule_id,
            policy=self.policy.name,
            enforcement=self.enforcement,
            severity=self.severity,
            engine=ENGINE,
            urn=where,
            resource_type=self.types.get(where, ""),
            message=message or self.policy.description,
            remediation=self.remediation,
        )


class _Collector:
    def __init__(self, *, strict: bool = False, waiver_settings: Settings | None = None) -> None:
        self.strict = strict
        self.waiver_settings = waiver_settings
        self.findings: list[Finding] = []
        self.waived: list[WaivedFinding] = []
        self.not_applicable: list[dict[str, str]] = []

    def reporter(self, policy: GfPolicy, level: EnforcementLevel, types: Mapping[str, str]) -> _Reporter:
        return _Reporter(self, policy, level, types)

    def unknown(
        self,
        policy: GfPolicy,
        urn: str,
        resource_type: str,
        error: UnknownValueError,
        *,
        types: Mapping[str, str] | None = None,
        level: EnforcementLevel = EnforcementLevel.ADVISORY,
    ) -> None:
        """The engine's advisory "can't run policy during preview" diagnostic. A rule's `Unjudged`
        error names each resource it could not judge: offline, each gets its own finding at its URN
        (over gRPC the engine shows them as one diagnostic with the same text joined).

        With `strict` (`check --strict`, the CI gate), a value unknown until apply that a mandatory
        rule (`level`) could not judge is a mandatory finding instead: the gate does not pass what it
        could not see. A known value the pack cannot judge (`CannotTell`) stays advisory."""
        parts: list[tuple[str, UnknownValueError]] = [(urn, error)]
        if isinstance(error, Unjudged):
            parts = [(entry.urn or urn, Unjudged([entry])) for entry in error.entries]
        for where, part in parts:
            gate = self.strict and level == EnforcementLevel.MANDATORY and not _cannot_tell(part)
            self.findings.append(
                Finding(
                    rule_id=policy.rule.id,
                    policy=policy.name,
                    enforcement=(EnforcementLevel.MANDATORY if gate else EnforcementLevel.ADVISORY).value,
                    severity=policy.severity.value if policy.severity else "",
                    engine=ENGINE,
                    urn=where,
                    resource_type=(types or {}).get(where, resource_type),
                    message=_strict_unknown_message(part, where) if gate else _unknown_message(policy, part),
                    remediation=policy.remediation_steps or "",
                )
            )

    def skipped(self, policy: GfPolicy, urn: str, reason: str) -> None:
        self.not_applicable.append(
            {"rule_id": policy.rule.id, "policy": policy.name, "urn": urn, "reason": reason}
        )


def evaluate_stack(
    graph: ResourceGraph,
    policies: Sequence[GfPolicy] | Iterable[GfPolicy],
    policy_config: Mapping[str, Any] | None = None,
    *,
    stack_tags: Mapping[str, str] | None = None,
    strict: bool = False,
    engine_rule: bool = True,
    waivers_from: Settings | None = None,
    ignored_waivers: Sequence[tuple[Waiver, str]] = (),
    project_root: Path | None = None,
) -> StackResult:
    """Evaluate `policies` on `graph`; `policy_config` is Pulumi's policy-pack config shape.

    `waivers_from` is the platform's waiver settings (default: the `waivers` object of `policy_config`);
    `ignored_waivers` are config waivers of a file that is not the platform's, listed as refused.

    Each component the engine could not look inside gets a GF-ENGINE-001 finding (unless `engine_rule`
    is off, as with `--rules` naming other rules only) at the level `policy_config` gives
    `component-not-inspected` (advisory by default; `disabled` drops the finding, the reports still list
    the component); `strict` makes it mandatory.

    Raises `gpufleet.policy_config.PolicyConfigError` for an invalid enforcement level or config value.
    """
    policy_list = list(policies)
    try:
        waiver_today()  # waivers are judged on this date: a bad $GPUFLEET_TODAY is a config problem
    except ValueError as error:
        raise PolicyConfigError([str(error)]) from None
    # What the stack declares for the launch and fit rules (quotas, pool fits, the instance ceiling).
    from gpufleet.preflight.settings import QuotaFileError, with_stack_settings

    try:
        policy_config = with_stack_settings(
            policy_config, graph.config, project_root, looked_up=graph.image_arches
        )
    except QuotaFileError as error:
        raise PolicyConfigError([str(error)]) from None
    resolved = resolve_policy_config(policy_list, policy_config)
    engine_level = engine_enforcement(policy_config)
    waiver_rules = waivers_from or waiver_settings(policy_config)
    tags = {**default_stack_tags(graph), **(stack_tags or {})}

    active: list[tuple[GfPolicy, EnforcementLevel, dict[str, Any]]] = []
    for policy in policy_list:
        settings = resolved[policy.name]
        if settings.enforcement == EnforcementLevel.DISABLED:
            continue
        level = settings.enforcement
        if level == EnforcementLevel.REMEDIATE:
            level = EnforcementLevel.MANDATORY
        active.append((policy, level, wire_form(settings.properties)))

    resources, provider_of = analyzed_resources(graph)
    types = {r.urn: r.type for r in resources}
    collector = _Collector(strict=strict, waiver_settings=waiver_rules)

    resource_policies = [(p, lvl, cfg) for p, lvl, cfg in active if isinstance(p, ResourceValidationPolicy)]
    stack_policies = [(p, lvl, cfg) for p, lvl, cfg in active if isinstance(p, StackValidationPolicy)]

    context = _Context(graph, resources, provider_of, tags, types, collector)
    with evaluation():  # what many resources share (their providers' default tags) is read once
        if resource_policies:
            _analyze_resources(context, resource_policies)
        if stack_policies:
            _analyze_stack(context, stack_policies)

    opaque = graph.opaque
    if strict:
        engine_level = EnforcementLevel.MANDATORY
    if engine_rule and engine_level != EnforcementLevel.DISABLED:
        collector.findings.extend(opaque_findings(opaque, engine_level))
    collector.findings.sort(key=Finding.sort_key)
    collector.not_applicable.sort(key=lambda n: (n["rule_id"], n["urn"], n["reason"]))
    result = StackResult(
        stack=graph.stack,
        project=graph.project,
        resources=len(graph),
        violations=collector.findings,
        not_applicable=collector.not_applicable,
        opaque=opaque,
        waived=sorted(collector.waived, key=lambda w: w.finding.sort_key()),
        notes=placeholder_notes(graph.notes),
    )
    # The waivers the pack cannot judge from one violation: unmatched, unreadable, expired, expiring.
    from gpufleet import waivers
    from gpufleet.policies.registry import default_registry

    known = {*default_registry().ids(), *(p.rule.id for p in policy_list)}
    waivers.attach(
        result, graph, policy_list, resolved, known, settings=waiver_rules, ignored=ignored_waivers
    )
    result.secret_texts = secret_texts(graph)
    redact_secrets(result, redactor(graph))
    return result


@dataclass(frozen=True)
class _Context:
    graph: ResourceGraph
    resources: Sequence[Resource]
    provider_of: Mapping[str, Resource | None]
    stack_tags: Mapping[str, str]
    types: Mapping[str, str]
    collector: _Collector


_Active = Sequence[tuple[GfPolicy, EnforcementLevel, dict[str, Any]]]


def _analyze_resources(context: _Context, policies: _Active) -> None:
    collector, types, stack_tags = context.collector, context.types, context.stack_tags
    providers: dict[str, PolicyProviderResource | None] = {}
    reporters = {policy.name: collector.reporter(policy, level, types) for policy, level, _ in policies}
    levels = {policy.name: level for policy, level, _ in policies}
    plans: dict[str, list[tuple[GfPolicy, dict[str, Any], str | None]]] = {}
    for resource in context.resources:
        # Built once per resource: the servicer rebuilds them per policy, but from the same request,
        # so every policy sees equal values.
        props = policy_props(resource.inputs)
        opts = resource_options(resource)
        provider = context.provider_of.get(resource.urn)
        if provider is None:
            provider_args = None
        else:
            if provider.urn not in providers:
                providers[provider.urn] = provider_resource(provider)
            provider_args = providers[provider.urn]
        shared: dict[int, ResourceValidationArgs] = {}
        plan = plans.get(resource.type)
        if plan is None:
            plan = plans[resource.type] = _plan(policies, resource.type)
        for policy, config, skip in plan:
            if skip is not None:
                collector.skipped(policy, resource.urn, skip)
                continue
            key = id(config) if config else 0
            args = shared.get(key)
            if args is None:
                args = ResourceValidationArgs(
                    resource.type,
                    props,
                    resource.urn,
                    resource.name,
                    opts,
                    provider_args,
                    config or None,
                    stack_tags,
                )
                shared[key] = args
            report = reporters[policy.name]
            report.resource_urn = resource.urn
            try:
                _run(policy.validate(args, report))  # type: ignore[arg-type]
            except UnknownValueError as error:
                collector.unknown(policy, resource.urn, resource.type, error, level=levels[policy.name])
            except _NotApplicableError as error:
                collector.skipped(policy, resource.urn, error.reason or "")
            except Exception as error:  # a policy outside the pack's wrapper: never abort the run
                report(internal_error_message(error))


def _plan(policies: _Active, resource_type: str) -> list[tuple[GfPolicy, dict[str, Any], str | None]]:
    """The policies that judge `resource_type`, in order, each with its config and, when it is not
    called, the not-applicable reason recorded in its place. A policy is not called for a type its
    `judges` leaves out: for such a type it would do nothing, or only give `judges.not_applicable`."""
    plan: list[tuple[GfPolicy, dict[str, Any], str | None]] = []
    for policy, _level, config in policies:
        if not policy.has_validation():  # type: ignore[union-attr]
            plan.append((policy, config, "Policy does not implement validate"))
            continue
        judged = policy.judges if isinstance(policy, GfResourcePolicy) else None
        if judged is None or resource_type in judged:
            plan.append((policy, config, None))
            continue
        reason = judged.not_applicable(resource_type)
        if reason is not None:
            plan.append((policy, config, reason))
    return plan


def _analyze_stack(context: _Context, policies: _Active) -> None:
    collector = context.collector
    policy_resources = stack_policy_resources(context.graph)
    for policy, level, config in policies:
        args = StackValidationArgs(policy_resources, config or None, context.stack_tags)
        report = collector.reporter(policy, level, context.types)
        try:
            _run(policy.validate(args, report))  # type: ignore[arg-type]
        except UnknownValueError as error:
            collector.unknown(policy, "", "", error, types=context.types, level=level)
        except _NotApplicableError as error:
            collector.skipped(policy, "", error.reason or "")
        except Exception as error:  # as above
            report(internal_error_message(error))


def stack_policy_resources(graph: ResourceGraph) -> list[PolicyResource]:
    """The `PolicyResource` objects of `graph` as `AnalyzeStack` builds them, built once per graph: the
    cost estimate (pool discovery) and the stack policies read the same objects."""

    def build() -> list[PolicyResource]:
        return build_policy_resources(*analyzed_resources(graph))

    return graph.derived("policy_resources", build)


def build_policy_resources(
    resources: Sequence[Resource], provider_of: Mapping[str, Resource | None]
) -> list[PolicyResource]:
    """`PolicyResource` objects linked to each other, as `AnalyzeStack` builds them."""
    providers: dict[str, PolicyProviderResource | None] = {}
    by_urn: dict[str, PolicyResource] = {}
    built: list[tuple[Resource, PolicyResource]] = []
    for resource in resources:
        provider = provider_of.get(resource.urn)
        if provider is not None and provider.urn not in providers:
            providers[provider.urn] = provider_resource(provider)
        item = PolicyResource(
            resource.type,
            policy_props(stack_props(resource)),
            resource.urn,
            resource.name,
            resource_options(resource),
            providers.get(provider.urn) if provider is not None else None,
            None,
            [],
            {},
        )
        by_urn[resource.urn] = item
        built.append((resource, item))
    for resource, item in built:
        if resource.parent and resource.parent in by_urn:
            item.parent = by_urn[resource.parent]
        item.dependencies = [by_urn[d] for d in resource.dependencies if d in by_urn]
        item.property_dependencies = {
            key: [by_urn[d] for d in urns if d in by_urn]
            for key, urns in resource.property_dependencies.items()
        }
    return [item for _, item in built]


__all__ = [
    "Finding",
    "StackResult",
    "WaivedFinding",
    "build_policy_resources",
    "evaluate_stack",
    "stack_policy_resources",
]

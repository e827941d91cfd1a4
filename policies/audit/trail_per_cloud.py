"""GF-AUD-001: each cloud account the stack deploys to has an audit trail.

A cloud counts as "deployed to" when at least one of its resources is in the stack (provider resources
and components do not count). Its trail must record every region and every kind of API call:

- AWS: `aws:cloudtrail/trail:Trail` with `isMultiRegionTrail` true and `enableLogging` not false
  (the API's defaults are single-region and logging on).
- Alibaba Cloud: `alicloud:actiontrail/trail:Trail` (or the older `trailDeprecated:TrailDeprecated`)
  with `status` Enable, `eventRw` All and `trailRegion` All (each is the API default when unset).
- Tencent Cloud: `tencentcloud:Audit/track:Track` with `status` 1 and `actionType` `*`, or the older
  `tencentcloud:Audit/instance:Instance` (CloudAudit) with `auditSwitch` true.

Kubernetes has no account-level trail resource: the rule is not applicable to it. A trail declared in
another stack of the same account is invisible here; this rule is advisory for that reason. A stack
whose AWS account trail is its account baseline stack's says so with the stack tag
`baseline_stack_tag` (default `gpufleet:account-baseline-stack`), whose value names that stack: AWS is
then judged there, not here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from pulumi_policy import (
    EnforcementLevel,
    PolicyResource,
    ReportViolation,
    Severity,
    StackValidationArgs,
)
from pulumi_policy.proxy import UnknownValueError

from gpufleet.components.clouds import ACCOUNT_CLOUD, CLOUD_NAMES, cloud_parts, part_values
from gpufleet.components.clouds import CLOUDS as AUDITED_CLOUDS
from gpufleet.policies.rule import GfStackPolicy, Rule, judges, unknown_message
from gpufleet.policies.rule_facts import joined, rule_checkov, rule_url

# Each cloud's module gives `TRAILS` (token -> (kind, what is wrong with one)), `TRAIL_KIND` (the trail
# a finding asks for), `TRAIL_SHORT` and `TRAIL_REMEDIATION` (the words of description and remediation).
PARTS = cloud_parts("gpufleet.policies.audit")
TRAIL_KIND: dict[str, str] = {str(cloud): kind for cloud, kind in part_values(PARTS, "TRAIL_KIND").items()}
_NAMES = [CLOUD_NAMES[cloud] for cloud in AUDITED_CLOUDS]

RULE = Rule(
    id="GF-AUD-001",
    name="audit-trail-per-cloud",
    description=(
        f"Each cloud account the stack deploys to has an audit trail ({joined(PARTS, 'TRAIL_SHORT', '; ')})."
    ),
    clouds=AUDITED_CLOUDS,
    enforcement=EnforcementLevel.ADVISORY,
    severity=Severity.MEDIUM,
    remediation=(
        f"{joined(PARTS, 'TRAIL_REMEDIATION', ' ')} If the {CLOUD_NAMES[ACCOUNT_CLOUD]} account's trail "
        "lives in its account-baseline stack, tag this stack "
        "`gpufleet:account-baseline-stack: <that stack>`; for another stack, record an exception for "
        "this advisory rule."
    ),
    url=rule_url(PARTS, "GF-AUD-001"),
    config={"baseline_stack_tag": {"type": "string", "default": "gpufleet:account-baseline-stack"}},
    checkov=rule_checkov(PARTS, "GF-AUD-001"),
)

# token -> (cloud, kind, what is wrong with one (None: compliant))
TRAILS: dict[str, tuple[str, str, Callable[[Mapping[str, Any]], str | None]]] = {
    token: (cloud, kind, defect)
    for cloud, part in PARTS.items()
    for token, (kind, defect) in getattr(part, "TRAILS", {}).items()
}


@dataclass
class _CloudState:
    resources: int = 0
    compliant: bool = False
    defects: list[tuple[str, str]] = field(default_factory=list)  # (message, urn)


def cloud_of(resource_type: str) -> str | None:
    cloud = resource_type.split(":", 1)[0]
    return cloud if cloud in AUDITED_CLOUDS else None


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    states: dict[str, _CloudState] = {cloud: _CloudState() for cloud in AUDITED_CLOUDS}
    for resource in args.resources:
        cloud = cloud_of(resource.resource_type)
        if cloud is not None:
            _record(states[cloud], resource)

    if all(state.resources == 0 for state in states.values()):
        args.not_applicable(f"the stack deploys no {', '.join(_NAMES[:-1])} or {_NAMES[-1]} resources")
    # The home (AWS) account's trail is the account baseline stack's when this stack names one.
    baseline_owned = bool((args.stack_tags or {}).get(str(RULE.settings(args)["baseline_stack_tag"])))
    for cloud, state in states.items():
        if state.resources == 0 or state.compliant:
            continue
        if cloud == ACCOUNT_CLOUD and baseline_owned and not state.defects:
            continue
        name = CLOUD_NAMES[cloud]
        if state.defects:
            for message, urn in state.defects:
                report(f"{message}; the stack's {name} account needs {TRAIL_KIND[cloud]}", urn)
        else:
            report(
                f"The stack deploys {state.resources} {name} resource(s) but declares no audit trail; "
                f"add {TRAIL_KIND[cloud]}",
                None,
            )


def _record(state: _CloudState, resource: PolicyResource) -> None:
    """Count one resource of the cloud; a trail makes the cloud compliant or adds its defect."""
    state.resources += 1
    trail = TRAILS.get(resource.resource_type)
    if trail is None:
        return
    _, kind, defect_of = trail
    try:
        defect = defect_of(resource.props)
    except UnknownValueError as error:
        state.defects.append((f"{kind} '{resource.name}' {unknown_message(error)}", resource.urn))
        return
    if defect is None:
        state.compliant = True
    else:
        state.defects.append((f"{kind} '{resource.name}' {defect}", resource.urn))


POLICY = GfStackPolicy(
    RULE,
    validate,
    judges(TRAILS),
)

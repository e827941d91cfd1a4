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

from gpufleet.components.clouds import CLOUD_NAMES
from gpufleet.components.clouds import CLOUDS as AUDITED_CLOUDS
from gpufleet.policies.props import as_int, get, truthy
from gpufleet.policies.rule import GfStackPolicy, Rule, judges, unknown_message

AWS_TRAIL = "aws:cloudtrail/trail:Trail"
ALI_TRAIL = "alicloud:actiontrail/trail:Trail"
ALI_TRAIL_DEPRECATED = "alicloud:actiontrail/trailDeprecated:TrailDeprecated"
TC_TRACK = "tencentcloud:Audit/track:Track"
TC_AUDIT = "tencentcloud:Audit/instance:Instance"

TRAIL_KIND = {
    "aws": "a CloudTrail trail (aws.cloudtrail.Trail, isMultiRegionTrail=true)",
    "alicloud": "an ActionTrail trail (alicloud.actiontrail.Trail, status Enable, eventRw All)",
    "tencentcloud": "a CloudAudit track (tencentcloud.audit.Track, status 1, actionType *)",
}

RULE = Rule(
    id="GF-AUD-001",
    name="audit-trail-per-cloud",
    description=(
        "Each cloud account the stack deploys to has an audit trail "
        "(CloudTrail multi-region; ActionTrail; CloudAudit)."
    ),
    clouds=("aws", "alicloud", "tencentcloud"),
    enforcement=EnforcementLevel.ADVISORY,
    severity=Severity.MEDIUM,
    remediation=(
        "AWS: add aws.cloudtrail.Trail with is_multi_region_trail=True (and leave enable_logging true). "
        "Alibaba Cloud: add alicloud.actiontrail.Trail with status='Enable', event_rw='All', "
        "trail_region='All'. Tencent Cloud: add tencentcloud.audit.Track with status=1, action_type='*', "
        "resource_type='*', event_names=['*']. If the AWS account's trail lives in its account-baseline "
        "stack, tag this stack `gpufleet:account-baseline-stack: <that stack>`; for another stack, "
        "record an exception for this advisory rule."
    ),
    url="https://docs.aws.amazon.com/awscloudtrail/latest/userguide/receive-cloudtrail-log-files-from-multiple-regions.html",
    config={"baseline_stack_tag": {"type": "string", "default": "gpufleet:account-baseline-stack"}},
    checkov=("CKV_AWS_67",),
)


def _aws_trail_defect(props: Mapping[str, Any]) -> str | None:
    if not truthy(get(props, "isMultiRegionTrail", False)):
        return "is single-region (isMultiRegionTrail is not true)"
    if get(props, "enableLogging") is not None and not truthy(get(props, "enableLogging")):
        return "has logging turned off (enableLogging false)"
    return None


def _ali_trail_defect(props: Mapping[str, Any]) -> str | None:
    status = get(props, "status")
    if status is not None and str(status) != "Enable":
        return f"has status {status!r} (expected Enable)"
    event_rw = get(props, "eventRw")
    if event_rw is not None and str(event_rw) != "All":
        return f"records only {event_rw!r} events (eventRw should be All)"
    region = get(props, "trailRegion")
    if region is not None and str(region) != "All":
        return f"covers only region {region!r} (trailRegion should be All)"
    return None


def _tc_track_defect(props: Mapping[str, Any]) -> str | None:
    status = get(props, "status")
    if as_int(status) != 1:
        return f"has status {status!r} (expected 1, open)"
    action = get(props, "actionType")
    if action is not None and action != "*":
        return f"records only {action!r} calls (actionType should be *)"
    return None


def _tc_audit_defect(props: Mapping[str, Any]) -> str | None:
    if not truthy(get(props, "auditSwitch", False)):
        return "has auditSwitch off"
    return None


TRAILS: dict[str, tuple[str, str, Callable[[Mapping[str, Any]], str | None]]] = {
    AWS_TRAIL: ("aws", "CloudTrail trail", _aws_trail_defect),
    ALI_TRAIL: ("alicloud", "ActionTrail trail", _ali_trail_defect),
    ALI_TRAIL_DEPRECATED: ("alicloud", "ActionTrail trail", _ali_trail_defect),
    TC_TRACK: ("tencentcloud", "CloudAudit track", _tc_track_defect),
    TC_AUDIT: ("tencentcloud", "CloudAudit instance", _tc_audit_defect),
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
        args.not_applicable("the stack deploys no AWS, Alibaba Cloud or Tencent Cloud resources")
    # The AWS account's trail is the account baseline stack's when this stack names one.
    baseline_owned = bool((args.stack_tags or {}).get(str(RULE.settings(args)["baseline_stack_tag"])))
    for cloud, state in states.items():
        if state.resources == 0 or state.compliant:
            continue
        if cloud == "aws" and baseline_owned and not state.defects:
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

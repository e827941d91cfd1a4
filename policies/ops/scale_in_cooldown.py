"""GF-OPS-003: scale-in respects the cooldown: at most one scale-in step per cooldown.

CloudWatch re-runs an Auto Scaling alarm action once a minute while the alarm stays in ALARM, and a
step-scaling policy takes no cooldown, so a scale-in step policy fired by an alarm removes capacity
every minute until the alarm clears or the group reaches its minimum.

- AWS `aws:autoscaling/policy:Policy`: a `StepScaling` policy with a negative step that an alarm of
  the stack fires is a violation; a `SimpleScaling` policy with a negative `scalingAdjustment` needs a
  `cooldown` (else the group's `defaultCooldown`, else AWS's 300 s) of at least `min_cooldown_s`;
  target tracking and predictive scaling pass; `ExactCapacity` adjustments set a size and are never
  judged. Application Auto Scaling step policies (`aws:appautoscaling/policy:Policy`) honour their
  own `stepScalingPolicyConfiguration.cooldown` (default 300 s): that is judged.
- Alibaba Cloud `alicloud:ess/scalingRule:ScalingRule`: a simple rule's `cooldown` (else the group's
  `defaultCooldown`, else 300 s); the SDK documents `cooldown` as applicable only to simple rules, so
  a `StepScalingRule` with a negative step fired by an `ess.Alarm` has nothing spacing its scale-ins;
  `TotalCapacity` rules set a size.
- Tencent Cloud `tencentcloud:As/scalingPolicy:ScalingPolicy`: `cooldown` (default 300 s) of a policy
  with a negative `adjustmentValue` (`EXACT_CAPACITY` sets a size).
"""

from __future__ import annotations

from collections import defaultdict

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs

from gpufleet.policies.cost.pools import ResourceIndex, ResourceView
from gpufleet.policies.ops._common import (
    ALI_ESS_ALARM,
    ALI_SCALING_GROUP,
    ALI_SCALING_RULE,
    AWS_APPAS_POLICY,
    AWS_ASG,
    AWS_ASG_POLICY,
    AWS_METRIC_ALARM,
    DEFAULT_COOLDOWN_S,
    TC_SCALING_POLICY,
    cannot_tell,
    known_str,
    number,
    quoted,
    stack_index,
    unknown,
)
from gpufleet.policies.props import as_list, get_ref, is_unknown
from gpufleet.policies.rule import GfStackPolicy, Rule, judge, judges

RULE = Rule(
    id="GF-OPS-003",
    name="scale-in-respects-cooldown",
    description=(
        "Scale-in respects the cooldown: at most one scale-in step per cooldown (simple scaling with a "
        "cooldown, or target tracking); a step-scaling scale-in is re-run every minute while its alarm "
        "holds."
    ),
    clouds=("aws", "alicloud", "tencentcloud"),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.MEDIUM,
    remediation=(
        "Scale in with simple scaling and a cooldown of at least 300 s (AWS autoscaling.Policy "
        "policy_type='SimpleScaling', scaling_adjustment=-1, cooldown=300; Alibaba ess.ScalingRule "
        "scaling_rule_type='SimpleScalingRule' with cooldown=300; Tencent as.ScalingPolicy cooldown=300), "
        "or with a target-tracking policy. Keep step scaling for scale-out only."
    ),
    url="https://docs.aws.amazon.com/autoscaling/ec2/userguide/as-scaling-simple-step.html",
    config={"min_cooldown_s": {"type": "integer", "default": DEFAULT_COOLDOWN_S}},
)

_SCALING_TYPES = (AWS_ASG_POLICY, AWS_APPAS_POLICY, ALI_SCALING_RULE, TC_SCALING_POLICY)


def _fired_by(index: ResourceIndex, alarm_type: str, policy_type: str) -> dict[str, list[str]]:
    """Policy URN -> names of the alarms of the stack whose actions fire it."""
    fired: dict[str, list[str]] = defaultdict(list)
    for alarm in index.of_type(alarm_type):
        for policy in index.refs(alarm, "alarmActions", (policy_type,)):
            fired[policy.urn].append(alarm.name)
    return fired


def _steps(view: ResourceView, path: str, field: str = "scalingAdjustment") -> list[float]:
    value = get_ref(view.props, path)
    if is_unknown(value):
        raise unknown(value, path)
    found = []
    for i, step in enumerate(as_list(value)):
        adjustment = get_ref(step, field) if isinstance(step, dict) else None
        if is_unknown(adjustment):
            raise unknown(adjustment, f"{path}.{i}.{field}")
        if adjustment is None:
            continue
        try:
            found.append(float(adjustment))
        except (TypeError, ValueError):
            continue  # not a number: the provider rejects the policy before it can scale
    return found


def _sets_a_size(view: ResourceView, path: str) -> bool:
    value = get_ref(view.props, path)
    if is_unknown(value):
        raise unknown(value, path)
    return isinstance(value, str) and value.replace("_", "").lower() in ("exactcapacity", "totalcapacity")


def _kind(view: ResourceView, path: str, default: str) -> str:
    value = get_ref(view.props, path)
    if is_unknown(value):
        raise unknown(value, path)
    return known_str(value) or default


def _step_message(kind: str, view: ResourceView, steps: list[float], alarms: list[str], fix: str) -> str:
    noun = "alarm" if len(alarms) == 1 else "alarms"
    return (
        f"{kind} '{view.name}' scales in by {int(abs(min(steps)))} and is fired by {noun} "
        f"{quoted(alarms)}: the action is re-run every minute while the alarm holds and a step policy "
        f"takes no cooldown, so the group loses capacity every minute; {fix}"
    )


def _short(kind: str, view: ResourceView, cooldown: float, source: str, minimum: int) -> str:
    return (
        f"{kind} '{view.name}' scales in with {source} of {int(cooldown)} s; set a cooldown of at least "
        f"{minimum} s so that one scale-in takes effect before the next"
    )


def _aws(index: ResourceIndex, view: ResourceView, fired: dict[str, list[str]], minimum: int) -> str | None:
    policy_type = _kind(view, "policyType", "SimpleScaling")
    if policy_type == "StepScaling":
        steps = _steps(view, "stepAdjustments")
        if _sets_a_size(view, "adjustmentType") or not any(s < 0 for s in steps):
            return None
        alarms = fired.get(view.urn, [])
        if not alarms:
            return None
        fix = (
            f"scale in with a SimpleScaling policy whose cooldown is at least {minimum} s, or with target "
            "tracking"
        )
        return _step_message("step-scaling policy", view, steps, alarms, fix)
    if policy_type != "SimpleScaling":
        return None
    adjustment = number(view, "scalingAdjustment")
    if adjustment is None or adjustment >= 0 or _sets_a_size(view, "adjustmentType"):
        return None
    cooldown = number(view, "cooldown")
    source = "a cooldown"
    if cooldown is None:
        groups = index.refs(view, "autoscalingGroupName", (AWS_ASG,))
        if not groups:
            cannot_tell(
                view.urn,
                f"simple-scaling policy '{view.name}' has no cooldown and its group is not in the stack, "
                "so the group's defaultCooldown that applies is not known; set the policy's cooldown",
                "cooldown",
            )
            return None
        defaults = [number(group, "defaultCooldown") for group in groups]
        cooldown = min((d if d is not None else DEFAULT_COOLDOWN_S) for d in defaults)
        source = f"the default cooldown of group {quoted(g.name for g in groups)}"
    if cooldown >= minimum:
        return None
    return _short("simple-scaling policy", view, cooldown, source, minimum)


def _appas(view: ResourceView, minimum: int) -> str | None:
    if _kind(view, "policyType", "StepScaling") != "StepScaling":
        return None
    config = "stepScalingPolicyConfiguration"
    steps = _steps(view, f"{config}.stepAdjustments")
    if _sets_a_size(view, f"{config}.adjustmentType") or not any(s < 0 for s in steps):
        return None
    cooldown = number(view, f"{config}.cooldown")
    if cooldown is None or cooldown >= minimum:  # Application Auto Scaling's default is 300 s
        return None
    return _short("Application Auto Scaling step policy", view, cooldown, "a cooldown", minimum)


def _alicloud(
    index: ResourceIndex, view: ResourceView, fired: dict[str, list[str]], minimum: int
) -> str | None:
    rule_type = _kind(view, "scalingRuleType", "SimpleScalingRule")
    if rule_type == "StepScalingRule":
        steps = _steps(view, "stepAdjustments")
        if _sets_a_size(view, "adjustmentType") or not any(s < 0 for s in steps):
            return None
        alarms = fired.get(view.urn, [])
        if not alarms:
            return None
        fix = f"scale in with a SimpleScalingRule whose cooldown is at least {minimum} s, or target tracking"
        return _step_message("ESS step scaling rule", view, steps, alarms, fix)
    if rule_type != "SimpleScalingRule":
        return None
    adjustment = number(view, "adjustmentValue")
    if adjustment is None or adjustment >= 0 or _sets_a_size(view, "adjustmentType"):
        return None
    cooldown = number(view, "cooldown")
    source = "a cooldown"
    if not cooldown:  # unset reads back as 0: the group's default cooldown applies
        groups = index.refs(view, "scalingGroupId", (ALI_SCALING_GROUP,))
        defaults = [number(group, "defaultCooldown") for group in groups]
        cooldown = (
            min((d if d is not None else DEFAULT_COOLDOWN_S) for d in defaults)
            if groups
            else DEFAULT_COOLDOWN_S
        )
        source = f"the default cooldown of group {quoted(g.name for g in groups)}" if groups else source
    if cooldown >= minimum:
        return None
    return _short("ESS simple scaling rule", view, cooldown, source, minimum)


def _tencent(view: ResourceView, minimum: int) -> str | None:
    adjustment = number(view, "adjustmentValue")
    if adjustment is None or adjustment >= 0 or _sets_a_size(view, "adjustmentType"):
        return None
    cooldown = number(view, "cooldown")
    if cooldown is None or cooldown >= minimum:  # Tencent's default is 300 s
        return None
    return _short("AS scaling policy", view, cooldown, "a cooldown", minimum)


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    minimum = int(RULE.settings(args)["min_cooldown_s"])
    index = stack_index(args)
    policies = index.of_type(*_SCALING_TYPES)
    if not policies:
        args.not_applicable("the stack has no scaling policy or rule")
    aws_fired = _fired_by(index, AWS_METRIC_ALARM, AWS_ASG_POLICY)
    ali_fired = _fired_by(index, ALI_ESS_ALARM, ALI_SCALING_RULE)
    for view in policies:

        def check(view: ResourceView = view) -> None:
            if view.resource_type == AWS_ASG_POLICY:
                problem = _aws(index, view, aws_fired, minimum)
            elif view.resource_type == AWS_APPAS_POLICY:
                problem = _appas(view, minimum)
            elif view.resource_type == ALI_SCALING_RULE:
                problem = _alicloud(index, view, ali_fired, minimum)
            else:
                problem = _tencent(view, minimum)
            if problem:
                report(problem, view.urn)

        judge(view.urn, check)


POLICY = GfStackPolicy(
    RULE,
    validate,
    judges(_SCALING_TYPES),
)

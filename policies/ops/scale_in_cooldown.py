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

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs

from gpufleet.policies.cost.pools import ResourceView
from gpufleet.policies.ops._common import (
    DEFAULT_COOLDOWN_S,
    fragments,
    joined,
    part_of_type,
    rule_url,
    stack_index,
)
from gpufleet.policies.ops._cooldown import fired_by
from gpufleet.policies.rule import GfStackPolicy, Rule, judge, judges

# Each cloud module's scaling policies (`COOLDOWN_TYPES`), the alarms that fire them (`COOLDOWN_FIRES`:
# alarm type, policy type), an example of a compliant scale-in (`COOLDOWN_EXAMPLE`), and its check of
# one policy (`cooldown_problem`).
_SCALING_TYPES = joined("COOLDOWN_TYPES")
_EXAMPLES = "; ".join(fragments("COOLDOWN_EXAMPLE").values())

RULE = Rule(
    id="GF-OPS-003",
    name="scale-in-respects-cooldown",
    description=(
        "Scale-in respects the cooldown: at most one scale-in step per cooldown (simple scaling with a "
        "cooldown, or target tracking); a step-scaling scale-in is re-run every minute while its alarm "
        "holds."
    ),
    clouds=tuple(fragments("COOLDOWN_TYPES")),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.MEDIUM,
    remediation=(
        f"Scale in with simple scaling and a cooldown of at least 300 s ({_EXAMPLES}), "
        "or with a target-tracking policy. Keep step scaling for scale-out only."
    ),
    url=rule_url("GF-OPS-003"),
    config={"min_cooldown_s": {"type": "integer", "default": DEFAULT_COOLDOWN_S}},
)


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    minimum = int(RULE.settings(args)["min_cooldown_s"])
    index = stack_index(args)
    policies = index.of_type(*_SCALING_TYPES)
    if not policies:
        args.not_applicable("the stack has no scaling policy or rule")
    # Policy URN -> the alarms that fire it, over every cloud's (alarm type, policy type).
    fired: dict[str, list[str]] = {}
    for alarm_type, policy_type in fragments("COOLDOWN_FIRES").values():
        fired.update(fired_by(index, alarm_type, policy_type))
    for view in policies:

        def check(view: ResourceView = view) -> None:
            problem = part_of_type(view.resource_type).cooldown_problem(index, view, fired, minimum)
            if problem:
                report(problem, view.urn)

        judge(view.urn, check)


POLICY = GfStackPolicy(
    RULE,
    validate,
    judges(_SCALING_TYPES),
)

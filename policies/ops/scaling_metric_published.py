"""GF-OPS-001: every alarm that drives scaling watches a metric something in the stack publishes.

An alarm on a metric nobody publishes stays in INSUFFICIENT_DATA (or OK, with missing data treated as
not breaching) for ever: every guardrail passes and the pool never scales.

AWS: `aws:cloudwatch/metricAlarm:MetricAlarm` whose `alarmActions` fire an `aws:autoscaling/policy`
or `aws:appautoscaling/policy` (of the stack, or by an Auto Scaling ARN), and target-tracking policies
(AWS creates their alarms: `customizedMetricSpecification`, and the predefined
`ALBRequestCountPerTarget`; the other predefined metrics are the group's own). Each metric watched (an
alarm's own `namespace`/`metricName`/`dimensions`, every `metricQueries[].metric`, a customized
metric and its `metrics[].metricStat.metric`) needs a publisher:
- `AWS/<service>` namespaces are filled by the service for resources that exist: `AWS/SQS` needs the
  queue named by `QueueName` in the stack, `AWS/EC2` an instance or Auto Scaling group (the group named
  by `AutoScalingGroupName`), `AWS/AutoScaling` that group with the metric in its `enabledMetrics`, and
  `AWS/ApplicationELB`, `NetworkELB`, `ELB`, `Lambda`, `DynamoDB`, `ECS`, `Kinesis`, `SNS`, `RDS`, `EBS`,
  `SageMaker` and `EC2Spot` a resource of that service. Other `AWS/*` namespaces could not be judged.
- The CloudWatch agent's namespaces (`CWAgent`, and any `"namespace"` an agent config in a launch
  template's user data or an SSM parameter sets) need instances that can publish: a role (instance
  profile -> role) allowed `cloudwatch:PutMetricData` for that namespace, and `ec2:DescribeTags` when
  the alarm has the `AutoScalingGroupName` dimension (the agent appends it after looking up the
  instance's tags), and a network path to `monitoring` (and `ec2`) from the pool's subnets. The
  instances are the group's (by `AutoScalingGroupName`) or else every launch source of the stack.
- Any other namespace needs a role of the stack allowed to `PutMetricData` into it. The burst order's
  gated alarms (metric math on `gpufleet/Baseline` `FreeGpusAhead`) pass on the baseline exporter's
  role (`gpufleet.components.baseline.aws_signal.BaselineSignal`), which may publish into that namespace only.
A grant found in a document known at preview counts even when another document of the role is still
unknown; with no grant found and a document unknown, the alarm could not be judged yet. A managed
policy the pack does not know (not AWS's CloudWatchAgentServerPolicy and the like) makes it could not
be judged rather than pass or fail.
A namespace (or `namespace:dimension-value`, e.g. `AWS/SQS:jobs`) listed in `published_namespaces` is
published outside the stack.

Alibaba Cloud: `alicloud:ess/alarm:Alarm` (every ESS alarm fires scaling rules), and CloudMonitor
`alicloud:cms/alarm:Alarm` rules whose `targets[].arn` is a scaling rule (`acs:ess:...:scalingGroupId/
<id>:scalingRuleId/<id>`): in project `acs_ecs_dashboard` the agent's lower_snake_case metrics need the
agent, a `acs_customMetric_*` project needs an uploader, `acs_mns_new` (MNS queue metrics such as
`ActiveMessages`) needs the MNS queue its `queue` dimension names in the stack, other projects could
not be judged unless listed. For ESS alarms, `metricType: custom`
metrics are uploaded by someone: a RAM policy of the stack must allow `cms:PutCustomMetric`, or the
metric name is listed in `published_namespaces`. System metrics read from the CloudMonitor agent
(`...Agent`, `MemoryUtilization`, `LoadAverage`) need the agent: CloudMonitor installs it on new
instances of public images, unless a `alicloud:cloudmonitor/serviceAgentConfig:ServiceAgentConfig`
sets `enableInstallAgentNewEcs: false` (then a public-image scaling configuration or launch template
whose user data does not install the agent is a finding naming the config); a custom image (`m-...`)
could not be judged unless its user data (plain or, as ECS takes it, base64) installs the agent.

Tencent Cloud: `tencentcloud:Monitor/alarmPolicy:AlarmPolicy` with an `AS` trigger task, and
`tencentcloud:As/scalingPolicy:ScalingPolicy` (its own CPU/memory alarm). The `cvm_device` namespace
and the CPU and memory metrics come from the Cloud Monitor agent, installed unless the scaling
configuration sets `enhancedMonitorService: false`; other namespaces could not be judged unless listed.
"""

from __future__ import annotations

from collections.abc import Callable

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs

from gpufleet.policies.cost.pools import ResourceView
from gpufleet.policies.ops._common import fragments, joined, parts, rule_url, stack_index
from gpufleet.policies.rule import GfStackPolicy, Rule, judge, judges

# Each cloud module that judges scaling metrics: the types it judges (`METRIC_TYPES`), its alarms that
# drive scaling (`metric_alarms`), the check of one (`metric_judge`), and its remediation fragment.
_METRIC_PARTS = {cloud: part for cloud, part in parts().items() if hasattr(part, "metric_alarms")}
# The remediation's last sentence, whatever the clouds.
_OUTSIDE = "A namespace published outside the stack goes in published_namespaces."
_Judge = Callable[[ResourceView], list[str]]

RULE = Rule(
    id="GF-OPS-001",
    name="scaling-metric-published",
    description=(
        "Every alarm that drives scaling watches a metric that something in the stack publishes: a cloud "
        "namespace the provider fills for a resource in the stack, or an agent metric whose publisher "
        "has the permissions and network path it needs."
    ),
    clouds=tuple(_METRIC_PARTS),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation=" ".join(
        [
            *fragments("METRIC_REMEDIATION").values(),
            _OUTSIDE,
        ]
    ),
    url=rule_url("GF-OPS-001"),
    config={"published_namespaces": {"type": "array", "items": {"type": "string"}, "default": []}},
)


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    listed = [str(item) for item in RULE.settings(args)["published_namespaces"] or []]
    index = stack_index(args)
    found = [(part, part.metric_alarms(index)) for part in _METRIC_PARTS.values()]
    if not any(alarms for _, alarms in found):
        args.not_applicable("the stack has no alarm or target-tracking policy that drives scaling")
    for part, alarms in found:
        problems_of = part.metric_judge(index, alarms, listed)
        for alarm in alarms:

            def check(alarm: ResourceView = alarm, problems_of: _Judge = problems_of) -> None:
                for problem in problems_of(alarm):
                    report(problem, alarm.urn)

            # A CannotTell (or a value unknown at preview) makes the alarm "could not be judged".
            judge(alarm.urn, check)


POLICY = GfStackPolicy(RULE, validate, judges(joined("METRIC_TYPES")))

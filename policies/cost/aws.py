"""AWS facts of the cost rules: the fragments of their remediation texts that name AWS services and
fields, their AWS reference pages, the bracketed `cron(...)` recurrences GF-COST-005 and the
estimate replay, and the checks only AWS needs (the aws provider's `defaultTags`,
an EC2 instance an alarm stops when idle, a queue-fed group's termination hook).

Read by the neutral rules through :data:`gpufleet.policies.cost._clouds.PARTS`; texts are joined with
the other clouds' in the registry's order (``(rank, text)`` pairs where one sentence interleaves
several clouds' fields).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from pulumi_policy.proxy import UnknownValueError

from gpufleet.policies.cost._common import describe
from gpufleet.policies.cost.pools import Pool, ResourceIndex
from gpufleet.policies.cost.pools.tokens.aws import (
    AWS_ASG,
    AWS_EKS_NODE_GROUP,
    AWS_INSTANCE,
    AWS_METRIC_ALARM,
)
from gpufleet.policies.props import as_list, get, get_ref, get_text, is_unknown

# --- GF-COST-001 cost tags -----------------------------------------------------------------------
TAGS_NOTE = (
    " (AWS: or once in the aws provider's `defaultTags.tags`; Auto Scaling groups need their own `tags` "
    "list with `propagateAtLaunch: true`)"
)
TAGS_URL = "https://docs.aws.amazon.com/awsaccountbilling/latest/aboutv2/cost-alloc-tags.html"


def provider_default_tags(resource_type: str, provider: Any) -> dict[str, Any]:
    """The tags the resource's aws provider adds (`defaultTags.tags`); none for an Auto Scaling group,
    whose instances take only its own `tags` list."""
    if resource_type == AWS_ASG:
        return {}
    props = getattr(provider, "props", None)
    if props is None:
        return {}
    # Provider inputs cross the wire with every non-string value JSON-encoded (the SDK serialises a
    # provider's nested config that way), so `defaultTags` usually arrives as a JSON string.
    default_tags = get_ref(props, "defaultTags")
    if isinstance(default_tags, str) and not is_unknown(default_tags):
        try:
            default_tags = json.loads(default_tags)
        except json.JSONDecodeError:
            return {}
    tags = get_ref(default_tags, "tags") if isinstance(default_tags, Mapping) else None
    if not isinstance(tags, Mapping) or is_unknown(tags):
        return {}
    return {str(key): get_ref(tags, str(key)) for key in tags}


# --- GF-COST-003 GPU instance allow list ---------------------------------------------------------
DEV_FAMILIES = "g4dn/g5/g6"
ALLOWLIST_FIELDS = (
    (10, "`instanceType` on the launch template / launch configuration / instance"),
    (20, "the overrides' `instanceType` of a mixed-instances policy"),
    (30, "`instanceTypes` of an EKS node group"),
    (60, "`computeResources.instanceTypes` of a Batch compute environment"),
)
ALLOWLIST_URL = "https://aws.amazon.com/ec2/instance-types/#Accelerated_Computing"

# --- GF-COST-004 non-production spot share -------------------------------------------------------
SPOT_REMEDIATION = (
    "AWS: in the group's mixedInstancesPolicy.instancesDistribution set onDemandBaseCapacity 0 and "
    "onDemandPercentageAboveBaseCapacity to at most 100 - P (or launch template "
    "instanceMarketOptions.marketType 'spot'); EKS node groups capacityType 'SPOT'; Batch compute "
    "environments computeResources.type 'SPOT'."
)
SPOT_URL = (
    "https://docs.aws.amazon.com/autoscaling/ec2/userguide/ec2-auto-scaling-mixed-instances-groups.html"
)

# --- GF-COST-005 non-production off hours --------------------------------------------------------
OFF_HOURS_SCHEDULE = (
    "AWS aws.autoscaling.Schedule(desired_capacity=0, min_size=0, recurrence='0 20 * * 1-5', time_zone=...)"
)
OFF_HOURS_SCALE_IN = "aws.autoscaling.Policy + cloudwatch.MetricAlarm"
OFF_HOURS_URL = (
    "https://docs.aws.amazon.com/autoscaling/ec2/userguide/ec2-auto-scaling-scheduled-scaling.html"
)
# Node groups a cluster's own node autoscaler (a cluster-autoscaler or Karpenter Helm release) sizes.
HELM_NODE_SCALED = frozenset({AWS_EKS_NODE_GROUP})

_EC2_IDLE_ACTION = re.compile(r"^arn:aws[a-z-]*:automate:[a-z0-9-]+:ec2:(stop|terminate)$")


def stopped_when_idle(pool: Pool, index: ResourceIndex) -> bool:
    """A CloudWatch alarm on the instance whose action stops or terminates it."""
    if pool.resource_type != AWS_INSTANCE:
        return False
    for alarm in index.of_type(AWS_METRIC_ALARM):
        actions = [a for a in as_list(get_ref(alarm.props, "alarmActions")) if isinstance(a, str)]
        if not any(_EC2_IDLE_ACTION.match(a) for a in actions if not is_unknown(a)):
            continue
        if any(
            target.urn == pool.urn for target in index.refs(alarm, "dimensions.InstanceId", (AWS_INSTANCE,))
        ):
            return True
    return False


# The bracketed recurrence of an Application Auto Scaling scheduled action, `cron(m h dom mon dow year)`
# with days numbered 1 (Sunday) to 7 (Saturday), which `_weekly` replays beside Unix cron, and how its
# messages name it.
CRON_WRAPPED = re.compile(r"cron\((.*)\)")
CRON_WRAPPED_NAME = "AWS cron(...)"

# --- GF-COST-006 autoscaling sanity --------------------------------------------------------------
SCALING_SETTINGS = (
    "AWS autoscaling.Policy `cooldown` + cloudwatch.MetricAlarm `threshold`/`period`/`evaluationPeriods`; "
    "scale in with policyType SimpleScaling or target tracking, since a StepScaling policy takes no "
    "cooldown and its `estimatedInstanceWarmup` paces scale-out only"
)
SCALING_URL = "https://docs.aws.amazon.com/autoscaling/ec2/userguide/as-scaling-simple-step.html"
AWS_LIFECYCLE_HOOK = "aws:autoscaling/lifecycleHook:LifecycleHook"
TERMINATING = "autoscaling:EC2_INSTANCE_TERMINATING"


def _drains(index: ResourceIndex, pool: Pool) -> bool:
    """The group waits on a termination lifecycle hook before an instance goes."""
    group = index.by_urn.get(pool.urn)
    if group is None:
        return False
    for hook in as_list(get(group.props, "initialLifecycleHooks")):
        if isinstance(hook, Mapping) and get_text(hook, "lifecycleTransition") == TERMINATING:
            return True
    for hook in index.of_type(AWS_LIFECYCLE_HOOK):
        transition = get(hook.props, "lifecycleTransition")
        if is_unknown(transition):
            raise UnknownValueError(str(transition), ["lifecycleTransition"])
        targets = index.refs(hook, "autoscalingGroupName", (AWS_ASG,))
        if transition == TERMINATING and any(target.urn == group.urn for target in targets):
            return True
    return False


def undrained_scale_in(index: ResourceIndex, pool: Pool, queue_metrics: tuple[str, ...]) -> list[str]:
    """A queue-fed Auto Scaling group that may scale in without a termination hook ends running jobs."""
    if pool.resource_type != AWS_ASG:
        return []
    fed = sorted({s.name for s in pool.scaling if s.metric in queue_metrics})
    shrink = sorted({s.policy or s.name for s in pool.scaling if s.direction in ("in", "both")})
    if not fed or not shrink or _drains(index, pool):
        return []
    return [
        f"{describe(pool)} takes work from a queue ({_names(fed)}) and scales in "
        f"({_names(shrink)}) with no termination lifecycle hook: a scale-in ends the job an instance "
        "is running with no chance to checkpoint or return its message; add an "
        f"aws.autoscaling.LifecycleHook with lifecycle_transition '{TERMINATING}' and a heartbeat long "
        "enough to checkpoint, and let the worker protect its instance while it holds a job"
    ]


def _names(names: list[str]) -> str:
    return ", ".join(f"'{n}'" for n in names)


# --- GF-COST-007 worst-case hourly spend ---------------------------------------------------------
MAX_SIZE_FIELDS = "AWS `maxSize` / EKS `scalingConfig.maxSize`"
HOURLY_URL = "https://aws.amazon.com/ec2/pricing/on-demand/"

"""Alibaba Cloud's share of the deploy rules: the type tokens of the shipped stacks whose provider-schema
constraints `generate` extracts, and Alibaba Cloud's facts for GF-DEPLOY-003."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from gpufleet.policies.deploy._values import locate, plain

# The Alibaba Cloud resources the fleet programs build (`generate` reads their constraints).
SCOPE = (
    "alicloud:actiontrail/trail:Trail",
    "alicloud:cms/alarm:Alarm",
    "alicloud:cms/alarmContactGroup:AlarmContactGroup",
    "alicloud:ecs/ecsLaunchTemplate:EcsLaunchTemplate",
    "alicloud:ecs/ecsSessionManagerStatus:EcsSessionManagerStatus",
    "alicloud:ecs/securityGroup:SecurityGroup",
    "alicloud:ecs/securityGroupRule:SecurityGroupRule",
    "alicloud:ess/alarm:Alarm",
    "alicloud:ess/scalingGroup:ScalingGroup",
    "alicloud:ess/scalingRule:ScalingRule",
    "alicloud:ess/scheduledTask:ScheduledTask",
    "alicloud:ims/oidcProvider:OidcProvider",
    "alicloud:kms/alias:Alias",
    "alicloud:kms/key:Key",
    "alicloud:log/project:Project",
    "alicloud:log/store:Store",
    "alicloud:message/serviceQueue:ServiceQueue",
    "alicloud:oss/bucket:Bucket",
    "alicloud:oss/bucketAcl:BucketAcl",
    "alicloud:oss/bucketHttpsConfig:BucketHttpsConfig",
    "alicloud:oss/bucketPolicy:BucketPolicy",
    "alicloud:oss/bucketPublicAccessBlock:BucketPublicAccessBlock",
    "alicloud:oss/bucketReplication:BucketReplication",
    "alicloud:ram/policy:Policy",
    "alicloud:ram/role:Role",
    "alicloud:ram/rolePolicyAttachment:RolePolicyAttachment",
    "alicloud:vpc/network:Network",
    "alicloud:vpc/routeEntry:RouteEntry",
    "alicloud:vpc/switch:Switch",
    "alicloud:vpn/connection:Connection",
    "alicloud:vpn/customerGateway:CustomerGateway",
    "alicloud:vpn/gateway:Gateway",
)

# GF-DEPLOY-003: the field holding a scheduled action's first run, by type token.
START_FIELDS = {"alicloud:ess/scheduledTask:ScheduledTask": "launchTime"}
# The scaling groups a scheduled task names by id (`desired_capacity` reads the group's own).
SCALING_GROUP = "alicloud:ess/scalingGroup:ScalingGroup"
# The `cloud_rules.json` rule a scheduled task's desired capacity breaks.
DESIRED_RULE = "ess-desired-capacity"


def desired_capacity(resource: Any, groups: Mapping[str, Any]) -> Iterator[str]:
    """`desiredCapacity` on an ESS scheduled task for a scaling group of the stack created without one."""
    if resource.resource_type != "alicloud:ess/scheduledTask:ScheduledTask":
        return
    props = resource.props
    for found in locate(props, "desiredCapacity"):
        group_id, _ = plain(props.get("scalingGroupId"))
        group = groups.get(group_id) if isinstance(group_id, str) else None
        if group is None:
            continue
        given, _ = plain(group.props.get("desiredCapacity"))
        if given is None:
            yield (
                f"{found.path} is {found.quoted()} but scaling group {group.resource_type} '{group.name}' "
                "has no desiredCapacity; "
                "allowed: desiredCapacity only for a scaling group created with one"
            )

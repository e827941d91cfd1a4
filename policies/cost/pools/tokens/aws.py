"""AWS pool facts: the type tokens of every AWS resource that is a pool or shapes one, which of them
are pools (and which scale, and which a cluster sizes), how findings name each kind, and the bare
instance families AWS Batch takes in place of instance types. Plain data, read through
:func:`gpufleet.components.clouds.cloud_parts` by the neutral pool model."""

from __future__ import annotations

import re

AWS_ASG = "aws:autoscaling/group:Group"
AWS_ASG_POLICY = "aws:autoscaling/policy:Policy"
AWS_ASG_SCHEDULE = "aws:autoscaling/schedule:Schedule"
AWS_METRIC_ALARM = "aws:cloudwatch/metricAlarm:MetricAlarm"
AWS_LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
AWS_LAUNCH_CONFIGURATION = "aws:ec2/launchConfiguration:LaunchConfiguration"
AWS_INSTANCE = "aws:ec2/instance:Instance"
AWS_SPOT_REQUEST = "aws:ec2/spotInstanceRequest:SpotInstanceRequest"
AWS_SPOT_FLEET = "aws:ec2/spotFleetRequest:SpotFleetRequest"
AWS_FLEET = "aws:ec2/fleet:Fleet"
AWS_EKS_NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
AWS_BATCH_COMPUTE = "aws:batch/computeEnvironment:ComputeEnvironment"
AWS_APPAS_TARGET = "aws:appautoscaling/target:Target"
AWS_APPAS_SCHEDULED_ACTION = "aws:appautoscaling/scheduledAction:ScheduledAction"
AWS_APPAS_POLICY = "aws:appautoscaling/policy:Policy"
SPOT_FLEET_DIMENSION = "ec2:spot-fleet-request:TargetCapacity"

# How a finding names each kind of pool (`Pool.kind`).
POOL_KINDS = {
    AWS_ASG: "Auto Scaling group",
    AWS_INSTANCE: "EC2 instance",
    AWS_SPOT_REQUEST: "EC2 spot instance request",
    AWS_SPOT_FLEET: "EC2 spot fleet request",
    AWS_FLEET: "EC2 fleet",
    AWS_EKS_NODE_GROUP: "EKS node group",
    AWS_BATCH_COMPUTE: "Batch compute environment",
}
POOL_TYPES = frozenset(POOL_KINDS)
SCALABLE_TYPES = frozenset({AWS_ASG, AWS_EKS_NODE_GROUP})
CLUSTER_SCALED_TYPES = frozenset({AWS_EKS_NODE_GROUP})
# A bare GPU family (`g5`, `p4d`, `p6-b200`) that AWS Batch launches any size of.
BARE_FAMILY = re.compile(r"^(g\d|gr\d|p\d)[a-z0-9-]*$", re.IGNORECASE)

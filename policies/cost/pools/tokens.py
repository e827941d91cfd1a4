"""The type tokens of everything a pool is or is shaped by, per cloud (from the installed SDKs)."""

from __future__ import annotations

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

ALI_SCALING_GROUP = "alicloud:ess/scalingGroup:ScalingGroup"
ALI_SCALING_CONFIGURATION = "alicloud:ess/scalingConfiguration:ScalingConfiguration"
ALI_SCALING_RULE = "alicloud:ess/scalingRule:ScalingRule"
ALI_ESS_ALARM = "alicloud:ess/alarm:Alarm"
ALI_SCHEDULED_TASK = "alicloud:ess/scheduledTask:ScheduledTask"
ALI_SCHEDULE = "alicloud:ess/schedule:Schedule"
ALI_INSTANCE = "alicloud:ecs/instance:Instance"
ALI_INSTANCE_SET = "alicloud:ecs/ecsInstanceSet:EcsInstanceSet"
ALI_NODE_POOL = "alicloud:cs/nodePool:NodePool"
ALI_LAUNCH_TEMPLATES = (
    "alicloud:ecs/launchTemplate:LaunchTemplate",
    "alicloud:ecs/ecsLaunchTemplate:EcsLaunchTemplate",
)

TC_SCALING_GROUP = "tencentcloud:As/scalingGroup:ScalingGroup"
TC_SCALING_CONFIG = "tencentcloud:As/scalingConfig:ScalingConfig"
TC_SCALING_POLICY = "tencentcloud:As/scalingPolicy:ScalingPolicy"
TC_SCHEDULE = "tencentcloud:As/schedule:Schedule"
TC_ALARM_POLICY = "tencentcloud:Monitor/alarmPolicy:AlarmPolicy"
TC_INSTANCE = "tencentcloud:Instance/instance:Instance"
TC_NODE_POOL = "tencentcloud:Kubernetes/nodePool:NodePool"

POOL_TYPES = frozenset(
    {
        AWS_ASG,
        AWS_INSTANCE,
        AWS_SPOT_REQUEST,
        AWS_SPOT_FLEET,
        AWS_FLEET,
        AWS_EKS_NODE_GROUP,
        AWS_BATCH_COMPUTE,
        ALI_SCALING_GROUP,
        ALI_INSTANCE,
        ALI_INSTANCE_SET,
        ALI_NODE_POOL,
        TC_SCALING_GROUP,
        TC_INSTANCE,
        TC_NODE_POOL,
    }
)
SCALABLE_TYPES = frozenset(
    {AWS_ASG, AWS_EKS_NODE_GROUP, ALI_SCALING_GROUP, ALI_NODE_POOL, TC_SCALING_GROUP, TC_NODE_POOL}
)
# Pools sized from inside a Kubernetes cluster (cluster-autoscaler, Karpenter, the ACK/TKE node
# autoscalers): no cloud scaling policy acts on them.
CLUSTER_SCALED_TYPES = frozenset({AWS_EKS_NODE_GROUP, ALI_NODE_POOL, TC_NODE_POOL})

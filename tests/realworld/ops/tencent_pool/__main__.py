"""A Tencent Cloud AS GPU pool scaled by a Cloud Monitor alarm policy on the agent's GPU metric,
written with the raw tencentcloud-iac-pulumi SDK: the monitor agent on, a scale-in policy with the
default 300 s cooldown, and checkpoints encrypted with a BYOK key whose material comes in as secret
config, usable in the same deployment.

`tc-ops-pool:break` selects one mistake; `none` is the program as it should be.
"""

import json

import pulumi
import tencentcloud_iac_pulumi as tencentcloud
from pulumi import Output, ResourceOptions

config = pulumi.Config()
BREAK = config.get("break") or "none"
provider = tencentcloud.Provider("guangzhou", region="ap-guangzhou")
opts = ResourceOptions(provider=provider)
tags = {"project": "vision", "team": "ml-platform", "cost-center": "cc-042", "env": "dev"}

vpc = tencentcloud.vpc.Instance("gpu-vpc", cidr_block="10.70.0.0/16", opts=opts)
subnet = tencentcloud.subnet.Instance(
    "gpu-a", vpc_id=vpc.id, cidr_block="10.70.1.0/24", availability_zone="ap-guangzhou-3", opts=opts
)
launch = tencentcloud.as_.ScalingConfig(
    "gpu-launch",
    configuration_name="gpu-t4",
    image_id="img-9qabwvbn",
    instance_types=["GN7.2XLARGE32"],
    system_disk_type="CLOUD_SSD",
    system_disk_size=100,
    instance_charge_type="SPOTPAID",
    spot_instance_type="one-time",
    spot_max_price="10",
    enhanced_security_service=True,
    # The Cloud Monitor agent reports the GpuUtil metric the alarm policy watches.
    enhanced_monitor_service=BREAK != "monitor-off",
    enhanced_automation_tools_service=True,
    opts=opts,
)
group = tencentcloud.as_.ScalingGroup(
    "gpu-pool",
    scaling_group_name="gpu-pool",
    configuration_id=launch.id,
    max_size=8,
    min_size=0,
    vpc_id=vpc.id,
    subnet_ids=[subnet.id],
    opts=opts,
)
policies = {}
for name, adjustment in (("gpu-scale-out", 1), ("gpu-scale-in", -1)):
    policies[name] = tencentcloud.as_.ScalingPolicy(
        name,
        scaling_group_id=group.id,
        policy_name=name,
        adjustment_type="CHANGE_IN_CAPACITY",
        adjustment_value=adjustment,
        comparison_operator="GREATER_THAN" if adjustment > 0 else "LESS_THAN",
        metric_name="CPU_UTILIZATION",
        threshold=70 if adjustment > 0 else 30,
        period=300,
        continuous_time=1 if adjustment > 0 else 6,
        statistic="AVERAGE",
        cooldown=60 if BREAK == "short-cooldown" and adjustment < 0 else None,
        opts=opts,
    )


def as_task(group_id: str, policy_id: str) -> str:
    return json.dumps({"Region": "ap-guangzhou", "Group": group_id, "Policy": policy_id})


for name, operator, value, periods, policy in (
    ("gpu-busy", "gt", "70", 5, policies["gpu-scale-out"]),
    ("gpu-idle", "lt", "30", 30, policies["gpu-scale-in"]),
):
    tencentcloud.monitor.AlarmPolicy(
        name,
        policy_name=name,
        monitor_type="MT_QCE",
        namespace="cvm_device",
        enable=1,
        project_id=0,
        conditions=tencentcloud.monitor.AlarmPolicyConditionsArgs(
            is_union_rule=0,
            rules=[
                tencentcloud.monitor.AlarmPolicyConditionsRuleArgs(
                    metric_name="GpuUtil", period=60, operator=operator, value=value, continue_period=periods
                )
            ],
        ),
        trigger_tasks=[
            tencentcloud.monitor.AlarmPolicyTriggerTaskArgs(
                type="AS", task_config=Output.all(group.id, policy.id).apply(lambda ids: as_task(*ids))
            )
        ],
        opts=opts,
    )

byok = tencentcloud.kms.ExternalKey(
    "checkpoint-key",
    alias="vision-checkpoints",
    description="checkpoints; material from the HSM",
    wrapping_algorithm="RSAES_OAEP_SHA_256",
    key_material_base64=None if BREAK == "byok-pending" else config.require_secret("byok-material"),
    is_enabled=True,
    opts=opts,
)
tencentcloud.cos.Bucket(
    "checkpoints",
    bucket="vision-checkpoints-1250000000",
    acl="private",
    encryption_algorithm="KMS",
    kms_id=byok.id,
    tags=tags,
    opts=opts,
)

"""An Alibaba Cloud ESS GPU pool that scales on the CloudMonitor agent's GPU metric, written with the
raw pulumi-alicloud SDK: simple rules with a 300 s cooldown, a public image that ships the agent, and
disks encrypted with a provider-generated key, usable in the same deployment.

`ali-ops-pool:break` selects one mistake; `none` is the program as it should be.
"""

import pulumi
import pulumi_alicloud as alicloud
from pulumi import ResourceOptions

BREAK = pulumi.Config().get("break") or "none"
provider = alicloud.Provider("hangzhou", region="cn-hangzhou")
opts = ResourceOptions(provider=provider)
tags = {"project": "vision", "team": "ml-platform", "cost-center": "cc-042", "env": "dev"}

vpc = alicloud.vpc.Network("gpu-vpc", vpc_name="gpu-vpc", cidr_block="10.60.0.0/16", opts=opts)
vswitch = alicloud.vpc.Switch(
    "gpu-a",
    vpc_id=vpc.id,
    cidr_block="10.60.1.0/24",
    zone_id="cn-hangzhou-h",
    vswitch_name="gpu-a",
    opts=opts,
)
sg = alicloud.ecs.SecurityGroup("gpu-sg", vpc_id=vpc.id, security_group_name="gpu-sg", opts=opts)
# BYOK disks would need the material imported (outside Pulumi) before the first instance launches.
disk_key = alicloud.kms.Key(
    "disk-key",
    description="GPU pool disks",
    origin="EXTERNAL" if BREAK == "byok-disks" else "Aliyun_KMS",
    automatic_rotation=None if BREAK == "byok-disks" else "Enabled",
    rotation_interval=None if BREAK == "byok-disks" else "365d",
    pending_window_in_days=7,
    tags=tags,
    opts=opts,
)
group = alicloud.ess.ScalingGroup(
    "gpu-pool",
    scaling_group_name="gpu-pool",
    min_size=0,
    max_size=8,
    default_cooldown=300,
    vswitch_ids=[vswitch.id],
    removal_policies=["NewestInstance"],
    tags=tags,
    opts=opts,
)
alicloud.ess.ScalingConfiguration(
    "gpu-pool-config",
    scaling_group_id=group.id,
    scaling_configuration_name="gpu-a10",
    # Alibaba's public images ship the CloudMonitor agent that reports GpuUtilizationAgent.
    image_id="m-bp1gpuvisionimage"
    if BREAK == "custom-image"
    else "ubuntu_22_04_x64_20G_alibase_20240130.vhd",
    instance_type="ecs.gn7i-c8g1.2xlarge",
    security_group_ids=[sg.id],
    spot_strategy="SpotAsPriceGo",
    system_disk_category="cloud_essd",
    system_disk_size=100,
    system_disk_encrypted=True,
    system_disk_kms_key_id=disk_key.id,
    force_delete=True,
    active=True,
    enable=True,
    tags=tags,
    opts=opts,
)
scale_out = alicloud.ess.ScalingRule(
    "gpu-scale-out",
    scaling_group_id=group.id,
    scaling_rule_name="gpu-scale-out",
    adjustment_type="QuantityChangeInCapacity",
    adjustment_value=1,
    cooldown=300,
    opts=opts,
)
if BREAK == "step-scale-in":
    scale_in = alicloud.ess.ScalingRule(
        "gpu-scale-in",
        scaling_group_id=group.id,
        scaling_rule_name="gpu-scale-in",
        scaling_rule_type="StepScalingRule",
        adjustment_type="QuantityChangeInCapacity",
        estimated_instance_warmup=300,
        step_adjustments=[{"metric_interval_upper_bound": "0", "scaling_adjustment": -1}],
        opts=opts,
    )
else:
    scale_in = alicloud.ess.ScalingRule(
        "gpu-scale-in",
        scaling_group_id=group.id,
        scaling_rule_name="gpu-scale-in",
        adjustment_type="QuantityChangeInCapacity",
        adjustment_value=-1,
        cooldown=60 if BREAK == "short-cooldown" else 300,
        opts=opts,
    )
busy_metric = ("custom", "PendingJobs") if BREAK == "custom-metric" else ("system", "GpuUtilizationAgent")
for name, rule, metric, operator, threshold, periods in (
    ("gpu-busy", scale_out, busy_metric, ">=", "70", 5),
    ("gpu-idle", scale_in, ("system", "GpuUtilizationAgent"), "<=", "30", 30),
):
    alicloud.ess.Alarm(
        name,
        scaling_group_id=group.id,
        alarm_actions=[rule.ari],
        metric_type=metric[0],
        metric_name=metric[1],
        statistics="Average",
        comparison_operator=operator,
        threshold=threshold,
        period=60,
        evaluation_count=periods,
        opts=opts,
    )

"""One GPU scaling group per cloud whose nodes join a Kubernetes cluster: each is tagged
``gpufleet:scaler: cluster-autoscaler`` and has no scaling policy or alarm. ``one-scaler:break`` adds
one: ``aws`` a target-tracking policy, ``alicloud`` an ESS scaling rule fired by an ESS alarm,
``tencentcloud`` an AS scaling policy."""

import pulumi
import pulumi_alicloud as alicloud
import pulumi_aws as aws
import tencentcloud_iac_pulumi as tencentcloud

BREAK = pulumi.Config("one-scaler").get("break") or "none"
TAGS = {"team": "ml", "project": "join", "cost-center": "cc-1", "env": "dev"}
SCALER = {"gpufleet:scaler": "cluster-autoscaler"}

template = aws.ec2.LaunchTemplate(
    "nodes-lt",
    image_id="ami-0123456789abcdef0",
    metadata_options={
        "http_endpoint": "enabled",
        "http_tokens": "required",
        "http_put_response_hop_limit": 1,
    },
    block_device_mappings=[
        {"device_name": "/dev/xvda", "ebs": {"volume_type": "gp3", "volume_size": 200, "encrypted": "true"}}
    ],
    tags=TAGS,
)
group = aws.autoscaling.Group(
    "nodes",
    min_size=0,
    max_size=4,
    vpc_zone_identifiers=["subnet-0123456789abcdef0"],
    mixed_instances_policy={
        "instances_distribution": {
            "on_demand_base_capacity": 0,
            "on_demand_percentage_above_base_capacity": 0,
            "spot_allocation_strategy": "price-capacity-optimized",
        },
        "launch_template": {
            "launch_template_specification": {"launch_template_id": template.id, "version": "$Latest"},
            "overrides": [{"instance_type": "g5.xlarge"}, {"instance_type": "g6.xlarge"}],
        },
    },
    tags=[{"key": k, "value": v, "propagate_at_launch": True} for k, v in {**TAGS, **SCALER}.items()],
)
if BREAK == "aws":
    aws.autoscaling.Policy(
        "nodes-cpu",
        autoscaling_group_name=group.name,
        policy_type="TargetTrackingScaling",
        estimated_instance_warmup=300,
        target_tracking_configuration={
            "predefined_metric_specification": {"predefined_metric_type": "ASGAverageCPUUtilization"},
            "target_value": 50,
        },
    )

ali_template = alicloud.ecs.EcsLaunchTemplate(
    "ali-nodes-lt",
    image_id="m-bp1example",
    instance_type="ecs.gn7i-c8g1.2xlarge",
    spot_strategy="SpotAsPriceGo",
    http_tokens="required",
    system_disk={"category": "cloud_essd", "size": 200, "encrypted": True},
    tags=TAGS,
)
ali_group = alicloud.ess.ScalingGroup(
    "ali-nodes",
    scaling_group_name="ali-nodes",
    min_size=0,
    max_size=4,
    vswitch_ids=["vsw-bp1example"],
    launch_template_id=ali_template.id,
    multi_az_policy="COST_OPTIMIZED",
    on_demand_base_capacity=0,
    on_demand_percentage_above_base_capacity=0,
    tags={**TAGS, **SCALER},
)
if BREAK == "alicloud":
    rule = alicloud.ess.ScalingRule(
        "ali-nodes-out",
        scaling_group_id=ali_group.id,
        adjustment_type="QuantityChangeInCapacity",
        adjustment_value=1,
        cooldown=300,
    )
    alicloud.ess.Alarm(
        "ali-nodes-gpu-high",
        scaling_group_id=ali_group.id,
        alarm_actions=[rule.ari],
        metric_type="custom",
        metric_name="GpuUtilizationAgent",
        statistics="Average",
        comparison_operator=">=",
        threshold="70",
        period=300,
        evaluation_count=1,
    )

tc_config = tencentcloud.as_.ScalingConfig(
    "tc-nodes-config",
    configuration_name="tc-nodes",
    image_id="img-example",
    instance_types=["GN7.2XLARGE32"],
    instance_charge_type="SPOTPAID",
    spot_instance_type="one-time",
    spot_max_price="10",
    system_disk_type="CLOUD_BSSD",
    system_disk_size=100,
    tags=TAGS,
)
tc_group = tencentcloud.as_.ScalingGroup(
    "tc-nodes",
    scaling_group_name="tc-nodes",
    configuration_id=tc_config.id,
    min_size=0,
    max_size=4,
    vpc_id="vpc-example",
    subnet_ids=["subnet-example"],
    tags={**TAGS, **SCALER},
)
if BREAK == "tencentcloud":
    tencentcloud.as_.ScalingPolicy(
        "tc-nodes-out",
        scaling_group_id=tc_group.id,
        policy_name="tc-nodes-out",
        adjustment_type="CHANGE_IN_CAPACITY",
        adjustment_value=1,
        comparison_operator="GREATER_THAN",
        metric_name="CPU_UTILIZATION",
        threshold=80,
        period=300,
        continuous_time=3,
        statistic="AVERAGE",
        cooldown=300,
    )

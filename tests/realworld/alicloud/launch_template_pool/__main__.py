"""An inference team's Alibaba Cloud GPU pool, written with the raw pulumi-alicloud SDK.

The pool launches from an ECS launch template (hardened metadata, encrypted ESSD, the node RAM role),
scales out on GPU load (ESS alarm tasks on GpuUtilizationAgent, which the boot script's CloudMonitor
agent reports) and on work waiting in an MNS queue (a CloudMonitor rule whose target is the scale-out
rule), and sleeps at night. The team's own image (m-...) does not ship the agent, so user data
installs it.

The stack config `break` names one way people get a rule wrong; the program then writes that mistake.
"""

import base64
import json

import pulumi
import pulumi_alicloud as alicloud

config = pulumi.Config()
env = config.require("env")
broken = config.get("break") or ""
tags = {"project": "search", "team": "inference", "cost-center": "cc-107", "env": env}
provider = alicloud.Provider("shanghai", region="cn-shanghai")
opts = pulumi.ResourceOptions(provider=provider)

vpc = alicloud.vpc.Network("infer-vpc", vpc_name="infer", cidr_block="172.20.0.0/16", tags=tags, opts=opts)
vswitches = [
    alicloud.vpc.Switch(
        f"infer-{zone[-1]}",
        vpc_id=vpc.id,
        zone_id=zone,
        cidr_block=f"172.20.{i}.0/24",
        vswitch_name=f"infer-{zone[-1]}",
        tags=tags,
        opts=opts,
    )
    for i, zone in enumerate(["cn-shanghai-l", "cn-shanghai-m"])
]
sg = alicloud.ecs.SecurityGroup("infer-sg", vpc_id=vpc.id, security_group_name="infer", tags=tags, opts=opts)

key = alicloud.kms.Key(
    "infer-key",
    description="inference disks",
    automatic_rotation="Enabled",
    rotation_interval="365d",
    tags=tags,
    opts=opts,
)

queue = alicloud.message.ServiceQueue(
    "requests",
    queue_name="search-requests",
    visibility_timeout=300,
    polling_wait_seconds=20,
    tags=tags,
    opts=opts,
)

role = alicloud.ram.Role(
    "infer-node",
    role_name="infer-node",
    assume_role_policy_document=json.dumps(
        {
            "Version": "1",
            "Statement": [
                {
                    "Action": "sts:AssumeRole",
                    "Effect": "Allow",
                    "Principal": {"Service": ["ecs.aliyuncs.com"]},
                }
            ],
        }
    ),
    tags=tags,
    opts=opts,
)
policy = alicloud.ram.Policy(
    "infer-node-queue",
    policy_name="infer-node-queue",
    policy_document=queue.queue_name.apply(
        lambda q: json.dumps(
            {
                "Version": "1",
                "Statement": [
                    {
                        "Effect": "Allow",
                        "Action": ["mns:ReceiveMessage", "mns:DeleteMessage", "mns:ChangeMessageVisibility"],
                        "Resource": [f"acs:mns:cn-shanghai:*:/queues/{q}/messages"],
                    }
                ],
            }
        )
    ),
    tags=tags,
    opts=opts,
)
alicloud.ram.RolePolicyAttachment(
    "infer-node-queue",
    role_name=role.role_name,
    policy_name=policy.policy_name,
    policy_type="Custom",
    opts=opts,
)

boot = "#!/bin/bash\n" + (
    "echo no monitoring agent here\n"
    if broken == "agent_missing"
    else 'REGION_ID=cn-shanghai bash -c "$(curl -fsS https://cms-agent-cn-shanghai.oss-cn-shanghai-internal'
    '.aliyuncs.com/Argus/agent_install_ecs-1.7.sh)"\n'
)
template = alicloud.ecs.EcsLaunchTemplate(
    "infer-template",
    launch_template_name="infer-a10",
    image_id="m-uf6search0a10image01",
    instance_type="ecs.gn7i-c8g1.2xlarge",
    instance_charge_type="PostPaid",
    spot_strategy="SpotAsPriceGo",
    security_group_ids=[sg.id],
    ram_role_name=role.role_name,
    http_tokens="required",
    password_inherit=broken == "password_inherit",
    internet_max_bandwidth_out=5 if broken == "public_ip" else 0,
    system_disk=alicloud.ecs.EcsLaunchTemplateSystemDiskArgs(
        category="cloud_essd", size=120, encrypted=broken != "disk_plain", kms_key_id=key.id
    ),
    user_data=base64.b64encode(boot.encode()).decode(),
    tags=tags,
    opts=opts,
)
group = alicloud.ess.ScalingGroup(
    "infer-pool",
    scaling_group_name="infer-pool",
    min_size=0,
    max_size=6,
    default_cooldown=300,
    vswitch_ids=[v.id for v in vswitches],
    launch_template_id=template.id,
    launch_template_overrides=[
        alicloud.ess.ScalingGroupLaunchTemplateOverrideArgs(instance_type=t)
        for t in ("ecs.gn7i-c8g1.2xlarge", "ecs.gn6i-c4g1.xlarge")
    ],
    multi_az_policy="COST_OPTIMIZED",
    on_demand_base_capacity=0,
    on_demand_percentage_above_base_capacity=50 if broken == "mixed_spot" else 0,
    spot_instance_pools=2,
    tags=tags,
    opts=opts,
)
grow = alicloud.ess.ScalingRule(
    "grow",
    scaling_group_id=group.id,
    adjustment_type="QuantityChangeInCapacity",
    adjustment_value=1,
    cooldown=300,
    opts=opts,
)
shrink = alicloud.ess.ScalingRule(
    "shrink",
    scaling_group_id=group.id,
    adjustment_type="QuantityChangeInCapacity",
    adjustment_value=-1,
    cooldown=300,
    opts=opts,
)
for name, rule, op, threshold, count in (("busy", grow, ">=", "75", 5), ("idle", shrink, "<=", "20", 30)):
    alicloud.ess.Alarm(
        name,
        scaling_group_id=group.id,
        alarm_actions=[rule.ari],
        metric_type="system",
        metric_name="GpuUtilizationAgent",
        statistics="Average",
        comparison_operator=op,
        threshold=threshold,
        period=60,
        evaluation_count=count,
        opts=opts,
    )
contacts = alicloud.cms.AlarmContactGroup("oncall", alarm_contact_group_name="search-oncall", opts=opts)
alicloud.cms.Alarm(
    "backlog",
    name="search-backlog",
    project="acs_mns_new",
    metric="ActiveMessages",
    metric_dimensions=json.dumps(
        [{"queue": "other-team-requests" if broken == "queue_elsewhere" else "search-requests"}]
    ),
    period=300,
    escalations_critical=alicloud.cms.AlarmEscalationsCriticalArgs(
        statistics="Maximum", comparison_operator=">", threshold="0", times=1
    ),
    contact_groups=[contacts.alarm_contact_group_name],
    targets=[alicloud.cms.AlarmTargetArgs(target_id="1", arn=grow.ari)],
    tags=tags,
    opts=opts,
)
# Nights off: 21:00-07:00 Shanghai time is 13:00-23:00 UTC (ESS cron runs in UTC).
for name, cron, top in (("night", "0 13 * * *", 0), ("morning", "0 23 * * 0-4", 6)):
    alicloud.ess.ScheduledTask(
        name,
        scheduled_task_name=name,
        scaling_group_id=group.id,
        launch_time="2027-01-02T13:00Z",
        recurrence_type="Cron",
        recurrence_value=cron,
        recurrence_end_time="2027-11-30T00:00Z",
        min_value=0,
        max_value=top,
        opts=opts,
    )
alicloud.ecs.EcsSessionManagerStatus(
    "sessions", session_manager_status_name="sessionManagerStatus", status="Enabled", opts=opts
)
pulumi.export("group", group.id)

"""A production GPU pool on Tencent Cloud, written with the raw tencentcloud-iac-pulumi SDK.

AS has no spot/on-demand mix in one group, so the team runs two groups from two launch
configurations: two thirds on spot, the rest on demand. A CMQ queue holds the work; Cloud Monitor
alarm policies on the GPU utilisation (`cvm_device` `Gpuutil`) and on the queue (`QCE/CMQ`
`visibleMsgNum`) trigger both groups' scaling policies. The instances keep no login: a boot script
locks root (or, `break=image_login`, a hardened custom image keeps its own login settings).

The stack config `break` names one way people get a rule wrong.
"""

import base64
import json

import pulumi
import tencentcloud_iac_pulumi as tencentcloud
from pulumi import Output, ResourceOptions

config = pulumi.Config()
app_id = config.require("app_id")
broken = config.get("break") or ""
region = "ap-shanghai"
tags = {"project": "vision", "team": "ml-platform", "cost-center": "cc-042", "env": "prod"}
opts = ResourceOptions(provider=tencentcloud.Provider("shanghai", region=region))

vpc = tencentcloud.vpc.Instance("pool-vpc", name="pool-vpc", cidr_block="172.22.0.0/16", tags=tags, opts=opts)
subnets = [
    tencentcloud.subnet.Instance(
        f"pool-{zone}",
        name=f"pool-{zone}",
        vpc_id=vpc.id,
        availability_zone=f"ap-shanghai-{zone}",
        cidr_block=f"172.22.{zone}.0/24",
        tags=tags,
        opts=opts,
    )
    for zone in (4, 5)
]
sg = tencentcloud.security.Group("pool-sg", name="pool-sg", description="GPU pool", tags=tags, opts=opts)
tencentcloud.security.GroupRuleSet(
    "pool-sg-rules",
    security_group_id=sg.id,
    ingresses=[
        tencentcloud.security.GroupRuleSetIngressArgs(
            action="ACCEPT", cidr_block="172.22.0.0/16", protocol="TCP", port="29500-29510"
        )
    ],
    egresses=[
        tencentcloud.security.GroupRuleSetEgressArgs(
            action="ACCEPT", cidr_block="0.0.0.0/0", protocol="TCP", port="443"
        )
    ],
    opts=opts,
)
role = tencentcloud.cam.Role(
    "pool-role",
    name="pool-role",
    document=json.dumps(
        {
            "version": "2.0",
            "statement": [
                {
                    "action": ["name/sts:AssumeRole"],
                    "effect": "allow",
                    "principal": {"service": ["cvm.qcloud.com"]},
                }
            ],
        }
    ),
    console_login=False,
    tags=tags,
    opts=opts,
)
queue = tencentcloud.tcmq.Queue(
    "jobs", queue_name="vision-jobs", visibility_timeout=900, max_receive_count=5, opts=opts
)
tencentcloud.tat.Command(
    "gpu-health",
    command_name="gpu-health",
    content="nvidia-smi",
    command_type="SHELL",
    tags=[tencentcloud.tat.CommandTagArgs(key=k, value=v) for k, v in tags.items()],
    opts=opts,
)

LOCK = base64.b64encode(b"#!/bin/bash\npasswd -l root\nsystemctl disable --now sshd\n").decode()
groups = {}
for kind, size in (("spot", 6), ("ondemand", 3)):
    spot = kind == "spot"
    launch = tencentcloud.as_.ScalingConfig(
        f"gpu-{kind}",
        configuration_name=f"gpu-{kind}",
        image_id="img-hardened01" if broken == "image_login" else "img-9qabwvbn",
        instance_types=["GNV4.3XLARGE44"],
        cam_role_name=role.name,
        security_group_ids=[sg.id],
        system_disk_type="CLOUD_SSD",
        system_disk_size=100,
        instance_charge_type="SPOTPAID" if spot else "POSTPAID_BY_HOUR",
        spot_instance_type="one-time" if spot else None,
        spot_max_price="20" if spot else None,
        internet_max_bandwidth_out=0,
        public_ip_assigned=False,
        keep_image_login=True if broken == "image_login" else None,
        user_data=None if broken in ("image_login", "no_login_lock") else LOCK,
        enhanced_monitor_service=broken != "agent_off",
        enhanced_automation_tools_service=True,
        instance_tags=tags,
        tags=tags,
        opts=opts,
    )
    group = tencentcloud.as_.ScalingGroup(
        f"gpu-{kind}-group",
        scaling_group_name=f"gpu-{kind}",
        configuration_id=launch.id,
        min_size=0,
        max_size=size,
        default_cooldown=300,
        vpc_id=vpc.id,
        subnet_ids=[s.id for s in subnets],
        termination_policies="NEWEST_INSTANCE",
        tags=tags,
        opts=opts,
    )
    policies = {
        direction: tencentcloud.as_.ScalingPolicy(
            f"gpu-{kind}-scale-{direction}",
            scaling_group_id=group.id,
            policy_name=f"gpu-{kind}-scale-{direction}",
            adjustment_type="CHANGE_IN_CAPACITY",
            adjustment_value=1 if direction == "out" else -1,
            comparison_operator="GREATER_THAN" if direction == "out" else "LESS_THAN",
            metric_name="CPU_UTILIZATION",
            threshold=100 if direction == "out" else 0,
            period=60 if direction == "out" else 300,
            continuous_time=5 if direction == "out" else 6,
            statistic="AVERAGE",
            cooldown=300,
            opts=opts,
        )
        for direction in ("out", "in")
    }
    groups[kind] = (group, policies)


def tasks(direction: str) -> list[tencentcloud.monitor.AlarmPolicyTriggerTaskArgs]:
    return [
        tencentcloud.monitor.AlarmPolicyTriggerTaskArgs(
            type="AS",
            task_config=Output.all(group.id, policies[direction].id).apply(
                lambda ids: json.dumps({"Region": region, "Group": ids[0], "Policy": ids[1]})
            ),
        )
        for group, policies in groups.values()
    ]


queue_namespace = "QCE/CKAFKA" if broken == "queue_namespace" else "QCE/CMQ"
for name, namespace, metric, operator, value, period, periods, direction in (
    ("gpu-busy", "cvm_device", "Gpuutil", "gt", "70", 60, 5, "out"),
    ("jobs-waiting", queue_namespace, "visibleMsgNum", "gt", "0", 300, 1, "out"),
    ("gpu-idle", "cvm_device", "Gpuutil", "lt", "30", 60, 30, "in"),
):
    tencentcloud.monitor.AlarmPolicy(
        name,
        policy_name=name,
        monitor_type="MT_QCE",
        namespace=namespace,
        enable=1,
        conditions=tencentcloud.monitor.AlarmPolicyConditionsArgs(
            is_union_rule=0,
            rules=[
                tencentcloud.monitor.AlarmPolicyConditionsRuleArgs(
                    metric_name=metric, period=period, operator=operator, value=value, continue_period=periods
                )
            ],
        ),
        trigger_tasks=tasks(direction),
        opts=opts.merge(ResourceOptions(depends_on=[queue])),
    )

tencentcloud.billing.Budget(
    "pool-budget",
    budget_name="vision-prod-gpu",
    cycle_type="MONTH",
    period_begin="2026-01",
    period_end="2027-12",
    plan_type="FIX",
    budget_quota="50000.00",
    bill_type="BILL",
    fee_type="REAL_COST",
    warn_jsons=[
        tencentcloud.billing.BudgetWarnJsonArgs(
            warn_type="ACTUAL", cal_type="PERCENTAGE", threshold_value="80"
        )
    ],
    opts=opts,
)

pulumi.export("groups", [g.id for g, _ in groups.values()])

"""GPU burst capacity on Tencent Cloud, written with the raw tencentcloud-iac-pulumi SDK.

A VPC with a private subnet, a security group open to the on-prem range only, a KMS key and an
external (BYOK) key, encrypted COS checkpoint buckets, a CAM role for the GPU nodes, an all-spot AS
group of GPU instances scaled by Cloud Monitor GPU alarms with off-hours schedules, CloudAudit into a
CLS topic, an IPsec connection to the data centre, TAT for shell access and a billing budget.

The stack config `break` names one way people get a rule wrong; the program then writes that
mistake instead of the compliant setting.
"""

import base64
import json

import pulumi
import tencentcloud_iac_pulumi as tencentcloud
from pulumi import Output, ResourceOptions

config = pulumi.Config()
env = config.require("env")
onprem_cidr = config.require("onprem_cidr")
app_id = config.require("app_id")
broken = config.get("break") or ""

tags = {"project": "vision", "team": "ml-platform", "cost-center": "cc-042", "env": env}
region = "ap-guangzhou"

provider = tencentcloud.Provider("guangzhou", region=region)
opts = ResourceOptions(provider=provider)

vpc = tencentcloud.vpc.Instance(
    "gpu-vpc",
    name="gpu-vpc",
    cidr_block="10.0.0.0/8" if broken == "cidr_overlap" else "172.20.0.0/16",
    tags=tags,
    opts=opts,
)
subnet = tencentcloud.subnet.Instance(
    "gpu-private-3",
    name="gpu-private-3",
    vpc_id=vpc.id,
    availability_zone="ap-guangzhou-3",
    cidr_block="10.1.0.0/24" if broken == "cidr_overlap" else "172.20.1.0/24",
    tags=tags,
    opts=opts,
)

sg = tencentcloud.security.Group(
    "gpu-sg", name="gpu-nodes", description="GPU burst nodes", tags=tags, opts=opts
)
if broken == "lite_rule_ssh":
    # 0.2.3 still ships the lite-rule module but no longer exports it from `security`.
    from tencentcloud_iac_pulumi.security.group_lite_rule import GroupLiteRule

    GroupLiteRule(
        "gpu-sg-lite",
        security_group_id=sg.id,
        ingresses=["ACCEPT#0.0.0.0/0#22#TCP", f"ACCEPT#{onprem_cidr}#29500-29510#TCP"],
        egresses=["ACCEPT#0.0.0.0/0#ALL#ALL"],
        opts=opts,
    )
else:
    tencentcloud.security.GroupRuleSet(
        "gpu-sg-rules",
        security_group_id=sg.id,
        ingresses=[
            tencentcloud.security.GroupRuleSetIngressArgs(
                action="ACCEPT",
                cidr_block="0.0.0.0/0" if broken == "ssh_open" else onprem_cidr,
                protocol="TCP",
                port="ALL" if broken == "ssh_open" else "29500-29510",
                description="NCCL from the data centre",
            )
        ],
        egresses=[
            tencentcloud.security.GroupRuleSetEgressArgs(
                action="ACCEPT", cidr_block="0.0.0.0/0", protocol="ALL", port="ALL", description="egress"
            )
        ],
        opts=opts,
    )

checkpoint_key = tencentcloud.kms.Key(
    "checkpoint-key",
    alias="vision-checkpoints",
    description="checkpoint encryption",
    key_usage="ENCRYPT_DECRYPT",
    is_enabled=True,
    key_rotation_enabled=broken != "key_rotation",
    pending_delete_window_in_days=7,
    tags=tags,
    opts=opts,
)
if broken == "byok_generated":
    byok_key = tencentcloud.kms.Key(
        "restricted-key",
        alias="vision-restricted",
        is_enabled=True,
        key_rotation_enabled=True,
        tags=tags,
        opts=opts,
    )
else:
    byok_key = tencentcloud.kms.ExternalKey(
        "restricted-key",
        alias="vision-restricted",
        description="restricted datasets; material from the HSM",
        wrapping_algorithm="RSAES_OAEP_SHA_256",
        key_material_base64=config.get_secret("byok_material") or "bWF0ZXJpYWwtZnJvbS10aGUtaHNt",
        valid_to=0,
        is_enabled=True,
        tags=tags,
        opts=opts,
    )


def tls_only_policy(bucket: str) -> str:
    return json.dumps(
        {
            "version": "2.0",
            "Statement": [
                {
                    "Principal": {"qcs": ["qcs::cam::anyone:anyone"]},
                    "Effect": "Deny",
                    "Action": ["name/cos:*"],
                    "Resource": [f"qcs::cos:{region}:uid/{app_id}:{bucket}/*"],
                    "Condition": {"bool_equal": {"cos:secure-transport": "false"}},
                }
            ],
        }
    )


checkpoints = tencentcloud.cos.Bucket(
    "checkpoints",
    bucket=f"vision-ckpt-{app_id}",
    acl="public-read" if broken == "cos_public_read" else "private",
    encryption_algorithm=None if broken == "cos_unencrypted" else "KMS",
    kms_id=None if broken == "cos_unencrypted" else checkpoint_key.id,
    versioning_enable=broken != "versioning_off",
    lifecycle_rules=[
        tencentcloud.cos.BucketLifecycleRuleArgs(
            id="checkpoints",
            filter_prefix="",
            transitions=(
                [tencentcloud.cos.BucketLifecycleRuleTransitionArgs(days=7, storage_class="ARCHIVE")]
                if broken == "archive_before_expiry"
                else None
            ),
            expiration=tencentcloud.cos.BucketLifecycleRuleExpirationArgs(days=30),
            abort_incomplete_multipart_upload=(
                None
                if broken == "no_abort"
                else tencentcloud.cos.BucketLifecycleRuleAbortIncompleteMultipartUploadArgs(
                    days_after_initiation=1
                )
            ),
            non_current_expiration=tencentcloud.cos.BucketLifecycleRuleNonCurrentExpirationArgs(
                non_current_days=7
            ),
        )
    ],
    tags={**tags, "purpose": "checkpoints"},
    opts=opts,
)
if broken != "no_tls_policy":
    tencentcloud.cos.BucketPolicy(
        "checkpoints-tls",
        bucket=checkpoints.bucket,
        policy=checkpoints.bucket.apply(tls_only_policy),
        opts=opts,
    )

datasets = tencentcloud.cos.Bucket(
    "datasets",
    bucket=f"vision-rstr-{app_id}",
    acl="private",
    encryption_algorithm="KMS",
    kms_id=byok_key.id,
    versioning_enable=True,
    tags={**tags, "data-classification": "restricted"},
    opts=opts,
)
tencentcloud.cos.BucketPolicy(
    "datasets-tls",
    bucket=datasets.bucket,
    policy=Output.all(datasets.bucket, byok_key.id).apply(lambda args: tls_only_policy(args[0])),
    opts=opts,
)

# --- identity ---------------------------------------------------------------------------------

role = tencentcloud.cam.Role(
    "gpu-node-role",
    name="gpu-node-role",
    document=json.dumps(
        {
            "version": "2.0",
            "statement": [
                {
                    "action": ["name/sts:AssumeRole"],
                    "effect": "allow",
                    "principal": {"qcs": ["qcs::cam::anyone:anyone"]}
                    if broken == "trust_any"
                    else {"service": ["cvm.qcloud.com"]},
                }
            ],
        }
    ),
    description="GPU burst nodes",
    console_login=False,
    tags=tags,
    opts=opts,
)
node_policy = tencentcloud.cam.Policy(
    "gpu-node-policy",
    name="gpu-node-checkpoints",
    document=Output.all(checkpoints.bucket, datasets.bucket).apply(
        lambda names: json.dumps(
            {
                "version": "2.0",
                "statement": [
                    {
                        "effect": "allow",
                        "action": ["cos:*"]
                        if broken == "cam_service_star"
                        else ["name/cos:GetObject", "name/cos:PutObject"],
                        "resource": [f"qcs::cos:{region}:uid/{app_id}:{name}/*" for name in names],
                    },
                    {
                        "effect": "allow",
                        # Nodes only look instances up; `instance/*` would let them terminate every
                        # instance of the region.
                        "action": ["name/cvm:TerminateInstances", "name/cvm:RunInstances"]
                        if broken == "cvm_unscoped"
                        else ["name/cvm:DescribeInstances"],
                        "resource": ["*"],
                    },
                ],
            }
        )
    ),
    description="checkpoint read/write",
    opts=opts,
)
tencentcloud.cam.RolePolicyAttachment(
    "gpu-node-policy-attach", role_id=role.id, policy_id=node_policy.id, opts=opts
)
if broken == "admin_policy":
    tencentcloud.cam.RolePolicyAttachmentByName(
        "gpu-node-cos-full", role_name=role.name, policy_name="QcloudCOSFullAccess", opts=opts
    )

# --- GPU pool ---------------------------------------------------------------------------------

launch = tencentcloud.as_.ScalingConfig(
    "gpu-launch",
    configuration_name="gpu-t4",
    image_id="img-9qabwvbn",
    instance_types=["GN7.2XLARGE32"],
    project_id=0,
    cam_role_name=role.name,
    security_group_ids=[sg.id],
    system_disk_type="CLOUD_BASIC" if broken == "legacy_disk" else "CLOUD_SSD",
    system_disk_size=100,
    instance_charge_type="POSTPAID_BY_HOUR" if broken == "on_demand" else "SPOTPAID",
    spot_instance_type=None if broken == "on_demand" else "one-time",
    spot_max_price=None if broken == "on_demand" else "10",
    internet_charge_type="TRAFFIC_POSTPAID_BY_HOUR",
    internet_max_bandwidth_out=10 if broken == "public_ip" else 0,
    public_ip_assigned=broken == "public_ip",
    password="Sup3r-Secret!" if broken == "password" else None,
    key_ids=["skey-abc123"] if broken == "key_ids" else None,
    enhanced_security_service=True,
    enhanced_monitor_service=True,
    enhanced_automation_tools_service=broken != "tat_disabled",
    # Given neither key nor password, CVM sets a random root password: the boot script locks it, or
    # a hardened custom image keeps its own login settings.
    user_data=None
    if broken in ("no_login_lock", "image_login")
    else base64.b64encode(b"#!/bin/bash\npasswd -l root\nsystemctl disable --now sshd\n").decode(),
    keep_image_login=True if broken == "image_login" else None,
    instance_tags=tags,
    tags=tags,
    opts=opts,
)
group = tencentcloud.as_.ScalingGroup(
    "gpu-pool",
    scaling_group_name="gpu-pool",
    configuration_id=launch.id,
    max_size=8,
    min_size=0,
    default_cooldown=60 if broken == "short_cooldown" else 300,
    vpc_id=vpc.id,
    subnet_ids=[subnet.id],
    termination_policies="NEWEST_INSTANCE",
    retry_policy="INCREMENTAL_INTERVALS",
    tags=tags,
    opts=opts,
)
scale_out = tencentcloud.as_.ScalingPolicy(
    "gpu-scale-out",
    scaling_group_id=group.id,
    policy_name="gpu-scale-out",
    adjustment_type="CHANGE_IN_CAPACITY",
    adjustment_value=1,
    comparison_operator="GREATER_THAN",
    metric_name="CPU_UTILIZATION",
    threshold=70,
    period=300,
    continuous_time=1,
    statistic="AVERAGE",
    cooldown=None if broken == "short_cooldown" else 300,
    opts=opts,
)
# A pool with no way down but by hand: no idle scale-in and no schedule.
idle_scale_in = broken != "no_off_hours"
scale_in = None
if idle_scale_in:
    scale_in = tencentcloud.as_.ScalingPolicy(
        "gpu-scale-in",
        scaling_group_id=group.id,
        policy_name="gpu-scale-in",
        adjustment_type="CHANGE_IN_CAPACITY",
        adjustment_value=-1,
        comparison_operator="LESS_THAN",
        metric_name="CPU_UTILIZATION",
        threshold=30,
        period=300,
        continuous_time=6,
        statistic="AVERAGE",
        cooldown=None if broken == "short_cooldown" else 300,
        opts=opts,
    )


def as_task(group_id: str, policy_id: str) -> str:
    return json.dumps({"Region": region, "Group": group_id, "Policy": policy_id})


alarms = [("gpu-busy", "gt", "70", 5, scale_out), ("gpu-idle", "lt", "30", 30, scale_in)]
for name, operator, value, periods, policy in alarms if idle_scale_in else alarms[:1]:
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
                    metric_name="GpuUtil",
                    period=60,
                    operator=operator,
                    value=value,
                    continue_period=periods,
                    notice_frequency=0,
                    is_power_notice=0,
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

if broken != "no_off_hours":
    # Recurrences are cron lines in the group's region time (UTC+8).
    tencentcloud.as_.Schedule(
        "nightly-zero",
        scaling_group_id=group.id,
        schedule_action_name="nightly-zero",
        max_size=0,
        min_size=0,
        desired_capacity=0,
        start_time="2030-01-01T20:00:00+08:00",
        end_time="2031-01-01T00:00:00+08:00",
        recurrence="0 20 * * *",
        opts=opts,
    )
    tencentcloud.as_.Schedule(
        "workday-restore",
        scaling_group_id=group.id,
        schedule_action_name="workday-restore",
        max_size=8,
        min_size=0,
        desired_capacity=0,
        start_time="2030-01-01T08:00:00+08:00",
        end_time="2031-01-01T00:00:00+08:00",
        recurrence="0 8 * * 1-5",
        opts=opts,
    )

if broken != "no_tat":
    tencentcloud.tat.Command(
        "nvidia-smi",
        command_name="nvidia-smi",
        command_type="SHELL",
        content="nvidia-smi --query-gpu=utilization.gpu --format=csv",
        description="GPU health check",
        timeout=60,
        username="root",
        working_directory="/root",
        tags=[{"key": k, "value": v} for k, v in tags.items()],
        opts=opts,
    )

# --- audit, hybrid link, budget -----------------------------------------------------------------

logset = tencentcloud.cls.Logset("audit-logset", logset_name="cloudaudit", tags=tags, opts=opts)
topic = tencentcloud.cls.Topic(
    "audit-topic",
    topic_name="cloudaudit",
    logset_id=logset.id,
    auto_split=True,
    max_split_partitions=10,
    partition_count=1,
    period=30 if broken == "short_retention" else 180,
    storage_type="hot",
    tags=tags,
    opts=opts,
)
if broken != "no_trail":
    tencentcloud.audit.Track(
        "vision-track",
        name="vision-track",
        action_type="*",
        event_names=["*"],
        resource_type="*",
        status=1,
        track_for_all_members=0,
        storage=tencentcloud.audit.TrackStorageArgs(
            storage_name=topic.id, storage_prefix="cloudaudit", storage_region=region, storage_type="cls"
        ),
        opts=opts,
    )

vpn_gateway = tencentcloud.vpn.Gateway(
    "onprem-vpn", name="onprem-vpn", vpc_id=vpc.id, bandwidth=100, zone="ap-guangzhou-3", tags=tags, opts=opts
)
customer_gateway = tencentcloud.vpn.CustomerGateway(
    "datacentre", name="datacentre", public_ip_address="203.0.113.10", tags=tags, opts=opts
)
weak = broken == "weak_ike"
tencentcloud.vpn.Connection(
    "onprem-link",
    name="onprem-link",
    vpc_id=vpc.id,
    vpn_gateway_id=vpn_gateway.id,
    customer_gateway_id=customer_gateway.id,
    pre_share_key=config.get_secret("psk") or "from-the-secret-store",
    ike_version="IKEV2",
    ike_proto_encry_algorithm="3DES-CBC" if weak else "AES-CBC-256",
    ike_proto_authen_algorithm="MD5" if weak else "SHA-256",
    ike_dh_group_name="GROUP2" if weak else "GROUP14",
    ike_exchange_mode="MAIN",
    ike_local_identity="ADDRESS",
    ike_remote_identity="ADDRESS",
    ike_remote_address="203.0.113.10",
    ipsec_encrypt_algorithm="AES-CBC-256",
    ipsec_integrity_algorithm="SHA-256",
    ipsec_pfs_dh_group="DH-GROUP14",
    ipsec_sa_lifetime_seconds=3600,
    security_group_policies=[
        tencentcloud.vpn.ConnectionSecurityGroupPolicyArgs(
            local_cidr_block="172.20.0.0/16", remote_cidr_blocks=[onprem_cidr]
        )
    ],
    tags=tags,
    opts=opts,
)

if broken != "no_budget":
    tencentcloud.billing.Budget(
        "monthly-budget",
        budget_name="vision-dev",
        cycle_type="MONTH",
        period_begin="2025-01",
        period_end="2026-12",
        plan_type="FIX",
        budget_quota="20000.00",
        bill_type="BILL",
        fee_type="REAL_COST",
        warn_jsons=[
            tencentcloud.billing.BudgetWarnJsonArgs(
                warn_type="ACTUAL",
                cal_type="PERCENTAGE",
                threshold_value="95" if broken == "late_alert" else "80",
            )
        ],
        opts=opts,
    )

pulumi.export("scaling_group_id", group.id)
pulumi.export("checkpoint_bucket", checkpoints.bucket)

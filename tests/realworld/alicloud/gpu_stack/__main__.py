"""GPU burst capacity on Alibaba Cloud, written with the raw pulumi-alicloud SDK.

A platform team's program: a VPC with a private vswitch, a security group that admits the on-prem
range only, a KMS key and an EXTERNAL-origin key for restricted data, encrypted checkpoint buckets,
a RAM role for the GPU nodes, an ESS spot scaling group of GPU instances scaled on GPU utilisation
with off-hours scheduled tasks, ActionTrail into a log store, an IPsec connection to the data centre
and Cloud Assistant session manager.

The stack config `break` names one way people get a rule wrong; the program then writes that
mistake instead of the compliant setting, so each rule is checked against a realistic program.
"""

import json

import pulumi
import pulumi_alicloud as alicloud
from pulumi import Output, ResourceOptions

config = pulumi.Config()
env = config.require("env")
onprem_cidr = config.require("onprem_cidr")
broken = config.get("break") or ""

tags = {"project": "vision", "team": "ml-platform", "cost-center": "cc-042", "env": env}

provider = alicloud.Provider("hangzhou", region="cn-hangzhou")
opts = ResourceOptions(provider=provider)

vpc = alicloud.vpc.Network(
    "gpu-vpc",
    vpc_name="gpu-vpc",
    cidr_block="10.0.0.0/8" if broken == "cidr_overlap" else "172.16.0.0/16",
    tags=tags,
    opts=opts,
)
vswitch = alicloud.vpc.Switch(
    "gpu-private-a",
    vpc_id=vpc.id,
    cidr_block="10.1.0.0/24" if broken == "cidr_overlap" else "172.16.1.0/24",
    zone_id="cn-hangzhou-i",
    vswitch_name="gpu-private-a",
    tags=tags,
    opts=opts,
)

sg = alicloud.ecs.SecurityGroup(
    "gpu-sg",
    security_group_name="gpu-nodes",
    vpc_id=vpc.id,
    description="GPU burst nodes",
    tags=tags,
    opts=opts,
)
alicloud.ecs.SecurityGroupRule(
    "allow-nccl-from-onprem",
    type="ingress",
    ip_protocol="tcp",
    nic_type="intranet",
    policy="accept",
    port_range="1/65535" if broken == "ssh_open" else "29500/29510",
    priority=1,
    security_group_id=sg.id,
    cidr_ip="0.0.0.0/0" if broken == "ssh_open" else onprem_cidr,
    opts=opts,
)
alicloud.ecs.SecurityGroupRule(
    "allow-all-egress",
    type="egress",
    ip_protocol="all",
    policy="accept",
    port_range="-1/-1",
    security_group_id=sg.id,
    cidr_ip="0.0.0.0/0",
    opts=opts,
)

checkpoint_key = alicloud.kms.Key(
    "checkpoint-key",
    description="checkpoint encryption",
    pending_window_in_days=7,
    automatic_rotation="Disabled" if broken == "key_rotation" else "Enabled",
    rotation_interval="365d",
    tags=tags,
    opts=opts,
)
byok_key = alicloud.kms.Key(
    "restricted-key",
    description="restricted datasets; material imported from the HSM",
    origin="Aliyun_KMS" if broken == "byok_origin" else "EXTERNAL",
    automatic_rotation="Enabled" if broken == "byok_origin" else None,
    pending_window_in_days=7,
    tags=tags,
    opts=opts,
)


def bucket_policy(bucket_name: str) -> str:
    return json.dumps(
        {
            "Version": "1",
            "Statement": [
                {
                    "Effect": "Deny",
                    "Principal": ["*"],
                    "Action": ["oss:*"],
                    "Resource": [f"acs:oss:*:*:{bucket_name}", f"acs:oss:*:*:{bucket_name}/*"],
                    "Condition": {"Bool": {"acs:SecureTransport": ["false"]}},
                }
            ],
        }
    )


checkpoint_lifecycle = [
    alicloud.oss.BucketLifecycleRuleArgs(
        id="checkpoints",
        enabled=True,
        prefix="",
        # IA bills its 30-day minimum from the object's creation, so a move at day 7 costs nothing past the
        # 30-day expiry; Archive bills 60 days from creation, past it.
        transitions=[
            alicloud.oss.BucketLifecycleRuleTransitionArgs(
                days=7, storage_class="Archive" if broken == "archive_before_expiry" else "IA"
            )
        ],
        expirations=[
            alicloud.oss.BucketLifecycleRuleExpirationArgs(days=90 if broken == "long_expiry" else 30)
        ],
        abort_multipart_uploads=[alicloud.oss.BucketLifecycleRuleAbortMultipartUploadArgs(days=1)],
        noncurrent_version_expirations=[
            alicloud.oss.BucketLifecycleRuleNoncurrentVersionExpirationArgs(days=7)
        ],
    )
]

# The checkpoint bucket uses the separate OSS resources (the inline fields are deprecated).
checkpoints = alicloud.oss.Bucket(
    "checkpoints",
    bucket="vision-dev-checkpoints",
    lifecycle_rules=checkpoint_lifecycle,
    tags={**tags, "purpose": "checkpoints"},
    opts=opts,
)
alicloud.oss.BucketServerSideEncryption(
    "checkpoints-sse",
    bucket=checkpoints.bucket,
    sse_algorithm="AES256" if broken == "oss_sse_aes" else "KMS",
    kms_master_key_id=None if broken == "oss_sse_aes" else checkpoint_key.id,
    opts=opts,
)
alicloud.oss.BucketAcl(
    "checkpoints-acl",
    bucket=checkpoints.bucket,
    acl="public-read" if broken == "oss_public_read" else "private",
    opts=opts,
)
alicloud.oss.BucketPublicAccessBlock(
    "checkpoints-pab", bucket=checkpoints.bucket, block_public_access=True, opts=opts
)
alicloud.oss.BucketHttpsConfig(
    "checkpoints-https",
    bucket=checkpoints.bucket,
    enable=True,
    tls_versions=["TLSv1.1", "TLSv1.2", "TLSv1.3"] if broken == "tls11" else ["TLSv1.2", "TLSv1.3"],
    opts=opts,
)
if broken != "no_tls_policy":
    alicloud.oss.BucketPolicy(
        "checkpoints-tls",
        bucket=checkpoints.bucket,
        policy=checkpoints.bucket.apply(bucket_policy),
        opts=opts,
    )
alicloud.oss.BucketVersioning(
    "checkpoints-versioning",
    bucket=checkpoints.bucket,
    status="Suspended" if broken == "versioning_off" else "Enabled",
    opts=opts,
)

# Restricted datasets: the older inline style (deprecated but common), BYOK key, policy built
# from outputs with Output.all.
datasets = alicloud.oss.Bucket(
    "datasets",
    bucket="vision-dev-restricted",
    acl="private",
    server_side_encryption_rule={"sse_algorithm": "KMS", "kms_master_key_id": byok_key.id},
    versioning={"status": "Enabled"},
    tags={**tags, "data-classification": "restricted"},
    opts=opts,
)
alicloud.oss.BucketPublicAccessBlock(
    "datasets-pab", bucket=datasets.bucket, block_public_access=True, opts=opts
)
alicloud.oss.BucketHttpsConfig(
    "datasets-https", bucket=datasets.bucket, enable=True, tls_versions=["TLSv1.2"], opts=opts
)
alicloud.oss.BucketPolicy(
    "datasets-tls",
    bucket=datasets.bucket,
    policy=Output.all(datasets.bucket, byok_key.id).apply(lambda args: bucket_policy(args[0])),
    opts=opts,
)

# --- identity ---------------------------------------------------------------------------------

role = alicloud.ram.Role(
    "gpu-node-role",
    role_name="gpu-node-role",
    assume_role_policy_document=json.dumps(
        {
            "Version": "1",
            "Statement": [
                {
                    "Action": "sts:AssumeRole",
                    "Effect": "Allow",
                    "Principal": {"RAM": ["*"]}
                    if broken == "trust_any"
                    else {"Service": ["ecs.aliyuncs.com"]},
                }
            ],
        }
    ),
    description="GPU burst nodes read datasets and write checkpoints",
    tags=tags,
    opts=opts,
)
node_policy = alicloud.ram.Policy(
    "gpu-node-policy",
    policy_name="gpu-node-checkpoints",
    policy_document=Output.all(checkpoints.bucket, datasets.bucket, checkpoint_key.id, byok_key.id).apply(
        lambda names: json.dumps(
            {
                "Version": "1",
                "Statement": [
                    {
                        "Effect": "Allow",
                        "Action": "*"
                        if broken == "ram_star"
                        else ["oss:GetObject", "oss:PutObject", "oss:ListObjects"],
                        "Resource": [f"acs:oss:*:*:{names[0]}/*", f"acs:oss:*:*:{names[1]}/*"],
                    },
                    {
                        "Effect": "Allow",
                        "Action": ["kms:Decrypt", "kms:GenerateDataKey"],
                        # The two keys of this program, not every key of the region.
                        "Resource": "*"
                        if broken == "kms_unscoped"
                        else [f"acs:kms:cn-hangzhou:*:key/{key_id}" for key_id in names[2:]],
                    },
                ],
            }
        )
    ),
    description="checkpoint read/write",
    tags=tags,
    opts=opts,
)
alicloud.ram.RolePolicyAttachment(
    "gpu-node-policy-attach",
    role_name=role.role_name,
    policy_name=node_policy.policy_name,
    policy_type="Custom",
    opts=opts,
)
if broken == "admin_policy":
    alicloud.ram.RolePolicyAttachment(
        "gpu-node-admin",
        role_name=role.role_name,
        policy_name="AdministratorAccess",
        policy_type="System",
        opts=opts,
    )
if broken == "access_key":
    ci_user = alicloud.ram.User("ci", name="ci-deployer", opts=opts)
    alicloud.ram.AccessKey("ci-key", user_name=ci_user.name, opts=opts)

# --- GPU pool ---------------------------------------------------------------------------------

group = alicloud.ess.ScalingGroup(
    "gpu-pool",
    scaling_group_name="gpu-pool",
    min_size=0,
    max_size=8,
    default_cooldown=60 if broken == "short_cooldown" else 300,
    vswitch_ids=[vswitch.id],
    multi_az_policy="COST_OPTIMIZED",
    on_demand_base_capacity=2 if broken == "on_demand_mix" else 0,
    on_demand_percentage_above_base_capacity=50 if broken == "on_demand_mix" else 0,
    spot_instance_pools=2,
    spot_instance_remedy=True,
    removal_policies=["NewestInstance"],
    tags=tags,
    opts=opts,
)
alicloud.ess.ScalingConfiguration(
    "gpu-pool-config",
    scaling_group_id=group.id,
    scaling_configuration_name="gpu-a10",
    image_id="ubuntu_22_04_x64_20G_alibase_20240130.vhd",
    instance_type="ecs.gn7i-c8g1.2xlarge",
    security_group_ids=[sg.id],
    role_name=role.role_name,
    spot_strategy="SpotAsPriceGo",
    system_disk_category="cloud_essd",
    system_disk_size=100,
    system_disk_encrypted=broken != "disk_unencrypted",
    system_disk_kms_key_id=checkpoint_key.id,
    data_disks=[
        alicloud.ess.ScalingConfigurationDataDiskArgs(
            size=500,
            category="cloud_efficiency" if broken == "legacy_disk" else "cloud_essd",
            encrypted=True,
            kms_key_id=checkpoint_key.id,
            delete_with_instance=True,
        )
    ],
    internet_max_bandwidth_out=10 if broken == "public_ip" else 0,
    password="Sup3r-Secret!" if broken == "password" else None,
    key_name="ops-keypair" if broken == "key_pair" else None,
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
    cooldown=None if broken == "short_cooldown" else 300,
    opts=opts,
)
scale_in = alicloud.ess.ScalingRule(
    "gpu-scale-in",
    scaling_group_id=group.id,
    scaling_rule_name="gpu-scale-in",
    adjustment_type="QuantityChangeInCapacity",
    adjustment_value=-1,
    cooldown=None if broken == "short_cooldown" else 300,
    opts=opts,
)
alicloud.ess.Alarm(
    "gpu-busy",
    scaling_group_id=group.id,
    alarm_actions=[scale_out.ari],
    metric_type="system",
    metric_name="GpuUtilizationAgent",
    statistics="Average",
    comparison_operator=">=",
    threshold="70",
    period=60,
    evaluation_count=5,
    opts=opts,
)
if broken != "no_off_hours":
    # Idle scale-in; together with the scheduled tasks below it is how a dev pool gets back to zero.
    alicloud.ess.Alarm(
        "gpu-idle",
        scaling_group_id=group.id,
        alarm_actions=[scale_in.ari],
        metric_type="system",
        metric_name="GpuUtilizationAgent",
        statistics="Average",
        comparison_operator="<=",
        threshold="80" if broken == "thresholds_inverted" else "30",
        period=60,
        evaluation_count=30,
        opts=opts,
    )
if broken != "no_off_hours":
    # Cron tasks run in UTC: 12:00 UTC is 20:00 in Shanghai, 00:00 UTC is 08:00.
    alicloud.ess.ScheduledTask(
        "nightly-zero",
        scheduled_task_name="nightly-zero",
        scaling_group_id=group.id,
        launch_time="2030-01-01T12:00Z",
        recurrence_type="Cron",
        recurrence_value="0 12 * * *",
        recurrence_end_time="2031-01-01T00:00Z",
        min_value=0,
        max_value=0,
        opts=opts,
    )
    alicloud.ess.ScheduledTask(
        "morning-restore",
        scheduled_task_name="morning-restore",
        scaling_group_id=group.id,
        launch_time="2030-01-01T00:00Z",
        recurrence_type="Cron",
        recurrence_value="0 0 * * 1-5",
        recurrence_end_time="2031-01-01T00:00Z",
        min_value=0,
        max_value=8,
        opts=opts,
    )

# --- audit ------------------------------------------------------------------------------------

audit_project = alicloud.log.Project(
    "audit-project", project_name="vision-dev-audit", description="ActionTrail", tags=tags, opts=opts
)
alicloud.log.Store(
    "actiontrail-store",
    project_name=audit_project.project_name,
    logstore_name="actiontrail_vision-trail",
    retention_period=30 if broken == "short_retention" else 180,
    shard_count=2,
    auto_split=True,
    max_split_shard_count=8,
    opts=opts,
)
trail_role = alicloud.ram.Role(
    "actiontrail-role",
    role_name="actiontrail-sls-writer",
    assume_role_policy_document=json.dumps(
        {
            "Version": "1",
            "Statement": [
                {
                    "Action": "sts:AssumeRole",
                    "Effect": "Allow",
                    "Principal": {"Service": ["actiontrail.aliyuncs.com"]},
                }
            ],
        }
    ),
    tags=tags,
    opts=opts,
)
alicloud.ram.RolePolicyAttachment(
    "actiontrail-role-attach",
    role_name=trail_role.role_name,
    policy_name="AliyunActionTrailRolePolicy",
    policy_type="System",
    opts=opts,
)
if broken != "no_trail":
    alicloud.actiontrail.Trail(
        "vision-trail",
        trail_name="vision-trail",
        event_rw="All",
        trail_region="All",
        sls_project_arn=audit_project.project_name.apply(
            lambda p: f"acs:log:cn-hangzhou:1234567890:project/{p}"
        ),
        sls_write_role_arn=trail_role.arn,
        status="Enable",
        opts=opts,
    )

# --- hybrid link and session manager ----------------------------------------------------------

vpn_gateway = alicloud.vpn.Gateway(
    "onprem-vpn",
    vpn_gateway_name="onprem-vpn",
    vpc_id=vpc.id,
    vswitch_id=vswitch.id,
    bandwidth=100,
    enable_ipsec=True,
    payment_type="Subscription",
    tags=tags,
    opts=opts,
)
customer_gateway = alicloud.vpn.CustomerGateway(
    "datacentre", customer_gateway_name="datacentre", ip_address="203.0.113.10", tags=tags, opts=opts
)
weak = broken == "weak_ike"
alicloud.vpn.Connection(
    "onprem-link",
    vpn_connection_name="onprem-link",
    vpn_gateway_id=vpn_gateway.id,
    customer_gateway_id=customer_gateway.id,
    local_subnets=["172.16.0.0/16"],
    remote_subnets=[onprem_cidr],
    effect_immediately=True,
    ike_config=alicloud.vpn.ConnectionIkeConfigArgs(
        ike_version="ikev1" if weak else "ikev2",
        ike_mode="main",
        ike_enc_alg="aes256",
        ike_auth_alg="md5" if weak else "sha256",
        ike_pfs="group2" if weak else "group14",
        ike_lifetime=86400,
        psk=config.get_secret("psk") or "from-the-secret-store",
    ),
    ipsec_config=alicloud.vpn.ConnectionIpsecConfigArgs(
        ipsec_enc_alg="aes256",
        ipsec_auth_alg="sha256",
        ipsec_pfs="group14",
        ipsec_lifetime=86400,
    ),
    tags=tags,
    opts=opts,
)

if broken != "no_session_manager":
    alicloud.ecs.EcsSessionManagerStatus(
        "session-manager", session_manager_status_name="sessionManagerStatus", status="Enabled", opts=opts
    )

pulumi.export("scaling_group_id", group.id)
pulumi.export("checkpoint_bucket", checkpoints.bucket)

"""An ordinary CPU web server on Alibaba Cloud: VPC, vswitch, HTTPS security group, one ECS instance
(general-purpose ecs.g7, no GPU), an encrypted OSS bucket for static assets, a RAM role for the
instance, ActionTrail into a log store. No GPU anywhere."""

import json

import pulumi
import pulumi_alicloud as alicloud
from pulumi import ResourceOptions

TAGS = {"project": "shop", "team": "web", "cost-center": "cc-100", "env": "prod"}
provider = alicloud.Provider("shanghai", region="cn-shanghai")
opts = ResourceOptions(provider=provider)

vpc = alicloud.vpc.Network("shop", vpc_name="shop", cidr_block="172.20.0.0/16", tags=TAGS, opts=opts)
vswitch = alicloud.vpc.Switch(
    "shop-a", vpc_id=vpc.id, cidr_block="172.20.1.0/24", zone_id="cn-shanghai-l", tags=TAGS, opts=opts
)
sg = alicloud.ecs.SecurityGroup("web", security_group_name="web", vpc_id=vpc.id, tags=TAGS, opts=opts)
alicloud.ecs.SecurityGroupRule(
    "https-in",
    type="ingress",
    ip_protocol="tcp",
    nic_type="intranet",
    policy="accept",
    port_range="443/443",
    priority=1,
    security_group_id=sg.id,
    cidr_ip="0.0.0.0/0",
    opts=opts,
)
alicloud.ecs.SecurityGroupRule(
    "all-out",
    type="egress",
    ip_protocol="all",
    policy="accept",
    port_range="-1/-1",
    security_group_id=sg.id,
    cidr_ip="0.0.0.0/0",
    opts=opts,
)

key = alicloud.kms.Key(
    "shop",
    description="disks and assets",
    pending_window_in_days=7,
    automatic_rotation="Enabled",
    rotation_interval="365d",
    tags=TAGS,
    opts=opts,
)

role = alicloud.ram.Role(
    "web",
    role_name="shop-web",
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
    tags=TAGS,
    opts=opts,
)
assets_policy = alicloud.ram.Policy(
    "web-assets",
    policy_name="shop-web-assets",
    policy_document=json.dumps(
        {
            "Version": "1",
            "Statement": [
                {
                    "Effect": "Allow",
                    "Action": ["oss:GetObject", "oss:PutObject"],
                    "Resource": ["acs:oss:*:*:shop-assets/*"],
                }
            ],
        }
    ),
    tags=TAGS,
    opts=opts,
)
alicloud.ram.RolePolicyAttachment(
    "web-assets",
    role_name=role.role_name,
    policy_name=assets_policy.policy_name,
    policy_type="Custom",
    opts=opts,
)

alicloud.ecs.Instance(
    "web",
    instance_name="shop-web",
    instance_type="ecs.g7.large",
    image_id="aliyun_3_x64_20G_alibase_20240528.vhd",
    vswitch_id=vswitch.id,
    security_groups=[sg.id],
    role_name=role.role_name,
    internet_max_bandwidth_out=10,
    system_disk_category="cloud_essd",
    system_disk_encrypted=True,
    system_disk_kms_key_id=key.id,
    data_disks=[
        alicloud.ecs.InstanceDataDiskArgs(size=100, category="cloud_essd", encrypted=True, kms_key_id=key.id)
    ],
    tags=TAGS,
    opts=opts,
)

assets = alicloud.oss.Bucket("assets", bucket="shop-assets", tags=TAGS, opts=opts)
alicloud.oss.BucketServerSideEncryption(
    "assets", bucket=assets.bucket, sse_algorithm="KMS", kms_master_key_id=key.id, opts=opts
)
alicloud.oss.BucketAcl("assets", bucket=assets.bucket, acl="private", opts=opts)
alicloud.oss.BucketPublicAccessBlock("assets", bucket=assets.bucket, block_public_access=True, opts=opts)
alicloud.oss.BucketHttpsConfig(
    "assets", bucket=assets.bucket, enable=True, tls_versions=["TLSv1.2", "TLSv1.3"], opts=opts
)
alicloud.oss.BucketPolicy(
    "assets-tls",
    bucket=assets.bucket,
    policy=json.dumps(
        {
            "Version": "1",
            "Statement": [
                {
                    "Effect": "Deny",
                    "Principal": ["*"],
                    "Action": ["oss:*"],
                    "Resource": ["acs:oss:*:*:shop-assets", "acs:oss:*:*:shop-assets/*"],
                    "Condition": {"Bool": {"acs:SecureTransport": ["false"]}},
                }
            ],
        }
    ),
    opts=opts,
)

audit = alicloud.log.Project("audit", project_name="shop-audit", tags=TAGS, opts=opts)
alicloud.log.Store(
    "actiontrail",
    project_name=audit.project_name,
    logstore_name="actiontrail_shop-trail",
    retention_period=365,
    shard_count=2,
    opts=opts,
)
trail_role = alicloud.ram.Role(
    "actiontrail",
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
    tags=TAGS,
    opts=opts,
)
alicloud.ram.RolePolicyAttachment(
    "actiontrail",
    role_name=trail_role.role_name,
    policy_name="AliyunActionTrailRolePolicy",
    policy_type="System",
    opts=opts,
)
alicloud.actiontrail.Trail(
    "shop-trail",
    trail_name="shop-trail",
    event_rw="All",
    trail_region="All",
    sls_project_arn=audit.project_name.apply(lambda p: f"acs:log:cn-shanghai:1234567890:project/{p}"),
    sls_write_role_arn=trail_role.arn,
    opts=opts,
)

pulumi.export("vpc", vpc.id)

"""An ordinary CPU web server on Tencent Cloud: VPC, subnet, HTTPS security group, one CVM instance
(standard S5, no GPU), an encrypted COS bucket for static assets, a CAM role for the instance,
CloudAudit into a CLS topic, a monthly budget. No GPU anywhere."""

import json

import pulumi
import tencentcloud_iac_pulumi as tencentcloud
from pulumi import ResourceOptions

TAGS = {"project": "shop", "team": "web", "cost-center": "cc-100", "env": "prod"}
REGION = "ap-shanghai"
APP_ID = "1250000000"
provider = tencentcloud.Provider("shanghai", region=REGION)
opts = ResourceOptions(provider=provider)

vpc = tencentcloud.vpc.Instance("shop", name="shop", cidr_block="172.21.0.0/16", tags=TAGS, opts=opts)
subnet = tencentcloud.subnet.Instance(
    "shop-2",
    name="shop-2",
    vpc_id=vpc.id,
    availability_zone="ap-shanghai-2",
    cidr_block="172.21.1.0/24",
    tags=TAGS,
    opts=opts,
)
sg = tencentcloud.security.Group("web", name="web", description="public HTTPS", tags=TAGS, opts=opts)
tencentcloud.security.GroupRuleSet(
    "web",
    security_group_id=sg.id,
    ingresses=[
        tencentcloud.security.GroupRuleSetIngressArgs(
            action="ACCEPT", cidr_block="0.0.0.0/0", protocol="TCP", port="443", description="HTTPS"
        )
    ],
    egresses=[
        tencentcloud.security.GroupRuleSetEgressArgs(
            action="ACCEPT", cidr_block="0.0.0.0/0", protocol="ALL", port="ALL", description="egress"
        )
    ],
    opts=opts,
)

key = tencentcloud.kms.Key(
    "shop",
    alias="shop",
    description="disks and assets",
    key_usage="ENCRYPT_DECRYPT",
    is_enabled=True,
    key_rotation_enabled=True,
    pending_delete_window_in_days=7,
    tags=TAGS,
    opts=opts,
)

role = tencentcloud.cam.Role(
    "web",
    name="shop-web",
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
    tags=TAGS,
    opts=opts,
)
assets_policy = tencentcloud.cam.Policy(
    "web-assets",
    name="shop-web-assets",
    document=json.dumps(
        {
            "version": "2.0",
            "statement": [
                {
                    "effect": "allow",
                    "action": ["name/cos:GetObject", "name/cos:PutObject"],
                    "resource": [f"qcs::cos:{REGION}:uid/{APP_ID}:shop-assets-{APP_ID}/*"],
                }
            ],
        }
    ),
    opts=opts,
)
tencentcloud.cam.RolePolicyAttachment("web-assets", role_id=role.id, policy_id=assets_policy.id, opts=opts)

tencentcloud.instance.Instance(
    "web",
    instance_name="shop-web",
    availability_zone="ap-shanghai-2",
    image_id="img-9qrfy1xt",
    instance_type="S5.MEDIUM4",
    vpc_id=vpc.id,
    subnet_id=subnet.id,
    orderly_security_groups=[sg.id],
    cam_role_name=role.name,
    allocate_public_ip=True,
    internet_max_bandwidth_out=10,
    keep_image_login=True,
    system_disk_type="CLOUD_BSSD",
    data_disks=[
        tencentcloud.instance.InstanceDataDiskArgs(
            data_disk_size=100, data_disk_type="CLOUD_BSSD", encrypt=True, kms_key_id=key.id
        )
    ],
    tags=TAGS,
    opts=opts,
)

assets = tencentcloud.cos.Bucket(
    "assets",
    bucket=f"shop-assets-{APP_ID}",
    acl="private",
    encryption_algorithm="KMS",
    kms_id=key.id,
    tags=TAGS,
    opts=opts,
)
tencentcloud.cos.BucketPolicy(
    "assets-tls",
    bucket=assets.bucket,
    policy=json.dumps(
        {
            "version": "2.0",
            "Statement": [
                {
                    "Principal": {"qcs": ["qcs::cam::anyone:anyone"]},
                    "Effect": "Deny",
                    "Action": ["name/cos:*"],
                    "Resource": [f"qcs::cos:{REGION}:uid/{APP_ID}:shop-assets-{APP_ID}/*"],
                    "Condition": {"bool_equal": {"cos:secure-transport": "false"}},
                }
            ],
        }
    ),
    opts=opts,
)

logset = tencentcloud.cls.Logset("audit", logset_name="cloudaudit", tags=TAGS, opts=opts)
topic = tencentcloud.cls.Topic(
    "audit",
    topic_name="cloudaudit",
    logset_id=logset.id,
    partition_count=1,
    period=365,
    storage_type="hot",
    tags=TAGS,
    opts=opts,
)
tencentcloud.audit.Track(
    "shop",
    name="shop",
    action_type="*",
    event_names=["*"],
    resource_type="*",
    status=1,
    track_for_all_members=0,
    storage=tencentcloud.audit.TrackStorageArgs(
        storage_name=topic.id, storage_prefix="cloudaudit", storage_region=REGION, storage_type="cls"
    ),
    opts=opts,
)
tencentcloud.billing.Budget(
    "monthly",
    budget_name="shop-prod",
    cycle_type="MONTH",
    period_begin="2025-01",
    period_end="2026-12",
    plan_type="FIX",
    budget_quota="8000.00",
    bill_type="BILL",
    fee_type="REAL_COST",
    warn_jsons=[
        tencentcloud.billing.BudgetWarnJsonArgs(
            warn_type="ACTUAL", cal_type="PERCENTAGE", threshold_value="80"
        )
    ],
    opts=opts,
)

pulumi.export("vpc", vpc.id)

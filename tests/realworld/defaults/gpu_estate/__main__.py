"""A GPU estate across AWS, Alibaba Cloud and Tencent Cloud written with the raw SDKs, relying on
defaults set elsewhere and on every kind of compute that launches instances:

- AWS: provider `default_tags` (cost tags, and the classification of a restricted bucket), the
  account's IMDS defaults and EBS encryption by default, an Amazon Linux 2023 launch template named
  by its public SSM parameter, a GPU instance from an AMI looked up with `get_ami`, a Batch compute
  environment, an EKS managed node group, an EC2 fleet and a spot fleet; CloudTrail into a bucket
  whose lifecycle keeps the logs 400 days.
- Alibaba Cloud: an ACK GPU node pool; ActionTrail into an OSS bucket with a lifecycle.
- Tencent Cloud: a TKE GPU node pool; CloudAudit into a COS bucket with a lifecycle.

`gpu-estate:break` selects one mistake; `none` is compliant for the access, audit and storage rules.
"""

import pulumi
import pulumi_alicloud as alicloud
import pulumi_aws as aws
import tencentcloud_iac_pulumi as tencentcloud
from pulumi import ResourceOptions

BREAK = pulumi.Config().get("break") or "none"
TAGS = {"project": "estate", "team": "ml", "cost-center": "cc-311", "env": "prod"}
AL2023 = "resolve:ssm:/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-default-x86_64"

# --- AWS: defaults set once ----------------------------------------------------------------
euw1 = aws.Provider("euw1", region="eu-west-1", default_tags={"tags": TAGS})
opts = ResourceOptions(provider=euw1)
# Everything this provider creates is classified restricted (GF-STOR-002 reads it from here).
restricted = aws.Provider(
    "euw1-restricted",
    region="eu-west-1",
    default_tags={"tags": {**TAGS, "data-classification": "restricted"}},
)

if BREAK != "no-imds-defaults":
    aws.ec2.InstanceMetadataDefaults(
        "account-imds",
        http_tokens="optional" if BREAK == "imds-defaults-optional" else "required",
        http_put_response_hop_limit=2,
        opts=opts,
    )
aws.ebs.EncryptionByDefault("account-ebs", enabled=BREAK != "ebs-default-off", opts=opts)

vpc = aws.ec2.Vpc("estate", cidr_block="10.20.0.0/16", opts=opts)
private = aws.ec2.Subnet("private", vpc_id=vpc.id, cidr_block="10.20.1.0/24", opts=opts)
public = aws.ec2.Subnet(
    "public", vpc_id=vpc.id, cidr_block="10.20.0.0/24", map_public_ip_on_launch=True, opts=opts
)

# --- AWS: data classified by the provider ---------------------------------------------------
material = "c2VjcmV0LW1hdGVyaWFsLWZyb20tdGhlLWhzbS0zMmI="
data_key = (
    aws.kms.Key("data-key", description="generated material", enable_key_rotation=True, opts=opts)
    if BREAK == "restricted-generated-key"
    else aws.kms.ExternalKey(
        "data-key", description="imported material", key_material_base64=material, opts=opts
    )
)
data = aws.s3.Bucket("data", bucket="estate-restricted-data", opts=ResourceOptions(provider=restricted))
aws.s3.BucketServerSideEncryptionConfiguration(
    "data",
    bucket=data.id,
    rules=[
        {
            "apply_server_side_encryption_by_default": {
                "sse_algorithm": "aws:kms",
                "kms_master_key_id": data_key.arn,
            }
        }
    ],
    opts=ResourceOptions(provider=restricted),
)

# --- AWS: audit kept where it is delivered -------------------------------------------------
audit = aws.s3.Bucket("audit", bucket="estate-audit-trail", opts=opts)
aws.s3.BucketLifecycleConfiguration(
    "audit",
    bucket=audit.id,
    rules=[
        {
            "id": "expire-audit",
            "status": "Enabled",
            "filter": {"prefix": "AWSLogs/"},
            "expiration": {"days": 90 if BREAK == "trail-bucket-90d" else 400},
        },
        # Scratch objects beside the logs may go quickly: the rule does not reach the trail's files.
        {"id": "scratch", "status": "Enabled", "filter": {"prefix": "scratch/"}, "expiration": {"days": 1}},
    ],
    opts=opts,
)
aws.cloudtrail.Trail("org", s3_bucket_name=audit.id, is_multi_region_trail=True, opts=opts)

# --- AWS: compute that launches instances --------------------------------------------------
# AL2023 looked up by name: the instance carries only the id, so the policy cannot see the image.
al2023 = aws.ec2.get_ami(
    most_recent=True, owners=["amazon"], filters=[{"name": "name", "values": ["al2023-ami-2023.*-x86_64"]}]
)
aws.ec2.Instance(
    "embed",
    ami=al2023.id,
    instance_type="g5.xlarge",
    subnet_id=private.id,
    root_block_device={"volume_size": 200, "volume_type": "gp3"},
    opts=opts,
)
aws.ec2.LaunchTemplate(
    "al2023",
    image_id=AL2023,
    instance_type="g6.xlarge",
    block_device_mappings=[{"device_name": "/dev/xvda", "ebs": {"volume_size": 100, "volume_type": "gp3"}}],
    opts=opts,
)
batch_role = aws.iam.Role(
    "batch-instance",
    assume_role_policy='{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Principal":{"Service":"ec2.amazonaws.com"},"Action":"sts:AssumeRole"}]}',
    opts=opts,
)
aws.batch.ComputeEnvironment(
    "train",
    type="MANAGED",
    compute_resources={
        "type": "SPOT",
        "max_vcpus": 64,
        "instance_types": ["g5", "g6"],
        "subnets": [public.id if BREAK == "batch-public-subnet" else private.id],
        "ec2_key_pair": "ops" if BREAK == "batch-key-pair" else None,
        "instance_role": batch_role.arn,
    },
    opts=opts,
)
aws.eks.NodeGroup(
    "gpu-nodes",
    cluster_name="estate",
    node_role_arn=batch_role.arn,
    subnet_ids=[private.id],
    ami_type="AL2023_x86_64_NVIDIA",
    scaling_config={"desired_size": 1, "max_size": 4, "min_size": 0},
    remote_access={"ec2_ssh_key": "ops"} if BREAK == "node-group-ssh" else None,
    opts=opts,
)
fleet_template = aws.ec2.LaunchTemplate(
    "fleet-tpl",
    image_id=AL2023,
    key_name="ops" if BREAK == "fleet-template-key" else None,
    opts=opts,
)
aws.ec2.Fleet(
    "burst",
    launch_template_configs=[
        {
            "launch_template_specification": {"launch_template_id": fleet_template.id, "version": "$Latest"},
            "overrides": [{"instance_type": "g5.2xlarge", "subnet_id": private.id}],
        }
    ],
    target_capacity_specification={"default_target_capacity_type": "spot", "total_target_capacity": 2},
    opts=opts,
)
aws.ec2.SpotFleetRequest(
    "spot",
    iam_fleet_role="arn:aws:iam::123456789012:role/aws-ec2-spot-fleet-tagging-role",
    target_capacity=1,
    launch_specifications=[
        {
            "ami": AL2023,
            "instance_type": "g4dn.xlarge",
            "subnet_id": private.id,
            "associate_public_ip_address": BREAK == "spot-fleet-public-ip",
            "root_block_device": [{"volume_size": 100, "volume_type": "gp3", "encrypted": True}],
        }
    ],
    opts=opts,
)

# --- Alibaba Cloud ---------------------------------------------------------------------------
ali = ResourceOptions(provider=alicloud.Provider("beijing", region="cn-beijing"))
trail_bucket = alicloud.oss.Bucket(
    "actiontrail",
    bucket="estate-actiontrail",
    lifecycle_rules=[
        {
            "id": "expire-trail",
            "enabled": True,
            "prefix": "",
            "expirations": [{"days": 30 if BREAK == "actiontrail-oss-30d" else 365}],
        }
    ],
    tags=TAGS,
    opts=ali,
)
alicloud.actiontrail.Trail("org", trail_name="org", oss_bucket_name=trail_bucket.bucket, opts=ali)
alicloud.cs.NodePool(
    "ack-gpu",
    cluster_id="c-estate",
    node_pool_name="gpu",
    vswitch_ids=["vsw-private"],
    instance_types=["ecs.gn7i-c8g1.2xlarge"],
    password="N0t-a-real-one!" if BREAK == "ack-password" else None,
    internet_max_bandwidth_out=10 if BREAK == "ack-public-ip" else 0,
    internet_charge_type="PayByTraffic",
    system_disk_encrypted=True,
    tags=TAGS,
    opts=ali,
)

# --- Tencent Cloud ---------------------------------------------------------------------------
tc = ResourceOptions(provider=tencentcloud.Provider("guangzhou", region="ap-guangzhou"))
tencentcloud.cos.Bucket(
    "cloudaudit",
    bucket="estate-cloudaudit-1250000000",
    acl="private",
    lifecycle_rules=[
        {
            "id": "expire-audit",
            "filter_prefix": "cloudaudit/",
            "expiration": {"days": 30 if BREAK == "cloudaudit-cos-30d" else 720},
        }
    ],
    tags=TAGS,
    opts=tc,
)
tencentcloud.audit.Track(
    "org",
    name="org",
    action_type="*",
    event_names=["*"],
    resource_type="*",
    status=1,
    track_for_all_members=0,
    storage={
        "storage_type": "cos",
        "storage_name": "estate-cloudaudit",
        "storage_prefix": "cloudaudit",
        "storage_region": "ap-guangzhou",
    },
    opts=tc,
)
tencentcloud.kubernetes.NodePool(
    "tke-gpu",
    cluster_id="cls-estate",
    vpc_id="vpc-estate",
    max_size=4,
    min_size=0,
    subnet_ids=["subnet-private"],
    auto_scaling_config={
        "instance_type": "GN7.2XLARGE32",
        "key_ids": ["skey-ops"] if BREAK == "tke-key" else None,
        "public_ip_assigned": BREAK == "tke-public-ip",
        "internet_max_bandwidth_out": 10 if BREAK == "tke-public-ip" else 0,
    },
    opts=tc,
)

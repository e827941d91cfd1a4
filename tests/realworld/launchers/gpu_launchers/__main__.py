"""A development GPU estate whose capacity is launched by managed services, written with the raw SDKs:
an AWS Batch compute environment (SPOT, the g5 family, a launch template with encrypted volumes, an
instance role with Session Manager), an Alibaba ACK node pool (spot, autoscaled from zero, encrypted
disks, Session Manager on) and a Tencent TKE node pool (SPOTPAID, autoscaled from zero, encrypted data
disk, operated through TAT), with a budget per cloud (Alibaba Cloud's in the pack config).

`gpu-launchers:break` selects one mistake; `none` is compliant for the cost, session and volume rules.
"""

import json

import pulumi
import pulumi_alicloud as alicloud
import pulumi_aws as aws
import tencentcloud_iac_pulumi as tencentcloud
from pulumi import ResourceOptions

BREAK = pulumi.Config().get("break") or "none"
TAGS = {"project": "launchers", "team": "ml", "cost-center": "cc-512", "env": "dev"}

# --- AWS Batch -------------------------------------------------------------------------------
use1 = aws.Provider("use1", region="us-east-1", default_tags={"tags": TAGS})
opts = ResourceOptions(provider=use1)
vpc = aws.ec2.Vpc("batch", cidr_block="10.40.0.0/16", opts=opts)
private = aws.ec2.Subnet("batch-private", vpc_id=vpc.id, cidr_block="10.40.1.0/24", opts=opts)
workers = aws.ec2.SecurityGroup("batch-workers", vpc_id=vpc.id, description="Batch workers", opts=opts)
assume = json.dumps(
    {
        "Version": "2012-10-17",
        "Statement": [
            {"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}, "Action": "sts:AssumeRole"}
        ],
    }
)
node_role = aws.iam.Role("batch-node", assume_role_policy=assume, opts=opts)
managed = ["arn:aws:iam::aws:policy/service-role/AmazonEC2ContainerServiceforEC2Role"]
if BREAK != "batch-no-ssm":
    managed.append("arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore")
for i, arn in enumerate(managed):
    aws.iam.RolePolicyAttachment(f"batch-node-{i}", role=node_role.name, policy_arn=arn, opts=opts)
profile = aws.iam.InstanceProfile("batch-node", role=node_role.name, opts=opts)
template = aws.ec2.LaunchTemplate(
    "batch-disks",
    block_device_mappings=[
        {"device_name": "/dev/xvda", "ebs": {"volume_size": 200, "volume_type": "gp3", "encrypted": "true"}}
    ],
    metadata_options={
        "http_tokens": "required",
        "http_put_response_hop_limit": 2,
        "http_endpoint": "enabled",
    },
    opts=opts,
)
compute = {
    "type": "EC2" if BREAK == "batch-on-demand" else "SPOT",
    "allocation_strategy": "BEST_FIT_PROGRESSIVE"
    if BREAK == "batch-on-demand"
    else "SPOT_PRICE_CAPACITY_OPTIMIZED",
    "bid_percentage": None if BREAK == "batch-on-demand" else 70,
    "instance_types": ["p4d"] if BREAK == "batch-a100" else ["g5"],
    "min_vcpus": 32 if BREAK == "batch-warm" else 0,
    "max_vcpus": 4096 if BREAK == "batch-huge" else 64,
    "instance_role": profile.arn,
    "subnets": [private.id],
    "security_group_ids": [workers.id],
    "launch_template": None if BREAK == "batch-no-template" else {"launch_template_id": template.id},
    "spot_iam_fleet_role": "arn:aws:iam::123456789012:role/AmazonEC2SpotFleetTaggingRole",
}
aws.batch.ComputeEnvironment(
    "train",
    type="MANAGED",
    compute_resources={k: v for k, v in compute.items() if v is not None},
    service_role="arn:aws:iam::123456789012:role/aws-service-role/batch.amazonaws.com/AWSServiceRoleForBatch",
    opts=opts,
)
aws.budgets.Budget(
    "launchers",
    budget_type="COST",
    limit_amount="20000",
    limit_unit="USD",
    time_unit="MONTHLY",
    notifications=[
        {
            "comparison_operator": "GREATER_THAN",
            "threshold": 80,
            "threshold_type": "PERCENTAGE",
            "notification_type": "FORECASTED",
            "subscriber_email_addresses": ["ml@example.com"],
        }
    ],
    opts=opts,
)

# --- Alibaba Cloud ACK ------------------------------------------------------------------------
ali = ResourceOptions(provider=alicloud.Provider("hangzhou", region="cn-hangzhou"))
if BREAK != "ack-no-session-manager":
    alicloud.ecs.EcsSessionManagerStatus(
        "session-manager", session_manager_status_name="sessionManagerStatus", status="Enabled", opts=ali
    )
alicloud.cs.NodePool(
    "ack-gpu",
    cluster_id="c-launchers",
    node_pool_name="gpu",
    vswitch_ids=["vsw-private"],
    instance_types=["ecs.gn7-c12g1.3xlarge"] if BREAK == "ack-a100" else ["ecs.gn7i-c8g1.2xlarge"],
    spot_strategy="NoSpot" if BREAK == "ack-on-demand" else "SpotAsPriceGo",
    scaling_config=None if BREAK == "ack-fixed" else {"enable": True, "min_size": 0, "max_size": 4},
    desired_size="2" if BREAK == "ack-fixed" else None,
    system_disk_category="cloud_essd",
    system_disk_encrypted=True,
    data_disks=[
        {"category": "cloud_essd", "size": 200, "encrypted": "false" if BREAK == "ack-plain-disk" else "true"}
    ],
    tags=TAGS,
    opts=ali,
)

# --- Tencent Cloud TKE ------------------------------------------------------------------------
tc = ResourceOptions(provider=tencentcloud.Provider("guangzhou", region="ap-guangzhou"))
if BREAK != "tke-no-tat":
    tencentcloud.tat.Command(
        "gpu-health",
        command_name="gpu-health",
        content="nvidia-smi",
        command_type="SHELL",
        tags=TAGS,
        opts=tc,
    )
tencentcloud.kubernetes.NodePool(
    "tke-gpu",
    cluster_id="cls-launchers",
    vpc_id="vpc-launchers",
    subnet_ids=["subnet-private"],
    min_size=1 if BREAK == "tke-warm" else 0,
    max_size=60 if BREAK == "tke-huge" else 4,
    enable_auto_scale=True,
    auto_scaling_config={
        "instance_type": "GN7.2XLARGE32",
        "instance_charge_type": "POSTPAID_BY_HOUR" if BREAK == "tke-on-demand" else "SPOTPAID",
        "system_disk_type": "CLOUD_PREMIUM",
        "system_disk_size": 100,
        "data_disks": [
            {"disk_type": "CLOUD_PREMIUM", "disk_size": 200, "encrypt": BREAK != "tke-plain-disk"}
        ],
        "public_ip_assigned": False,
        "internet_max_bandwidth_out": 0,
    },
    tags=TAGS,
    opts=tc,
)
tencentcloud.billing.Budget(
    "tc-monthly",
    budget_name="launchers-dev",
    cycle_type="MONTH",
    period_begin="2026-01",
    period_end="2027-12",
    plan_type="FIX",
    budget_quota="20000.00",
    bill_type="BILL",
    fee_type="REAL_COST",
    warn_jsons=[{"warn_type": "ACTUAL", "cal_type": "PERCENTAGE", "threshold_value": "80"}],
    opts=tc,
)

"""A small GPU training fleet reached only through Session Manager, written with raw pulumi-aws.

A standalone GPU instance and a GPU Auto Scaling group launched from a template, both with an
instance profile whose role carries the SSM agent's permissions; Session Manager preferences that
log sessions to a KMS-encrypted log group; the dataset bucket the fleet reads; a multi-region trail.

`gpu-sessions:break` picks either another compliant way of writing the same thing (`alt-*`) or one
mistake (everything else); `none` is the baseline.
"""

import json

import pulumi
import pulumi_aws as aws
from pulumi import Output, ResourceOptions

BREAK = pulumi.Config().get("break") or "none"
TAGS = {"project": "vision", "team": "ml-platform", "cost-center": "cc-042", "env": "dev"}
SSM_CORE = "arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore"

use1 = aws.Provider("use1", region="us-east-1")
opts = ResourceOptions(provider=use1)
euw1 = aws.Provider("euw1", region="eu-west-1")

key = aws.kms.Key(
    "sessions",
    description="session logs",
    enable_key_rotation=True,
    deletion_window_in_days=30,
    tags=TAGS,
    opts=opts,
)
log_group = aws.cloudwatch.LogGroup(
    "session-logs",
    name="/ssm/sessions",
    retention_in_days=365,
    kms_key_id=None if BREAK == "log-group-no-kms" else key.arn,
    tags=TAGS,
    opts=opts,
)
aws.ssm.Document(
    "session-preferences",
    name="SSM-SessionManagerRunShell",
    document_type="Session",
    document_format="JSON",
    content=Output.all(log_group.name, key.arn).apply(
        lambda args: json.dumps(
            {
                "schemaVersion": "1.0",
                "description": "Session Manager preferences",
                "sessionType": "Standard_Stream",
                "inputs": {
                    "cloudWatchLogGroupName": args[0],
                    "cloudWatchEncryptionEnabled": BREAK != "prefs-cw-unencrypted",
                    "cloudWatchStreamingEnabled": True,
                    "kmsKeyId": args[1],
                    "runAsEnabled": False,
                    "idleSessionTimeout": "20",
                },
            }
        )
    ),
    # This stack owns the account's Session Manager preferences (one document per account and region).
    tags={**TAGS, "gpufleet:account-baseline": "true"},
    opts=opts,
)

# The bucket the fleet reads: v7 `region` input, a provider for another region, or the default.
if BREAK == "bucket-region-input":
    datasets = aws.s3.Bucket("datasets", bucket="vision-datasets", region="eu-west-1", tags=TAGS, opts=opts)
elif BREAK == "bucket-provider":
    datasets = aws.s3.BucketV2(  # type: ignore[assignment]
        "datasets", bucket="vision-datasets", tags=TAGS, opts=ResourceOptions(provider=euw1)
    )
else:
    datasets = aws.s3.Bucket("datasets", bucket="vision-datasets", tags=TAGS, opts=opts)
aws.s3.BucketServerSideEncryptionConfiguration(
    "datasets",
    bucket=datasets.id,
    rules=[
        {
            "apply_server_side_encryption_by_default": {
                "sse_algorithm": "aws:kms",
                "kms_master_key_id": key.arn,
            },
            "bucket_key_enabled": True,
        }
    ],
    opts=ResourceOptions(provider=euw1) if BREAK == "bucket-provider" else opts,
)
aws.s3.BucketPublicAccessBlock(
    "datasets",
    bucket=datasets.id,
    block_public_acls=True,
    block_public_policy=True,
    ignore_public_acls=True,
    restrict_public_buckets=True,
    opts=ResourceOptions(provider=euw1) if BREAK == "bucket-provider" else opts,
)

aws.s3.BucketPolicy(
    "datasets-tls-only",
    bucket=datasets.id,
    policy=datasets.arn.apply(
        lambda arn: json.dumps(
            {
                "Version": "2012-10-17",
                "Statement": [
                    {
                        "Effect": "Deny",
                        "Principal": "*",
                        "Action": "s3:*",
                        "Resource": [arn, f"{arn}/*"],
                        "Condition": {"Bool": {"aws:SecureTransport": "false"}},
                    }
                ],
            }
        )
    ),
    opts=ResourceOptions(provider=euw1) if BREAK == "bucket-provider" else opts,
)

# The role's own policies: reading the datasets and, in one variant, the agent's session actions.
session_actions = [
    "ssm:UpdateInstanceInformation",
    "ssmmessages:CreateControlChannel",
    "ssmmessages:CreateDataChannel",
    "ssmmessages:OpenControlChannel",
    "ssmmessages:OpenDataChannel",
]
if BREAK == "inline-partial":
    session_actions = ["ssm:UpdateInstanceInformation"]
inline: list[aws.iam.RoleInlinePolicyArgsDict] = []
if BREAK in ("alt-inline-policies", "inline-partial"):
    inline = [
        {
            "name": "session-manager",
            "policy": json.dumps(
                {
                    "Version": "2012-10-17",
                    "Statement": [{"Effect": "Allow", "Action": session_actions, "Resource": "*"}],
                }
            ),
        }
    ]
role = aws.iam.Role(
    "gpu-node",
    name="vision-gpu-node",
    assume_role_policy=json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [
                {"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}, "Action": "sts:AssumeRole"}
            ],
        }
    ),
    managed_policy_arns=[SSM_CORE] if BREAK == "alt-managed-arns" else None,
    inline_policies=inline or None,
    tags=TAGS,
    opts=opts,
)
aws.iam.RolePolicy(
    "gpu-node-datasets",
    role=role.id,
    policy=datasets.arn.apply(
        lambda arn: json.dumps(
            {
                "Version": "2012-10-17",
                "Statement": [
                    {
                        "Effect": "Allow",
                        "Action": ["s3:GetObject", "s3:ListBucket"],
                        "Resource": [arn, f"{arn}/*"],
                    }
                ],
            }
        )
    ),
    opts=opts,
)
# The CloudWatch agent on the workers publishes the GPU metric their target-tracking policy follows.
aws.iam.RolePolicy(
    "gpu-node-metrics",
    role=role.id,
    policy=json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [
                {
                    "Effect": "Allow",
                    "Action": ["cloudwatch:PutMetricData"],
                    "Resource": "*",
                    "Condition": {"StringEquals": {"cloudwatch:namespace": "CWAgent"}},
                }
            ],
        }
    ),
    opts=opts,
)
OWN_GRANT = (
    "alt-managed-arns",
    "alt-inline-policies",
    "inline-partial",
    "alt-policy-attachment",
    "alt-customer-policy",
    "ssm-read-only",
    "alt-default-host-management",
    "no-ssm",
)
if BREAK not in OWN_GRANT:
    aws.iam.RolePolicyAttachment("gpu-node-ssm", role=role.name, policy_arn=SSM_CORE, opts=opts)
elif BREAK == "alt-policy-attachment":
    aws.iam.PolicyAttachment("gpu-node-ssm", roles=[role.name], policy_arn=SSM_CORE, opts=opts)
elif BREAK == "alt-customer-policy":
    agent = aws.iam.Policy(
        "session-agent",
        policy=json.dumps(
            {
                "Version": "2012-10-17",
                "Statement": [
                    {
                        "Effect": "Allow",
                        "Action": [
                            "ssm:UpdateInstanceInformation",
                            "ssmmessages:CreateControlChannel",
                            "ssmmessages:CreateDataChannel",
                            "ssmmessages:OpenControlChannel",
                            "ssmmessages:OpenDataChannel",
                        ],
                        "Resource": "*",
                    }
                ],
            }
        ),
        tags=TAGS,
        opts=opts,
    )
    aws.iam.RolePolicyAttachment("gpu-node-ssm", role=role.name, policy_arn=agent.arn, opts=opts)
elif BREAK == "ssm-read-only":
    aws.iam.RolePolicyAttachment(
        "gpu-node-ssm",
        role=role.name,
        policy_arn="arn:aws:iam::aws:policy/AmazonSSMReadOnlyAccess",
        opts=opts,
    )
elif BREAK == "alt-default-host-management":
    aws.ssm.ServiceSetting(
        "default-host-management",
        setting_id="arn:aws:ssm:us-east-1:123456789012:servicesetting/ssm/managed-instance/default-ec2-instance-management-role",
        setting_value="service-role/AWSSystemsManagerDefaultEC2InstanceManagementRole",
        opts=opts,
    )

profile = aws.iam.InstanceProfile(
    "gpu-node",
    name="vision-gpu-node",
    role=role.id if BREAK == "alt-role-by-id" else role.name,
    tags=TAGS,
    opts=opts,
)
if BREAK == "alt-profile-literal":
    instance_profile: pulumi.Input[str] = "vision-gpu-node"
elif BREAK == "alt-profile-arn":
    instance_profile = profile.arn
else:
    instance_profile = profile.name

vpc = aws.ec2.Vpc("vision", cidr_block="172.20.0.0/16", tags=TAGS, opts=opts)
subnet = aws.ec2.Subnet("vision-private", vpc_id=vpc.id, cidr_block="172.20.1.0/24", tags=TAGS, opts=opts)
sg = aws.ec2.SecurityGroup(
    "gpu-nodes",
    vpc_id=vpc.id,
    egress=[{"protocol": "-1", "from_port": 0, "to_port": 0, "cidr_blocks": ["0.0.0.0/0"]}],
    tags=TAGS,
    opts=opts,
)
# The private subnet has no route out: the agent reaches CloudWatch through an interface endpoint.
aws.ec2.VpcEndpoint(
    "monitoring",
    vpc_id=vpc.id,
    service_name="com.amazonaws.us-east-1.monitoring",
    vpc_endpoint_type="Interface",
    private_dns_enabled=True,
    subnet_ids=[subnet.id],
    security_group_ids=[sg.id],
    tags=TAGS,
    opts=opts,
)
spot = aws.ec2.InstanceInstanceMarketOptionsArgs(
    market_type="spot",
    spot_options=aws.ec2.InstanceInstanceMarketOptionsSpotOptionsArgs(
        instance_interruption_behavior="stop", spot_instance_type="persistent"
    ),
)
instance = aws.ec2.Instance(
    "trainer",
    ami="ami-0c7217cdde317cfec",
    instance_type="g6.xlarge",
    subnet_id=subnet.id,
    vpc_security_group_ids=[sg.id],
    iam_instance_profile=None if BREAK == "no-profile" else instance_profile,
    instance_market_options=spot,
    metadata_options={
        "http_tokens": "required",
        "http_put_response_hop_limit": 1,
        "http_endpoint": "enabled",
    },
    root_block_device={"volume_size": 100, "volume_type": "gp3", "encrypted": True},
    tags={**TAGS, "Name": "trainer"},
    opts=opts,
)
aws.cloudwatch.MetricAlarm(
    "trainer-idle",
    namespace="CWAgent",
    metric_name="nvidia_smi_utilization_gpu",
    dimensions={"InstanceId": instance.id},
    statistic="Maximum",
    period=300,
    evaluation_periods=12,
    comparison_operator="LessThanThreshold",
    threshold=5,
    alarm_actions=["arn:aws:automate:us-east-1:ec2:stop"],
    tags=TAGS,
    opts=opts,
)

template = aws.ec2.LaunchTemplate(
    "workers",
    image_id="ami-0c7217cdde317cfec",
    instance_type="g5.2xlarge",
    iam_instance_profile=(
        {"name": "vision-gpu-node"} if BREAK == "alt-template-profile-name" else {"arn": profile.arn}
    ),
    vpc_security_group_ids=[sg.id],
    metadata_options={
        "http_tokens": "required",
        "http_put_response_hop_limit": 1,
        "http_endpoint": "enabled",
    },
    block_device_mappings=[
        {"device_name": "/dev/xvda", "ebs": {"volume_size": 200, "volume_type": "gp3", "encrypted": "true"}}
    ],
    tag_specifications=[{"resource_type": "instance", "tags": TAGS}],
    tags=TAGS,
    opts=opts,
)
workers = aws.autoscaling.Group(
    "workers",
    min_size=0,
    max_size=4,
    desired_capacity=0,
    vpc_zone_identifiers=[subnet.id],
    mixed_instances_policy={
        "instances_distribution": {
            "on_demand_base_capacity": 0,
            "on_demand_percentage_above_base_capacity": 0,
            "spot_allocation_strategy": "capacity-optimized",
        },
        "launch_template": {
            "launch_template_specification": {"launch_template_id": template.id, "version": "$Latest"},
            "overrides": [{"instance_type": "g5.2xlarge"}, {"instance_type": "g6.2xlarge"}],
        },
    },
    tags=[{"key": k, "value": v, "propagate_at_launch": True} for k, v in TAGS.items()],
    opts=opts,
)

aws.autoscaling.Schedule(
    "workers-night",
    autoscaling_group_name=workers.name,
    scheduled_action_name="workers-night",
    min_size=0,
    max_size=0,
    desired_capacity=0,
    recurrence="0 20 * * MON-FRI",
    opts=opts,
)
aws.autoscaling.Policy(
    "workers-gpu-busy",
    autoscaling_group_name=workers.name,
    policy_type="TargetTrackingScaling",
    target_tracking_configuration={
        "customized_metric_specification": {
            "metric_name": "nvidia_smi_utilization_gpu",
            "namespace": "CWAgent",
            "statistic": "Average",
        },
        "target_value": 70,
    },
    opts=opts,
)
aws.budgets.Budget(
    "vision",
    budget_type="COST",
    limit_amount="3000",
    limit_unit="USD",
    time_unit="MONTHLY",
    notifications=[
        {
            "comparison_operator": "GREATER_THAN",
            "threshold": 80,
            "threshold_type": "PERCENTAGE",
            "notification_type": "FORECASTED",
            "subscriber_email_addresses": ["ml-platform@example.com"],
        }
    ],
    tags=TAGS,
    opts=opts,
)
if BREAK != "no-trail":
    aws.cloudtrail.Trail(
        "org",
        s3_bucket_name="org-audit-trail",
        is_multi_region_trail=BREAK != "trail-single-region",
        tags=TAGS,
        opts=opts,
    )

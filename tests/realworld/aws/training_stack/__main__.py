"""A GPU training burst pool written the way a platform team writes it with the raw AWS SDK.

`vision-training:break` selects one way people get a guardrail wrong; `none` is the compliant stack.
"""

import json

import pulumi
import pulumi_aws as aws
from pulumi import Output, ResourceOptions

config = pulumi.Config()
BREAK = config.get("break") or "none"
account_id = "123456789012"
region = "us-west-2"

aws_provider = aws.Provider(
    "usw2",
    region=region,
    default_tags=aws.ProviderDefaultTagsArgs(
        tags={"project": "vision", "team": "ml-platform", "cost-center": "cc-042", "env": "dev"}
    ),
)
opts = ResourceOptions(provider=aws_provider)

# -- network ---------------------------------------------------------------------------------------
vpc = aws.ec2.Vpc("training", cidr_block="10.40.0.0/16", enable_dns_hostnames=True, opts=opts)
igw = aws.ec2.InternetGateway("training", vpc_id=vpc.id, opts=opts)
public = aws.ec2.Subnet(
    "public-a",
    vpc_id=vpc.id,
    cidr_block="10.40.0.0/24",
    availability_zone="us-west-2a",
    map_public_ip_on_launch=True,
    opts=opts,
)
private = aws.ec2.Subnet(
    "private-a", vpc_id=vpc.id, cidr_block="10.40.16.0/20", availability_zone="us-west-2a", opts=opts
)
eip = aws.ec2.Eip("nat", domain="vpc", opts=opts)
nat = aws.ec2.NatGateway("nat", allocation_id=eip.id, subnet_id=public.id, opts=opts)
public_rt = aws.ec2.RouteTable(
    "public",
    vpc_id=vpc.id,
    routes=[aws.ec2.RouteTableRouteArgs(cidr_block="0.0.0.0/0", gateway_id=igw.id)],
    opts=opts,
)
aws.ec2.RouteTableAssociation("public-a", subnet_id=public.id, route_table_id=public_rt.id, opts=opts)
private_rt = aws.ec2.RouteTable("private", vpc_id=vpc.id, opts=opts)
aws.ec2.Route(
    "private-default",
    route_table_id=private_rt.id,
    destination_cidr_block="0.0.0.0/0",
    nat_gateway_id=nat.id,
    opts=opts,
)
aws.ec2.RouteTableAssociation(
    "private-a",
    subnet_id=private.id,
    route_table_id=public_rt.id if BREAK == "gpu-public-subnet" else private_rt.id,
    opts=opts,
)

sg = aws.ec2.SecurityGroup(
    "gpu-nodes",
    vpc_id=vpc.id,
    description="GPU training nodes",
    ingress=[
        aws.ec2.SecurityGroupIngressArgs(
            protocol="tcp",
            from_port=3389,
            to_port=3389,
            cidr_blocks=["10.0.0.0/8", "0.0.0.0/0"],
            description="remote desktop",
        )
    ]
    if BREAK == "sg-inline-rdp"
    else None,
    opts=opts,
)
aws.vpc.SecurityGroupEgressRule(
    "gpu-egress", security_group_id=sg.id, ip_protocol="-1", cidr_ipv4="0.0.0.0/0", opts=opts
)
aws.vpc.SecurityGroupIngressRule(
    "nccl-intra",
    security_group_id=sg.id,
    ip_protocol="tcp",
    from_port=0,
    to_port=65535,
    referenced_security_group_id=sg.id,
    opts=opts,
)
aws.vpc.SecurityGroupIngressRule(
    "metrics-from-vpc",
    security_group_id=sg.id,
    ip_protocol="tcp",
    from_port=9400,
    to_port=9400,
    cidr_ipv4="10.40.0.0/16",
    opts=opts,
)
if BREAK == "sg-all-tcp-world":
    aws.vpc.SecurityGroupIngressRule(
        "debug",
        security_group_id=sg.id,
        ip_protocol="tcp",
        from_port=0,
        to_port=65535,
        cidr_ipv4="0.0.0.0/0",
        opts=opts,
    )
if BREAK == "sg-ssh-ipv6":
    aws.ec2.SecurityGroupRule(
        "ssh-v6",
        type="ingress",
        security_group_id=sg.id,
        protocol="tcp",
        from_port=22,
        to_port=22,
        ipv6_cidr_blocks=["::/0"],
        opts=opts,
    )
if BREAK == "sg-port-range":
    aws.ec2.SecurityGroupRule(
        "ftp-to-smtp",
        type="ingress",
        security_group_id=sg.id,
        protocol="6",
        from_port=20,
        to_port=25,
        cidr_blocks=["0.0.0.0/0"],
        opts=opts,
    )
if BREAK == "sg-all-protocols":
    aws.vpc.SecurityGroupIngressRule(
        "anything", security_group_id=sg.id, ip_protocol="-1", cidr_ipv4="0.0.0.0/0", opts=opts
    )

# -- keys ------------------------------------------------------------------------------------------
key_policy = {
    "Version": "2012-10-17",
    "Statement": [
        {
            "Sid": "AccountAdmin",
            "Effect": "Allow",
            "Principal": {"AWS": f"arn:aws:iam::{account_id}:root"},
            "Action": "kms:*",
            "Resource": "*",
        },
        {
            "Sid": "CloudWatchLogs",
            "Effect": "Allow",
            "Principal": {"Service": f"logs.{region}.amazonaws.com"},
            "Action": [
                "kms:Encrypt*",
                "kms:Decrypt*",
                "kms:ReEncrypt*",
                "kms:GenerateDataKey*",
                "kms:Describe*",
            ],
            "Resource": "*",
        },
    ],
}
if BREAK == "kms-wildcard-principal":
    key_policy["Statement"][0]["Principal"] = "*"
if BREAK == "kms-caller-account":
    key_policy["Statement"][0]["Principal"] = {"AWS": "*"}
    key_policy["Statement"][0]["Condition"] = {"StringEquals": {"kms:CallerAccount": account_id}}
key = aws.kms.Key(
    "checkpoints",
    description="checkpoints and logs",
    enable_key_rotation=BREAK != "kms-no-rotation",
    deletion_window_in_days=30,
    policy=json.dumps(key_policy),
    opts=opts,
)
aws.kms.Alias("checkpoints", name="alias/vision-checkpoints", target_key_id=key.key_id, opts=opts)

# -- checkpoint bucket (v7 family, separate configuration resources) -------------------------------
bucket = aws.s3.Bucket(
    "checkpoints",
    bucket="vision-dev-checkpoints",
    tags={"purpose": "checkpoints", "data-classification": "internal"},
    opts=opts,
)
sse_rule = (
    aws.s3.BucketServerSideEncryptionConfigurationRuleArgs(
        apply_server_side_encryption_by_default=aws.s3.BucketServerSideEncryptionConfigurationRuleApplyServerSideEncryptionByDefaultArgs(
            sse_algorithm="AES256"
        )
    )
    if BREAK == "bucket-aes256"
    else aws.s3.BucketServerSideEncryptionConfigurationRuleArgs(
        apply_server_side_encryption_by_default=aws.s3.BucketServerSideEncryptionConfigurationRuleApplyServerSideEncryptionByDefaultArgs(
            sse_algorithm="aws:kms", kms_master_key_id=key.arn
        ),
        bucket_key_enabled=True,
    )
)
aws.s3.BucketServerSideEncryptionConfiguration("checkpoints", bucket=bucket.id, rules=[sse_rule], opts=opts)
aws.s3.BucketVersioning(
    "checkpoints",
    bucket=bucket.id,
    versioning_configuration={"status": "Suspended" if BREAK == "versioning-suspended" else "Enabled"},
    opts=opts,
)
aws.s3.BucketPublicAccessBlock(
    "checkpoints",
    bucket=bucket.id,
    block_public_acls=True,
    block_public_policy=True,
    ignore_public_acls=True,
    restrict_public_buckets=BREAK != "bucket-public",
    opts=opts,
)
expire_days = 60 if BREAK == "lifecycle-too-long" else 30
aws.s3.BucketLifecycleConfiguration(
    "checkpoints",
    bucket=bucket.id,
    rules=[
        {
            "id": "checkpoints",
            "status": "Disabled" if BREAK == "lifecycle-disabled" else "Enabled",
            "filter": {},
            # No move with a 30-day expiry: no S3 class pays off before it (GF-STOR-006).
            "transitions": [{"days": 7, "storage_class": "STANDARD_IA"}]
            if BREAK == "lifecycle-ia-7"
            else None,
            "expiration": {"days": expire_days},
            "noncurrent_version_expiration": {"noncurrent_days": 7},
            "abort_incomplete_multipart_upload": {"days_after_initiation": 1},
        }
    ],
    opts=opts,
)
plain_http_actions = "s3:GetObject" if BREAK == "tls-deny-getobject-only" else "s3:*"
bucket_policy = Output.all(bucket.arn).apply(
    lambda a: json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [
                {
                    "Sid": "DenyInsecureTransport",
                    "Effect": "Deny",
                    "Principal": {"AWS": "*"},
                    "Action": plain_http_actions,
                    "Resource": [a[0], f"{a[0]}/*"],
                    "Condition": {"Bool": {"aws:SecureTransport": False}},
                },
                {
                    "Sid": "DenyOldTls",
                    "Effect": "Deny",
                    "Principal": "*",
                    "Action": "s3:*",
                    "Resource": [a[0], f"{a[0]}/*"],
                    "Condition": {"NumericLessThan": {"s3:TlsVersion": "1.2"}},
                },
            ],
        }
    )
)
aws.s3.BucketPolicy("checkpoints", bucket=bucket.id, policy=bucket_policy, opts=opts)

# -- identity --------------------------------------------------------------------------------------
trust = {
    "Version": "2012-10-17",
    "Statement": [
        {"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}, "Action": "sts:AssumeRole"}
    ],
}
if BREAK == "trust-star":
    trust["Statement"][0]["Principal"] = "*"
role = aws.iam.Role(
    "gpu-node",
    assume_role_policy=json.dumps(trust),
    inline_policies=[
        aws.iam.RoleInlinePolicyArgs(
            name="ecr-pull",
            policy=json.dumps(
                {
                    "Version": "2012-10-17",
                    "Statement": [
                        {"Effect": "Allow", "NotAction": ["iam:*"], "Resource": "*"}
                        if BREAK == "inline-notaction"
                        else {
                            "Effect": "Allow",
                            "Action": [
                                "ecr:GetAuthorizationToken",
                                "ecr:BatchGetImage",
                                "ecr:GetDownloadUrlForLayer",
                            ],
                            "Resource": "*",
                        }
                    ],
                }
            ),
        )
    ],
    opts=opts,
)
if BREAK != "no-ssm":
    aws.iam.RolePolicyAttachment(
        "gpu-node-ssm",
        role=role.name,
        policy_arn="arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore",
        opts=opts,
    )
if BREAK == "admin-attached":
    aws.iam.RolePolicyAttachment(
        "gpu-node-admin", role=role.name, policy_arn="arn:aws:iam::aws:policy/AdministratorAccess", opts=opts
    )
s3_actions = "s3:*" if BREAK == "iam-s3-star" else ["s3:GetObject", "s3:PutObject", "s3:ListBucket"]
aws.iam.RolePolicy(
    "gpu-node-checkpoints",
    role=role.id,
    policy=Output.all(bucket.arn, key.arn).apply(
        lambda a: {
            "Version": "2012-10-17",
            "Statement": [
                {"Effect": "Allow", "Action": s3_actions, "Resource": [a[0], f"{a[0]}/*"]},
                {"Effect": "Allow", "Action": ["kms:Decrypt", "kms:GenerateDataKey"], "Resource": a[1]},
            ],
        }
    ),
    opts=opts,
)
metrics_policy = aws.iam.Policy(
    "gpu-metrics",
    policy=json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [
                {"Effect": "Allow", "Action": ["cloudwatch:PutMetricData"], "Resource": "*"},
                # The agent appends AutoScalingGroupName after looking up the instance's tags.
                {"Effect": "Allow", "Action": ["ec2:DescribeTags"], "Resource": "*"},
                *(
                    [{"Effect": "Allow", "Action": "iam:PassRole", "Resource": "*"}]
                    if BREAK == "passrole-star"
                    else []
                ),
            ],
        }
    ),
    opts=opts,
)
aws.iam.RolePolicyAttachment("gpu-node-metrics", role=role.name, policy_arn=metrics_policy.arn, opts=opts)
profile = aws.iam.InstanceProfile("gpu-node", role=role.name, opts=opts)
if BREAK == "access-key":
    user = aws.iam.User("ci", opts=opts)
    aws.iam.AccessKey("ci", user=user.name, opts=opts)

# -- pool ------------------------------------------------------------------------------------------
lt = aws.ec2.LaunchTemplate(
    "gpu",
    image_id="ami-0a1b2c3d4e5f67890",
    instance_type="g5.2xlarge",
    key_name="ops-key" if BREAK == "lt-key-pair" else None,
    iam_instance_profile=aws.ec2.LaunchTemplateIamInstanceProfileArgs(arn=profile.arn),
    vpc_security_group_ids=None if BREAK == "lt-public-ip" else [sg.id],
    network_interfaces=[
        aws.ec2.LaunchTemplateNetworkInterfaceArgs(
            associate_public_ip_address="true", security_groups=[sg.id], device_index=0
        )
    ]
    if BREAK == "lt-public-ip"
    else None,
    metadata_options=aws.ec2.LaunchTemplateMetadataOptionsArgs(
        http_endpoint="enabled",
        http_tokens="optional" if BREAK == "imds-optional" else "required",
        http_put_response_hop_limit=3 if BREAK == "hop-limit-3" else 2,
    ),
    block_device_mappings=[
        aws.ec2.LaunchTemplateBlockDeviceMappingArgs(
            device_name="/dev/xvda",
            ebs=aws.ec2.LaunchTemplateBlockDeviceMappingEbsArgs(
                volume_size=200,
                volume_type="gp2" if BREAK == "gp2" else "gp3",
                encrypted="false" if BREAK == "lt-unencrypted" else "true",
                kms_key_id=None if BREAK == "lt-unencrypted" else key.arn,
                delete_on_termination="true",
            ),
        )
    ],
    tag_specifications=[
        aws.ec2.LaunchTemplateTagSpecificationArgs(
            resource_type="instance",
            tags={"project": "vision", "team": "ml-platform", "cost-center": "cc-042", "env": "dev"},
        )
    ],
    opts=opts,
)
asg = aws.autoscaling.Group(
    "gpu-burst",
    min_size=0,
    max_size=8,
    desired_capacity=0,
    default_cooldown=300,
    vpc_zone_identifiers=[public.id if BREAK == "gpu-in-public-subnet" else private.id],
    mixed_instances_policy=aws.autoscaling.GroupMixedInstancesPolicyArgs(
        instances_distribution=aws.autoscaling.GroupMixedInstancesPolicyInstancesDistributionArgs(
            on_demand_base_capacity=0,
            on_demand_percentage_above_base_capacity=50 if BREAK == "half-on-demand" else 0,
            spot_allocation_strategy="price-capacity-optimized",
        ),
        launch_template=aws.autoscaling.GroupMixedInstancesPolicyLaunchTemplateArgs(
            launch_template_specification=aws.autoscaling.GroupMixedInstancesPolicyLaunchTemplateLaunchTemplateSpecificationArgs(
                launch_template_id=lt.id, version="$Latest"
            ),
            overrides=[
                aws.autoscaling.GroupMixedInstancesPolicyLaunchTemplateOverrideArgs(
                    instance_type="g5.2xlarge"
                ),
                aws.autoscaling.GroupMixedInstancesPolicyLaunchTemplateOverrideArgs(
                    instance_type="p4d.24xlarge" if BREAK == "a100-in-dev" else "g6.2xlarge"
                ),
            ],
        ),
    ),
    tags=[
        aws.autoscaling.GroupTagArgs(key="Name", value="vision-gpu-burst", propagate_at_launch=True),
        aws.autoscaling.GroupTagArgs(key="project", value="vision", propagate_at_launch=True),
        aws.autoscaling.GroupTagArgs(key="team", value="ml-platform", propagate_at_launch=True),
        aws.autoscaling.GroupTagArgs(key="cost-center", value="cc-042", propagate_at_launch=True),
        aws.autoscaling.GroupTagArgs(key="env", value="dev", propagate_at_launch=True),
    ],
    opts=opts,
)
scale_out = aws.autoscaling.Policy(
    "gpu-scale-out",
    autoscaling_group_name=asg.name,
    policy_type="StepScaling",
    adjustment_type="ChangeInCapacity",
    estimated_instance_warmup=300,
    step_adjustments=[{"metric_interval_lower_bound": "0", "scaling_adjustment": 2}],
    opts=opts,
)
scale_in = (
    None
    if BREAK in ("no-schedule-no-idle", "no-idle", "no-idle-weekends-on")
    # A step policy takes no cooldown and is re-run every minute its alarm holds; the break shows it.
    else aws.autoscaling.Policy(
        "gpu-scale-in",
        autoscaling_group_name=asg.name,
        policy_type="StepScaling",
        adjustment_type="ChangeInCapacity",
        step_adjustments=[{"metric_interval_upper_bound": "0", "scaling_adjustment": -1}],
        opts=opts,
    )
    if BREAK == "step-scale-in"
    # Simple scaling honours its cooldown; a step policy would remove an instance every minute.
    else aws.autoscaling.Policy(
        "gpu-scale-in",
        autoscaling_group_name=asg.name,
        policy_type="SimpleScaling",
        adjustment_type="ChangeInCapacity",
        scaling_adjustment=-1,
        cooldown=300,
        opts=opts,
    )
)
aws.cloudwatch.MetricAlarm(
    "gpu-busy",
    namespace="CWAgent",
    metric_name="nvidia_smi_utilization_gpu",
    dimensions={"AutoScalingGroupName": asg.name},
    statistic="Average",
    period=60,
    evaluation_periods=5,
    comparison_operator="GreaterThanThreshold",
    threshold=70,
    alarm_actions=[scale_out.arn],
    opts=opts,
)
if scale_in is not None:
    aws.cloudwatch.MetricAlarm(
        "gpu-idle",
        namespace="CWAgent",
        metric_name="nvidia_smi_utilization_gpu",
        dimensions={"AutoScalingGroupName": asg.name},
        statistic="Average",
        period=60,
        evaluation_periods=30,
        comparison_operator="LessThanThreshold",
        threshold=80 if BREAK == "thresholds-inverted" else 30,
        alarm_actions=[scale_in.arn],
        opts=opts,
    )
if BREAK not in ("no-schedule", "no-schedule-no-idle"):
    aws.autoscaling.Schedule(
        "nightly-zero",
        scheduled_action_name="nightly-zero",
        autoscaling_group_name=asg.name,
        min_size=0,
        max_size=0,
        desired_capacity=0,
        recurrence="0 20 * * *",
        time_zone="America/Los_Angeles",
        opts=opts,
    )
    aws.autoscaling.Schedule(
        "morning",
        scheduled_action_name="morning",
        autoscaling_group_name=asg.name,
        min_size=0,
        max_size=8,
        desired_capacity=0,
        recurrence="0 8 * * *" if BREAK == "no-idle-weekends-on" else "0 8 * * 1-5",
        time_zone="America/Los_Angeles",
        opts=opts,
    )

# -- cost, audit, sessions -------------------------------------------------------------------------
if BREAK != "no-budget":
    aws.budgets.Budget(
        "vision-dev",
        budget_type="COST",
        limit_amount="5000",
        limit_unit="USD",
        time_unit="MONTHLY",
        notifications=[
            aws.budgets.BudgetNotificationArgs(
                comparison_operator="GREATER_THAN",
                threshold={"budget-95": 95, "budget-absolute": 4000}.get(BREAK, 80),
                threshold_type="ABSOLUTE_VALUE" if BREAK == "budget-absolute" else "PERCENTAGE",
                notification_type="FORECASTED",
                subscriber_email_addresses=["ml-platform@example.com"],
            )
        ],
        opts=opts,
    )
trail_bucket = aws.s3.Bucket("trail", bucket="vision-dev-trail", opts=opts)
aws.s3.BucketServerSideEncryptionConfiguration(
    "trail",
    bucket=trail_bucket.id,
    rules=[
        {
            "apply_server_side_encryption_by_default": {
                "sse_algorithm": "aws:kms",
                "kms_master_key_id": key.arn,
            }
        }
    ],
    opts=opts,
)
aws.s3.BucketPublicAccessBlock(
    "trail",
    bucket=trail_bucket.id,
    block_public_acls=True,
    block_public_policy=True,
    ignore_public_acls=True,
    restrict_public_buckets=True,
    opts=opts,
)
aws.s3.BucketPolicy(
    "trail",
    bucket=trail_bucket.id,
    policy=trail_bucket.arn.apply(
        lambda arn: json.dumps(
            {
                "Version": "2012-10-17",
                "Statement": [
                    {
                        "Sid": "AWSCloudTrailWrite",
                        "Effect": "Allow",
                        "Principal": {"Service": "cloudtrail.amazonaws.com"},
                        "Action": "s3:PutObject",
                        "Resource": f"{arn}/AWSLogs/{account_id}/*",
                        "Condition": {"StringEquals": {"s3:x-amz-acl": "bucket-owner-full-control"}},
                    },
                    {
                        "Sid": "AWSCloudTrailAclCheck",
                        "Effect": "Allow",
                        "Principal": {"Service": "cloudtrail.amazonaws.com"},
                        "Action": "s3:GetBucketAcl",
                        "Resource": arn,
                    },
                    {
                        "Sid": "DenyInsecureTransport",
                        "Effect": "Deny",
                        "Principal": "*",
                        "Action": "s3:*",
                        "Resource": [arn, f"{arn}/*"],
                        "Condition": {"Bool": {"aws:SecureTransport": "false"}},
                    },
                    {
                        "Sid": "DenyOldTls",
                        "Effect": "Deny",
                        "Principal": "*",
                        "Action": "s3:*",
                        "Resource": [arn, f"{arn}/*"],
                        "Condition": {"NumericLessThan": {"s3:TlsVersion": 1.2}},
                    },
                ],
            }
        )
    ),
    opts=opts,
)
aws.cloudtrail.Trail(
    "account",
    s3_bucket_name=trail_bucket.id,
    is_multi_region_trail=BREAK != "trail-single-region",
    include_global_service_events=True,
    enable_log_file_validation=True,
    kms_key_id=key.arn,
    opts=opts,
)
session_logs = aws.cloudwatch.LogGroup(
    "ssm-sessions",
    name="/vision/ssm-sessions",
    retention_in_days=30 if BREAK == "retention-30" else 180,
    kms_key_id=key.arn,
    opts=opts,
)
aws.cloudwatch.LogGroup(
    "training-jobs",
    name="/vision/training",
    retention_in_days=365,
    kms_key_id=None if BREAK == "log-group-no-kms" else key.arn,
    opts=opts,
)
aws.ssm.Document(
    "session-preferences",
    name="SSM-SessionManagerRunShell",
    # This stack owns the account's Session Manager preferences (one document per account and region).
    tags={"gpufleet:account-baseline": "true"},
    document_type="Session",
    document_format="JSON",
    content=session_logs.name.apply(
        lambda group: json.dumps(
            {
                "schemaVersion": "1.0",
                "description": "Session Manager preferences",
                "sessionType": "Standard_Stream",
                "inputs": {
                    "s3BucketName": "",
                    "s3EncryptionEnabled": True,
                    "cloudWatchLogGroupName": group,
                    "cloudWatchEncryptionEnabled": BREAK != "sessions-unencrypted",
                    "cloudWatchStreamingEnabled": True,
                    "kmsKeyId": "alias/vision-checkpoints",
                    "runAsEnabled": False,
                    "idleSessionTimeout": "20",
                },
            }
        )
    ),
    opts=opts,
)
if BREAK == "missing-cost-tags":
    aws.ec2.SecurityGroup(
        "scratch",
        vpc_id=vpc.id,
        description="scratch",
        opts=ResourceOptions(provider=aws.Provider("untagged", region=region)),
    )

pulumi.export("bucket", bucket.bucket)
pulumi.export("asg", asg.name)

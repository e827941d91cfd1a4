"""An ordinary CPU web shop on AWS: public ALB, CPU-only Auto Scaling group, a database key, a static
assets bucket, a Lambda role, CloudTrail, log groups and a budget. No GPU anywhere.

`shop-web:tagging` is `provider` (cost tags through an explicit provider's `default_tags`) or
`config` (through the stack's `aws:defaultTags`, the default provider).
"""

import json

import pulumi
import pulumi_aws as aws
from pulumi import ResourceOptions

TAGGING = pulumi.Config().get("tagging") or "provider"
ACCOUNT = "123456789012"
REGION = "eu-west-1"
TAGS = {"project": "shop", "team": "web", "cost-center": "cc-100", "env": "prod"}

if TAGGING == "provider":
    provider = aws.Provider("euw1", region=REGION, default_tags=aws.ProviderDefaultTagsArgs(tags=TAGS))
    opts = ResourceOptions(provider=provider)
else:
    opts = ResourceOptions()

# -- network ---------------------------------------------------------------------------------------
vpc = aws.ec2.Vpc("shop", cidr_block="10.0.0.0/16", enable_dns_hostnames=True, opts=opts)
igw = aws.ec2.InternetGateway("shop", vpc_id=vpc.id, opts=opts)
public_rt = aws.ec2.RouteTable(
    "public",
    vpc_id=vpc.id,
    routes=[aws.ec2.RouteTableRouteArgs(cidr_block="0.0.0.0/0", gateway_id=igw.id)],
    opts=opts,
)
subnets = []
for index, zone in enumerate(("eu-west-1a", "eu-west-1b")):
    subnet = aws.ec2.Subnet(
        f"public-{zone[-1]}",
        vpc_id=vpc.id,
        cidr_block=f"10.0.{index}.0/24",
        availability_zone=zone,
        map_public_ip_on_launch=True,
        opts=opts,
    )
    aws.ec2.RouteTableAssociation(
        f"public-{zone[-1]}", subnet_id=subnet.id, route_table_id=public_rt.id, opts=opts
    )
    subnets.append(subnet)

alb_sg = aws.ec2.SecurityGroup(
    "alb",
    vpc_id=vpc.id,
    description="public HTTPS",
    ingress=[
        aws.ec2.SecurityGroupIngressArgs(
            protocol="tcp", from_port=443, to_port=443, cidr_blocks=["0.0.0.0/0"], ipv6_cidr_blocks=["::/0"]
        )
    ],
    egress=[
        aws.ec2.SecurityGroupEgressArgs(protocol="-1", from_port=0, to_port=0, cidr_blocks=["0.0.0.0/0"])
    ],
    opts=opts,
)
app_sg = aws.ec2.SecurityGroup("app", vpc_id=vpc.id, description="app servers behind the ALB", opts=opts)
aws.vpc.SecurityGroupIngressRule(
    "app-from-alb",
    security_group_id=app_sg.id,
    referenced_security_group_id=alb_sg.id,
    ip_protocol="tcp",
    from_port=8080,
    to_port=8080,
    opts=opts,
)
aws.vpc.SecurityGroupEgressRule(
    "app-out", security_group_id=app_sg.id, ip_protocol="-1", cidr_ipv4="0.0.0.0/0", opts=opts
)
alb = aws.lb.LoadBalancer(
    "shop",
    load_balancer_type="application",
    security_groups=[alb_sg.id],
    subnets=[s.id for s in subnets],
    opts=opts,
)
target_group = aws.lb.TargetGroup("app", port=8080, protocol="HTTP", vpc_id=vpc.id, opts=opts)

# -- CPU-only compute ------------------------------------------------------------------------------
app_role = aws.iam.Role(
    "app",
    assume_role_policy=json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [
                {"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}, "Action": "sts:AssumeRole"}
            ],
        }
    ),
    opts=opts,
)
aws.iam.RolePolicyAttachment(
    "app-ssm",
    role=app_role.name,
    policy_arn="arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore",
    opts=opts,
)
profile = aws.iam.InstanceProfile("app", role=app_role.name, opts=opts)
ebs_key = aws.kms.Key("ebs", description="app volumes", enable_key_rotation=True, opts=opts)
template = aws.ec2.LaunchTemplate(
    "app",
    image_id="ami-0c7217cdde317cfec",
    instance_type="m7i.large",
    vpc_security_group_ids=[app_sg.id],
    iam_instance_profile=aws.ec2.LaunchTemplateIamInstanceProfileArgs(arn=profile.arn),
    metadata_options=aws.ec2.LaunchTemplateMetadataOptionsArgs(
        http_endpoint="enabled", http_tokens="required", http_put_response_hop_limit=1
    ),
    block_device_mappings=[
        aws.ec2.LaunchTemplateBlockDeviceMappingArgs(
            device_name="/dev/xvda",
            ebs=aws.ec2.LaunchTemplateBlockDeviceMappingEbsArgs(
                volume_size=30, volume_type="gp3", encrypted="true", kms_key_id=ebs_key.arn
            ),
        )
    ],
    opts=opts,
)
aws.autoscaling.Group(
    "app",
    min_size=2,
    max_size=10,
    desired_capacity=2,
    vpc_zone_identifiers=[s.id for s in subnets],
    target_group_arns=[target_group.arn],
    mixed_instances_policy=aws.autoscaling.GroupMixedInstancesPolicyArgs(
        launch_template=aws.autoscaling.GroupMixedInstancesPolicyLaunchTemplateArgs(
            launch_template_specification=aws.autoscaling.GroupMixedInstancesPolicyLaunchTemplateLaunchTemplateSpecificationArgs(
                launch_template_id=template.id, version="$Latest"
            ),
            overrides=[
                aws.autoscaling.GroupMixedInstancesPolicyLaunchTemplateOverrideArgs(instance_type=t)
                for t in ("m7i.large", "c7g.large", "t3.large")
            ],
        )
    ),
    tags=[
        aws.autoscaling.GroupTagArgs(key=key, value=value, propagate_at_launch=True)
        for key, value in TAGS.items()
    ],
    opts=opts,
)

# A small CPU utility host with a public IP: the GPU-only access rules do not apply to it.
aws.ec2.Instance(
    "cron",
    ami="ami-0c7217cdde317cfec",
    instance_type="t3.micro",
    subnet_id=subnets[0].id,
    vpc_security_group_ids=[app_sg.id],
    iam_instance_profile=profile.name,
    associate_public_ip_address=True,
    metadata_options=aws.ec2.InstanceMetadataOptionsArgs(
        http_tokens="required", http_put_response_hop_limit=1
    ),
    root_block_device=aws.ec2.InstanceRootBlockDeviceArgs(
        volume_type="gp3", encrypted=True, kms_key_id=ebs_key.arn
    ),
    opts=opts,
)

# -- database key ----------------------------------------------------------------------------------
db_key = aws.kms.Key(
    "db",
    description="RDS storage",
    enable_key_rotation=True,
    policy=json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [
                {
                    "Sid": "AccountAdmin",
                    "Effect": "Allow",
                    "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:root"},
                    "Action": "kms:*",
                    "Resource": "*",
                }
            ],
        }
    ),
    opts=opts,
)
aws.kms.Alias("db", name="alias/shop-db", target_key_id=db_key.key_id, opts=opts)

# -- static assets ---------------------------------------------------------------------------------
assets_key = aws.kms.Key("assets", description="static assets", enable_key_rotation=True, opts=opts)
assets = aws.s3.Bucket("assets", opts=opts)
aws.s3.BucketServerSideEncryptionConfiguration(
    "assets",
    bucket=assets.id,
    rules=[
        aws.s3.BucketServerSideEncryptionConfigurationRuleArgs(
            apply_server_side_encryption_by_default=aws.s3.BucketServerSideEncryptionConfigurationRuleApplyServerSideEncryptionByDefaultArgs(
                sse_algorithm="aws:kms", kms_master_key_id=assets_key.arn
            ),
            bucket_key_enabled=True,
        )
    ],
    opts=opts,
)
aws.s3.BucketPublicAccessBlock(
    "assets",
    bucket=assets.id,
    block_public_acls=True,
    block_public_policy=True,
    ignore_public_acls=True,
    restrict_public_buckets=True,
    opts=opts,
)
aws.s3.BucketPolicy(
    "assets",
    bucket=assets.id,
    policy=assets.arn.apply(
        lambda arn: json.dumps(
            {
                "Version": "2012-10-17",
                "Statement": [
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
                        "Condition": {"NumericLessThan": {"s3:TlsVersion": "1.2"}},
                    },
                ],
            }
        )
    ),
    opts=opts,
)

# -- Lambda ----------------------------------------------------------------------------------------
lambda_role = aws.iam.Role(
    "thumbnailer",
    assume_role_policy=json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [
                {
                    "Effect": "Allow",
                    "Principal": {"Service": "lambda.amazonaws.com"},
                    "Action": "sts:AssumeRole",
                }
            ],
        }
    ),
    opts=opts,
)
aws.iam.RolePolicyAttachment(
    "thumbnailer-logs",
    role=lambda_role.name,
    policy_arn="arn:aws:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole",
    opts=opts,
)

aws.lambda_.Function(
    "thumbnailer",
    role=lambda_role.arn,
    runtime="python3.12",
    handler="app.handler",
    s3_bucket="shop-artifacts",
    s3_key="thumbnailer.zip",
    architectures=["arm64"],
    opts=opts,
)

# -- audit and logs --------------------------------------------------------------------------------
logs_key = aws.kms.Key("logs", description="log groups", enable_key_rotation=True, opts=opts)
aws.cloudwatch.LogGroup("app", name="/shop/app", retention_in_days=365, kms_key_id=logs_key.arn, opts=opts)
aws.cloudwatch.LogGroup(
    "thumbnailer", name="/aws/lambda/thumbnailer", retention_in_days=365, kms_key_id=logs_key.arn, opts=opts
)
trail_bucket = aws.s3.Bucket("trail", opts=opts)
aws.s3.BucketServerSideEncryptionConfiguration(
    "trail",
    bucket=trail_bucket.id,
    rules=[
        aws.s3.BucketServerSideEncryptionConfigurationRuleArgs(
            apply_server_side_encryption_by_default=aws.s3.BucketServerSideEncryptionConfigurationRuleApplyServerSideEncryptionByDefaultArgs(
                sse_algorithm="aws:kms", kms_master_key_id=logs_key.arn
            ),
        )
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
                        "Sid": "CloudTrailWrite",
                        "Effect": "Allow",
                        "Principal": {"Service": "cloudtrail.amazonaws.com"},
                        "Action": "s3:PutObject",
                        "Resource": f"{arn}/AWSLogs/{ACCOUNT}/*",
                        "Condition": {"StringEquals": {"s3:x-amz-acl": "bucket-owner-full-control"}},
                    },
                    {
                        "Sid": "CloudTrailAcl",
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
                ],
            }
        )
    ),
    opts=opts,
)
aws.cloudtrail.Trail(
    "account",
    s3_bucket_name=trail_bucket.id,
    is_multi_region_trail=True,
    include_global_service_events=True,
    enable_log_file_validation=True,
    kms_key_id=logs_key.arn,
    opts=opts,
)

# -- budget ----------------------------------------------------------------------------------------
aws.budgets.Budget(
    "monthly",
    budget_type="COST",
    limit_amount="5000",
    limit_unit="USD",
    time_unit="MONTHLY",
    notifications=[
        aws.budgets.BudgetNotificationArgs(
            comparison_operator="GREATER_THAN",
            notification_type="ACTUAL",
            threshold=80,
            threshold_type="PERCENTAGE",
            subscriber_email_addresses=["web-oncall@example.com"],
        )
    ],
    opts=opts,
)

pulumi.export("alb_dns", alb.dns_name)

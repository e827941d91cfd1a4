"""A GPU worker pool that scales on its job queue, written with the raw pulumi-aws SDK the way a team
that has been through a first deployment writes it: it deploys on a fresh account and its scaling fires.

- the pool scales out on `AWS/SQS ApproximateNumberOfMessagesVisible` of a queue the program creates,
  and on the CloudWatch agent's GPU metric, whose role may publish to `CWAgent` and read the instance
  tags the agent appends `AutoScalingGroupName` from, through `monitoring` and `ec2` interface endpoints;
- it scales in with a simple policy and a 300 s cooldown;
- the key names the Auto Scaling service-linked role, created in the program and waited for;
- the BYOK key's wrapped material comes in as secret config, so the log group and volumes can use it;
- the account-wide Session Manager preferences live in another (account-baseline) stack.

`queue-fleet:break` selects one mistake; `none` is the program as it should be.
"""

import json

import pulumi
import pulumi_aws as aws
from pulumi import Output, ResourceOptions

config = pulumi.Config()
BREAK = config.get("break") or "none"
ACCOUNT = "123456789012"
REGION = "us-east-1"
TAGS = {"project": "vision", "team": "ml-platform", "cost-center": "cc-042", "env": "dev"}

# --- network: private subnets, no route out, interface endpoints for what the agent calls ---------
vpc = aws.ec2.Vpc("workers", cidr_block="10.40.0.0/16", enable_dns_hostnames=True, tags=TAGS)
private_rt = aws.ec2.RouteTable("private", vpc_id=vpc.id, tags=TAGS)
subnets = []
for index, zone in enumerate(["us-east-1a", "us-east-1b"]):
    subnet = aws.ec2.Subnet(
        f"private-{zone[-1]}",
        vpc_id=vpc.id,
        cidr_block=f"10.40.{index}.0/24",
        availability_zone=zone,
        tags=TAGS,
    )
    aws.ec2.RouteTableAssociation(f"private-{zone[-1]}", subnet_id=subnet.id, route_table_id=private_rt.id)
    subnets.append(subnet)
endpoint_sg = aws.ec2.SecurityGroup(
    "endpoints",
    vpc_id=vpc.id,
    description="HTTPS from the workers to the interface endpoints",
    ingress=[{"protocol": "tcp", "from_port": 443, "to_port": 443, "cidr_blocks": ["10.40.0.0/16"]}],
    tags=TAGS,
)
services = ["monitoring", "logs", "kms", "sqs", "ssm", "ssmmessages", "ec2messages"]
if BREAK != "no-ec2-endpoint":
    services.append("ec2")
for service in services:
    aws.ec2.VpcEndpoint(
        service,
        vpc_id=vpc.id,
        service_name=f"com.amazonaws.{REGION}.{service}",
        vpc_endpoint_type="Interface",
        private_dns_enabled=True,
        subnet_ids=[s.id for s in subnets],
        security_group_ids=[endpoint_sg.id],
        tags=TAGS,
    )

# --- keys ----------------------------------------------------------------------------------------
autoscaling_role = (
    None
    if BREAK == "no-slr"
    else aws.iam.ServiceLinkedRole("autoscaling", aws_service_name="autoscaling.amazonaws.com", tags=TAGS)
)
slr_arn = (
    f"arn:aws:iam::{ACCOUNT}:role/aws-service-role/autoscaling.amazonaws.com/AWSServiceRoleForAutoScaling"
)
key_policy = {
    "Version": "2012-10-17",
    "Statement": [
        {"Sid": "Account", "Effect": "Allow", "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:root"},
         "Action": ["kms:Create*", "kms:Describe*", "kms:Enable*", "kms:List*", "kms:Put*", "kms:Update*",
                    "kms:Revoke*", "kms:Disable*", "kms:Get*", "kms:Delete*", "kms:ImportKeyMaterial",
                    "kms:ScheduleKeyDeletion", "kms:CancelKeyDeletion", "kms:TagResource"],
         "Resource": "*"},
        {"Sid": "AutoScalingVolumes", "Effect": "Allow", "Principal": {"AWS": slr_arn},
         "Action": ["kms:Decrypt", "kms:GenerateDataKey*", "kms:ReEncrypt*", "kms:DescribeKey",
                    "kms:CreateGrant"],
         "Resource": "*"},
        {"Sid": "Logs", "Effect": "Allow", "Principal": {"Service": f"logs.{REGION}.amazonaws.com"},
         "Action": ["kms:Encrypt", "kms:Decrypt", "kms:GenerateDataKey*", "kms:DescribeKey"],
         "Resource": "*"},
    ],
}  # fmt: skip
waits_for_role = [autoscaling_role] if autoscaling_role is not None and BREAK != "key-before-slr" else []
key = aws.kms.ExternalKey(
    "byok",
    description="BYOK for the worker volumes and logs",
    key_material_base64=None if BREAK.startswith("byok-pending") else config.require_secret("byok-material"),
    policy=json.dumps(key_policy),
    tags=TAGS,
    opts=ResourceOptions(depends_on=waits_for_role),
)
jobs_log = aws.cloudwatch.LogGroup(
    "worker-logs", name="/vision/workers", retention_in_days=365, kms_key_id=key.arn, tags=TAGS
)

# --- the job queue the pool scales on ------------------------------------------------------------
dead_letters = aws.sqs.Queue("jobs-dlq", name="vision-jobs-dlq", kms_master_key_id=key.arn, tags=TAGS)
jobs = aws.sqs.Queue(
    "jobs",
    name="vision-jobs",
    kms_master_key_id=key.arn,
    redrive_policy=dead_letters.arn.apply(
        lambda arn: json.dumps({"deadLetterTargetArn": arn, "maxReceiveCount": 5})
    ),
    tags=TAGS,
)

# --- the worker role ----------------------------------------------------------------------------
role = aws.iam.Role(
    "worker",
    assume_role_policy=json.dumps(
        {"Version": "2012-10-17", "Statement": [
            {"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}, "Action": "sts:AssumeRole"}]}
    ),
    tags=TAGS,
)  # fmt: skip
aws.iam.RolePolicyAttachment(
    "worker-ssm", role=role.name, policy_arn="arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore"
)
agent_statements = [
    {"Sid": "PublishGpuMetrics", "Effect": "Allow", "Action": ["cloudwatch:PutMetricData"], "Resource": "*",
     "Condition": {"StringEquals": {"cloudwatch:namespace": "CWAgent"}}},
]  # fmt: skip
if BREAK != "no-describe-tags":
    agent_statements.append(
        {"Sid": "ReadOwnTags", "Effect": "Allow", "Action": ["ec2:DescribeTags"], "Resource": "*"}
    )
aws.iam.RolePolicy(
    "worker-agent",
    role=role.name,
    policy=Output.all(jobs.arn, key.arn).apply(
        lambda arns: json.dumps(
            {"Version": "2012-10-17", "Statement": [
                *agent_statements,
                {"Sid": "WorkOwnQueue", "Effect": "Allow", "Resource": [arns[0]],
                 "Action": ["sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:ChangeMessageVisibility"]},
                {"Sid": "UseKey", "Effect": "Allow", "Action": ["kms:Decrypt", "kms:GenerateDataKey"],
                 "Resource": [arns[1]]},
            ]}
        )
    ),
)  # fmt: skip
profile = aws.iam.InstanceProfile("worker", role=role.name, tags=TAGS)

# --- the pool ------------------------------------------------------------------------------------
template = aws.ec2.LaunchTemplate(
    "worker",
    image_id="ami-0c2b8ca1dad447f8a",
    instance_type="g5.xlarge",
    iam_instance_profile={"arn": profile.arn},
    metadata_options={"http_tokens": "required", "http_put_response_hop_limit": 2},
    block_device_mappings=[
        {"device_name": "/dev/xvda",
         "ebs": {"volume_size": 200, "volume_type": "gp3", "encrypted": "true", "kms_key_id": key.arn}}
    ],
    tags=TAGS,
)  # fmt: skip
group = aws.autoscaling.Group(
    "workers",
    # A pool kept warm makes `pulumi up` wait (10 minutes by default) for an instance to come up.
    min_size=1 if BREAK == "byok-pending-warm-pool" else 0,
    max_size=4,
    default_cooldown=300,
    vpc_zone_identifiers=[s.id for s in subnets],
    launch_template={"id": template.id, "version": "$Latest"},
    tags=[{"key": k, "value": v, "propagate_at_launch": True} for k, v in TAGS.items()],
    opts=ResourceOptions(depends_on=[autoscaling_role] if autoscaling_role is not None else []),
)
scale_out = aws.autoscaling.Policy(
    "workers-out",
    autoscaling_group_name=group.name,
    policy_type="StepScaling",
    adjustment_type="ChangeInCapacity",
    estimated_instance_warmup=300,
    step_adjustments=[{"metric_interval_lower_bound": "0", "scaling_adjustment": 1}],
)
if BREAK == "step-scale-in":
    scale_in = aws.autoscaling.Policy(
        "workers-in",
        autoscaling_group_name=group.name,
        policy_type="StepScaling",
        adjustment_type="ChangeInCapacity",
        estimated_instance_warmup=300,
        step_adjustments=[{"metric_interval_upper_bound": "0", "scaling_adjustment": -1}],
    )
else:
    scale_in = aws.autoscaling.Policy(
        "workers-in",
        autoscaling_group_name=group.name,
        policy_type="SimpleScaling",
        adjustment_type="ChangeInCapacity",
        scaling_adjustment=-1,
        cooldown=300,
    )
queue_name = "vision-jobs-legacy" if BREAK == "queue-elsewhere" else jobs.name
if BREAK == "custom-metric":
    backlog = {"namespace": "vision", "metric_name": "PendingJobs", "dimensions": {"Queue": "vision-jobs"}}
else:
    backlog = {
        "namespace": "AWS/SQS",
        "metric_name": "ApproximateNumberOfMessagesVisible",
        "dimensions": {"QueueName": queue_name},
    }
aws.cloudwatch.MetricAlarm(
    "jobs-waiting",
    statistic="Maximum",
    period=60,
    evaluation_periods=2,
    comparison_operator="GreaterThanThreshold",
    threshold=0,
    alarm_actions=[scale_out.arn],
    tags=TAGS,
    **backlog,
)
for name, operator, threshold, periods, policy in (
    ("gpu-busy", "GreaterThanThreshold", 70, 5, scale_out),
    ("gpu-idle", "LessThanThreshold", 30, 30, scale_in),
):
    aws.cloudwatch.MetricAlarm(
        name,
        namespace="CWAgent",
        metric_name="nvidia_smi_utilization_gpu",
        dimensions={"AutoScalingGroupName": group.name},
        statistic="Average",
        period=60,
        evaluation_periods=periods,
        comparison_operator=operator,
        threshold=threshold,
        alarm_actions=[policy.arn],
        tags=TAGS,
    )

# --- account-wide settings a fleet stack must not own -------------------------------------------
if BREAK == "session-preferences":
    aws.ssm.Document(
        "session-preferences",
        name="SSM-SessionManagerRunShell",
        document_type="Session",
        document_format="JSON",
        content=json.dumps({"schemaVersion": "1.0", "sessionType": "Standard_Stream", "inputs": {}}),
        tags=TAGS,
    )
if BREAK == "ebs-default":
    aws.ebs.EncryptionByDefault("ebs-default", enabled=True)

pulumi.export("queue", jobs.url)
pulumi.export("log_group", jobs_log.name)

"""A production inference box on `g7e.48xlarge` (RTX PRO 6000 Blackwell), a type the price catalogue
does not list, plus a spot group of `g6e.xlarge` in a region it does not price: raw `pulumi_aws`, no
gpufleet components.

`blackwell-box:break` selects one security mistake; `none` is compliant.
"""

import json

import pulumi
import pulumi_aws as aws

BREAK = pulumi.Config().get("break") or "none"
TAGS = {"project": "inference", "team": "serving", "cost-center": "cc-910", "env": "prod"}

vpc = aws.ec2.Vpc("serving", cidr_block="10.60.0.0/16", tags=TAGS)
subnet = aws.ec2.Subnet("serving-private", vpc_id=vpc.id, cidr_block="10.60.1.0/24", tags=TAGS)
sg = aws.ec2.SecurityGroup(
    "serving",
    vpc_id=vpc.id,
    ingress=[
        {
            "protocol": "tcp",
            "from_port": 22 if BREAK == "ssh-world" else 8000,
            "to_port": 22 if BREAK == "ssh-world" else 8000,
            "cidr_blocks": ["0.0.0.0/0" if BREAK == "ssh-world" else "10.60.0.0/16"],
        }
    ],
    egress=[{"protocol": "-1", "from_port": 0, "to_port": 0, "cidr_blocks": ["0.0.0.0/0"]}],
    tags=TAGS,
)
role = aws.iam.Role(
    "serving",
    assume_role_policy=json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [
                {"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}, "Action": "sts:AssumeRole"}
            ],
        }
    ),
    managed_policy_arns=["arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore"],
    tags=TAGS,
)
profile = aws.iam.InstanceProfile("serving", role=role.name, tags=TAGS)
aws.ec2.Instance(
    "blackwell",
    ami="ami-0c7217cdde317cfec",
    instance_type="g7e.48xlarge",
    subnet_id=subnet.id,
    vpc_security_group_ids=[sg.id],
    iam_instance_profile=profile.name,
    key_name="ops" if BREAK == "key-pair" else None,
    associate_public_ip_address=BREAK == "public-ip",
    metadata_options={
        "http_tokens": "optional" if BREAK == "imds-optional" else "required",
        "http_put_response_hop_limit": 1,
    },
    root_block_device={"volume_size": 200, "volume_type": "gp3", "encrypted": BREAK != "root-unencrypted"},
    tags=TAGS,
)
# A second pool in a region the catalogue has no price for: a provider of its own, as programs do.
far = aws.Provider("far", region="il-central-1")
template = aws.ec2.LaunchTemplate(
    "edge",
    image_id="ami-0c7217cdde317cfec",
    instance_type="g6e.xlarge",
    iam_instance_profile={"name": profile.name},
    metadata_options={"http_tokens": "required", "http_put_response_hop_limit": 1},
    block_device_mappings=[{"device_name": "/dev/xvda", "ebs": {"encrypted": "true", "volume_type": "gp3"}}],
    tags=TAGS,
    opts=pulumi.ResourceOptions(provider=far),
)
aws.autoscaling.Group(
    "edge",
    min_size=1,
    max_size=1,
    launch_template={"id": template.id, "version": "$Latest"},
    availability_zones=["il-central-1a"],
    tags=[{"key": k, "value": v, "propagate_at_launch": True} for k, v in TAGS.items()],
    opts=pulumi.ResourceOptions(provider=far),
)
aws.budgets.Budget(
    "serving",
    budget_type="COST",
    limit_amount="50000",
    limit_unit="USD",
    time_unit="MONTHLY",
    notifications=[
        {
            "comparison_operator": "GREATER_THAN",
            "threshold": 80,
            "threshold_type": "PERCENTAGE",
            "notification_type": "ACTUAL",
            "subscriber_email_addresses": ["serving@example.com"],
        }
    ],
    tags=TAGS,
)
aws.cloudtrail.Trail("serving", s3_bucket_name="org-audit-trail", is_multi_region_trail=True, tags=TAGS)

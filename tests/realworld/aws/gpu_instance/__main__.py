"""A single GPU workstation for a researcher: one `aws.ec2.Instance` with an extra data volume,
reached through Session Manager, stopped by an alarm when its GPU idles.

`notebook-gpu:break` selects one mistake; `none` is compliant.
"""

import json

import pulumi
import pulumi_aws as aws
from pulumi import ResourceOptions

BREAK = pulumi.Config().get("break") or "none"
TAGS = {"project": "research", "team": "applied-ml", "cost-center": "cc-311", "env": "dev"}
provider = aws.Provider("use1", region="us-east-1")
opts = ResourceOptions(provider=provider)


class Workstation(pulumi.ComponentResource):
    """The team's own component: the instance, its volume and its idle alarm."""

    def __init__(
        self,
        name: str,
        subnet_id: pulumi.Input[str],
        profile: pulumi.Input[str],
        sg_id: pulumi.Input[str],
        opts: ResourceOptions,
    ) -> None:
        super().__init__("research:index:Workstation", name, None, opts)
        child = ResourceOptions(parent=self)
        self.instance = aws.ec2.Instance(
            f"{name}-vm",
            ami="ami-0c7217cdde317cfec",
            instance_type="p5.48xlarge" if BREAK == "p5-in-dev" else "g6.xlarge",
            subnet_id=subnet_id,
            vpc_security_group_ids=[sg_id],
            iam_instance_profile=profile,
            key_name="researcher" if BREAK == "key-pair" else None,
            associate_public_ip_address=BREAK == "public-ip",
            instance_market_options=None
            if BREAK == "on-demand"
            else aws.ec2.InstanceInstanceMarketOptionsArgs(
                market_type="spot",
                spot_options=aws.ec2.InstanceInstanceMarketOptionsSpotOptionsArgs(
                    instance_interruption_behavior="stop", spot_instance_type="persistent"
                ),
            ),
            metadata_options=None
            if BREAK == "imds-default"
            else {"http_tokens": "required", "http_put_response_hop_limit": 1, "http_endpoint": "enabled"},
            root_block_device=aws.ec2.InstanceRootBlockDeviceArgs(
                volume_size=100, volume_type="gp3", encrypted=BREAK != "root-unencrypted"
            ),
            ebs_block_devices=[
                aws.ec2.InstanceEbsBlockDeviceArgs(
                    device_name="/dev/sdf",
                    volume_size=500,
                    volume_type="io1" if BREAK == "io1" else "gp3",
                    iops=3000,
                    encrypted=True,
                )
            ],
            tags={**TAGS, "Name": f"{name}-vm"},
            opts=child,
        )
        data = aws.ebs.Volume(
            f"{name}-datasets",
            availability_zone="us-east-1a",
            size=1000,
            type="gp2" if BREAK == "volume-gp2" else "gp3",
            encrypted=BREAK != "volume-unencrypted",
            tags=TAGS,
            opts=child,
        )
        aws.ec2.VolumeAttachment(
            f"{name}-datasets",
            device_name="/dev/sdg",
            volume_id=data.id,
            instance_id=self.instance.id,
            opts=child,
        )
        if BREAK != "no-idle-stop":
            aws.cloudwatch.MetricAlarm(
                f"{name}-idle",
                namespace="CWAgent",
                metric_name="nvidia_smi_utilization_gpu",
                dimensions={"InstanceId": self.instance.id},
                statistic="Maximum",
                period=300,
                evaluation_periods=12,
                comparison_operator="LessThanThreshold",
                threshold=5,
                alarm_actions=["arn:aws:automate:us-east-1:ec2:stop"],
                tags=TAGS,
                opts=child,
            )
        if BREAK == "eip":
            aws.ec2.Eip(f"{name}-ip", instance=self.instance.id, domain="vpc", tags=TAGS, opts=child)
        self.register_outputs({"instance_id": self.instance.id})


vpc = aws.ec2.Vpc("research", cidr_block="172.20.0.0/16", tags=TAGS, opts=opts)
subnet = aws.ec2.Subnet("research-private", vpc_id=vpc.id, cidr_block="172.20.1.0/24", tags=TAGS, opts=opts)
sg = aws.ec2.SecurityGroup(
    "workstation",
    vpc_id=vpc.id,
    ingress=[
        {
            "protocol": "tcp",
            "from_port": 22,
            "to_port": 22,
            "cidr_blocks": ["0.0.0.0/0" if BREAK == "ssh-world" else "172.20.0.0/16"],
            "description": "ssh from the VPC",
        },
        {"protocol": "tcp", "from_port": 8888, "to_port": 8888, "cidr_blocks": ["172.20.0.0/16"]},
    ],
    egress=[{"protocol": "-1", "from_port": 0, "to_port": 0, "cidr_blocks": ["0.0.0.0/0"]}],
    tags=TAGS,
    opts=opts,
)
role = aws.iam.Role(
    "workstation",
    assume_role_policy=json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [
                {
                    "Effect": "Allow",
                    "Principal": {"Service": ["ec2.amazonaws.com"]},
                    "Action": "sts:AssumeRole",
                }
            ],
        }
    ),
    managed_policy_arns=[] if BREAK == "no-ssm" else ["arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore"],
    tags=TAGS,
    opts=opts,
)
profile = aws.iam.InstanceProfile("workstation", role=role.name, tags=TAGS, opts=opts)
Workstation("alice", subnet.id, profile.name, sg.id, opts)
aws.budgets.Budget(
    "research",
    budget_type="COST",
    limit_amount="3000",
    limit_unit="USD",
    time_unit="MONTHLY",
    notifications=[
        {
            "comparison_operator": "GREATER_THAN",
            "threshold": 50,
            "threshold_type": "PERCENTAGE",
            "notification_type": "ACTUAL",
            "subscriber_email_addresses": ["research@example.com"],
        },
        {
            "comparison_operator": "GREATER_THAN",
            "threshold": 100,
            "threshold_type": "PERCENTAGE",
            "notification_type": "FORECASTED",
            "subscriber_email_addresses": ["research@example.com"],
        },
    ],
    tags=TAGS,
    opts=opts,
)
aws.cloudtrail.Trail(
    "research", s3_bucket_name="org-audit-trail", is_multi_region_trail=True, tags=TAGS, opts=opts
)

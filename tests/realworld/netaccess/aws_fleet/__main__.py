"""An inference fleet on AWS written with the raw SDK: a VPC with private GPU subnets behind NAT,
a GPU instance, a GPU Auto Scaling group from a launch template, an older launch-configuration
group, a CPU bastion with a key pair, security groups in every style, Session Manager with
encrypted session logs, and a site-to-site VPN to the office.

`inference-fleet:break` selects one mistake; `none` is compliant.
"""

import json

import pulumi
import pulumi_aws as aws
from pulumi import ResourceOptions

BREAK = pulumi.Config().get("break") or "none"
TAGS = {"project": "inference", "team": "serving", "cost-center": "cc-207", "env": "prod"}
provider = aws.Provider("euw1", region="eu-west-1")
opts = ResourceOptions(provider=provider)
GPU_TYPE = "g5.xlarge"
AMI = "ami-0a8e758f5e873d1c1"

# --- network -------------------------------------------------------------------------------
vpc = aws.ec2.Vpc("fleet", cidr_block="10.0.0.0/16", enable_dns_hostnames=True, tags=TAGS, opts=opts)
igw = aws.ec2.InternetGateway("fleet", vpc_id=vpc.id, tags=TAGS, opts=opts)
public = aws.ec2.Subnet(
    "public-a", vpc_id=vpc.id, cidr_block="10.0.0.0/24", availability_zone="eu-west-1a", tags=TAGS, opts=opts
)
private = aws.ec2.Subnet(
    "private-a",
    vpc_id=vpc.id,
    cidr_block="10.0.16.0/20",
    availability_zone="eu-west-1a",
    map_public_ip_on_launch=BREAK == "subnet-maps-public-ip",
    tags=TAGS,
    opts=opts,
)
nat_ip = aws.ec2.Eip("nat", domain="vpc", tags=TAGS, opts=opts)
nat = aws.ec2.NatGateway("fleet", allocation_id=nat_ip.id, subnet_id=public.id, tags=TAGS, opts=opts)
public_rt = aws.ec2.RouteTable(
    "public",
    vpc_id=vpc.id,
    routes=[aws.ec2.RouteTableRouteArgs(cidr_block="0.0.0.0/0", gateway_id=igw.id)],
    tags=TAGS,
    opts=opts,
)
aws.ec2.RouteTableAssociation("public-a", subnet_id=public.id, route_table_id=public_rt.id, opts=opts)
private_rt = aws.ec2.RouteTable("private", vpc_id=vpc.id, tags=TAGS, opts=opts)
aws.ec2.Route(
    "private-default",
    route_table_id=private_rt.id,
    destination_cidr_block="0.0.0.0/0",
    nat_gateway_id=nat.id,
    opts=opts,
)
aws.ec2.RouteTableAssociation("private-a", subnet_id=private.id, route_table_id=private_rt.id, opts=opts)
gpu_subnet = public if BREAK == "gpu-in-public-subnet" else private

# --- security groups, in every style --------------------------------------------------------
SSH_FROM_VPC = {"protocol": "tcp", "from_port": 22, "to_port": 22, "cidr_blocks": ["10.0.0.0/16"]}
BAD_INGRESS = {
    "ingress-all-minus1": {"protocol": "-1", "from_port": 0, "to_port": 0, "cidr_blocks": ["0.0.0.0/0"]},
    "ingress-all-word": {"protocol": "all", "from_port": 0, "to_port": 0, "cidr_blocks": ["0.0.0.0/0"]},
    "ingress-tcp-full-range": {
        "protocol": "tcp",
        "from_port": 0,
        "to_port": 65535,
        "cidr_blocks": ["0.0.0.0/0"],
    },
    "ingress-proto-6": {"protocol": "6", "from_port": 22, "to_port": 22, "cidr_blocks": ["0.0.0.0/0"]},
    "ingress-20-25": {"protocol": "tcp", "from_port": 20, "to_port": 25, "cidr_blocks": ["0.0.0.0/0"]},
    "ingress-ipv6": {"protocol": "tcp", "from_port": 22, "to_port": 22, "ipv6_cidr_blocks": ["::/0"]},
    "ingress-rdp-udp": {"protocol": "udp", "from_port": 3389, "to_port": 3389, "cidr_blocks": ["0.0.0.0/0"]},
}
admin_list = aws.ec2.ManagedPrefixList(
    "office",
    address_family="IPv4",
    max_entries=5,
    entries=[{"cidr": "192.168.0.0/16", "description": "office"}],
    tags=TAGS,
    opts=opts,
)
lb_sg = aws.ec2.SecurityGroup(
    "lb",
    vpc_id=vpc.id,
    description="public load balancer",
    ingress=[
        aws.ec2.SecurityGroupIngressArgs(
            protocol="tcp", from_port=443, to_port=443, cidr_blocks=["0.0.0.0/0"], ipv6_cidr_blocks=["::/0"]
        )
    ],
    egress=[
        aws.ec2.SecurityGroupEgressArgs(protocol="-1", from_port=0, to_port=0, cidr_blocks=["0.0.0.0/0"])
    ],
    tags=TAGS,
    opts=opts,
)
gpu_ingress = [
    SSH_FROM_VPC,
    {"protocol": "-1", "from_port": 0, "to_port": 0, "self": True, "description": "node to node"},
    {"protocol": "tcp", "from_port": 8000, "to_port": 8000, "security_groups": [lb_sg.id]},
    {"protocol": "tcp", "from_port": 22, "to_port": 22, "prefix_list_ids": [admin_list.id]},
    {"protocol": "tcp", "from_port": 80, "to_port": 443, "cidr_blocks": ["0.0.0.0/0"]},
    {"protocol": "icmp", "from_port": -1, "to_port": -1, "cidr_blocks": ["0.0.0.0/0"]},
]
if BREAK in BAD_INGRESS:
    gpu_ingress.append(BAD_INGRESS[BREAK])
gpu_sg = aws.ec2.SecurityGroup(
    "gpu-nodes",
    vpc_id=vpc.id,
    description="GPU inference nodes",
    ingress=gpu_ingress,
    # Egress to anywhere on every port, SSH included, is not ingress.
    egress=[
        {
            "protocol": "-1",
            "from_port": 0,
            "to_port": 0,
            "cidr_blocks": ["0.0.0.0/0"],
            "ipv6_cidr_blocks": ["::/0"],
        },
        {"protocol": "tcp", "from_port": 22, "to_port": 22, "cidr_blocks": ["0.0.0.0/0"]},
    ],
    tags=TAGS,
    opts=opts,
)
aws.ec2.SecurityGroupRule(
    "gpu-metrics",
    type="ingress",
    security_group_id=gpu_sg.id,
    protocol="tcp",
    from_port=9400,
    to_port=9400,
    cidr_blocks=["10.0.0.0/16"],
    opts=opts,
)
aws.ec2.SecurityGroupRule(
    "gpu-egress-ssh",
    type="egress",
    security_group_id=gpu_sg.id,
    protocol="-1",
    from_port=0,
    to_port=0,
    cidr_blocks=["0.0.0.0/0"],
    opts=opts,
)
if BREAK == "sg-rule-ssh":
    aws.ec2.SecurityGroupRule(
        "gpu-ssh-world",
        type="ingress",
        security_group_id=gpu_sg.id,
        protocol="tcp",
        from_port=22,
        to_port=22,
        cidr_blocks=["10.0.0.0/8", "0.0.0.0/0"],
        opts=opts,
    )
aws.vpc.SecurityGroupIngressRule(
    "gpu-from-corp",
    security_group_id=gpu_sg.id,
    cidr_ipv4="10.0.0.0/8",
    ip_protocol="-1",
    tags=TAGS,
    opts=opts,
)
aws.vpc.SecurityGroupIngressRule(
    "gpu-from-lb",
    security_group_id=gpu_sg.id,
    referenced_security_group_id=lb_sg.id,
    ip_protocol="tcp",
    from_port=22,
    to_port=22,
    tags=TAGS,
    opts=opts,
)
aws.vpc.SecurityGroupEgressRule(
    "gpu-egress-v6", security_group_id=gpu_sg.id, cidr_ipv6="::/0", ip_protocol="-1", tags=TAGS, opts=opts
)
if BREAK == "vpc-rule-all":
    aws.vpc.SecurityGroupIngressRule(
        "gpu-open", security_group_id=gpu_sg.id, cidr_ipv4="0.0.0.0/0", ip_protocol="-1", tags=TAGS, opts=opts
    )
if BREAK == "vpc-rule-rdp-v6":
    aws.vpc.SecurityGroupIngressRule(
        "gpu-rdp-v6",
        security_group_id=gpu_sg.id,
        cidr_ipv6="::/0",
        ip_protocol="tcp",
        from_port=3389,
        to_port=3389,
        tags=TAGS,
        opts=opts,
    )
aws.ec2.DefaultSecurityGroup(
    "default",
    vpc_id=vpc.id,
    ingress=[{"protocol": "tcp", "from_port": 22, "to_port": 22, "cidr_blocks": ["0.0.0.0/0"]}]
    if BREAK == "default-sg-ssh"
    else [],
    egress=[],
    tags=TAGS,
    opts=opts,
)

# --- identity: Session Manager ---------------------------------------------------------------
role = aws.iam.Role(
    "gpu-node",
    assume_role_policy=json.dumps(
        {
            "Version": "2012-10-17",
            "Statement": [
                {"Effect": "Allow", "Principal": {"Service": "ec2.amazonaws.com"}, "Action": "sts:AssumeRole"}
            ],
        }
    ),
    managed_policy_arns=["arn:aws:iam::aws:policy/CloudWatchAgentServerPolicy"]
    + ([] if BREAK == "no-ssm" else ["arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore"]),
    tags=TAGS,
    opts=opts,
)
profile = aws.iam.InstanceProfile("gpu-node", role=role.name, tags=TAGS, opts=opts)

logs_key = aws.kms.Key(
    "session-logs", description="Session Manager logs", enable_key_rotation=True, tags=TAGS, opts=opts
)
session_logs = aws.cloudwatch.LogGroup(
    "session-logs",
    name="/ssm/sessions",
    retention_in_days=365,
    kms_key_id=None if BREAK == "session-logs-plain" else logs_key.arn,
    tags=TAGS,
    opts=opts,
)
aws.ssm.Document(
    "session-preferences",
    name="SSM-SessionManagerRunShell",
    document_type="Session",
    document_format="JSON",
    content=session_logs.name.apply(
        lambda group: json.dumps(
            {
                "schemaVersion": "1.0",
                "description": "Session Manager preferences",
                "sessionType": "Standard_Stream",
                "inputs": {
                    "cloudWatchLogGroupName": group,
                    "cloudWatchEncryptionEnabled": True,
                    "cloudWatchStreamingEnabled": True,
                    "idleSessionTimeout": "20",
                },
            }
        )
    ),
    # This stack owns the account's Session Manager preferences (one document per account and region).
    tags={**TAGS, "gpufleet:account-baseline": "true"},
    opts=opts,
)

# --- compute ---------------------------------------------------------------------------------
ops_key = aws.ec2.KeyPair(
    "ops",
    key_name="ops",
    public_key="ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIK0wmN ops@example.com",
    tags=TAGS,
    opts=opts,
)
# A CPU bastion may carry a key pair: GF-ACC-002 is about GPU instances only.
aws.ec2.Instance(
    "bastion",
    ami=AMI,
    instance_type="t3.micro",
    subnet_id=private.id,
    key_name=ops_key.key_name,
    vpc_security_group_ids=[gpu_sg.id],
    iam_instance_profile=profile.name,
    metadata_options={"http_tokens": "required", "http_endpoint": "enabled"},
    root_block_device={"encrypted": True, "volume_type": "gp3", "volume_size": 20},
    tags={**TAGS, "Name": "bastion"},
    opts=opts,
)

IMDS = {
    "imds-missing": None,
    "imds-optional": aws.ec2.InstanceMetadataOptionsArgs(http_tokens="optional", http_endpoint="enabled"),
    "imds-hop-3": aws.ec2.InstanceMetadataOptionsArgs(http_tokens="required", http_put_response_hop_limit=3),
}
gpu_vm = aws.ec2.Instance(
    "embed-vm",
    ami=AMI,
    instance_type=GPU_TYPE,
    subnet_id=gpu_subnet.id,
    vpc_security_group_ids=[gpu_sg.id],
    iam_instance_profile=profile.name,
    key_name=ops_key.key_name if BREAK == "gpu-key-pair" else None,
    associate_public_ip_address=True if BREAK == "instance-public-ip" else None,
    metadata_options=IMDS[BREAK]
    if BREAK in IMDS
    else aws.ec2.InstanceMetadataOptionsArgs(
        http_tokens="required", http_put_response_hop_limit=2, http_endpoint="enabled"
    ),
    root_block_device=aws.ec2.InstanceRootBlockDeviceArgs(encrypted=True, volume_type="gp3", volume_size=200),
    tags={**TAGS, "Name": "embed-vm"},
    opts=opts,
)
if BREAK == "eip":
    aws.ec2.Eip("embed-ip", instance=gpu_vm.id, domain="vpc", tags=TAGS, opts=opts)
if BREAK == "interface-eip":
    # A second interface with its own address, attached after launch.
    eni = aws.ec2.NetworkInterface(
        "embed-public", subnet_id=private.id, security_groups=[gpu_sg.id], tags=TAGS, opts=opts
    )
    aws.ec2.NetworkInterfaceAttachment(
        "embed-public", instance_id=gpu_vm.id, network_interface_id=eni.id, device_index=1, opts=opts
    )
    aws.ec2.Eip("embed-ip", network_interface=eni.id, domain="vpc", tags=TAGS, opts=opts)
if BREAK == "eip-association":
    ip = aws.ec2.Eip("embed-ip", domain="vpc", tags=TAGS, opts=opts)
    aws.ec2.EipAssociation("embed-ip", instance_id=gpu_vm.id, allocation_id=ip.allocation_id, opts=opts)

template = aws.ec2.LaunchTemplate(
    "serve",
    image_id=AMI,
    instance_type=GPU_TYPE,
    key_name=ops_key.key_name if BREAK == "template-key-pair" else None,
    iam_instance_profile={"arn": profile.arn},
    metadata_options=None
    if BREAK == "template-no-imds"
    else {"http_tokens": "required", "http_put_response_hop_limit": 2, "http_endpoint": "enabled"},
    network_interfaces=[
        {
            "associate_public_ip_address": "true" if BREAK == "template-public-ip" else "false",
            "security_groups": [gpu_sg.id],
            "delete_on_termination": "true",
        }
    ],
    block_device_mappings=[
        {"device_name": "/dev/xvda", "ebs": {"volume_size": 200, "volume_type": "gp3", "encrypted": "true"}}
    ],
    tag_specifications=[{"resource_type": "instance", "tags": TAGS}],
    tags=TAGS,
    opts=opts,
)
asg_tags = [aws.autoscaling.GroupTagArgs(key=k, value=v, propagate_at_launch=True) for k, v in TAGS.items()]
serve = aws.autoscaling.Group(
    "serve",
    min_size=0,
    max_size=2,
    desired_capacity=1,
    vpc_zone_identifiers=[gpu_subnet.id],
    launch_template=aws.autoscaling.GroupLaunchTemplateArgs(id=template.id, version="$Latest"),
    tags=asg_tags,
    opts=opts,
)

legacy_config = aws.ec2.LaunchConfiguration(
    "batch",
    image_id=AMI,
    instance_type=GPU_TYPE,
    iam_instance_profile=profile.name,
    security_groups=[gpu_sg.id],
    associate_public_ip_address=BREAK == "launch-config-public-ip",
    metadata_options=aws.ec2.LaunchConfigurationMetadataOptionsArgs(
        http_tokens="optional" if BREAK == "launch-config-imds" else "required",
        http_put_response_hop_limit=1,
        http_endpoint="enabled",
    ),
    root_block_device=aws.ec2.LaunchConfigurationRootBlockDeviceArgs(encrypted=True, volume_type="gp3"),
    opts=opts,
)
batch = aws.autoscaling.Group(
    "batch",
    min_size=0,
    max_size=1,
    vpc_zone_identifiers=[private.id],
    launch_configuration=legacy_config.name,
    tags=asg_tags,
    opts=opts,
)

for name, group in (("serve", serve), ("batch", batch)):
    aws.autoscaling.Policy(
        name,
        autoscaling_group_name=group.name,
        policy_type="TargetTrackingScaling",
        estimated_instance_warmup=300,
        target_tracking_configuration={
            "predefined_metric_specification": {"predefined_metric_type": "ASGAverageCPUUtilization"},
            "target_value": 60,
        },
        opts=opts,
    )

# --- hybrid link to the office ----------------------------------------------------------------
customer_gw = aws.ec2.CustomerGateway(
    "office", bgp_asn="65000", ip_address="203.0.113.10", type="ipsec.1", tags=TAGS, opts=opts
)
vpn_gw = aws.ec2.VpnGateway("fleet", vpc_id=vpc.id, tags=TAGS, opts=opts)
STRONG_TUNNEL = {
    f"tunnel{n}_{key}": value
    for n in (1, 2)
    for key, value in {
        "ike_versions": ["ikev2"],
        "phase1_encryption_algorithms": ["AES256", "AES256-GCM-16"],
        "phase1_integrity_algorithms": ["SHA2-256", "SHA2-512"],
        "phase1_dh_group_numbers": [19, 20, 21],
        "phase2_encryption_algorithms": ["AES256-GCM-16"],
        "phase2_integrity_algorithms": ["SHA2-384"],
        "phase2_dh_group_numbers": [14, 20],
    }.items()
}
vpn = aws.ec2.VpnConnection(
    "office",
    customer_gateway_id=customer_gw.id,
    vpn_gateway_id=vpn_gw.id,
    type="ipsec.1",
    static_routes_only=True,
    tags=TAGS,
    opts=opts,
    **({} if BREAK == "vpn-defaults" else STRONG_TUNNEL),
)
aws.ec2.VpnConnectionRoute(
    "office-lan",
    vpn_connection_id=vpn.id,
    destination_cidr_block="10.0.128.0/17" if BREAK == "overlap" else "192.168.0.0/16",
    opts=opts,
)

# --- account guardrails -----------------------------------------------------------------------
aws.budgets.Budget(
    "inference",
    budget_type="COST",
    limit_amount="5000",
    limit_unit="USD",
    time_unit="MONTHLY",
    notifications=[
        {
            "comparison_operator": "GREATER_THAN",
            "threshold": 80,
            "threshold_type": "PERCENTAGE",
            "notification_type": "FORECASTED",
            "subscriber_email_addresses": ["serving@example.com"],
        }
    ],
    tags=TAGS,
    opts=opts,
)
aws.cloudtrail.Trail(
    "inference", s3_bucket_name="org-audit-trail", is_multi_region_trail=True, tags=TAGS, opts=opts
)
pulumi.export("vpn_id", vpn.id)

"""Private links (site-to-site VPN, Direct Connect, CEN, CCN) and common user-written types of the three
bridged SDKs, written as users and components/links write them, some with flaws checkov knows."""

import pulumi
import pulumi_alicloud as alicloud
import pulumi_aws as aws
import tencentcloud_iac_pulumi as tencentcloud

PSK = pulumi.Output.secret("not-a-real-key-0123456789")
ONPREM = "192.168.16.0/20"

# AWS: a VPN to on-prem with IKEv2 and strong algorithms, and a Direct Connect private interface.
vgw = aws.ec2.VpnGateway("vgw", vpc_id="vpc-0abc", amazon_side_asn="64512")
cgw = aws.ec2.CustomerGateway("cgw", bgp_asn="65010", ip_address="198.51.100.20", type="ipsec.1")
vpn = aws.ec2.VpnConnection(
    "vpn",
    customer_gateway_id=cgw.id,
    vpn_gateway_id=vgw.id,
    type="ipsec.1",
    static_routes_only=True,
    tunnel1_ike_versions=["ikev2"],
    tunnel1_phase1_encryption_algorithms=["AES256-GCM-16"],
    tunnel1_phase1_dh_group_numbers=[20],
    tunnel1_preshared_key=PSK,
    tunnel1_log_options=aws.ec2.VpnConnectionTunnel1LogOptionsArgs(
        cloudwatch_log_options=aws.ec2.VpnConnectionTunnel1LogOptionsCloudwatchLogOptionsArgs(
            log_enabled=True
        )
    ),
)
aws.ec2.VpnConnectionRoute("vpn-route", vpn_connection_id=vpn.id, destination_cidr_block=ONPREM)
dxgw = aws.directconnect.Gateway("dxgw", name="dxgw", amazon_side_asn="64512")
aws.directconnect.GatewayAssociation(
    "dxgw-vgw", dx_gateway_id=dxgw.id, associated_gateway_id=vgw.id, allowed_prefixes=["10.40.0.0/16"]
)
aws.directconnect.PrivateVirtualInterface(
    "pvif",
    connection_id="dxcon-0abc",
    dx_gateway_id=dxgw.id,
    name="pvif",
    vlan=4001,
    address_family="ipv4",
    bgp_asn=65010,
    bgp_auth_key=PSK,
)

# AWS: common user-written types.
aws.ec2.Ami(
    "golden-ami",
    name="golden",
    root_device_name="/dev/xvda",
    ebs_block_devices=[
        aws.ec2.AmiEbsBlockDeviceArgs(device_name="/dev/xvda", snapshot_id="snap-0abc"),
        aws.ec2.AmiEbsBlockDeviceArgs(device_name="/dev/sdb", volume_size=100, encrypted=False),
    ],
)
aws.ec2.NetworkAclRule(
    "acl-ssh",
    network_acl_id="acl-0abc",
    rule_number=100,
    egress=False,
    protocol="tcp",
    rule_action="allow",
    cidr_block="0.0.0.0/0",
    from_port=22,
    to_port=22,
)
aws.s3.BucketCorsConfiguration(
    "cors",
    bucket="ckpt",
    cors_rules=[aws.s3.BucketCorsConfigurationCorsRuleArgs(allowed_methods=["GET"], allowed_origins=["*"])],
)
aws.iam.OpenIdConnectProvider(
    "oidc",
    url="https://oidc.eks.us-east-1.amazonaws.com/id/ABC",
    client_id_lists=["sts.amazonaws.com"],
    thumbprint_lists=["9e99a48a9960b14926bb7f3b02e22da2b0ab7280"],
)
aws.eks.FargateProfile(
    "fargate",
    cluster_name="ml",
    pod_execution_role_arn="arn:aws:iam::123456789012:role/fargate",
    selectors=[aws.eks.FargateProfileSelectorArgs(namespace="batch")],
)

# Alibaba Cloud: an IPsec VPN with IKEv1 and weak defaults spelled out, a route entry, a CEN route map.
ali_gw = alicloud.vpn.Gateway(
    "ali-vpngw", vpn_gateway_name="ali-vpngw", vpc_id="vpc-ali", bandwidth=200, enable_ipsec=True
)
ali_cgw = alicloud.vpn.CustomerGateway("ali-cgw", customer_gateway_name="ali-cgw", ip_address="198.51.100.20")
alicloud.vpn.Connection(
    "ali-ipsec",
    vpn_connection_name="ali-ipsec",
    vpn_gateway_id=ali_gw.id,
    customer_gateway_id=ali_cgw.id,
    local_subnets=["10.50.0.0/16"],
    remote_subnets=[ONPREM],
    ike_config=alicloud.vpn.ConnectionIkeConfigArgs(
        ike_version="ikev1", ike_enc_alg="des", ike_auth_alg="md5", ike_pfs="group1", psk=PSK
    ),
    ipsec_config=alicloud.vpn.ConnectionIpsecConfigArgs(
        ipsec_enc_alg="des", ipsec_auth_alg="md5", ipsec_pfs="group1"
    ),
)
alicloud.vpc.RouteEntry(
    "ali-route",
    route_table_id="vtb-ali",
    destination_cidrblock=ONPREM,
    nexthop_type="VpnGateway",
    nexthop_id=ali_gw.id,
)
cen = alicloud.cen.Instance("cen", cen_instance_name="cen")
alicloud.cen.RouteMap(
    "cen-map",
    cen_id=cen.id,
    cen_region_id="cn-hangzhou",
    map_result="Permit",
    priority=10,
    transmit_direction="RegionIn",
    prepend_as_paths=["65010"],
)
alicloud.ram.AccountPasswordPolicy("ali-passwords", minimum_password_length=8, require_symbols=False)

# Tencent Cloud: an IPsec VPN, its gateway route, a route table entry, and a flow log left off.
tc_gw = tencentcloud.vpn.Gateway("tc-vpngw", name="tc-vpngw", vpc_id="vpc-tc", bandwidth=200, type="IPSEC")
tc_cgw = tencentcloud.vpn.CustomerGateway("tc-cgw", name="tc-cgw", public_ip_address="198.51.100.20")
tc_vpn = tencentcloud.vpn.Connection(
    "tc-ipsec",
    name="tc-ipsec",
    vpc_id="vpc-tc",
    vpn_gateway_id=tc_gw.id,
    customer_gateway_id=tc_cgw.id,
    pre_share_key=PSK,
    security_group_policies=[
        tencentcloud.vpn.ConnectionSecurityGroupPolicyArgs(
            local_cidr_block="10.52.0.0/16", remote_cidr_blocks=[ONPREM]
        )
    ],
    ike_proto_encry_algorithm="AES-CBC-256",
    ike_proto_authen_algorithm="SHA-256",
    ike_dh_group_name="GROUP14",
    ipsec_encrypt_algorithm="AES-CBC-256",
    ipsec_integrity_algorithm="SHA-256",
    ipsec_pfs_dh_group="DH-GROUP14",
)
tencentcloud.vpn.GatewayRoute(
    "tc-vpn-route",
    vpn_gateway_id=tc_gw.id,
    destination_cidr_block=ONPREM,
    instance_type="VPNCONN",
    instance_id=tc_vpn.id,
    priority=0,
    status="ENABLE",
)
tencentcloud.route.TableEntry(
    "tc-route",
    route_table_id="rtb-tc",
    destination_cidr_block=ONPREM,
    next_type="VPN",
    next_hub=tc_gw.id,
)
tencentcloud.vpc.FlowLogConfig("tc-flow-log", flow_log_id="fl-tc", enable=False)

# Types whose collections the bridge pluralised, so the export must rename them back.
aws.ec2.Fleet(
    "gpu-fleet",
    launch_template_configs=[
        aws.ec2.FleetLaunchTemplateConfigArgs(
            launch_template_specification=aws.ec2.FleetLaunchTemplateConfigLaunchTemplateSpecificationArgs(
                launch_template_id="lt-0abc", version="$Latest"
            ),
            overrides=[
                aws.ec2.FleetLaunchTemplateConfigOverrideArgs(instance_type="g5.xlarge", max_price="0.50"),
                aws.ec2.FleetLaunchTemplateConfigOverrideArgs(instance_type="g6.xlarge"),
            ],
        )
    ],
    target_capacity_specification=aws.ec2.FleetTargetCapacitySpecificationArgs(
        default_target_capacity_type="spot", total_target_capacity=2
    ),
)
aws.ec2.NetworkInterface(
    "eni",
    subnet_id="subnet-0abc",
    attachments=[aws.ec2.NetworkInterfaceAttachmentArgs(device_index=1, instance="i-0abc")],
)
alicloud.oss.BucketReferer(
    "ali-referer", bucket="ali-ckpt", allow_empty_referer=False, referer_lists=["https://*.example.com"]
)
tencentcloud.cos.Bucket(
    "tc-ckpt",
    bucket="tc-ckpt-1250000000",
    acl="private",
    lifecycle_rules=[
        tencentcloud.cos.BucketLifecycleRuleArgs(
            filter_prefix="ckpt/",
            transitions=[
                tencentcloud.cos.BucketLifecycleRuleTransitionArgs(days=30, storage_class="STANDARD_IA")
            ],
        )
    ],
)

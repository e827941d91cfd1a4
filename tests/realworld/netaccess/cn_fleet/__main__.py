"""GPU inference in mainland China on Alibaba Cloud and Tencent Cloud, written with the raw SDKs:
one GPU ECS instance and one GPU CVM instance in private networks, security-group rules in each
cloud's own shapes, session managers (Alibaba Cloud Assistant, Tencent TAT) instead of SSH keys,
and an IPsec link to the office on each cloud.

`cn-inference:break` selects one mistake; `none` is compliant.
"""

import pulumi
import pulumi_alicloud as alicloud
import tencentcloud_iac_pulumi as tencentcloud
from pulumi import ResourceOptions

BREAK = pulumi.Config().get("break") or "none"
TAGS = {"project": "inference", "team": "serving", "cost-center": "cc-207", "env": "prod"}
OFFICE = "192.168.0.0/16"

# --- Alibaba Cloud ---------------------------------------------------------------------------
ali = ResourceOptions(provider=alicloud.Provider("beijing", region="cn-beijing"))
ali_vpc = alicloud.vpc.Network(
    "ali-vpc", vpc_name="inference", cidr_block="172.16.0.0/16", tags=TAGS, opts=ali
)
ali_vsw = alicloud.vpc.Switch(
    "ali-private", vpc_id=ali_vpc.id, cidr_block="172.16.1.0/24", zone_id="cn-beijing-h", tags=TAGS, opts=ali
)
ali_sg = alicloud.ecs.SecurityGroup(
    "ali-gpu", security_group_name="gpu-nodes", vpc_id=ali_vpc.id, tags=TAGS, opts=ali
)


def ali_rule(name: str, **kwargs: object) -> None:
    alicloud.ecs.SecurityGroupRule(name, security_group_id=ali_sg.id, priority=1, opts=ali, **kwargs)


ali_rule(
    "ali-ssh-office",
    type="ingress",
    ip_protocol="tcp",
    nic_type="intranet",
    port_range="22/22",
    cidr_ip=OFFICE,
    policy="accept",
)
ali_rule("ali-https", type="ingress", ip_protocol="tcp", port_range="443/443", cidr_ip="0.0.0.0/0")
ali_rule(
    "ali-deny-rdp",
    type="ingress",
    ip_protocol="tcp",
    port_range="3389/3389",
    cidr_ip="0.0.0.0/0",
    policy="drop",
)
ali_rule("ali-egress", type="egress", ip_protocol="all", port_range="-1/-1", cidr_ip="0.0.0.0/0")
ALI_BAD = {
    "ali-ssh-world": {
        "ip_protocol": "tcp",
        "nic_type": "intranet",
        "port_range": "22/22",
        "cidr_ip": "0.0.0.0/0",
    },
    "ali-all-world": {"ip_protocol": "all", "port_range": "-1/-1", "cidr_ip": "0.0.0.0/0"},
    "ali-tcp-range": {"ip_protocol": "tcp", "port_range": "1/65535", "cidr_ip": "0.0.0.0/0"},
    "ali-rdp-udp-v6": {"ip_protocol": "udp", "port_range": "3389/3389", "ipv6_cidr_ip": "::/0"},
}
if BREAK in ALI_BAD:
    ali_rule("ali-open", type="ingress", policy="accept", **ALI_BAD[BREAK])

if BREAK != "ali-no-session-manager":
    alicloud.ecs.EcsSessionManagerStatus(
        "ali-session-manager", session_manager_status_name="sessionManagerStatus", status="Enabled", opts=ali
    )
ali_key = alicloud.ecs.EcsKeyPair(
    "ali-ops", key_pair_name="ops", public_key="ssh-ed25519 AAAAC3Nza ops", tags=TAGS, opts=ali
)
alicloud.ecs.Instance(
    "ali-gpu-vm",
    instance_name="embed",
    image_id="ubuntu_22_04_x64_20G_alibase_20240220.vhd",
    instance_type="ecs.gn7i-c8g1.2xlarge",
    vswitch_id=ali_vsw.id,
    security_groups=[ali_sg.id],
    instance_charge_type="PostPaid",
    spot_strategy="NoSpot",
    internet_max_bandwidth_out=10 if BREAK == "ali-public-ip" else 0,
    key_name=ali_key.key_pair_name if BREAK == "ali-key" else None,
    password="Sup3r-Secret!" if BREAK == "ali-password" else None,
    system_disk_category="cloud_essd",
    system_disk_size=100,
    system_disk_encrypted=True,
    tags=TAGS,
    opts=ali,
)
# A CPU jump host may keep a key pair: the rule is about GPU instances.
alicloud.ecs.Instance(
    "ali-jump",
    image_id="ubuntu_22_04_x64_20G_alibase_20240220.vhd",
    instance_type="ecs.g7.large",
    vswitch_id=ali_vsw.id,
    security_groups=[ali_sg.id],
    key_name=ali_key.key_pair_name,
    system_disk_category="cloud_essd",
    system_disk_encrypted=True,
    tags=TAGS,
    opts=ali,
)

ali_vpn_gw = alicloud.vpn.Gateway(
    "ali-vpn",
    vpn_gateway_name="office",
    vpc_id=ali_vpc.id,
    bandwidth=10,
    payment_type="PayAsYouGo",
    vswitch_id=ali_vsw.id,
    tags=TAGS,
    opts=ali,
)
ali_cgw = alicloud.vpn.CustomerGateway(
    "ali-office", ip_address="203.0.113.20", customer_gateway_name="office", tags=TAGS, opts=ali
)
alicloud.vpn.Connection(
    "ali-office",
    vpn_connection_name="office",
    vpn_gateway_id=ali_vpn_gw.id,
    customer_gateway_id=ali_cgw.id,
    local_subnets=["172.16.0.0/16"],
    remote_subnets=["172.16.128.0/20" if BREAK == "ali-overlap" else OFFICE],
    effect_immediately=True,
    ike_config=None
    if BREAK == "ali-vpn-defaults"
    else alicloud.vpn.ConnectionIkeConfigArgs(
        ike_version="ikev2",
        ike_enc_alg="aes256",
        ike_auth_alg="sha256",
        ike_pfs="group14",
        ike_mode="main",
        psk="office-psk",
    ),
    ipsec_config=alicloud.vpn.ConnectionIpsecConfigArgs(
        ipsec_enc_alg="aes256", ipsec_auth_alg="sha256", ipsec_pfs="group14"
    ),
    tags=TAGS,
    opts=ali,
)

# --- Tencent Cloud ---------------------------------------------------------------------------
tc = ResourceOptions(provider=tencentcloud.Provider("guangzhou", region="ap-guangzhou"))
tc_vpc = tencentcloud.vpc.Instance("tc-vpc", cidr_block="172.20.0.0/16", tags=TAGS, opts=tc)
tc_subnet = tencentcloud.subnet.Instance(
    "tc-private",
    vpc_id=tc_vpc.id,
    cidr_block="172.20.1.0/24",
    availability_zone="ap-guangzhou-6",
    tags=TAGS,
    opts=tc,
)
tc_sg = tencentcloud.security.Group("tc-gpu", description="GPU nodes", tags=TAGS, opts=tc)
ingresses = [
    {"action": "ACCEPT", "cidr_block": OFFICE, "protocol": "TCP", "port": "22,3389", "description": "office"},
    {"action": "ACCEPT", "cidr_block": "0.0.0.0/0", "protocol": "TCP", "port": "80,443"},
    {"action": "ACCEPT", "cidr_block": "172.20.0.0/16", "protocol": "ALL", "port": "ALL"},
    {"action": "DROP", "cidr_block": "0.0.0.0/0", "protocol": "ALL", "port": "ALL"},
]
TC_BAD = {
    "tc-all-world": {"action": "ACCEPT", "cidr_block": "0.0.0.0/0", "protocol": "ALL", "port": "ALL"},
    "tc-list-world": {"action": "ACCEPT", "cidr_block": "0.0.0.0/0", "protocol": "TCP", "port": "22,3389"},
    "tc-range-world": {"action": "ACCEPT", "ipv6_cidr_block": "::/0", "protocol": "TCP", "port": "20-30"},
}
if BREAK in TC_BAD:
    # Rules are ordered: an accept placed before the final drop takes effect.
    ingresses.insert(0, TC_BAD[BREAK])
tencentcloud.security.GroupRuleSet(
    "tc-gpu-rules",
    security_group_id=tc_sg.id,
    ingresses=ingresses,
    egresses=[{"action": "ACCEPT", "cidr_block": "0.0.0.0/0", "protocol": "ALL", "port": "ALL"}],
    opts=tc,
)
tc_key = tencentcloud.key.Pair(
    "tc-ops", key_name="ops", public_key="ssh-ed25519 AAAAC3Nza ops", tags=TAGS, opts=tc
)
tencentcloud.instance.Instance(
    "tc-gpu-vm",
    instance_name="embed",
    image_id="img-9qrfy1xt",
    instance_type="GN7.2XLARGE32",
    availability_zone="ap-guangzhou-6",
    vpc_id=tc_vpc.id,
    subnet_id=tc_subnet.id,
    orderly_security_groups=[tc_sg.id],
    allocate_public_ip=BREAK == "tc-public-ip",
    internet_max_bandwidth_out=10 if BREAK == "tc-public-ip" else None,
    key_ids=[tc_key.id] if BREAK == "tc-key" else None,
    password="Sup3r-Secret!" if BREAK == "tc-password" else None,
    system_disk_type="CLOUD_BSSD",
    system_disk_size=100,
    data_disks=[{"data_disk_type": "CLOUD_BSSD", "data_disk_size": 500, "encrypt": True}],
    disable_automation_service=BREAK == "tc-no-tat-agent",
    # CVM sets a random root password on an instance given neither key nor password: lock it.
    user_data_raw="#!/bin/bash\npasswd -l root\n",
    tags=TAGS,
    opts=tc,
)
tencentcloud.tat.Command(
    "tc-health",
    command_name="gpu-health",
    content="nvidia-smi",
    command_type="SHELL",
    tags=[{"key": k, "value": v} for k, v in TAGS.items()],
    opts=tc,
)
tc_vpn_gw = tencentcloud.vpn.Gateway(
    "tc-vpn", name="office", vpc_id=tc_vpc.id, bandwidth=10, zone="ap-guangzhou-6", tags=TAGS, opts=tc
)
tc_cgw = tencentcloud.vpn.CustomerGateway(
    "tc-office", name="office", public_ip_address="203.0.113.30", tags=TAGS, opts=tc
)
TC_STRONG = {
    "ike_version": "IKEV2",
    "ike_proto_encry_algorithm": "AES-CBC-256",
    "ike_proto_authen_algorithm": "SHA-256",
    "ike_dh_group_name": "GROUP14",
    "ipsec_encrypt_algorithm": "AES-CBC-256",
    "ipsec_integrity_algorithm": "SHA-256",
    "ipsec_pfs_dh_group": "DH-GROUP14",
}
tencentcloud.vpn.Connection(
    "tc-office",
    name="office",
    vpc_id=tc_vpc.id,
    vpn_gateway_id=tc_vpn_gw.id,
    customer_gateway_id=tc_cgw.id,
    pre_share_key="office-psk",
    security_group_policies=[{"local_cidr_block": "172.20.0.0/16", "remote_cidr_blocks": [OFFICE]}],
    tags=TAGS,
    opts=tc,
    **(
        {**TC_STRONG, "ike_version": "IKEV1", "ipsec_integrity_algorithm": "MD5"}
        if BREAK == "tc-vpn-weak"
        else TC_STRONG
    ),
)
tencentcloud.billing.Budget(
    "tc-monthly",
    budget_name="inference-prod",
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

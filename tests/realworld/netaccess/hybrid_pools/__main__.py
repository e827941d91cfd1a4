"""A cloud VPC for burst GPUs, a site-to-site VPN to the data centre, and the on-prem cluster's own
address pools (Calico pod pool, Cilium pod and load-balancer pools) applied through a kubernetes
provider: raw `pulumi_aws` and `pulumi_kubernetes`.

`hybrid-pools:break` selects one overlap; `none` keeps every range apart.
"""

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s

BREAK = pulumi.Config().get("break") or "none"
TAGS = {"project": "hybrid", "team": "platform", "cost-center": "cc-500", "env": "dev"}

vpc = aws.ec2.Vpc("burst", cidr_block="10.80.0.0/16", enable_dns_hostnames=True, tags=TAGS)
aws.ec2.Subnet("burst-private", vpc_id=vpc.id, cidr_block="10.80.1.0/24", tags=TAGS)
gateway = aws.ec2.VpnGateway("burst", vpc_id=vpc.id, tags=TAGS)
customer = aws.ec2.CustomerGateway(
    "dc", bgp_asn="65000", ip_address="203.0.113.10", type="ipsec.1", tags=TAGS
)
vpn = aws.ec2.VpnConnection(
    "dc",
    vpn_gateway_id=gateway.id,
    customer_gateway_id=customer.id,
    type="ipsec.1",
    static_routes_only=True,
    tunnel1_ike_versions=["ikev2"],
    tunnel2_ike_versions=["ikev2"],
    tunnel1_phase1_encryption_algorithms=["AES256"],
    tunnel2_phase1_encryption_algorithms=["AES256"],
    tunnel1_phase2_encryption_algorithms=["AES256"],
    tunnel2_phase2_encryption_algorithms=["AES256"],
    tunnel1_phase1_integrity_algorithms=["SHA2-256"],
    tunnel2_phase1_integrity_algorithms=["SHA2-256"],
    tunnel1_phase2_integrity_algorithms=["SHA2-256"],
    tunnel2_phase2_integrity_algorithms=["SHA2-256"],
    tunnel1_phase1_dh_group_numbers=[14],
    tunnel2_phase1_dh_group_numbers=[14],
    tunnel1_phase2_dh_group_numbers=[14],
    tunnel2_phase2_dh_group_numbers=[14],
    tags=TAGS,
)
aws.ec2.VpnConnectionRoute("dc-nodes", vpn_connection_id=vpn.id, destination_cidr_block="192.168.0.0/20")

onprem = k8s.Provider("onprem", context="dc-gpu-cluster")
opts = pulumi.ResourceOptions(provider=onprem)
k8s.apiextensions.CustomResource(
    "default-ipv4-ippool",
    api_version="crd.projectcalico.org/v1",
    kind="IPPool",
    metadata={"name": "default-ipv4-ippool", "labels": TAGS},
    spec={
        "cidr": "10.80.64.0/18" if BREAK == "calico-overlap" else "172.22.0.0/16",
        "ipipMode": "Never",
        "vxlanMode": "CrossSubnet",
        "natOutgoing": True,
        "nodeSelector": "all()",
    },
    opts=opts,
)
# A retired pool that used the cloud range before the VPC was built: disabled, it allocates nothing.
k8s.apiextensions.CustomResource(
    "retired-ippool",
    api_version="crd.projectcalico.org/v1",
    kind="IPPool",
    metadata={"name": "retired-ippool", "labels": TAGS},
    spec={"cidr": "10.80.0.0/18", "disabled": True, "nodeSelector": "!all()"},
    opts=opts,
)
k8s.apiextensions.CustomResource(
    "gpu-pods",
    api_version="cilium.io/v2alpha1",
    kind="CiliumPodIPPool",
    metadata={"name": "gpu-pods", "labels": TAGS},
    spec={
        "ipv4": {
            "cidrs": ["10.80.128.0/20" if BREAK == "cilium-pods-overlap" else "172.23.0.0/20"],
            "maskSize": 24,
        }
    },
    opts=opts,
)
k8s.apiextensions.CustomResource(
    "inference-lb",
    api_version="cilium.io/v2alpha1",
    kind="CiliumLoadBalancerIPPool",
    metadata={"name": "inference-lb", "labels": TAGS},
    spec={"blocks": [{"cidr": "10.80.1.0/24" if BREAK == "cilium-lb-overlap" else "192.168.200.0/24"}]},
    opts=opts,
)
aws.budgets.Budget(
    "hybrid",
    budget_type="COST",
    limit_amount="2000",
    limit_unit="USD",
    time_unit="MONTHLY",
    notifications=[
        {
            "comparison_operator": "GREATER_THAN",
            "threshold": 80,
            "threshold_type": "PERCENTAGE",
            "notification_type": "ACTUAL",
            "subscriber_email_addresses": ["platform@example.com"],
        }
    ],
    tags=TAGS,
)
aws.cloudtrail.Trail("hybrid", s3_bucket_name="org-audit-trail", is_multi_region_trail=True, tags=TAGS)

"""GF-NET-002: an on-prem cluster's Calico and Cilium address pools are on-prem ranges that a cloud
VPC must not overlap; a disjoint or disabled pool beside it is no finding."""

from __future__ import annotations

from typing import Any

import pytest

from gpufleet.policies.network.range_overlap import POLICY

from .helpers import res, run_stack, urn_of

AWS_VPC = "aws:ec2/vpc:Vpc"
VPN = "aws:ec2/vpnConnection:VpnConnection"
CALICO = "kubernetes:crd.projectcalico.org/v1:IPPool"
CALICO_V3 = "kubernetes:projectcalico.org/v3:IPPool"
CILIUM_POD = "kubernetes:cilium.io/v2alpha1:CiliumPodIPPool"
CILIUM_LB = "kubernetes:cilium.io/v2alpha1:CiliumLoadBalancerIPPool"
GENERIC = "kubernetes:apiextensions.k8s.io:CustomResource"
GENERIC_CALICO = {
    "apiVersion": "crd.projectcalico.org/v1",
    "kind": "IPPool",
    "spec": {"cidr": "10.64.0.0/20"},
}
FIX = "; give each network of the fleet a disjoint range"


def stack(*pools: Any) -> list[Any]:
    return [
        res(AWS_VPC, "gpu-vpc", {"cidrBlock": "10.64.0.0/16"}),
        res(VPN, "dc", {"localIpv4NetworkCidr": "192.168.0.0/16"}),
        *pools,
    ]


@pytest.mark.parametrize(
    ("resource_type", "props", "source"),
    [
        (CALICO, {"spec": {"cidr": "10.64.0.0/18", "ipipMode": "Always"}}, "Calico IPPool 'pods' spec.cidr"),
        (CALICO_V3, {"spec": {"cidr": "10.64.128.0/17"}}, "Calico IPPool 'pods' spec.cidr"),
        (CILIUM_POD, {"spec": {"ipv4": {"cidrs": ["172.16.0.0/16", "10.64.32.0/19"], "maskSize": 24}}},
         "CiliumPodIPPool 'pods'"),
        (CILIUM_LB, {"spec": {"blocks": [{"cidr": "10.64.200.0/24"}]}}, "CiliumLoadBalancerIPPool 'pods'"),
        (CILIUM_LB, {"spec": {"cidrs": [{"cidr": "10.64.201.0/24"}]}}, "CiliumLoadBalancerIPPool 'pods'"),
        (GENERIC, GENERIC_CALICO, "Calico IPPool 'pods' spec.cidr"),
    ],
)  # fmt: skip
def test_a_pool_inside_the_vpc_range_fires(resource_type: str, props: dict[str, Any], source: str) -> None:
    findings = run_stack(POLICY, stack(res(resource_type, "pods", props)))
    assert len(findings) == 1
    message, urn = findings[0]
    assert message.startswith("VPC 'gpu-vpc' range 10.64.0.0/16 overlaps " + source + " range 10.64.")
    assert message.endswith(FIX)
    assert urn == urn_of(AWS_VPC, "gpu-vpc")


def test_disjoint_and_disabled_pools_pass() -> None:
    pools = [
        res(CALICO, "pods", {"spec": {"cidr": "192.168.64.0/18"}}),
        res(CALICO, "old-pods", {"spec": {"cidr": "10.64.0.0/18", "disabled": True}}),
        res(CILIUM_POD, "pods-c", {"spec": {"ipv4": {"cidrs": ["172.16.0.0/16"]}}}),
        res(CILIUM_LB, "lb", {"spec": {"blocks": [{"cidr": "10.64.5.0/24"}], "disabled": True}}),
        # A pool of some other operator is not an address range.
        res("kubernetes:example.com/v1:IPPool", "other", {"spec": {"cidr": "10.64.0.0/16"}}),
    ]
    assert run_stack(POLICY, stack(*pools)) == []


def test_a_pool_makes_the_stack_hybrid_on_its_own() -> None:
    # No VPN: the on-prem pool alone is reason enough to keep the ranges apart.
    vpc = res(AWS_VPC, "gpu-vpc", {"cidrBlock": "10.64.0.0/16"})
    pool = res(CALICO, "pods", {"spec": {"cidr": "10.64.0.0/18"}})
    assert run_stack(POLICY, [vpc, pool]) == [
        (
            "VPC 'gpu-vpc' range 10.64.0.0/16 overlaps Calico IPPool 'pods' spec.cidr range 10.64.0.0/18"
            + FIX,
            vpc.urn,
        )
    ]

"""GF-ACC-005: an Elastic IP bound to the network interface of a GPU instance gives it a public IP."""

from __future__ import annotations

from pulumi_policy import PolicyResource

from gpufleet.policies.access.gpu_no_public_ip import POLICY

from .helpers import UNKNOWN_STRING_VALUE, check_stack, res
from .helpers import urn_of as urn

TAIL = "GPU instances get no public IP: keep them private behind NAT"
INSTANCE = "aws:ec2/instance:Instance"
ENI = "aws:ec2/networkInterface:NetworkInterface"
ENI_ATTACHMENT = "aws:ec2/networkInterfaceAttachment:NetworkInterfaceAttachment"
EIP = "aws:ec2/eip:Eip"
EIP_ASSOCIATION = "aws:ec2/eipAssociation:EipAssociation"
U = UNKNOWN_STRING_VALUE

INTERFACE = res(ENI, "gpu-eni", {"subnetId": U, "securityGroups": [U]})


def instance(kind: str, prop: str = "primaryNetworkInterface") -> PolicyResource:
    value: object = {"networkInterfaceId": U}
    if prop == "networkInterfaces":
        value = [{"networkInterfaceId": U, "deviceIndex": 0}]
    return res(INSTANCE, "worker", {"instanceType": kind, prop: value}, prop_deps={prop: [INTERFACE]})


def eip_on_interface() -> PolicyResource:
    return res(
        EIP,
        "worker-ip",
        {"domain": "vpc", "networkInterface": U},
        prop_deps={"networkInterface": [INTERFACE]},
    )


def test_eip_on_the_primary_interface_of_a_gpu_instance() -> None:
    assert check_stack(POLICY, [INTERFACE, instance("g5.xlarge"), eip_on_interface()]) == [
        (
            "Elastic IP 'worker-ip' gives EC2 instance 'worker' (g5.xlarge) a public IP through network "
            f"interface 'gpu-eni'; {TAIL}",
            urn(EIP, "worker-ip"),
        )
    ]


def test_eip_association_on_an_interface_listed_in_network_interfaces() -> None:
    association = res(
        EIP_ASSOCIATION,
        "worker-ip",
        {"allocationId": "eipalloc-0abc", "networkInterfaceId": U},
        prop_deps={"networkInterfaceId": [INTERFACE]},
    )
    assert check_stack(POLICY, [INTERFACE, instance("p4d.24xlarge", "networkInterfaces"), association]) == [
        (
            "Elastic IP association 'worker-ip' gives EC2 instance 'worker' (p4d.24xlarge) a public IP "
            f"through network interface 'gpu-eni'; {TAIL}",
            urn(EIP_ASSOCIATION, "worker-ip"),
        )
    ]


def test_eip_on_an_interface_attached_afterwards() -> None:
    gpu = res(INSTANCE, "worker", {"instanceType": "g6.xlarge", "subnetId": U})
    attachment = res(
        ENI_ATTACHMENT,
        "worker-eni",
        {"instanceId": U, "networkInterfaceId": U, "deviceIndex": 1},
        prop_deps={"instanceId": [gpu], "networkInterfaceId": [INTERFACE]},
    )
    assert check_stack(POLICY, [INTERFACE, gpu, attachment, eip_on_interface()]) == [
        (
            "Elastic IP 'worker-ip' gives EC2 instance 'worker' (g6.xlarge) a public IP through network "
            f"interface 'gpu-eni'; {TAIL}",
            urn(EIP, "worker-ip"),
        )
    ]


def test_eip_on_the_interface_of_a_cpu_instance_is_fine() -> None:
    assert check_stack(POLICY, [INTERFACE, instance("m7i.large"), eip_on_interface()]) == []


def test_eip_on_an_unattached_interface_is_fine() -> None:
    assert check_stack(POLICY, [INTERFACE, eip_on_interface()]) == []


def test_unknown_instance_type_behind_the_interface_is_not_judged() -> None:
    found = check_stack(POLICY, [INTERFACE, instance(U), eip_on_interface()])
    assert len(found) == 1
    message, where = found[0]
    assert where == urn(EIP, "worker-ip")
    assert "could not be judged at preview" in message

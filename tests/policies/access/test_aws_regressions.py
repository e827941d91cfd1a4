"""Access-rule behaviours found by judging raw-SDK AWS programs (tests/realworld/aws, tests/realworld/k8s)."""

from __future__ import annotations

from collections.abc import Mapping

from pulumi_policy import PolicyResource

from gpufleet.policies.access import gpu_no_login_credentials, gpu_no_public_ip

from .helpers import UNKNOWN_BOOLEAN_VALUE, UNKNOWN_STRING_VALUE, check_stack, res, urn_of

SUBNET = "aws:ec2/subnet:Subnet"
ASG = "aws:autoscaling/group:Group"
LT = "aws:ec2/launchTemplate:LaunchTemplate"
INSTANCE = "aws:ec2/instance:Instance"
NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
PUBLIC_TAIL = "GPU instances get no public IP: keep them private behind NAT"


def _group_in(subnet_props: Mapping[str, object], lt_props: Mapping[str, object]) -> list[PolicyResource]:
    subnet = res(SUBNET, "public-a", {"cidrBlock": "10.0.0.0/24", **subnet_props})
    template = res(LT, "gpu", {"instanceType": "g5.2xlarge", **lt_props})
    group = res(
        ASG,
        "burst",
        {"vpcZoneIdentifiers": [UNKNOWN_STRING_VALUE], "launchTemplate": {"id": UNKNOWN_STRING_VALUE}},
        prop_deps={"vpcZoneIdentifiers": [subnet], "launchTemplate": [template]},
    )
    return [subnet, template, group]


def test_gpu_group_in_a_subnet_that_maps_public_ips_gets_one() -> None:
    assert check_stack(gpu_no_public_ip.POLICY, _group_in({"mapPublicIpOnLaunch": True}, {})) == [
        (
            "Auto Scaling group 'burst' (g5.2xlarge) launches into subnet 'public-a', which gives every "
            "instance a public IP (mapPublicIpOnLaunch is true), and nothing sets associatePublicIpAddress "
            f"to false; {PUBLIC_TAIL}",
            urn_of(ASG, "burst"),
        )
    ]


def test_template_turning_the_address_off_or_private_subnet_passes() -> None:
    off = {"networkInterfaces": [{"associatePublicIpAddress": "false"}]}
    assert check_stack(gpu_no_public_ip.POLICY, _group_in({"mapPublicIpOnLaunch": True}, off)) == []
    assert check_stack(gpu_no_public_ip.POLICY, _group_in({"mapPublicIpOnLaunch": False}, {})) == []
    assert check_stack(gpu_no_public_ip.POLICY, _group_in({}, {})) == []


def test_instance_in_public_subnet_by_id_and_unknown_subnet_setting() -> None:
    subnet = res(SUBNET, "pub", {"id": "subnet-1", "mapPublicIpOnLaunch": True})
    gpu = res(INSTANCE, "gpu", {"instanceType": "g6.xlarge", "subnetId": "subnet-1"})
    cpu = res(INSTANCE, "cpu", {"instanceType": "t3.micro", "subnetId": "subnet-1"})
    assert [u for _, u in check_stack(gpu_no_public_ip.POLICY, [subnet, gpu, cpu])] == [
        urn_of(INSTANCE, "gpu")
    ]
    unknown = res(SUBNET, "pub", {"id": "subnet-1", "mapPublicIpOnLaunch": UNKNOWN_BOOLEAN_VALUE})
    assert check_stack(gpu_no_public_ip.POLICY, [unknown, gpu]) == [
        (
            "could not be judged at preview: the boolean value at .mapPublicIpOnLaunch can't be known "
            "during preview",
            urn_of(INSTANCE, "gpu"),
        )
    ]


def test_gpu_eks_node_group_with_ssh_key() -> None:
    gpu_ami = res(NODE_GROUP, "gpu", {"amiType": "AL2_x86_64_GPU", "remoteAccess": {"ec2SshKey": "ops"}})
    gpu_type = res(NODE_GROUP, "g5", {"instanceTypes": ["g5.xlarge"], "remoteAccess": {"ec2SshKey": "ops"}})
    cpu = res(NODE_GROUP, "cpu", {"instanceTypes": ["m6i.large"], "remoteAccess": {"ec2SshKey": "ops"}})
    clean = res(NODE_GROUP, "clean", {"amiType": "AL2023_x86_64_NVIDIA"})
    tail = "GPU instances carry no SSH key or login password: connect through a session manager"
    assert check_stack(gpu_no_login_credentials.POLICY, [gpu_ami, gpu_type, cpu, clean]) == [
        (
            f"EKS node group 'gpu' (AL2_x86_64_GPU) has SSH key pair 'ops' (remoteAccess.ec2SshKey); {tail}",
            urn_of(NODE_GROUP, "gpu"),
        ),
        (
            f"EKS node group 'g5' (g5.xlarge) has SSH key pair 'ops' (remoteAccess.ec2SshKey); {tail}",
            urn_of(NODE_GROUP, "g5"),
        ),
    ]

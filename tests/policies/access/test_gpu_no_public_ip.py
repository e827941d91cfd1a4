from __future__ import annotations

import pytest

from gpufleet.policies.access.gpu_no_public_ip import POLICY, RULE

from .helpers import UNKNOWN_BOOLEAN_VALUE, UNKNOWN_STRING_VALUE, check_stack, res
from .helpers import urn_of as urn

TAIL = "GPU instances get no public IP: keep them private behind NAT"
INSTANCE = "aws:ec2/instance:Instance"
LT = "aws:ec2/launchTemplate:LaunchTemplate"
ASG = "aws:autoscaling/group:Group"
EIP = "aws:ec2/eip:Eip"
ALI_INSTANCE = "alicloud:ecs/instance:Instance"
ALI_CONFIG = "alicloud:ess/scalingConfiguration:ScalingConfiguration"
ALI_EIP_ASSOC = "alicloud:ecs/eipAssociation:EipAssociation"
TC_INSTANCE = "tencentcloud:Instance/instance:Instance"
TC_CONFIG = "tencentcloud:As/scalingConfig:ScalingConfig"
TC_GROUP = "tencentcloud:As/scalingGroup:ScalingGroup"
TC_LT = "tencentcloud:Cvm/launchTemplate:LaunchTemplate"


def test_metadata() -> None:
    assert RULE.id == "GF-ACC-005"
    assert RULE.checkov == ("CKV_AWS_88",)


def test_aws_compliant() -> None:
    resources = [
        res(INSTANCE, "gpu", {"instanceType": "g5.xlarge", "associatePublicIpAddress": False}),
        res(INSTANCE, "web", {"instanceType": "t3.micro", "associatePublicIpAddress": True}),
    ]
    assert check_stack(POLICY, resources) == []


def test_aws_instance_public_ip() -> None:
    resources = [res(INSTANCE, "gpu", {"instanceType": "g5.xlarge", "associatePublicIpAddress": True})]
    assert check_stack(POLICY, resources) == [
        (
            f"EC2 instance 'gpu' (g5.xlarge) gets a public IP (associatePublicIpAddress is true); {TAIL}",
            urn(INSTANCE, "gpu"),
        )
    ]


def test_aws_template_string_true_through_group() -> None:
    template = res(LT, "tpl", {"name": "t", "networkInterfaces": [{"associatePublicIpAddress": "true"}]})
    group = res(
        ASG,
        "grp",
        {
            "mixedInstancesPolicy": {
                "launchTemplate": {
                    "launchTemplateSpecification": {"launchTemplateName": "t"},
                    "overrides": [{"instanceType": "p4d.24xlarge"}],
                }
            }
        },
    )
    assert check_stack(POLICY, [template, group]) == [
        (
            "EC2 launch template 'tpl' (p4d.24xlarge) gets a public IP "
            f"(networkInterfaces.*.associatePublicIpAddress is true); {TAIL}",
            urn(LT, "tpl"),
        )
    ]


def test_aws_template_attribute_based_gpu() -> None:
    template = res(
        LT,
        "tpl",
        {
            "instanceRequirements": {"acceleratorTypes": ["gpu"]},
            "networkInterfaces": [{"associatePublicIpAddress": "true"}],
        },
    )
    assert check_stack(POLICY, [template]) == [
        (
            "EC2 launch template 'tpl' gets a public IP "
            f"(networkInterfaces.*.associatePublicIpAddress is true); {TAIL}",
            urn(LT, "tpl"),
        )
    ]


def test_aws_eip_bound_to_gpu_instance() -> None:
    gpu = res(INSTANCE, "gpu", {"instanceType": "g6.2xlarge"})
    cpu = res(INSTANCE, "cpu", {"instanceType": "t3.micro"})
    resources = [
        gpu,
        cpu,
        res(EIP, "ip", {"instance": UNKNOWN_STRING_VALUE, "domain": "vpc"}, prop_deps={"instance": [gpu]}),
        res(EIP, "ip2", {"instance": UNKNOWN_STRING_VALUE}, prop_deps={"instance": [cpu]}),
    ]
    assert check_stack(POLICY, resources) == [
        (f"Elastic IP 'ip' gives EC2 instance 'gpu' (g6.2xlarge) a public IP; {TAIL}", urn(EIP, "ip"))
    ]


def test_aws_unknown_flag_cannot_be_judged_with_proxy() -> None:
    resources = [
        res(
            INSTANCE,
            "gpu",
            {"instanceType": "g5.xlarge", "associatePublicIpAddress": UNKNOWN_BOOLEAN_VALUE},
            proxy=True,
        )
    ]
    assert check_stack(POLICY, resources) == [
        (
            "could not be judged at preview: the boolean value at .associatePublicIpAddress can't be known "
            "during preview",
            urn(INSTANCE, "gpu"),
        )
    ]


@pytest.mark.parametrize(("bandwidth", "expected"), [(0, False), (10.0, True)])
def test_alicloud_bandwidth(bandwidth: float, expected: bool) -> None:
    resources = [
        res(
            ALI_INSTANCE,
            "gpu",
            {"instanceType": "ecs.gn7i-c8g1.2xlarge", "internetMaxBandwidthOut": bandwidth},
        )
    ]
    found = check_stack(POLICY, resources)
    assert found == (
        [
            (
                "ECS instance 'gpu' (ecs.gn7i-c8g1.2xlarge) gets a public IP (internetMaxBandwidthOut is 10 "
                f"(a public IP with outbound bandwidth)); {TAIL}",
                urn(ALI_INSTANCE, "gpu"),
            )
        ]
        if expected
        else []
    )


def test_alicloud_scaling_configuration_and_eip() -> None:
    gpu = res(ALI_INSTANCE, "gpu", {"id": "i-1", "instanceType": "ecs.gn6v-c8g1.2xlarge"})
    resources = [
        gpu,
        res(ALI_CONFIG, "cfg", {"instanceTypes": ["ecs.gn7i-c8g1.2xlarge"], "internetMaxBandwidthOut": 5}),
        res(ALI_EIP_ASSOC, "bind", {"instanceId": "i-1", "allocationId": "eip-1"}),
    ]
    assert check_stack(POLICY, resources) == [
        (
            "ESS scaling configuration 'cfg' (ecs.gn7i-c8g1.2xlarge) gets a public IP "
            "(internetMaxBandwidthOut "
            f"is 5 (a public IP with outbound bandwidth)); {TAIL}",
            urn(ALI_CONFIG, "cfg"),
        ),
        (
            f"EIP association 'bind' gives ECS instance 'gpu' (ecs.gn6v-c8g1.2xlarge) a public IP; {TAIL}",
            urn(ALI_EIP_ASSOC, "bind"),
        ),
    ]


def test_tencent_instance_bandwidth_without_address_passes() -> None:
    resources = [res(TC_INSTANCE, "gpu", {"instanceType": "GN7.2XLARGE32", "internetMaxBandwidthOut": 10})]
    assert check_stack(POLICY, resources) == []


def test_tencent_instance_and_scaling_config_and_template() -> None:
    resources = [
        res(TC_INSTANCE, "gpu", {"instanceType": "GN7.2XLARGE32", "allocatePublicIp": True}),
        res(TC_CONFIG, "cfg", {"id": "asc-1", "instanceTypes": ["GN7.2XLARGE32"], "publicIpAssigned": True}),
        res(TC_GROUP, "grp", {"configurationId": "asc-1"}),
        res(
            TC_LT,
            "tpl",
            {"instanceType": "GN10X.2XLARGE40", "internetAccessible": {"publicIpAssigned": True}},
        ),
    ]
    assert check_stack(POLICY, resources) == [
        (
            f"CVM instance 'gpu' (GN7.2XLARGE32) gets a public IP (allocatePublicIp is true); {TAIL}",
            urn(TC_INSTANCE, "gpu"),
        ),
        (
            "AS launch configuration 'cfg' (GN7.2XLARGE32) gets a public IP (publicIpAssigned "
            f"is true); {TAIL}",
            urn(TC_CONFIG, "cfg"),
        ),
        (
            "CVM launch template 'tpl' (GN10X.2XLARGE40) gets a public IP "
            "(internetAccessible.publicIpAssigned "
            f"is true); {TAIL}",
            urn(TC_LT, "tpl"),
        ),
    ]

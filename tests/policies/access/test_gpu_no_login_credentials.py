from __future__ import annotations

import pytest

from gpufleet.policies.access.gpu_no_login_credentials import POLICY, RULE

from .helpers import UNKNOWN_STRING_VALUE, check_stack, res
from .helpers import urn_of as urn

TAIL = "GPU instances carry no SSH key or login password: connect through a session manager"
INSTANCE = "aws:ec2/instance:Instance"
LT = "aws:ec2/launchTemplate:LaunchTemplate"
LC = "aws:ec2/launchConfiguration:LaunchConfiguration"
ASG = "aws:autoscaling/group:Group"
SPOT_FLEET = "aws:ec2/spotFleetRequest:SpotFleetRequest"
ALI_INSTANCE = "alicloud:ecs/instance:Instance"
ALI_LT = "alicloud:ecs/ecsLaunchTemplate:EcsLaunchTemplate"
ALI_GROUP = "alicloud:ess/scalingGroup:ScalingGroup"
ALI_CONFIG = "alicloud:ess/scalingConfiguration:ScalingConfiguration"
ALI_KEY_ATTACH = "alicloud:ecs/keyPairAttachment:KeyPairAttachment"
TC_INSTANCE = "tencentcloud:Instance/instance:Instance"
TC_CONFIG = "tencentcloud:As/scalingConfig:ScalingConfig"
TC_LT = "tencentcloud:Cvm/launchTemplate:LaunchTemplate"


def test_metadata() -> None:
    assert RULE.id == "GF-ACC-002"
    assert POLICY.name == "gpu-no-login-credentials"
    assert RULE.clouds == ("aws", "alicloud", "tencentcloud")


def test_aws_compliant_and_non_gpu_ignored() -> None:
    resources = [
        res(INSTANCE, "train", {"instanceType": "p4d.24xlarge"}),
        res(INSTANCE, "web", {"instanceType": "m5.large", "keyName": "ops"}),
    ]
    assert check_stack(POLICY, resources) == []


def test_aws_instance_key() -> None:
    resources = [res(INSTANCE, "train", {"instanceType": "p4d.24xlarge", "keyName": "ops"})]
    assert check_stack(POLICY, resources) == [
        (
            f"EC2 instance 'train' (p4d.24xlarge) has SSH key pair 'ops' (keyName); {TAIL}",
            urn(INSTANCE, "train"),
        )
    ]


def test_aws_template_without_type_judged_through_gpu_group() -> None:
    template = res(LT, "tpl", {"keyName": "ops"})
    group = res(
        ASG,
        "pool",
        {
            "mixedInstancesPolicy": {
                "launchTemplate": {
                    "launchTemplateSpecification": {"launchTemplateId": UNKNOWN_STRING_VALUE},
                    "overrides": [{"instanceType": "g5.2xlarge"}, {"instanceType": "g6.2xlarge"}],
                }
            }
        },
        prop_deps={"mixedInstancesPolicy": [template]},
    )
    assert check_stack(POLICY, [template, group]) == [
        (
            f"EC2 launch template 'tpl' (g5.2xlarge, g6.2xlarge) has SSH key pair 'ops' (keyName); {TAIL}",
            urn(LT, "tpl"),
        )
    ]


def test_aws_template_used_by_cpu_group_passes_and_by_name_join() -> None:
    template = res(LT, "tpl", {"name": "cpu-tpl", "keyName": "ops", "instanceType": "m5.large"})
    group = res(ASG, "pool", {"launchTemplate": {"name": "cpu-tpl"}})
    assert check_stack(POLICY, [template, group]) == []


def test_aws_instance_takes_type_from_gpu_template() -> None:
    template = res(LT, "tpl", {"name": "gpu-tpl", "instanceType": "p5.48xlarge"})
    instance = res(INSTANCE, "one", {"launchTemplate": {"name": "gpu-tpl"}, "keyName": UNKNOWN_STRING_VALUE})
    assert check_stack(POLICY, [template, instance]) == [
        (
            f"EC2 instance 'one' (p5.48xlarge) has SSH key pair '(unknown at preview)' (keyName); {TAIL}",
            urn(INSTANCE, "one"),
        )
    ]


def test_aws_template_defined_elsewhere_cannot_be_judged() -> None:
    instance = res(INSTANCE, "one", {"launchTemplate": {"id": "lt-0abc"}, "keyName": "ops"})
    assert check_stack(POLICY, [instance]) == [
        (
            "could not be judged: EC2 instance 'one' names no instance type and takes it from 'lt-0abc', "
            "which is not defined in this stack",
            urn(INSTANCE, "one"),
        )
    ]


def test_aws_unknown_type_with_key_cannot_be_judged_proxy() -> None:
    instance = res(INSTANCE, "one", {"instanceType": UNKNOWN_STRING_VALUE, "keyName": "ops"}, proxy=True)
    assert check_stack(POLICY, [instance]) == [
        (
            "could not be judged at preview: the string value at .instanceType can't be known during preview",
            urn(INSTANCE, "one"),
        )
    ]


def test_aws_launch_configuration_and_spot_fleet() -> None:
    resources = [
        res(LC, "lc", {"instanceType": "g4dn.xlarge", "keyName": "ops"}),
        res(
            SPOT_FLEET,
            "fleet",
            {
                "launchSpecifications": [
                    {"instanceType": "m5.large", "keyName": "ops"},
                    {"instanceType": "p3.2xlarge", "keyName": "ops"},
                ]
            },
        ),
    ]
    assert check_stack(POLICY, resources) == [
        (
            f"EC2 launch configuration 'lc' (g4dn.xlarge) has SSH key pair 'ops' (keyName); {TAIL}",
            urn(LC, "lc"),
        ),
        (
            f"EC2 spot fleet request 'fleet' launch specification 2 (p3.2xlarge) has SSH key pair 'ops' "
            f"(keyName); {TAIL}",
            urn(SPOT_FLEET, "fleet"),
        ),
    ]


def test_alicloud_instance_password_not_shown() -> None:
    resources = [
        res(
            ALI_INSTANCE,
            "gpu",
            {"instanceType": "ecs.gn7i-c8g1.2xlarge", "password": "S3cret!", "keyName": "k"},
        ),
        res(ALI_INSTANCE, "cpu", {"instanceType": "ecs.g7.large", "password": "S3cret!"}),
    ]
    assert check_stack(POLICY, resources) == [
        (
            f"ECS instance 'gpu' (ecs.gn7i-c8g1.2xlarge) has SSH key pair 'k' (keyName) and a login password "
            f"(password); {TAIL}",
            urn(ALI_INSTANCE, "gpu"),
        )
    ]


def test_alicloud_template_through_scaling_group_and_config() -> None:
    template = res(ALI_LT, "tpl", {"keyPairName": "k"})
    group = res(
        ALI_GROUP,
        "grp",
        {"launchTemplateId": UNKNOWN_STRING_VALUE},
        prop_deps={"launchTemplateId": [template]},
    )
    config = res(
        ALI_CONFIG,
        "cfg",
        {
            "scalingGroupId": UNKNOWN_STRING_VALUE,
            "instanceTypes": ["ecs.gn6i-c4g1.xlarge"],
            "kmsEncryptedPassword": "x",
        },
        prop_deps={"scalingGroupId": [group]},
    )
    group_with_overrides = res(
        ALI_GROUP,
        "grp2",
        {"launchTemplateId": "lt-1", "launchTemplateOverrides": [{"instanceType": "ecs.gn7-c12g1.3xlarge"}]},
    )
    template2 = res(ALI_LT, "tpl2", {"id": "lt-1", "keyPairName": "k2"})
    assert sorted(check_stack(POLICY, [template, group, config, group_with_overrides, template2])) == [
        (
            f"ECS launch template 'tpl2' (ecs.gn7-c12g1.3xlarge) has SSH key pair 'k2' (keyPairName); {TAIL}",
            urn(ALI_LT, "tpl2"),
        ),
        (
            "ESS scaling configuration 'cfg' (ecs.gn6i-c4g1.xlarge) has a login password "
            f"(kmsEncryptedPassword); {TAIL}",
            urn(ALI_CONFIG, "cfg"),
        ),
    ]


def test_alicloud_template_through_group_config_is_gpu() -> None:
    template = res(ALI_LT, "tpl", {"keyPairName": "k"})
    group = res(
        ALI_GROUP,
        "grp",
        {"launchTemplateId": UNKNOWN_STRING_VALUE},
        prop_deps={"launchTemplateId": [template]},
    )
    config = res(
        ALI_CONFIG, "cfg", {"instanceType": "ecs.gn6i-c4g1.xlarge"}, prop_deps={"scalingGroupId": [group]}
    )
    # An ESS group launches from its active scaling configuration or from its launch template, not both:
    # a GPU configuration does not make the group's template a GPU template.
    assert check_stack(POLICY, [template, group, config]) == []


def test_alicloud_key_pair_attachment_to_gpu_instance() -> None:
    gpu = res(ALI_INSTANCE, "gpu", {"instanceType": "ecs.gn7i-c8g1.2xlarge"})
    attachment = res(
        ALI_KEY_ATTACH,
        "attach",
        {"keyPairName": "k", "instanceIds": [UNKNOWN_STRING_VALUE]},
        prop_deps={"instanceIds": [gpu]},
    )
    assert check_stack(POLICY, [gpu, attachment]) == [
        (
            "ECS key pair attachment 'attach' binds SSH key pair 'k' to ECS instance 'gpu' "
            f"(ecs.gn7i-c8g1.2xlarge); {TAIL}",
            urn(ALI_KEY_ATTACH, "attach"),
        )
    ]


@pytest.mark.parametrize(
    ("token", "props", "found"),
    [
        (
            TC_INSTANCE,
            {"instanceType": "GN7.2XLARGE32", "keyIds": ["skey-1"]},
            "SSH key pair 'skey-1' (keyIds)",
        ),
        (TC_INSTANCE, {"instanceType": "GN7.2XLARGE32", "password": "p"}, "a login password (password)"),
        (
            TC_CONFIG,
            {"instanceTypes": ["S5.LARGE8", "GN7.2XLARGE32"], "keyIds": ["skey-1"]},
            "SSH key pair 'skey-1' (keyIds)",
        ),
        (
            TC_LT,
            {"instanceType": "GN7.2XLARGE32", "loginSettings": {"password": "p"}},
            "a login password (loginSettings.password)",
        ),
    ],
)
def test_tencent_credentials(token: str, props: dict[str, object], found: str) -> None:
    label = {TC_INSTANCE: "CVM instance", TC_CONFIG: "AS launch configuration", TC_LT: "CVM launch template"}[
        token
    ]
    assert check_stack(POLICY, [res(token, "x", props)]) == [
        (f"{label} 'x' (GN7.2XLARGE32) has {found}; {TAIL}", urn(token, "x"))
    ]


def test_tencent_compliant_keep_image_login() -> None:
    resources = [
        res(TC_INSTANCE, "x", {"instanceType": "GN7.2XLARGE32", "keepImageLogin": True}),
        res(TC_INSTANCE, "cpu", {"instanceType": "S5.MEDIUM4", "password": "p"}),
    ]
    assert check_stack(POLICY, resources) == []


@pytest.mark.parametrize("inherit", [True, "true"])
def test_alicloud_password_inherited_from_the_image_is_a_credential(inherit: object) -> None:
    template = res(ALI_LT, "tpl", {"instanceType": "ecs.gn7i-c8g1.2xlarge", "passwordInherit": inherit})
    assert check_stack(POLICY, [template]) == [
        (
            "ECS launch template 'tpl' (ecs.gn7i-c8g1.2xlarge) has a login password inherited from the image "
            f"(passwordInherit); {TAIL}",
            urn(ALI_LT, "tpl"),
        )
    ]


@pytest.mark.parametrize("token", [ALI_INSTANCE, ALI_LT, ALI_CONFIG])
def test_alicloud_password_inherit_false_is_no_credential(token: str) -> None:
    resource = res(token, "gpu", {"instanceType": "ecs.gn7i-c8g1.2xlarge", "passwordInherit": False})
    assert check_stack(POLICY, [resource]) == []

from __future__ import annotations

import json

from pulumi_policy import PolicyResource

from gpufleet.policies.access.gpu_session_manager import POLICY, RULE

from .helpers import UNKNOWN_STRING_VALUE, check_stack, res
from .helpers import urn_of as urn

INSTANCE = "aws:ec2/instance:Instance"
LT = "aws:ec2/launchTemplate:LaunchTemplate"
ASG = "aws:autoscaling/group:Group"
PROFILE = "aws:iam/instanceProfile:InstanceProfile"
ROLE = "aws:iam/role:Role"
ATTACH = "aws:iam/rolePolicyAttachment:RolePolicyAttachment"
ROLE_POLICY = "aws:iam/rolePolicy:RolePolicy"
SETTING = "aws:ssm/serviceSetting:ServiceSetting"
ALI_INSTANCE = "alicloud:ecs/instance:Instance"
ALI_STATUS = "alicloud:ecs/ecsSessionManagerStatus:EcsSessionManagerStatus"
ALI_INVOCATION = "alicloud:ecs/ecsInvocation:EcsInvocation"
TC_INSTANCE = "tencentcloud:Instance/instance:Instance"
TC_CONFIG = "tencentcloud:As/scalingConfig:ScalingConfig"
TAT_COMMAND = "tencentcloud:Tat/command:Command"
CORE = "arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore"


def _aws_chain(policy_arn: str = CORE) -> tuple[list[PolicyResource], PolicyResource]:
    role = res(ROLE, "node", {"assumeRolePolicy": "{}"})
    attach = res(
        ATTACH, "ssm", {"role": UNKNOWN_STRING_VALUE, "policyArn": policy_arn}, prop_deps={"role": [role]}
    )
    profile = res(PROFILE, "node", {"role": UNKNOWN_STRING_VALUE}, prop_deps={"role": [role]})
    return [role, attach, profile], profile


def test_metadata() -> None:
    assert RULE.id == "GF-ACC-003"
    assert POLICY.name == "gpu-session-manager"


def test_aws_compliant_instance_through_attachment() -> None:
    chain, profile = _aws_chain()
    gpu = res(
        INSTANCE,
        "train",
        {"instanceType": "p4d.24xlarge", "iamInstanceProfile": UNKNOWN_STRING_VALUE},
        prop_deps={"iamInstanceProfile": [profile]},
    )
    cpu = res(INSTANCE, "web", {"instanceType": "t3.micro"})
    assert check_stack(POLICY, [*chain, gpu, cpu]) == []


def test_aws_role_without_ssm() -> None:
    chain, profile = _aws_chain("arn:aws:iam::aws:policy/AmazonS3ReadOnlyAccess")
    gpu = res(
        INSTANCE,
        "train",
        {"instanceType": "p4d.24xlarge", "iamInstanceProfile": UNKNOWN_STRING_VALUE},
        prop_deps={"iamInstanceProfile": [profile]},
    )
    assert check_stack(POLICY, [*chain, gpu]) == [
        (
            "EC2 instance 'train' (p4d.24xlarge) uses role 'node', which does not grant Session "
            "Manager access; "
            "attach AmazonSSMManagedInstanceCore (or allow ssm:UpdateInstanceInformation and ssmmessages "
            "channel actions)",
            urn(INSTANCE, "train"),
        )
    ]


def test_aws_no_profile() -> None:
    gpu = res(INSTANCE, "train", {"instanceType": "g5.xlarge"})
    assert check_stack(POLICY, [gpu]) == [
        (
            "EC2 instance 'train' (g5.xlarge) has no instance profile, so Session Manager cannot reach it; "
            "attach a role with AmazonSSMManagedInstanceCore",
            urn(INSTANCE, "train"),
        )
    ]


def test_aws_group_through_template_by_name_with_managed_arns_and_inline_policy() -> None:
    role = res(ROLE, "node", {"name": "node-role", "managedPolicyArns": [CORE]})
    profile = res(PROFILE, "prof", {"name": "node-prof", "role": "node-role"})
    template = res(
        LT,
        "tpl",
        {"name": "gpu-tpl", "instanceType": "g6.xlarge", "iamInstanceProfile": {"name": "node-prof"}},
    )
    group = res(ASG, "pool", {"launchTemplate": {"name": "gpu-tpl"}})
    assert check_stack(POLICY, [role, profile, template, group]) == []
    inline = {
        "Statement": [
            {"Effect": "Allow", "Action": ["ssm:UpdateInstanceInformation", "ssmmessages:*"], "Resource": "*"}
        ]
    }
    role2 = res(
        ROLE, "node", {"name": "node-role", "inlinePolicies": [{"name": "ssm", "policy": json.dumps(inline)}]}
    )
    assert check_stack(POLICY, [role2, profile, template, group]) == []
    partial_doc = {
        "Statement": [{"Effect": "Allow", "Action": "ssm:UpdateInstanceInformation", "Resource": "*"}]
    }
    role3 = res(ROLE, "node", {"name": "node-role"})
    role_policy = res(ROLE_POLICY, "p", {"role": "node-role", "policy": json.dumps(partial_doc)})
    assert check_stack(POLICY, [role3, role_policy, profile, template, group]) == [
        (
            "Auto Scaling group 'pool' (g6.xlarge) uses role 'node' (from EC2 launch template "
            "'tpl'), which does "
            "not grant Session Manager access; attach AmazonSSMManagedInstanceCore (or allow "
            "ssm:UpdateInstanceInformation and ssmmessages channel actions)",
            urn(ASG, "pool"),
        )
    ]


def test_aws_profile_defined_elsewhere_cannot_be_judged_with_proxy() -> None:
    gpu = res(
        INSTANCE, "train", {"instanceType": "g5.xlarge", "iamInstanceProfile": "shared-prof"}, proxy=True
    )
    assert check_stack(POLICY, [gpu]) == [
        (
            "could not be judged: EC2 instance 'train' (g5.xlarge) uses instance profile "
            "'shared-prof', which "
            "is not defined in this stack",
            urn(INSTANCE, "train"),
        )
    ]


def test_aws_unknown_instance_type() -> None:
    gpu = res(INSTANCE, "train", {"instanceType": UNKNOWN_STRING_VALUE}, proxy=True)
    assert check_stack(POLICY, [gpu]) == [
        (
            "could not be judged at preview: the string value at .instanceType can't be known during preview",
            urn(INSTANCE, "train"),
        )
    ]


def test_aws_default_host_management() -> None:
    setting = res(
        SETTING,
        "dhmc",
        {
            "settingId": (
                "arn:aws:ssm:us-east-1:1:servicesetting/ssm/managed-instance/"
                "default-ec2-instance-management-role"
            ),
            "settingValue": "service-role/AWSSystemsManagerDefaultEC2InstanceManagementRole",
        },
    )
    assert check_stack(POLICY, [setting, res(INSTANCE, "train", {"instanceType": "g5.xlarge"})]) == []


def test_alicloud() -> None:
    gpu = res(ALI_INSTANCE, "gpu", {"instanceType": "ecs.gn7i-c8g1.2xlarge"})
    expected = [
        (
            "ECS instance 'gpu' (ecs.gn7i-c8g1.2xlarge) is not reachable by Session Manager: enable it with "
            "alicloud.ecs.EcsSessionManagerStatus (status Enabled) in this stack",
            urn(ALI_INSTANCE, "gpu"),
        )
    ]
    assert check_stack(POLICY, [gpu]) == expected
    disabled = res(
        ALI_STATUS, "sm", {"sessionManagerStatusName": "sessionManagerStatus", "status": "Disabled"}
    )
    assert check_stack(POLICY, [gpu, disabled]) == expected
    enabled = res(ALI_STATUS, "sm", {"sessionManagerStatusName": "sessionManagerStatus", "status": "Enabled"})
    assert check_stack(POLICY, [gpu, enabled]) == []
    invocation = res(
        ALI_INVOCATION, "run", {"instanceIds": [UNKNOWN_STRING_VALUE]}, prop_deps={"instanceIds": [gpu]}
    )
    assert check_stack(POLICY, [gpu, invocation]) == []


def test_tencent() -> None:
    gpu = res(TC_INSTANCE, "gpu", {"instanceType": "GN7.2XLARGE32"})
    command = res(TAT_COMMAND, "cmd", {"commandName": "x", "content": "echo"})
    assert check_stack(POLICY, [gpu, command]) == []
    assert check_stack(POLICY, [gpu]) == [
        (
            "CVM instance 'gpu' (GN7.2XLARGE32) is not operated through TAT: this stack has no "
            "tencentcloud.tat "
            "Command or Invoker (or scaling-group lifecycle command); use TAT instead of SSH",
            urn(TC_INSTANCE, "gpu"),
        )
    ]
    off = res(TC_INSTANCE, "gpu", {"instanceType": "GN7.2XLARGE32", "disableAutomationService": True})
    config = res(
        TC_CONFIG, "cfg", {"instanceTypes": ["GN7.2XLARGE32"], "enhancedAutomationToolsService": False}
    )
    assert check_stack(POLICY, [off, config, command]) == [
        (
            "CVM instance 'gpu' (GN7.2XLARGE32) turns the TAT automation agent off "
            "(disableAutomationService is "
            "true); keep it on so the instance is reachable without SSH",
            urn(TC_INSTANCE, "gpu"),
        ),
        (
            "AS launch configuration 'cfg' (GN7.2XLARGE32) turns the TAT automation agent off "
            "(enhancedAutomationToolsService is false); keep it on so the instance is reachable without SSH",
            urn(TC_CONFIG, "cfg"),
        ),
    ]


def test_aws_template_used_by_eks_node_group_is_not_judged_alone() -> None:
    template = res(LT, "tpl", {"instanceType": "g5.xlarge"})
    node_group = res(
        "aws:eks/nodeGroup:NodeGroup",
        "gpu-nodes",
        {"launchTemplate": {"id": UNKNOWN_STRING_VALUE}},
        prop_deps={"launchTemplate": [template]},
    )
    assert check_stack(POLICY, [template, node_group]) == []
    assert check_stack(POLICY, [template]) == [
        (
            "EC2 launch template 'tpl' (g5.xlarge) has no instance profile, so Session Manager cannot reach "
            "it; attach a role with AmazonSSMManagedInstanceCore",
            urn(LT, "tpl"),
        )
    ]

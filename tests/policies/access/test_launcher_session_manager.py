"""GF-ACC-003 on the launchers beside instances and groups: a GPU AWS Batch compute environment's
`instanceRole`, an ACK node pool under the account's Session Manager switch, a TKE node pool operated
through TAT. Each must-fire case has its compliant look-alike."""

from __future__ import annotations

from typing import Any

from pulumi_policy import PolicyResource

from gpufleet.policies.access.gpu_session_manager import POLICY

from .helpers import UNKNOWN_STRING_VALUE, check_stack, res
from .helpers import urn_of as urn

BATCH = "aws:batch/computeEnvironment:ComputeEnvironment"
LT = "aws:ec2/launchTemplate:LaunchTemplate"
PROFILE = "aws:iam/instanceProfile:InstanceProfile"
ROLE = "aws:iam/role:Role"
ATTACH = "aws:iam/rolePolicyAttachment:RolePolicyAttachment"
ACK = "alicloud:cs/nodePool:NodePool"
ALI_STATUS = "alicloud:ecs/ecsSessionManagerStatus:EcsSessionManagerStatus"
TKE = "tencentcloud:Kubernetes/nodePool:NodePool"
TAT_COMMAND = "tencentcloud:Tat/command:Command"
CORE = "arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore"
ECS_ROLE = "arn:aws:iam::aws:policy/service-role/AmazonEC2ContainerServiceforEC2Role"


def _profile(policy_arn: str) -> tuple[list[PolicyResource], PolicyResource]:
    role = res(ROLE, "batch-node", {"assumeRolePolicy": "{}"})
    attach = res(
        ATTACH, "attach", {"role": UNKNOWN_STRING_VALUE, "policyArn": policy_arn}, prop_deps={"role": [role]}
    )
    profile = res(PROFILE, "batch-node", {"role": UNKNOWN_STRING_VALUE}, prop_deps={"role": [role]})
    return [role, attach, profile], profile


def _batch(profile: PolicyResource | None, *extra: PolicyResource, **compute: Any) -> PolicyResource:
    resources: dict[str, Any] = {"type": "SPOT", "instanceTypes": ["g5"], "maxVcpus": 64, "subnets": ["s-1"]}
    if profile is not None:
        resources["instanceRole"] = UNKNOWN_STRING_VALUE
    resources.update(compute)
    deps = [r for r in (profile, *extra) if r is not None]
    return res(
        BATCH,
        "train",
        {"type": "MANAGED", "computeResources": resources},
        prop_deps={"computeResources": deps},
    )


def test_batch_role_without_ssm_fires() -> None:
    chain, profile = _profile(ECS_ROLE)
    assert check_stack(POLICY, [*chain, _batch(profile)]) == [
        (
            "Batch compute environment 'train' (g5) uses role 'batch-node', which does not grant Session "
            "Manager access; attach AmazonSSMManagedInstanceCore (or allow ssm:UpdateInstanceInformation and "
            "ssmmessages channel actions)",
            urn(BATCH, "train"),
        )
    ]


def test_batch_without_instance_role_fires_even_with_a_launch_template() -> None:
    template = res(LT, "tpl", {"userData": "x"})
    assert check_stack(
        POLICY, [template, _batch(None, template, launchTemplate={"launchTemplateId": "lt-1"})]
    ) == [
        (
            "Batch compute environment 'train' (g5) has no instance profile, so Session Manager cannot reach "
            "it; attach a role with AmazonSSMManagedInstanceCore",
            urn(BATCH, "train"),
        )
    ]


def test_batch_with_ssm_role_and_cpu_or_eks_batch_pass() -> None:
    chain, profile = _profile(CORE)
    assert check_stack(POLICY, [*chain, _batch(profile)]) == []
    # The template nothing but the environment uses is judged through it, not on its own.
    template = res(LT, "tpl", {"userData": "x"})
    assert (
        check_stack(
            POLICY, [*chain, template, _batch(profile, template, launchTemplate={"launchTemplateId": "lt-1"})]
        )
        == []
    )
    assert check_stack(POLICY, [_batch(None, instanceTypes=["optimal"])]) == []
    eks = res(
        BATCH,
        "on-eks",
        {
            "type": "MANAGED",
            "eksConfiguration": {
                "eksClusterArn": "arn:aws:eks:us-east-1:1:cluster/c",
                "kubernetesNamespace": "b",
            },
            "computeResources": {"type": "EC2", "instanceTypes": ["g5"], "maxVcpus": 8, "subnets": ["s-1"]},
        },
    )
    assert check_stack(POLICY, [eks]) == []


def test_ack_node_pool_needs_the_session_manager_switch() -> None:
    pool = res(ACK, "gpu", {"clusterId": "c-1", "instanceTypes": ["ecs.gn7i-c8g1.2xlarge"]})
    assert check_stack(POLICY, [pool]) == [
        (
            "ACK node pool 'gpu' (ecs.gn7i-c8g1.2xlarge) is not reachable by Session Manager: enable it with "
            "alicloud.ecs.EcsSessionManagerStatus (status Enabled) in this stack",
            urn(ACK, "gpu"),
        )
    ]
    enabled = res(ALI_STATUS, "sm", {"sessionManagerStatusName": "sessionManagerStatus", "status": "Enabled"})
    assert check_stack(POLICY, [pool, enabled]) == []
    cpu = res(ACK, "web", {"clusterId": "c-1", "instanceTypes": ["ecs.g7.xlarge"]})
    assert check_stack(POLICY, [cpu]) == []


def test_tke_node_pool_needs_tat() -> None:
    config = {"instanceType": "GN7.2XLARGE32"}
    pool = res(TKE, "gpu", {"clusterId": "cls-1", "minSize": 0, "maxSize": 2, "autoScalingConfig": config})
    assert check_stack(POLICY, [pool]) == [
        (
            "TKE node pool 'gpu' (GN7.2XLARGE32) is not operated through TAT: this stack has no "
            "tencentcloud.tat Command or Invoker (or scaling-group lifecycle command); use TAT instead of "
            "SSH",
            urn(TKE, "gpu"),
        )
    ]
    command = res(TAT_COMMAND, "cmd", {"commandName": "x", "content": "echo"})
    assert check_stack(POLICY, [pool, command]) == []

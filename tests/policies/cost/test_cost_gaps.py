"""GF-COST-008 on Alibaba and Tencent Cloud, attribute-selected GPUs of unknown class (COST-003/004),
and spot fleets grown by Application Auto Scaling (COST-007)."""

from __future__ import annotations

import json
from typing import Any

from gpufleet.policies.cost import (
    gpu_instance_allowlist,
    nonprod_spot_share,
    pool_bucket_region,
    worst_case_hourly,
)
from gpufleet.policies.cost import pools as P
from gpufleet.policies.cost.pools.tokens.alicloud import (
    ALI_INSTANCE,
    ALI_SCALING_CONFIGURATION,
    ALI_SCALING_GROUP,
)
from gpufleet.policies.cost.pools.tokens.aws import (
    AWS_APPAS_TARGET,
    AWS_ASG,
    AWS_LAUNCH_TEMPLATE,
    AWS_SPOT_FLEET,
    SPOT_FLEET_DIMENSION,
)
from gpufleet.policies.cost.pools.tokens.tencentcloud import TC_INSTANCE, TC_SCALING_CONFIG, TC_SCALING_GROUP

from .helpers import UNKNOWN_NUM, UNKNOWN_STR, check_stack, res

COST_008 = pool_bucket_region.POLICY
MESSAGE = (
    "{pool} in {pool_region} reads {kind} bucket '{bucket}' in {bucket_region} through role '{role}'; "
    "keep them in one region to avoid cross-region transfer charges"
)


# --- Alibaba Cloud: ESS scaling configuration roleName -> RAM role -> RAM policy -> OSS bucket -------
def _ali_stack(bucket_region: str, *, by_dependency: bool = False, role_ref: str = "gpu-role") -> list[Any]:
    bucket = res(
        "alicloud:oss/bucket:Bucket", "data", {"bucket": "gpu-data"}, provider_props={"region": bucket_region}
    )
    role = res("alicloud:ram/role:Role", "gpu-role", {"roleName": "gpu-role"})
    document = (
        UNKNOWN_STR
        if by_dependency
        else json.dumps(
            {
                "Version": "1",
                "Statement": [
                    {"Effect": "Allow", "Action": ["oss:GetObject"], "Resource": ["acs:oss:*:*:gpu-data/*"]}
                ],
            }
        )
    )
    policy = res(
        "alicloud:ram/policy:Policy",
        "read",
        {"policyName": "read-data", "policyDocument": document},
        deps={"policyDocument": [bucket]} if by_dependency else None,
    )
    attachment = res(
        "alicloud:ram/rolePolicyAttachment:RolePolicyAttachment",
        "read-attach",
        {"roleName": UNKNOWN_STR, "policyName": "read-data", "policyType": "Custom"},
        deps={"roleName": [role]},
    )
    group = res(
        ALI_SCALING_GROUP,
        "grp",
        {"scalingGroupName": "grp", "minSize": 0, "maxSize": 2},
        provider_props={"region": "cn-hangzhou"},
    )
    config = res(
        ALI_SCALING_CONFIGURATION,
        "cfg",
        {"scalingGroupId": UNKNOWN_STR, "instanceType": "ecs.gn7i-c8g1.2xlarge", "roleName": role_ref},
        deps={"scalingGroupId": [group]},
    )
    return [bucket, role, policy, attachment, group, config]


def test_alicloud_same_region_passes() -> None:
    assert check_stack(COST_008, _ali_stack("cn-hangzhou")) == []


def test_alicloud_bucket_in_another_region_is_reported() -> None:
    stack = _ali_stack("cn-beijing")
    expected = MESSAGE.format(
        pool="ESS scaling group 'grp'",
        pool_region="cn-hangzhou",
        kind="OSS",
        bucket="data",
        bucket_region="cn-beijing",
        role="gpu-role",
    )
    assert check_stack(COST_008, stack) == [(expected, stack[4].urn)]


def test_alicloud_document_built_from_the_bucket_joins_by_dependency() -> None:
    assert len(check_stack(COST_008, _ali_stack("cn-beijing", by_dependency=True))) == 1


def test_alicloud_unknown_role_reference_is_not_judged() -> None:
    # roleName unknown without a dependency: no role of the stack is known to be the pool's.
    assert check_stack(COST_008, _ali_stack("cn-beijing", role_ref=UNKNOWN_STR)) == []
    # A role name that matches no RAM role of the stack (a role made elsewhere).
    assert check_stack(COST_008, _ali_stack("cn-beijing", role_ref="other-role")) == []


def test_alicloud_ecs_instance_role_with_proxy() -> None:
    bucket = res(
        "alicloud:oss/bucket:Bucket", "data", {"bucket": "gpu-data"}, provider_props={"region": "cn-beijing"}
    )
    role = res("alicloud:ram/role:Role", "gpu-role", {"roleName": "gpu-role"})
    policy = res(
        "alicloud:ram/policy:Policy",
        "read",
        {
            "policyName": "read-data",
            "policyDocument": {
                "Version": "1",
                "Statement": [{"Effect": "Allow", "Action": "oss:*", "Resource": "acs:oss:*:*:gpu-data"}],
            },
        },
        proxy=True,
    )
    attachment = res(
        "alicloud:ram/rolePolicyAttachment:RolePolicyAttachment",
        "read-attach",
        {"roleName": "gpu-role", "policyName": "read-data", "policyType": "Custom"},
    )
    box = res(
        ALI_INSTANCE,
        "box",
        {"instanceType": "ecs.gn7i-c8g1.2xlarge", "roleName": "gpu-role"},
        provider_props={"region": "cn-hangzhou"},
        proxy=True,
    )
    expected = MESSAGE.format(
        pool="ECS instance 'box'",
        pool_region="cn-hangzhou",
        kind="OSS",
        bucket="data",
        bucket_region="cn-beijing",
        role="gpu-role",
    )
    assert check_stack(COST_008, [bucket, role, policy, attachment, box]) == [(expected, box.urn)]


# --- Tencent Cloud: AS scaling config camRoleName -> CAM role -> CAM policy -> COS bucket -------------
def _tc_stack(bucket_region: str, *, by_name: bool = False, role_ref: str = "gpu-role") -> list[Any]:
    bucket = res(
        "tencentcloud:Cos/bucket:Bucket",
        "data",
        {"bucket": "gpu-data-1250000000"},
        provider_props={"region": bucket_region},
    )
    role = res("tencentcloud:Cam/role:Role", "gpu-role", {"name": "gpu-role", "document": "{}"})
    policy = res(
        "tencentcloud:Cam/policy:Policy",
        "read",
        {
            "name": "read-data",
            "document": json.dumps(
                {
                    "version": "2.0",
                    "statement": [
                        {
                            "effect": "allow",
                            "action": ["name/cos:GetObject"],
                            "resource": [f"qcs::cos:{bucket_region}:uid/1250000000:gpu-data-1250000000/*"],
                        }
                    ],
                }
            ),
        },
    )
    if by_name:
        attachment = res(
            "tencentcloud:Cam/rolePolicyAttachmentByName:RolePolicyAttachmentByName",
            "read-attach",
            {"roleName": "gpu-role", "policyName": "read-data"},
        )
    else:
        attachment = res(
            "tencentcloud:Cam/rolePolicyAttachment:RolePolicyAttachment",
            "read-attach",
            {"roleId": UNKNOWN_STR, "policyId": UNKNOWN_STR},
            deps={"roleId": [role], "policyId": [policy]},
        )
    config = res(
        TC_SCALING_CONFIG,
        "cfg",
        {"configurationName": "cfg", "instanceTypes": ["GN7.2XLARGE32"], "camRoleName": role_ref},
    )
    group = res(
        TC_SCALING_GROUP,
        "grp",
        {"scalingGroupName": "grp", "configurationId": UNKNOWN_STR, "minSize": 0, "maxSize": 2},
        deps={"configurationId": [config]},
        provider_props={"region": "ap-guangzhou"},
    )
    return [bucket, role, policy, attachment, config, group]


def test_tencentcloud_same_region_passes() -> None:
    assert check_stack(COST_008, _tc_stack("ap-guangzhou")) == []
    assert check_stack(COST_008, _tc_stack("ap-guangzhou", by_name=True)) == []


def test_tencentcloud_bucket_in_another_region_is_reported() -> None:
    expected = MESSAGE.format(
        pool="AS scaling group 'grp'",
        pool_region="ap-guangzhou",
        kind="COS",
        bucket="data",
        bucket_region="ap-shanghai",
        role="gpu-role",
    )
    for by_name in (False, True):
        stack = _tc_stack("ap-shanghai", by_name=by_name)
        assert check_stack(COST_008, stack) == [(expected, stack[-1].urn)]


def test_tencentcloud_unknown_role_reference_is_not_judged() -> None:
    assert check_stack(COST_008, _tc_stack("ap-shanghai", role_ref=UNKNOWN_STR)) == []
    assert check_stack(COST_008, _tc_stack("ap-shanghai", role_ref="other-role")) == []


def test_tencentcloud_bucket_without_known_region_is_not_judged() -> None:
    stack = _tc_stack("ap-shanghai")
    stack[0] = res("tencentcloud:Cos/bucket:Bucket", "data", {"bucket": "gpu-data-1250000000"})
    assert check_stack(COST_008, stack) == []


def test_tencentcloud_cvm_instance_with_proxy() -> None:
    stack = _tc_stack("ap-shanghai")[:4]
    box = res(
        TC_INSTANCE,
        "box",
        {"instanceType": "GN7.2XLARGE32", "camRoleName": UNKNOWN_STR},
        deps={"camRoleName": [stack[1]]},
        provider_props={"region": "ap-guangzhou"},
        proxy=True,
    )
    expected = MESSAGE.format(
        pool="CVM instance 'box'",
        pool_region="ap-guangzhou",
        kind="COS",
        bucket="data",
        bucket_region="ap-shanghai",
        role="gpu-role",
    )
    assert check_stack(COST_008, [*stack, box]) == [(expected, box.urn)]


# --- attribute-selected GPUs without accelerator names -------------------------------------------------
def _attribute_asg(requirements: dict[str, Any], on_demand_pct: int = 0) -> Any:
    lt = res(AWS_LAUNCH_TEMPLATE, "batch-lt", {"imageId": "ami-1"})
    return res(
        AWS_ASG,
        "batch",
        {
            "minSize": 0,
            "maxSize": 4,
            "tags": [{"key": "env", "value": "dev", "propagateAtLaunch": True}],
            "mixedInstancesPolicy": {
                "instancesDistribution": {"onDemandPercentageAboveBaseCapacity": on_demand_pct},
                "launchTemplate": {
                    "launchTemplateSpecification": {"launchTemplateId": "lt-1", "version": "$Latest"},
                    "overrides": [{"instanceRequirements": requirements}],
                },
            },
        },
        deps={"mixedInstancesPolicy": [lt]},
    )


GPU_BY_ATTRIBUTES = {"vcpuCount": {"min": 4}, "memoryMib": {"min": 16384}, "acceleratorTypes": ["gpu"]}
ASG_URN = "urn:pulumi:dev::gpufleet::aws:autoscaling/group:Group::batch"


def test_unnamed_gpus_cannot_be_judged_by_the_allowlist() -> None:
    assert check_stack(gpu_instance_allowlist.POLICY, [_attribute_asg(GPU_BY_ATTRIBUTES)]) == [
        (
            "could not be judged: Auto Scaling group 'batch' selects GPU instances by attributes "
            "(instanceRequirements.acceleratorTypes gpu) without acceleratorNames, so its GPU class is "
            "unknown; name the allowed GPUs in acceleratorNames",
            ASG_URN,
        )
    ]


def test_named_gpus_are_still_judged_and_non_gpu_requirements_are_no_pool() -> None:
    named = {**GPU_BY_ATTRIBUTES, "acceleratorNames": ["t4"]}
    assert check_stack(gpu_instance_allowlist.POLICY, [_attribute_asg(named)]) == []
    cpu_only = {"vcpuCount": {"min": 4}, "memoryMib": {"min": 16384}}
    assert P.discover_pools([_attribute_asg(cpu_only)]) == []
    fpga = {**cpu_only, "acceleratorTypes": ["fpga"]}
    assert P.discover_pools([_attribute_asg(fpga)]) == []


def test_unnamed_gpu_pool_is_judged_for_its_spot_share() -> None:
    assert check_stack(nonprod_spot_share.POLICY, [_attribute_asg(GPU_BY_ATTRIBUTES)]) == []
    assert check_stack(nonprod_spot_share.POLICY, [_attribute_asg(GPU_BY_ATTRIBUTES, on_demand_pct=100)]) == [
        (
            "Auto Scaling group 'batch' (dev) runs 0% of its capacity on spot; dev pools need at least 100%",
            ASG_URN,
        )
    ]


# --- spot fleet grown by an Application Auto Scaling target ----------------------------------------------
def _fleet_stack(max_capacity: Any, dimension: str = SPOT_FLEET_DIMENSION) -> list[Any]:
    fleet = res(
        AWS_SPOT_FLEET,
        "sweeps",
        {
            "targetCapacity": 2,
            "iamFleetRole": "arn:aws:iam::111122223333:role/fleet",
            "launchSpecifications": [{"instanceType": "g5.2xlarge", "ami": "ami-1"}],
            "tags": {"env": "dev"},
            "region": "us-east-1",
        },
    )
    target = res(
        AWS_APPAS_TARGET,
        "sweeps-target",
        {
            "serviceNamespace": "ec2",
            "scalableDimension": dimension,
            "resourceId": "spot-fleet-request/sfr-123",
            "minCapacity": 1,
            "maxCapacity": max_capacity,
        },
        deps={"resourceId": [fleet]},
    )
    return [fleet, target]


def test_worst_case_uses_the_scalable_targets_larger_max_capacity() -> None:
    assert check_stack(worst_case_hourly.POLICY, _fleet_stack(60)) == [
        (
            "the dev GPU pools can cost 60.00 USD/h at maximum size and on-demand prices, over the dev cap "
            "of 50 USD/h (sweeps: 60 x g5.2xlarge (us-east-1) at 1.00 USD/h)",
            None,
        )
    ]


def test_smaller_max_capacity_or_another_dimension_keeps_the_target_capacity() -> None:
    (pool,) = P.discover_pools(_fleet_stack(1))
    assert pool.max_size == 2
    (pool,) = P.discover_pools(_fleet_stack(60, dimension="ecs:service:DesiredCount"))
    assert pool.max_size == 2
    assert check_stack(worst_case_hourly.POLICY, _fleet_stack(60, dimension="ecs:service:DesiredCount")) == []


def test_unknown_max_capacity_is_not_judged() -> None:
    found = check_stack(worst_case_hourly.POLICY, _fleet_stack(UNKNOWN_NUM))
    assert len(found) == 1
    assert found[0][0].startswith("could not be judged")
    assert "sweeps-target.maxCapacity" in found[0][0]

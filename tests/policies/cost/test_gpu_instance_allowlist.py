from __future__ import annotations

from gpufleet.policies.cost.gpu_instance_allowlist import POLICY, RULE

from .helpers import UNKNOWN_STR, ali_pool, aws_pool, check_stack, res, tc_pool


def test_metadata() -> None:
    assert (RULE.id, POLICY.name, RULE.clouds) == (
        "GF-COST-003",
        "gpu-instance-types-allowed",
        ("aws", "alicloud", "tencentcloud"),
    )
    assert RULE.defaults()["allowed"]["dev"] == ["T4", "A10G", "A10", "L4"]


def test_compliant_dev_pools_per_cloud() -> None:
    assert check_stack(POLICY, [*aws_pool(), *ali_pool(), *tc_pool()]) == []


def test_a100_in_dev_fails_each_cloud() -> None:
    stack = aws_pool(instance_type="p4d.24xlarge")
    assert check_stack(POLICY, stack) == [
        (
            "Auto Scaling group 'gpu' (dev) uses p4d.24xlarge (A100); dev allows only T4, A10G, A10, L4 GPUs",
            stack[1].urn,
        )
    ]
    stack = ali_pool(instance_type="ecs.gn7-c12g1.3xlarge")
    assert [m for m, _ in check_stack(POLICY, stack)] == [
        "ESS scaling group 'grp' (dev) uses ecs.gn7-c12g1.3xlarge (A100); dev allows only T4, A10G, "
        "A10, L4 GPUs"
    ]
    stack = tc_pool(instance_type="GT4.41XLARGE948")
    assert [m for m, _ in check_stack(POLICY, stack)] == [
        "AS scaling group 'grp' (dev) uses GT4.41XLARGE948 (A100); dev allows only T4, A10G, A10, L4 GPUs"
    ]


def test_prod_allows_any_and_staging_allows_l40s() -> None:
    assert check_stack(POLICY, aws_pool(instance_type="p4d.24xlarge", stack="prod")) == []
    assert check_stack(POLICY, aws_pool(instance_type="g6e.2xlarge", stack="staging")) == []


def test_standalone_instance_and_config_override() -> None:
    box = res("aws:ec2/instance:Instance", "box", {"instanceType": "g5.2xlarge"})
    assert check_stack(POLICY, [box]) == []
    assert check_stack(POLICY, [box], config={"allowed": {"dev": ["T4"]}}) == [
        ("EC2 instance 'box' (dev) uses g5.2xlarge (A10G); dev allows only T4 GPUs", box.urn)
    ]


def test_unknown_class_and_unknown_environment() -> None:
    box = res("alicloud:ecs/instance:Instance", "box", {"instanceType": "ecs.ebmgn7ex.32xlarge"})
    assert check_stack(POLICY, [box]) == [
        (
            "could not be judged: the GPU class of ECS instance 'box''s instance type "
            "ecs.ebmgn7ex.32xlarge is "
            "neither in the catalogue nor known from its family",
            box.urn,
        )
    ]
    other = res("aws:ec2/instance:Instance", "box", {"instanceType": "p4d.24xlarge"}, stack="main")
    assert check_stack(POLICY, [other]) == [
        (
            "could not be judged: the environment of EC2 instance 'box' is unknown; tag it "
            "env=dev|staging|prod "
            "(or name the stack after its environment)",
            other.urn,
        )
    ]
    tagged = res(
        "aws:ec2/instance:Instance",
        "box",
        {"instanceType": "p4d.24xlarge", "tags": {"env": "prod"}},
        stack="main",
    )
    assert check_stack(POLICY, [tagged]) == []


def test_unknown_instance_type_list_and_proxy() -> None:
    ng = res(
        "aws:eks/nodeGroup:NodeGroup",
        "ng",
        {"instanceTypes": ["g5.2xlarge", UNKNOWN_STR], "scalingConfig": {"minSize": 0, "maxSize": 2}},
        proxy=True,
    )
    assert check_stack(POLICY, [ng]) == [
        (
            "could not be judged at preview: the string value at .instanceTypes can't be known "
            "during preview",
            ng.urn,
        )
    ]


def test_unknown_type_beside_a_gpu_type_is_not_judged_on_alibaba_and_tencent() -> None:
    ali = ali_pool()
    group, config = ali[0], ali[1]
    config.props = {**config.props, "instanceTypes": [UNKNOWN_STR]}
    assert check_stack(POLICY, ali) == [
        (
            "could not be judged at preview: the string value at .cfg.instanceTypes can't be known "
            "during preview",
            group.urn,
        )
    ]
    tencent = tc_pool()
    tencent[0].props = {**tencent[0].props, "instanceTypes": ["GN7.2XLARGE32", UNKNOWN_STR]}
    assert check_stack(POLICY, tencent) == [
        (
            "could not be judged at preview: the string value at .cfg.instanceTypes can't be known "
            "during preview",
            tencent[1].urn,
        )
    ]
    overridden = ali_pool()
    overridden[0].props = {**overridden[0].props, "launchTemplateOverrides": [{"instanceType": UNKNOWN_STR}]}
    assert check_stack(POLICY, overridden) == [
        (
            "could not be judged at preview: the string value at .launchTemplateOverrides.instanceType "
            "can't be known during preview",
            overridden[0].urn,
        )
    ]

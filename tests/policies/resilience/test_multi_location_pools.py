from __future__ import annotations

import pytest

from gpufleet.policies.resilience._locations import distinct_locations
from gpufleet.policies.resilience.multi_location_pools import POLICY, RULE

from .helpers import UNKNOWN, NotApplicable, provider, res, run_stack

ASG = "aws:autoscaling/group:Group"
ESS = "alicloud:ess/scalingGroup:ScalingGroup"
TC_AS = "tencentcloud:As/scalingGroup:ScalingGroup"
NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"


def test_metadata() -> None:
    assert (RULE.id, POLICY.name) == ("GF-DR-002", "fleet-multi-location")


def test_two_clouds_pass() -> None:
    pools = [res(ASG, "a", {"maxSize": 4}, stack="prod"), res(ESS, "b", {"maxSize": 4}, stack="prod")]
    assert run_stack(POLICY, pools) == []


def test_two_regions_of_one_cloud_pass() -> None:
    east = res(ASG, "a", {"availabilityZones": ["us-east-1a"]}, stack="prod")
    west = res(
        NODE_GROUP, "b", {"instanceTypes": ["g5.xlarge"]}, stack="prod", prov=provider("aws", "us-west-2")
    )
    assert run_stack(POLICY, [east, west]) == []


def test_cpu_only_pools_are_not_gpu_pools() -> None:
    # An ordinary web tier on CPU types (on the group or through its launch template) is not a GPU pool.
    template = res(LAUNCH_TEMPLATE, "web", {"instanceType": "m7i.large"}, stack="prod")
    by_template = res(
        ASG,
        "web",
        {"launchTemplate": {"id": template.name}, "availabilityZones": ["us-east-1a"]},
        stack="prod",
    )
    mixed = res(
        ASG,
        "api",
        {
            "mixedInstancesPolicy": {
                "launchTemplate": {
                    "launchTemplateSpecification": {"launchTemplateId": template.name},
                    "overrides": [{"instanceType": "c7g.large"}, {"instanceType": "t3.large"}],
                }
            }
        },
        stack="prod",
    )
    eks_default = res(NODE_GROUP, "system", {}, stack="prod")
    with pytest.raises(NotApplicable):
        run_stack(POLICY, [template, by_template, mixed, eks_default])


def test_gpu_ami_node_group_and_one_gpu_override_count_as_gpu_pools() -> None:
    gpu_ami = res(NODE_GROUP, "gpu", {"amiType": "AL2023_x86_64_NVIDIA"}, stack="prod")
    one_gpu = res(
        ASG,
        "mixed",
        {
            "mixedInstancesPolicy": {
                "launchTemplate": {
                    "overrides": [{"instanceType": "m7i.large"}, {"instanceType": "g5.xlarge"}]
                }
            }
        },
        stack="prod",
    )
    assert run_stack(POLICY, [gpu_ami, one_gpu]) == [
        (
            "production GPU pools 'gpu' and 'mixed' run only in aws (default region); add a pool in a second "
            "region or cloud",
            gpu_ami.urn,
        )
    ]


def test_one_region_fails() -> None:
    a = res(ASG, "a", {"availabilityZones": ["us-east-1a", "us-east-1b"]}, stack="prod")
    b = res(ASG, "b", {}, stack="prod", prov=provider("aws", "us-east-1"))
    c = res(ASG, "c", {}, stack="prod")
    assert run_stack(POLICY, [a, b, c]) == [
        (
            "production GPU pools 'a', 'b' and 'c' run only in aws us-east-1; add a pool in a second "
            "region or cloud",
            a.urn,
        )
    ]


def test_many_pools_are_named_up_to_five_then_counted() -> None:
    pools = [res(ASG, f"pool-{i}", {"availabilityZones": ["us-east-1a"]}, stack="prod") for i in range(7)]
    assert run_stack(POLICY, pools) == [
        (
            "production GPU pools 'pool-0', 'pool-1', 'pool-2', 'pool-3', 'pool-4' and 2 more run only in "
            "aws us-east-1; add a pool in a second region or cloud",
            pools[0].urn,
        )
    ]
    two = pools[:2]
    assert [m for m, _ in run_stack(POLICY, two)] == [
        "production GPU pools 'pool-0' and 'pool-1' run only in aws us-east-1; add a pool in a second "
        "region or cloud"
    ]


def test_tencent_zones_and_default_region() -> None:
    pool = res(TC_AS, "t", {"zones": ["ap-guangzhou-3"]}, stack="prod")
    assert run_stack(POLICY, [pool]) == [
        (
            "production GPU pool 't' runs only in tencentcloud ap-guangzhou; add a pool in a second "
            "region or cloud",
            pool.urn,
        )
    ]
    lone = res(ESS, "e", {}, stack="prod")
    assert run_stack(POLICY, [lone]) == [
        (
            "production GPU pool 'e' runs only in alicloud (default region); add a pool in a second "
            "region or cloud",
            lone.urn,
        )
    ]


def test_distinct_locations() -> None:
    assert distinct_locations([("aws", None), ("aws", "us-east-1")]) == ["aws us-east-1"]
    assert distinct_locations([("aws", None), ("alicloud", None)]) == [
        "alicloud (default region)",
        "aws (default region)",
    ]


def test_env_tag_beats_stack_name_and_not_applicable() -> None:
    with pytest.raises(NotApplicable, match="no production GPU pool"):
        run_stack(POLICY, [res(ASG, "a", {"tags": [{"key": "env", "value": "dev"}]}, stack="prod")])
    with pytest.raises(NotApplicable):
        run_stack(POLICY, [res(ASG, "a", {}, stack="dev")])


def test_unknown_region_counts_as_the_default_region() -> None:
    # A region that is not known at preview is not decisive: the pool runs somewhere in its cloud.
    pool = res(ASG, "a", {"availabilityZones": UNKNOWN, "region": UNKNOWN}, stack="prod")
    assert run_stack(POLICY, [pool], proxy=True) == [
        (
            "production GPU pool 'a' runs only in aws (default region); add a pool in a second region or "
            "cloud",
            pool.urn,
        )
    ]
    other = res(ESS, "b", {}, stack="prod")
    assert run_stack(POLICY, [res(ASG, "c", {"region": UNKNOWN}, stack="prod"), other], proxy=True) == []

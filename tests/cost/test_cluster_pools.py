"""`gpufleet cost` prices AWS Batch compute environments, ACK and TKE node pools, and names as
"unpriced" (a warning, never an error) a pool in a region the catalogue has no price for, on
Alibaba Cloud and Tencent Cloud as on AWS."""

from __future__ import annotations

from typing import Any

import pytest

from gpufleet.cost import cost_block, estimate_stack
from gpufleet.graph import Resource, ResourceGraph
from tests.cost.helpers import small_catalog

CATALOG = small_catalog()
BATCH = "aws:batch/computeEnvironment:ComputeEnvironment"
ACK = "alicloud:cs/nodePool:NodePool"
TKE = "tencentcloud:Kubernetes/nodePool:NodePool"


def _resource(token: str, name: str, inputs: dict[str, Any]) -> Resource:
    return Resource(
        urn=f"urn:pulumi:dev::thirdparty::{token}::{name}", type=token, name=name, custom=True, inputs=inputs
    )


def _batch(**compute: Any) -> Resource:
    resources = {"type": "SPOT", "instanceTypes": ["g5"], "maxVcpus": 64, "subnets": ["s-1"], **compute}
    return _resource(
        BATCH, "batch", {"type": "MANAGED", "region": "us-east-1", "computeResources": resources}
    )


def _ack(max_size: int = 4) -> Resource:
    return _resource(
        ACK,
        "ack",
        {
            "clusterId": "c-1",
            "instanceTypes": ["ecs.gn7i-c8g1.2xlarge"],
            "scalingConfig": {"enable": True, "minSize": 0, "maxSize": max_size},
        },
    )


def _tke(max_size: int = 4) -> Resource:
    return _resource(
        TKE,
        "tke",
        {
            "clusterId": "cls-1",
            "vpcId": "vpc-1",
            "minSize": 0,
            "maxSize": max_size,
            "autoScalingConfig": {"instanceType": "GN7.2XLARGE32"},
        },
    )


def _graph(resources: list[Resource], config: dict[str, Any]) -> ResourceGraph:
    return ResourceGraph(project="thirdparty", stack="dev", config=config, resources=resources)


def test_batch_priced_as_the_family_type_its_vcpus_buy() -> None:
    report = estimate_stack(_graph([_batch()], {"aws:region": "us-east-1"}), catalog=CATALOG)
    (line,) = report.pools
    # The g5 family is g5.2xlarge in this catalogue: 64 vCPUs buy 8 (8 vCPUs each), all spot at 0.4.
    assert (line.pool, line.instance_type, line.max_size) == ("batch", "g5.2xlarge", 8)
    assert line.hourly_max == pytest.approx(8 * 0.4)
    assert line.monthly_estimate == pytest.approx(8 * 0.4 * 730)
    assert (
        "sized in vCPUs (0-64): priced as 8 x g5.2xlarge, the type that costs most at maxVcpus" in line.notes
    )
    assert report.unpriced == ()


def test_node_pools_priced_in_their_regions() -> None:
    config = {"alicloud:region": "cn-hangzhou", "tencentcloud:region": "ap-guangzhou"}
    report = estimate_stack(_graph([_ack(), _tke()], config), catalog=CATALOG, currency="CNY")
    lines = {line.pool: line for line in report.pools}
    assert lines["ack"].hourly_max == pytest.approx(4 * 15.0)
    assert lines["tke"].hourly_max == pytest.approx(4 * 9.0)
    assert report.unpriced == ()


@pytest.mark.parametrize(
    ("resources", "config", "unpriced"),
    [
        (
            [_ack()],
            {"alicloud:region": "cn-wulanchabu"},
            ["ack: the catalogue has no alicloud ecs.gn7i-c8g1.2xlarge price in 'cn-wulanchabu'"],
        ),
        (
            [_tke()],
            {"tencentcloud:region": "ap-jakarta"},
            ["tke: the catalogue has no tencentcloud GN7.2XLARGE32 price in 'ap-jakarta'"],
        ),
        (
            [_batch(instanceTypes=["g5"])],
            {"aws:region": "us-east-1"},
            [],
        ),
        (
            [_batch(instanceTypes=["p5"])],
            {"aws:region": "us-east-1"},
            ["batch: aws p5 is not in the catalogue"],
        ),
    ],
)
def test_unpriced_region_or_type_is_a_warning_not_an_error(
    resources: list[Resource], config: dict[str, Any], unpriced: list[str]
) -> None:
    report = estimate_stack(_graph(resources, config), catalog=CATALOG)
    assert list(report.unpriced) == unpriced
    assert cost_block(report).get("unpriced", []) == unpriced
    if unpriced:
        assert report.pools == ()

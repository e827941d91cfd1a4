"""The burst order compiled into per-pool gates: table tests over sites, order and clouds."""

from __future__ import annotations

import pytest

from gpufleet.components.pools.burst import (
    ENFORCEMENT,
    SIGNAL_METRIC,
    SIGNAL_NAMESPACE,
    BurstPool,
    Gate,
    PoolHeadroom,
    compile_gates,
    free_gpus_ahead,
    order_sites,
)

AWS = BurstPool(name="train", cloud="aws", region="us-east-1", gpu_hour=1.2)
AWS_WEST = BurstPool(name="west", cloud="aws", region="us-west-2", gpu_hour=0.9)
ALI = BurstPool(name="hz", cloud="alicloud", region="cn-hangzhou", gpu_hour=0.7)
TENCENT = BurstPool(name="gz", cloud="tencentcloud", region="ap-guangzhou", gpu_hour=None)
AWS_SECOND = BurstPool(name="infer", cloud="aws", region="us-east-1", gpu_hour=0.4)


@pytest.mark.parametrize(
    ("pools", "order", "expected"),
    [
        # by price: cheapest GPU-hour first, unpriced last
        ([AWS, ALI, TENCENT], None, ["alicloud:cn-hangzhou", "aws:us-east-1", "tencentcloud:ap-guangzhou"]),
        # a site's price is its cheapest pool's
        ([AWS, AWS_SECOND, ALI], None, ["aws:us-east-1", "alicloud:cn-hangzhou"]),
        # the team's order wins over price
        (
            [AWS, ALI, TENCENT],
            ["tencentcloud:ap-guangzhou", "aws:us-east-1", "alicloud:cn-hangzhou"],
            ["tencentcloud:ap-guangzhou", "aws:us-east-1", "alicloud:cn-hangzhou"],
        ),
        # sites left out of a written order follow it by price
        (
            [AWS, AWS_WEST, ALI, TENCENT],
            ["tencentcloud:ap-guangzhou"],
            ["tencentcloud:ap-guangzhou", "alicloud:cn-hangzhou", "aws:us-west-2", "aws:us-east-1"],
        ),
        # equal prices: by site name
        (
            [
                BurstPool(name="b", cloud="aws", region="us-west-2", gpu_hour=1.0),
                BurstPool(name="a", cloud="aws", region="eu-west-1", gpu_hour=1.0),
            ],
            None,
            ["aws:eu-west-1", "aws:us-west-2"],
        ),
    ],
)
def test_site_order(pools: list[BurstPool], order: list[str] | None, expected: list[str]) -> None:
    assert [entry.site for entry in order_sites(pools, order)] == expected


def test_reasons_and_pools_per_site() -> None:
    sites = order_sites([AWS, AWS_SECOND, ALI], ["aws:us-east-1"])
    assert [(s.site, s.pools, s.gpu_hour, s.reason) for s in sites] == [
        ("aws:us-east-1", ("train", "infer"), 0.4, "listed"),
        ("alicloud:cn-hangzhou", ("hz",), 0.7, "by price"),
    ]


@pytest.mark.parametrize(
    ("pools", "order", "expected"),
    [
        (
            [AWS, ALI, TENCENT],
            ["aws:us-east-1", "alicloud:cn-hangzhou", "tencentcloud:ap-guangzhou"],
            {
                "train": Gate(site="aws:us-east-1", position=1, ahead=(), enforcement="metric-math"),
                "hz": Gate(
                    site="alicloud:cn-hangzhou",
                    position=2,
                    ahead=("aws:us-east-1",),
                    enforcement="not-enforced",
                ),
                "gz": Gate(
                    site="tencentcloud:ap-guangzhou",
                    position=3,
                    ahead=("aws:us-east-1", "alicloud:cn-hangzhou"),
                    enforcement="not-enforced",
                ),
            },
        ),
        (
            [AWS, AWS_SECOND, AWS_WEST],
            None,
            {
                # both pools of a site share its place and its gate
                "train": Gate(site="aws:us-east-1", position=1, ahead=(), enforcement="metric-math"),
                "infer": Gate(site="aws:us-east-1", position=1, ahead=(), enforcement="metric-math"),
                "west": Gate(
                    site="aws:us-west-2", position=2, ahead=("aws:us-east-1",), enforcement="metric-math"
                ),
            },
        ),
    ],
)
def test_gates_per_pool(pools: list[BurstPool], order: list[str] | None, expected: dict[str, Gate]) -> None:
    assert compile_gates(pools, order) == expected


def test_enforcement_per_cloud() -> None:
    assert dict(ENFORCEMENT) == {
        "aws": "metric-math",
        "alicloud": "not-enforced",
        "tencentcloud": "not-enforced",
    }


def test_gate_signal_and_expression() -> None:
    gate = compile_gates([AWS, ALI], ["alicloud:cn-hangzhou"])["train"]
    assert (SIGNAL_NAMESPACE, SIGNAL_METRIC) == ("gpufleet/Baseline", "FreeGpusAhead")
    assert gate.dimensions == {"Site": "aws:us-east-1"}
    assert gate.ahead == ("alicloud:cn-hangzhou",)
    assert gate.expression("ahead", "own") == "IF(FILL(ahead, 0) < 1, own, 0)"


def test_a_listed_site_without_pools_is_refused() -> None:
    with pytest.raises(
        ValueError,
        match=r"^names aws:eu-west-1, where no pool runs; the pools run at "
        r"alicloud:cn-hangzhou, aws:us-east-1",
    ):
        compile_gates([AWS, ALI], ["aws:eu-west-1"])


def test_no_pools_no_gates() -> None:
    assert compile_gates([], None) == {}


@pytest.mark.parametrize(
    ("baseline_free", "pools", "expected"),
    [
        # the baseline full, the site ahead at its maximum: nothing free, the pool may burst
        (0, [PoolHeadroom(site="alicloud:cn-hangzhou", in_service=2, max_size=2, gpus_per_instance=1)], 0),
        # one baseline GPU free holds every site back
        (1, [], 1),
        # a negative reading (more requested than owned) counts as none free
        (-3, [], 0),
        # headroom ahead, in GPUs: 2 instances short of max x 4 GPUs
        (0, [PoolHeadroom(site="alicloud:cn-hangzhou", in_service=1, max_size=3, gpus_per_instance=4)], 8),
        # a site behind (or the pool's own) never counts; an instance count above max is no headroom
        (
            0,
            [
                PoolHeadroom(site="aws:us-east-1", in_service=0, max_size=4, gpus_per_instance=8),
                PoolHeadroom(site="alicloud:cn-hangzhou", in_service=5, max_size=3, gpus_per_instance=4),
            ],
            0,
        ),
    ],
)
def test_free_gpus_ahead(baseline_free: int, pools: list[PoolHeadroom], expected: int) -> None:
    gate = Gate(site="aws:us-east-1", position=2, ahead=("alicloud:cn-hangzhou",), enforcement="metric-math")
    assert free_gpus_ahead(gate, baseline_free, pools) == expected

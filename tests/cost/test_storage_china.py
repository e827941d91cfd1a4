"""OSS and COS checkpoint buckets priced from the lifecycle rules the Alibaba and Tencent sites build
inline on the bucket, in the catalogue's class names of each cloud (OSS Standard 0.12 / IA 0.08, COS
STANDARD 0.118 / STANDARD_IA 0.08 CNY a GiB-month), on the shipped cn-dev and tc-dev stacks (200 GiB
of checkpoints written a month, 500 GiB of datasets). A month is 730 h = 30.4167 days."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

import pytest

from gpufleet.components.catalog import load_catalog
from gpufleet.cost import CostReport, OtherLine, estimate_stack
from gpufleet.engine import run_program
from gpufleet.graph import ResourceGraph
from tests.realworld.alicloud.support import replaced

REPO = Path(__file__).resolve().parents[2]
DAYS = 730 / 24
OSS = "gpufleet-cn-dev-cn-hangzhou-checkpoints-bucket"
COS = "gpufleet-tc-dev-tencentcloud-ap-guangzhou-checkpoints-bucket"


@functools.cache
def graph(stack: str) -> ResourceGraph:
    return run_program(REPO, stack)


def estimate(g: ResourceGraph) -> CostReport:
    return estimate_stack(g, catalog=load_catalog())


def bucket_line(report: CostReport, name: str) -> OtherLine:
    [line] = [o for o in report.other if o.key == f"bucket:{name}"]
    return line


def rules(g: ResourceGraph, name: str) -> list[dict[str, Any]]:
    [bucket] = [r for r in g.resources if r.name == name]
    return [dict(rule) for rule in bucket.inputs["lifecycleRules"]]


def test_cn_dev_prices_the_oss_bucket_in_cny_from_its_lifecycle() -> None:
    report = estimate(graph("cn-dev"))
    line = bucket_line(report, OSS)
    # Checkpoints move to IA on day 7 (OSS counts IA's 30 days from creation), expire on day 30 and
    # stay 7 d more as noncurrent versions (versioned bucket): 200 x 7 / 30.4167 = 46.03 GiB Standard
    # at 0.12 CNY, 200 x 30 / 30.4167 = 197.26 GiB IA at 0.08, plus 500 GiB of datasets Standard.
    assert line.monthly_estimate == pytest.approx((200 * 7 / DAYS + 500) * 0.12 + 200 * 30 / DAYS * 0.08)
    assert line.monthly_estimate == pytest.approx(81.30, abs=0.005)
    assert line.currency == "CNY" and line.cloud == "alicloud"
    assert line.quantity == (
        "200 GiB written a month, 500 GiB kept: 46.03 GiB Standard (7 d at 0.12); "
        "197.26 GiB IA (30 d at 0.08); 500 GiB Standard kept (no expiry at 0.12)"
    )
    assert [p.what for p in line.prices] == ["alicloud object storage Standard", "alicloud object storage IA"]
    assert not [n for n in report.notes if "bucket" in n]


def test_tc_dev_prices_the_cos_bucket_in_cny_from_its_lifecycle() -> None:
    report = estimate(graph("tc-dev"))
    line = bucket_line(report, COS)
    assert line.monthly_estimate == pytest.approx((200 * 37 / DAYS + 500) * 0.118)
    assert line.quantity == (
        "200 GiB written a month, 500 GiB kept: 243.29 GiB STANDARD (37 d at 0.118); "
        "500 GiB STANDARD kept (no expiry at 0.118)"
    )
    assert not [n for n in report.notes if "lifecycle" in n]


def test_an_oss_ia_transition_is_priced_at_the_ia_rate() -> None:
    g = graph("cn-dev")
    first, *rest = rules(g, OSS)
    ia = {**first, "transitions": [{"days": 7, "storageClass": "IA"}], "expirations": [{"days": 90}]}
    line = bucket_line(estimate(replaced(g, OSS, "lifecycleRules", [ia, *rest])), OSS)
    # 7 d Standard, then IA from day 7 to day 90 plus 7 noncurrent days: 90 d at 0.08.
    expected = 200 / DAYS * (7 * 0.12 + 90 * 0.08) + 500 * 0.12
    assert line.monthly_estimate == pytest.approx(expected)
    assert "GiB IA (90 d at 0.08)" in line.quantity


def test_a_cos_standard_ia_transition_is_priced_and_an_unversioned_bucket_keeps_no_noncurrent_days() -> None:
    g = graph("tc-dev")
    first, *rest = rules(g, COS)
    ia = {**first, "transitions": [{"days": 10, "storageClass": "STANDARD_IA"}], "expiration": {"days": 60}}
    g = replaced(replaced(g, COS, "lifecycleRules", [ia, *rest]), COS, "versioningEnable", False)
    line = bucket_line(estimate(g), COS)
    assert line.monthly_estimate == pytest.approx(200 / DAYS * (10 * 0.118 + 50 * 0.08) + 500 * 0.118)


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"enabled": False}, "a disabled rule expires nothing"),
        ({"prefix": "data/"}, "a rule on another prefix leaves the checkpoints"),
        ({"expirations": []}, "a rule without expiry"),
    ],
)
def test_an_oss_rule_that_does_not_expire_the_checkpoints_leaves_them_unpriced(
    change: dict[str, Any], why: str
) -> None:
    g = graph("cn-dev")
    first, *rest = rules(g, OSS)
    report = estimate(replaced(g, OSS, "lifecycleRules", [{**first, **change}, *rest]))
    assert (
        f"bucket {OSS}: no enabled lifecycle rule expires 'checkpoints/': checkpoint storage not priced "
        "(it would grow without end)" in report.notes
    ), why
    # The datasets alone: 500 GiB Standard.
    assert bucket_line(report, OSS).monthly_estimate == pytest.approx(500 * 0.12)

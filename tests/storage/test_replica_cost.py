"""gpufleet cost on the Alibaba and Tencent stacks with their replicas: each replica bucket is priced like
its source (same lifecycle, same volume, its own region), and the cross-region replication traffic, which
the catalogue has no Alibaba or Tencent price for, is named unpriced rather than left out."""

from __future__ import annotations

import pytest

from gpufleet.components.catalog import load_catalog
from gpufleet.cost import CostReport, OtherLine, estimate_stack
from gpufleet.graph import ResourceGraph
from tests.storage.test_replica_dr_rule import ALI, TC, graph

DAYS = 730 / 24
FLEET = "gpufleet:fleet.storage"


def estimate(g: ResourceGraph) -> CostReport:
    return estimate_stack(g, catalog=load_catalog())


def bucket_line(report: CostReport, name: str) -> OtherLine:
    [line] = [o for o in report.other if o.key == f"bucket:{name}"]
    return line


def test_oss_replica_is_priced_like_its_source() -> None:
    report = estimate(graph("cn-dev", replica=True))
    source = bucket_line(report, f"{ALI}-checkpoints-bucket")
    replica = bucket_line(report, f"{ALI}-replica-bucket-bucket")
    # 200 GiB written a month, 7 d Standard then IA (OSS counts IA's 30 days from creation) to day 30
    # + 7 noncurrent, plus 500 GiB of datasets, at OSS Standard 0.12 CNY and IA 0.08 CNY.
    assert source.monthly_estimate == pytest.approx((200 * 7 / DAYS + 500) * 0.12 + 200 * 30 / DAYS * 0.08)
    assert replica.monthly_estimate == pytest.approx(source.monthly_estimate)
    assert replica.quantity == source.quantity
    assert replica.notes[0] == (
        f"a replica of {ALI}-checkpoints-bucket: it holds the same objects, on its own lifecycle"
    )
    assert "list price of cn-hangzhou used for cn-shanghai" in replica.notes
    assert [o.key for o in report.other if o.key.startswith("replication:")] == []
    assert (
        f"replication {ALI}-replica-replication ({ALI}-checkpoints-bucket -> {ALI}-replica-bucket-bucket): "
        "the cross-region traffic (200 GiB a month) is not priced: the catalogue has no alicloud "
        "transfer_inter_region_gib price"
    ) in report.notes


def test_cos_replica_is_priced_like_its_source() -> None:
    report = estimate(graph("tc-dev", replica=True))
    source = bucket_line(report, f"{TC}-checkpoints-bucket")
    replica = bucket_line(report, f"{TC}-replica-bucket-bucket")
    assert source.monthly_estimate == pytest.approx((200 * 37 / DAYS + 500) * 0.118)
    assert replica.monthly_estimate == pytest.approx(source.monthly_estimate)
    assert "list price of ap-guangzhou used for ap-shanghai" in replica.notes
    assert (
        f"replication {TC}-checkpoints-bucket ({TC}-checkpoints-bucket -> {TC}-replica-bucket-bucket): "
        "the cross-region traffic (200 GiB a month) is not priced: the catalogue has no tencentcloud "
        "transfer_inter_region_gib price"
    ) in report.notes


def test_without_replica_nothing_is_said_of_one() -> None:
    report = estimate(graph("cn-dev", replica=False))
    assert [o.key for o in report.other if o.key.startswith("bucket:")] == [
        f"bucket:{ALI}-checkpoints-bucket"
    ]
    assert not [n for n in report.notes if "replica" in n or "bucket storage not priced" in n]


def test_hybrid_prices_the_aws_pair_and_names_the_china_buckets_unpriced() -> None:
    from gpufleet.engine import run_program
    from tests.storage.test_replica_dr_rule import ROOT

    report = estimate(run_program(ROOT, "hybrid"))
    buckets = sorted(o.key for o in report.other if o.key.startswith("bucket:"))
    # The fleet-wide volume lands in the AWS home bucket, which replicates both ways with us-west-2.
    assert buckets == [
        "bucket:gpufleet-hybrid-storage-bucket",
        "bucket:gpufleet-hybrid-us-west-2-storage-bucket",
    ]
    [note] = [n for n in report.notes if "checkpoint bucket storage not priced" in n]
    named = note.split(": checkpoint bucket storage not priced", 1)[0].split(", ")
    assert sorted(named) == [
        "gpufleet-hybrid-cn-hangzhou-checkpoints-bucket",
        "gpufleet-hybrid-cn-hangzhou-replica-bucket-bucket",
        "gpufleet-hybrid-tencentcloud-ap-guangzhou-checkpoints-bucket",
        "gpufleet-hybrid-tencentcloud-ap-guangzhou-replica-bucket-bucket",
    ]
    assert note.endswith(
        f"{FLEET}.checkpoints.written_gib_per_month is fleet-wide and is priced once, at "
        "gpufleet-hybrid-storage-bucket and its replicas"
    )

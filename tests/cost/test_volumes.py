"""Bucket storage by class over the lifecycle the program builds, replication, and data transfer, priced
from the volumes the spec gives. Figures are worked out by hand from tests/cost/helpers.py's catalogue:
STANDARD 0.02, Intelligent-Tiering frequent 0.018 / infrequent 0.01 / archive instant 0.004 USD a
GiB-month; internet egress 0.09 and inter-region 0.02 USD a GiB. A month is 730 h = 30.4167 days."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from gpufleet.components.catalog import CatalogError, load_catalog, parse_catalog
from gpufleet.components.spec import load_fleet_from_config
from gpufleet.cost import (
    IT_RULE,
    CostReport,
    bucket_storage_line,
    estimate_spec,
    estimate_stack,
    lifecycle_stages,
    render_text,
    transfer_line,
)
from gpufleet.engine import run_program
from tests.cost.helpers import DATE, USD_SOURCE, catalog_data, small_catalog

REPO = Path(__file__).resolve().parents[2]
CATALOG = small_catalog()
DAYS = 730 / 24  # 30.4167 days in the 730 h month

# ----------------------------------------------------------------------------------- the lifecycle


def test_lifecycle_stages_end_at_expiry_plus_the_noncurrent_days() -> None:
    assert lifecycle_stages("STANDARD", [(7, "INTELLIGENT_TIERING")], 30) == [
        ("STANDARD", 7),
        ("INTELLIGENT_TIERING", 23),
    ]
    # Versioned: expiry makes the object noncurrent; it stays 7 d more where it was.
    assert lifecycle_stages("STANDARD", [(7, "INTELLIGENT_TIERING")], 30, 7) == [
        ("STANDARD", 7),
        ("INTELLIGENT_TIERING", 30),
    ]
    # A transition on or after the expiry day never happens; one on day 0 skips the first class.
    assert lifecycle_stages("STANDARD", [(30, "STANDARD_IA")], 30) == [("STANDARD", 30)]
    assert lifecycle_stages("STANDARD", [(0, "INTELLIGENT_TIERING")], 30) == [("INTELLIGENT_TIERING", 30)]


def test_3000_gib_a_month_7_days_standard_then_intelligent_tiering_until_day_30() -> None:
    line = bucket_storage_line(
        "ckpt", cloud="aws", gib_written_per_month=3000, first_class="STANDARD",
        transitions=[(7, "INTELLIGENT_TIERING")], expire_days=30, catalog=CATALOG, currency="USD",
    )  # fmt: skip
    # Held at any time: STANDARD 3000 x 7 / 30.4167 = 690.41 GiB; Intelligent-Tiering 3000 x 23 /
    # 30.4167 = 2,268.49 GiB, all in its frequent tier (it leaves it only after 30 days in the class).
    # 690.41 x 0.02 + 2,268.49 x 0.018 = 13.81 + 40.83 = 54.64 USD a month.
    assert line.monthly_estimate == pytest.approx(3000 * 7 / DAYS * 0.02 + 3000 * 23 / DAYS * 0.018)
    assert line.monthly_estimate == pytest.approx(54.64, abs=0.005)
    assert line.quantity == (
        "3000 GiB written a month: 690.41 GiB STANDARD (7 d at 0.02); "
        "2268.49 GiB INTELLIGENT_TIERING frequent (23 d at 0.018)"
    )
    assert line.key == "bucket:ckpt" and line.monthly_envelope == line.monthly_estimate
    assert [(p.what, p.amount, p.date, p.source, p.confirmed) for p in line.prices] == [
        ("aws object storage STANDARD", 0.02, DATE, USD_SOURCE, True),
        ("aws object storage INTELLIGENT_TIERING frequent", 0.018, DATE, USD_SOURCE, True),
    ]
    assert IT_RULE in line.notes


def test_a_long_lifecycle_walks_down_the_intelligent_tiering_tiers() -> None:
    line = bucket_storage_line(
        "ckpt", cloud="aws", gib_written_per_month=100, first_class="STANDARD",
        transitions=[(10, "INTELLIGENT_TIERING")], expire_days=200, catalog=CATALOG, currency="USD",
    )  # fmt: skip
    # 10 d STANDARD; in the class 190 d: frequent 30 d, infrequent 60 d (day 30-90), archive instant 100 d.
    expected = 100 / DAYS * (10 * 0.02 + 30 * 0.018 + 60 * 0.01 + 100 * 0.004)
    assert line.monthly_estimate == pytest.approx(expected)
    assert "INTELLIGENT_TIERING infrequent (60 d at 0.01)" in line.quantity
    assert "INTELLIGENT_TIERING archive_instant (100 d at 0.004)" in line.quantity


def test_datasets_are_kept_at_standard_beside_the_checkpoints() -> None:
    line = bucket_storage_line(
        "ckpt", cloud="aws", gib_written_per_month=0, first_class="STANDARD", transitions=[],
        expire_days=30, kept_gib=500, catalog=CATALOG, currency="USD",
    )  # fmt: skip
    # Nothing written: only the 500 GiB kept, 500 x 0.02 = 10 USD a month.
    assert line.monthly_estimate == pytest.approx(10.0)
    assert line.quantity == "500 GiB kept: 500 GiB STANDARD kept (no expiry at 0.02)"


def test_transfer_lines_price_the_volume_at_the_catalogue_rate_and_keep_its_flag() -> None:
    egress = transfer_line(
        "egress", "train", cloud="aws", region="us-east-1", key="transfer_out_gib", gib_per_month=500,
        catalog=CATALOG, currency="USD", where="w",
    )  # fmt: skip
    assert egress.monthly_estimate == pytest.approx(500 * 0.09)  # 45 USD
    assert egress.price.confirmed and egress.quantity == "500 GiB a month from us-east-1 to the internet"
    # Converted at the catalogue's rate (7.5 CNY a USD) and marked unconfirmed as the catalogue says.
    cross = transfer_line(
        "cross-region", "burst", cloud="aws", region="eu-west-1", key="transfer_inter_region_gib",
        gib_per_month=200, catalog=CATALOG, currency="CNY", where="w",
    )  # fmt: skip
    assert cross.monthly_estimate == pytest.approx(200 * 0.02 * 7.5)  # 30 CNY
    assert not cross.price.confirmed
    assert cross.notes == ("list price of us-east-1 used for eu-west-1",)


# ----------------------------------------------------------------------------------- the catalogue


def test_the_shipped_catalogue_prices_the_tiers_and_transfer_with_their_flags() -> None:
    aws = load_catalog().service("aws")
    assert aws is not None
    tiers = {t: aws.price(f"intelligent_tiering_gib_month.{t}") for t in ("frequent", "infrequent")}
    assert {t: (p.amount, p.confirmed) for t, p in tiers.items() if p} == {
        "frequent": (0.023, False),
        "infrequent": (0.0125, False),
    }
    inter_region = aws.price("transfer_inter_region_gib")
    egress = aws.price("transfer_out_gib")
    assert inter_region is not None and (inter_region.amount, inter_region.confirmed) == (0.02, False)
    assert egress is not None and (egress.amount, egress.confirmed) == (0.09, True)
    assert inter_region.source == "https://aws.amazon.com/ec2/pricing/on-demand/"
    assert tiers["frequent"] is not None and tiers["frequent"].source == "https://aws.amazon.com/s3/pricing/"


def test_an_unknown_unconfirmed_key_is_refused() -> None:
    data: Any = catalog_data()
    data["services"]["aws"]["unconfirmed"] = ["transfer_gib"]
    with pytest.raises(CatalogError, match=r"services\.aws\.unconfirmed: must list price keys among"):
        parse_catalog(data)


# ------------------------------------------------------------------------------ a program's buckets

STACK = """\
config:
  aws:region: us-east-1
  gpufleet:fleet:
    environment: prod
    tags: {project: vision, team: ml-platform, cost-center: cc-042}
    budget: {monthly: 20000, currency: USD, alert_percent: 80}
    storage:
      checkpoints:
        ia_after_days: 7
        expire_after_days: 30
        noncurrent_expire_days: 7
        replicate_to: eu-west-1
        written_gib_per_month: 3000
      datasets_gib: 1000
    network:
      regions:
        eu-west-1: {vpc_cidr: 10.42.0.0/16}
    pools:
      train:
        instance_types: [g5.2xlarge]
        workload: {image_reads_queue: true}
        size: {min: 0, max: 4}
        usage: {hours_per_day: 10, average_size: 2}
        transfer: {egress_gib_per_month: 100, cross_region_gib_per_month: 0}
      burst:
        region: eu-west-1
        instance_types: [g5.2xlarge]
        workload: {image_reads_queue: true}
        size: {min: 0, max: 2}
        usage: {hours_per_day: 5, average_size: 1}
        transfer: {cross_region_gib_per_month: 200}
"""


def _project(root: Path, stack: str) -> Path:
    (root / "Pulumi.yaml").write_text(
        "name: gpufleet\nruntime: python\nmain: infra/\nstackConfigDir: stacks\n"
    )
    (root / "infra").symlink_to(REPO / "infra")
    (root / "stacks").mkdir()
    (root / "stacks" / "Pulumi.prod.yaml").write_text(stack)
    return root


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> CostReport:
    graph = run_program(_project(tmp_path_factory.mktemp("fleet"), STACK), "prod")
    return estimate_stack(graph, catalog=CATALOG)


def _other(report: CostReport) -> dict[str, Any]:
    return {o.key: o for o in report.other}


def test_replication_doubles_storage_and_adds_the_transfer(report: CostReport) -> None:
    lines = _other(report)
    home = lines["bucket:gpufleet-prod-storage-bucket"]
    replica = lines["bucket:gpufleet-prod-eu-west-1-storage-bucket"]
    # The lifecycle built: no transition (7 then 30 days: no class pays off before the expiry), so
    # STANDARD to expiry on day 30, then 7 d more as a noncurrent version (the bucket is versioned).
    # 3000 x 37 / 30.4167 = 3,649.32 GiB x 0.02 = 72.99; datasets 1,000 GiB x 0.02 = 20: 92.99 USD a
    # month in each bucket.
    per_bucket = 3000 * 37 / DAYS * 0.02 + 1000 * 0.02
    assert home.monthly_estimate == pytest.approx(per_bucket)
    assert replica.monthly_estimate == pytest.approx(per_bucket)
    assert home.quantity == (
        "3000 GiB written a month, 1000 GiB kept: 3649.32 GiB STANDARD (37 d at 0.02); "
        "1000 GiB STANDARD kept (no expiry at 0.02)"
    )
    assert (
        replica.notes[0]
        == "a replica of gpufleet-prod-storage-bucket: it holds the same objects, on its own lifecycle"
    )
    assert "list price of us-east-1 used for eu-west-1" in replica.notes
    # Replication carries the 3,000 GiB written a month once, at 0.02: 60 USD, an unconfirmed price.
    replication = lines["replication:gpufleet-prod-replication-to-replica"]
    assert replication.monthly_estimate == pytest.approx(60.0)
    assert not replication.price.confirmed and replication.price.what == "aws data transfer to another region"
    assert "replication:gpufleet-prod-replication-to-primary" not in lines
    assert IT_RULE not in report.notes


def test_pool_transfer_lines_and_the_missing_field_named(report: CostReport) -> None:
    lines = _other(report)
    assert lines["egress:train"].monthly_estimate == pytest.approx(100 * 0.09)  # 9 USD
    assert lines["cross-region:burst"].monthly_estimate == pytest.approx(200 * 0.02)  # 4 USD
    # A volume of 0 is priced as nothing: no line. A volume not given is named as missing.
    assert "cross-region:train" not in lines
    assert "egress:burst" not in lines
    assert (
        "data transfer not priced where the spec gives no volume: pools.burst.transfer.egress_gib_per_month"
        in report.notes
    )
    assert (
        "bucket storage not priced where the spec gives no volume for it: "
        "gpufleet-prod-audit-trail-bucket (audit)" in report.notes
    )


def test_the_total_sums_every_line_and_the_text_lists_each_price(report: CostReport) -> None:
    assert report.monthly_estimate == pytest.approx(
        sum(p.monthly_estimate for p in report.pools) + sum(o.monthly_estimate for o in report.other)
    )
    text = render_text(report)
    assert f"aws object storage STANDARD: 0.02 USD/GiB-month ({DATE}, {USD_SOURCE})" in text
    assert "INTELLIGENT_TIERING" not in text
    assert f"aws data transfer to another region: 0.02 USD/GiB ({DATE}, {USD_SOURCE}, UNCONFIRMED)" in text
    bucket_json = next(o for o in report.to_json()["other"] if o["kind"] == "bucket")
    assert [p["what"] for p in bucket_json["prices"]] == ["aws object storage STANDARD"]


def test_only_datasets_given_prices_them_and_names_the_missing_checkpoint_volume(
    tmp_path: Path,
) -> None:
    stack = STACK.replace("        written_gib_per_month: 3000\n", "")
    report = estimate_stack(run_program(_project(tmp_path, stack), "prod"), catalog=CATALOG)
    lines = _other(report)
    # 1,000 GiB of datasets x 0.02 in each bucket; nothing written, so no replication line.
    assert lines["bucket:gpufleet-prod-storage-bucket"].monthly_estimate == pytest.approx(20.0)
    assert lines["bucket:gpufleet-prod-eu-west-1-storage-bucket"].monthly_estimate == pytest.approx(20.0)
    assert not [key for key in lines if key.startswith("replication:")]
    assert (
        "gpufleet:fleet.storage.checkpoints.written_gib_per_month not set: that part of bucket storage is "
        "not priced"
    ) in report.notes


def test_the_spec_alone_prices_transfer_and_points_at_the_stack_for_storage() -> None:
    spec = load_fleet_from_config(yaml.safe_load(STACK)["config"])
    report = estimate_spec(spec, catalog=CATALOG, config={"aws:region": "us-east-1"})
    assert {o.key: round(o.monthly_estimate, 2) for o in report.other if o.kind != "volume"} == {
        "egress:train": 9.0,
        "cross-region:burst": 4.0,
    }
    assert any(
        n.startswith("bucket storage is priced from the lifecycle the program builds") for n in report.notes
    )

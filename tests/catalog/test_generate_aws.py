"""The AWS block of the catalogue is regenerated from a SkyPilot catalogue CSV: GPU types only, on-demand
per region, spot the median of the region's zones, p4d/p5 flagged until confirmed after AWS's 2025 cut.
The excerpt holds rows of the public `catalogs/v7/aws/vms.csv` as published."""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest
import yaml

from gpufleet.components.catalog import parse_catalog
from gpufleet.components.catalog.generate_aws import BEGIN, END, SourceError, main, read_types, render_entries

EXCERPT = Path(__file__).with_name("fixtures") / "skypilot_aws_vms_excerpt.csv"
CATALOGUE = Path(__file__).resolve().parents[2] / "components" / "catalog" / "gpus.yaml"
SOURCE = "https://github.com/skypilot-org/skypilot-catalog/blob/001367d/catalogs/v7/aws/vms.csv"


def _types() -> dict[str, object]:
    with EXCERPT.open(newline="") as handle:
        return dict(read_types(csv.DictReader(handle)))


def test_only_gpu_types_are_read_with_their_shape() -> None:
    types = _types()
    assert sorted(types) == ["g4dn.xlarge", "g5.12xlarge"]
    g5 = read_types(csv.DictReader(EXCERPT.open(newline="")))["g5.12xlarge"]
    assert (g5.gpu_model, g5.accelerator, g5.gpu_count, g5.vram_gib, g5.vcpu, g5.memory_gib) == (
        "NVIDIA A10G", "A10G", 4, 24.0, 48, 192.0
    )  # fmt: skip
    assert g5.on_demand["us-east-1"] == 5.672
    assert sorted(g5.spot["us-east-1"]) == [1.9937, 2.1378, 2.5445, 2.7041, 2.7324]


def test_regenerated_catalogue_prices_spot_at_the_zone_median(tmp_path: Path) -> None:
    target = tmp_path / "gpus.yaml"
    shutil.copy(CATALOGUE, target)
    code = main([str(EXCERPT), "--date", "2026-12-01", "--source", SOURCE, "--catalogue", str(target)])
    assert code == 0
    catalog = parse_catalog(yaml.safe_load(target.read_text()))
    g4dn = catalog.get("aws", "g4dn.xlarge")
    assert len(g4dn.on_demand) == 18  # the regions of the excerpt
    assert g4dn.hourly("us-east-1").amount == 0.526
    # us-east-1 zones: 0.201, 0.186, 0.1869, 0.1845, 0.1872: the median is 0.1869.
    spot = g4dn.hourly("us-east-1", spot=True)
    assert (spot.amount, spot.date, spot.source) == (0.1869, "2026-12-01", SOURCE)
    assert g4dn.spot_basis("us-east-1") == "median of the region's zones"
    # Two zones: the median is their mean.
    assert catalog.get("aws", "g5.12xlarge").hourly("eu-north-1", spot=True).amount == pytest.approx(1.67595)
    # The types the excerpt lacks are gone from the AWS block; the other clouds are kept as written.
    assert catalog.find("aws", "p5.48xlarge") is None
    assert catalog.get("alicloud", "ecs.gn7i-c8g1.2xlarge").on_demand["cn-hangzhou"].amount == 9.5326


def test_price_cut_families_are_unconfirmed_until_said_otherwise() -> None:
    types = _types()
    renamed = {"p5.48xlarge": types["g5.12xlarge"]}
    renamed["p5.48xlarge"].name = "p5.48xlarge"  # type: ignore[attr-defined]
    text = "\n".join(render_entries(renamed, date="2026-12-01", source=SOURCE))  # type: ignore[arg-type]
    assert "confirmed: false" in text and "purchase: *dgx_h100" in text
    text = "\n".join(render_entries(renamed, date="2026-12-01", source=SOURCE, after_price_cut=True))  # type: ignore[arg-type]
    assert "confirmed: false" not in text


def test_the_checked_in_catalogue_has_the_generated_block() -> None:
    lines = CATALOGUE.read_text().split("\n")
    assert lines.index(BEGIN) < lines.index(END)


def test_a_file_that_is_not_the_catalogue_csv_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "vms.csv"
    bad.write_text("InstanceType,GpuInfo,Price,Region\ng5.xlarge,not a dict,1.0,us-east-1\n")
    target = tmp_path / "gpus.yaml"
    shutil.copy(CATALOGUE, target)
    assert main([str(bad), "--date", "2026-12-01", "--source", SOURCE, "--catalogue", str(target)]) == 2
    assert "row 2 (g5.xlarge): GpuInfo is not a GPU description" in capsys.readouterr().err
    assert target.read_text() == CATALOGUE.read_text()
    with pytest.raises(SourceError):
        read_types([{"InstanceType": "p5.48xlarge", "GpuInfo": "{}", "Price": "1"}])

"""The Alibaba Cloud block of the catalogue is regenerated from a public ECS price snapshot: GPU families only
(no vGPU slices, no CPU types), every region the snapshot prices, the project's seed price flagged as
unconfirmed, and a type listed both in the block and by hand refused. The excerpt holds entries of the
public `alibabacloud_price.json` of cloudpilot-ai/priceserver as published."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from gpufleet.components.catalog import parse_catalog
from gpufleet.components.catalog.generate_alicloud import BEGIN, END, SourceError, main, read_types

EXCERPT = Path(__file__).with_name("fixtures") / "priceserver_alibabacloud_price_excerpt.json"
SPOT_EXCERPT = Path(__file__).with_name("fixtures") / "priceserver_alibabacloud_spot_excerpt.json"
CATALOGUE = Path(__file__).resolve().parents[2] / "components" / "catalog" / "gpus.yaml"
SOURCE = "https://github.com/cloudpilot-ai/priceserver/blob/de6fe92/pkg/client/builtin-data/alibabacloud_price.json"
SPOT_SOURCE = "https://github.com/cloudpilot-ai/priceserver/blob/60cef47/pkg/client/builtin-data/alibabacloud_price.json"


def _data() -> Any:
    return json.loads(EXCERPT.read_text())


def _run(tmp_path: Path, source: Path = EXCERPT, *extra: str) -> tuple[int, Path]:
    target = tmp_path / "gpus.yaml"
    shutil.copy(CATALOGUE, target)
    args = [str(source), "--date", "2024-10-09", "--source", SOURCE, "--catalogue", str(target), *extra]
    return main(args), target


def test_only_whole_gpu_types_with_a_price_are_read() -> None:
    types = read_types(_data())
    # The CPU type (ecs.c6.13xlarge) and the vGPU slice (ecs.sgn7i-vws-m2.xlarge) are left out, and so is
    # ecs.gn6v-c8g1.4xlarge, which the snapshot lists at 0 in both its regions.
    assert sorted(types) == [
        "ecs.gn6v-c8g1.2xlarge", "ecs.gn7e-c16g1.4xlarge", "ecs.gn7i-c16g1.4xlarge", "ecs.gn7i-c8g1.2xlarge"
    ]  # fmt: skip
    a10 = types["ecs.gn7i-c8g1.2xlarge"]
    assert (a10.family, a10.gpu_count, a10.vcpu, a10.memory_gib) == ("gn7i", 1, 8, 30.0)
    assert a10.on_demand == {"cn-beijing": 9.5326, "cn-shenzhen": 9.5326}
    assert types["ecs.gn6v-c8g1.2xlarge"].on_demand == {"cn-beijing": 26.46, "cn-zhangjiakou": 19.84}


def test_regenerated_catalogue_keeps_the_seed_unconfirmed(tmp_path: Path) -> None:
    code, target = _run(tmp_path)
    assert code == 0
    catalog = parse_catalog(yaml.safe_load(target.read_text()))
    a100 = catalog.get("alicloud", "ecs.gn7e-c16g1.4xlarge")
    assert (a100.gpu_model, a100.gpu_class, a100.vram_gib) == ("NVIDIA A100 80GB", "A100", 80.0)
    price = a100.hourly("cn-shenzhen")
    assert (price.amount, price.currency, price.date, price.source, price.confirmed) == (
        34.742, "CNY", "2024-10-09", SOURCE, True
    )  # fmt: skip
    assert a100.spot_basis("cn-shenzhen") == "on-demand less 60%"
    # The seed region joins the snapshot's regions, and the entry says it cannot all be confirmed.
    a10 = catalog.get("alicloud", "ecs.gn7i-c8g1.2xlarge")
    assert {r: p.amount for r, p in a10.on_demand.items()} == {
        "cn-beijing": 9.5326, "cn-hangzhou": 9.5326, "cn-shenzhen": 9.5326
    }  # fmt: skip
    assert not a10.hourly("cn-hangzhou").confirmed
    assert a10.hourly("cn-hangzhou").source == "https://www.aliyun.com/price/ecs/ecs-pricing/zh"
    # Types the excerpt lacks are gone from the generated block; hand-written ones and other clouds stay.
    assert catalog.find("alicloud", "ecs.gn6i-c4g1.xlarge") is None
    assert catalog.get("alicloud", "ecs.gn6v-c8g1.4xlarge").gpu_count == 2
    assert catalog.get("tencentcloud", "GN7.2XLARGE32").hourly("ap-guangzhou").amount == 1.26
    assert catalog.get("aws", "g5.2xlarge").hourly("us-east-1").amount == 1.212


def test_the_checked_in_catalogue_has_the_generated_block() -> None:
    lines = CATALOGUE.read_text().split("\n")
    assert lines.index(BEGIN) < lines.index(END)


def test_a_type_also_written_by_hand_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = _data()
    l20 = {"arch": "amd64", "gpu": 1, "vcpu": 8, "memory": 64, "onDemandPricePerHour": 14.4}
    data["cn-shenzhen"]["instanceTypePrices"]["ecs.gn8is.2xlarge"] = l20
    source = tmp_path / "price.json"
    source.write_text(json.dumps(data))
    code, target = _run(tmp_path, source)
    assert code == 2
    assert "alicloud ecs.gn8is.2xlarge is listed twice" in capsys.readouterr().err
    assert target.read_text() == CATALOGUE.read_text()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("[1, 2]", "the top level must map regions"),
        ("{\"cn-beijing\": {}}", "cn-beijing: no 'instanceTypePrices' mapping"),
        ("{\"cn-beijing\": {\"instanceTypePrices\": {\"ecs.gn7i-c8g1.2xlarge\": {\"gpu\": 1, \"vcpu\": 8}}}}",
         "cn-beijing ecs.gn7i-c8g1.2xlarge: gpu, vcpu and memory must be positive numbers"),
        ("not json", "not JSON"),
    ],
)  # fmt: skip
def test_a_file_that_is_not_the_snapshot_exits_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, message: str
) -> None:
    source = tmp_path / "price.json"
    source.write_text(content)
    code, target = _run(tmp_path, source)
    assert code == 2
    assert message in capsys.readouterr().err
    assert target.read_text() == CATALOGUE.read_text()


def test_a_shape_that_differs_between_regions_is_refused() -> None:
    data = _data()
    data["cn-shenzhen"]["instanceTypePrices"]["ecs.gn7i-c8g1.2xlarge"]["memory"] = 32
    with pytest.raises(SourceError, match=r"cn-(beijing|shenzhen) ecs.gn7i-c8g1.2xlarge: shape"):
        read_types(data)


def test_spot_prices_are_the_zone_median_capped_at_on_demand(tmp_path: Path) -> None:
    spot_args = ("--spot-json", str(SPOT_EXCERPT), "--spot-date", "2024-06-12", "--spot-source", SPOT_SOURCE)
    code, target = _run(tmp_path, EXCERPT, *spot_args)
    assert code == 0
    catalog = parse_catalog(yaml.safe_load(target.read_text()))
    a10 = catalog.get("alicloud", "ecs.gn7i-c8g1.2xlarge")
    # cn-shenzhen's two zones quote 3.432 and 9.152: the median is their mean. cn-beijing's four zones
    # quote 9.533 (float32, three decimals) against 9.5326 on demand: capped at on-demand.
    assert {r: p.amount for r, p in a10.spot.items()} == {"cn-beijing": 9.5326, "cn-shenzhen": 6.292}
    spot = a10.hourly("cn-shenzhen", spot=True)
    assert (spot.date, spot.source, spot.confirmed) == ("2024-06-12", SPOT_SOURCE, True)
    # Discounts 0 (Beijing) and 0.34 (Shenzhen): the median, 0.17, rounds to 0.15. cn-hangzhou, the seed
    # region, has no spot price and takes it.
    assert a10.spot_discount == pytest.approx(0.15)
    assert a10.hourly("cn-hangzhou", spot=True).amount == pytest.approx(9.5326 * 0.85)
    # A type without spot prices takes the median discount of the types that have them: 0.15 and 0 (the
    # other A10 size, whose Beijing spot price is its on-demand price) give 0.075, rounded to 0.1.
    assert catalog.get("alicloud", "ecs.gn7i-c16g1.4xlarge").spot_discount == 0.0
    assert not catalog.get("alicloud", "ecs.gn7e-c16g1.4xlarge").spot
    assert catalog.get("alicloud", "ecs.gn7e-c16g1.4xlarge").spot_discount == pytest.approx(0.1)


def test_spot_json_needs_its_source(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as excinfo:
        _run(tmp_path, EXCERPT, "--spot-json", str(SPOT_EXCERPT), "--spot-date", "2024-06-12")
    assert excinfo.value.code == 2
    assert "--spot-json needs --spot-source" in capsys.readouterr().err

"""The Alibaba Cloud and Tencent Cloud GPU catalogue: every family with all its sizes, shapes as the
providers' instance-family pages publish them, GPU counts that agree with the type names, dated and
sourced prices in regions the clouds have, and the stacks' A10 in Hangzhou at Alibaba's list price
(9.5326 CNY an hour, as in the other standard mainland regions; not the 15 CNY users once quoted)."""

from __future__ import annotations

import re

import pytest

from gpufleet.components.catalog import InstanceType, load_catalog

# (name, GPUs, GiB per GPU, vCPUs, memory GiB) as Alibaba's "GPU-accelerated compute-optimized instance
# families" page lists them:
# https://www.alibabacloud.com/help/en/ecs/user-guide/overview-of-instance-families
ALIBABA_SHAPES = """
gn5-c4g1.xlarge 1 16 4 30; gn5-c8g1.2xlarge 1 16 8 60; gn5-c4g1.2xlarge 2 16 8 60;
gn5-c8g1.4xlarge 2 16 16 120; gn5-c28g1.7xlarge 1 16 28 112; gn5-c8g1.8xlarge 4 16 32 240;
gn5-c28g1.14xlarge 2 16 56 224; gn5-c8g1.14xlarge 8 16 54 480;
gn5i-c2g1.large 1 8 2 8; gn5i-c4g1.xlarge 1 8 4 16; gn5i-c8g1.2xlarge 1 8 8 32; gn5i-c16g1.4xlarge 1 8 16 64;
gn5i-c16g1.8xlarge 2 8 32 128; gn5i-c28g1.14xlarge 2 8 56 224;
gn6i-c4g1.xlarge 1 16 4 15; gn6i-c8g1.2xlarge 1 16 8 31; gn6i-c16g1.4xlarge 1 16 16 62;
gn6i-c24g1.6xlarge 1 16 24 93; gn6i-c40g1.10xlarge 1 16 40 155; gn6i-c24g1.12xlarge 2 16 48 186;
gn6i-c24g1.24xlarge 4 16 96 372;
gn6v-c8g1.2xlarge 1 16 8 32; gn6v-c8g1.4xlarge 2 16 16 64; gn6v-c8g1.8xlarge 4 16 32 128;
gn6v-c8g1.16xlarge 8 16 64 256; gn6v-c10g1.20xlarge 8 16 82 336;
gn6e-c12g1.3xlarge 1 32 12 92; gn6e-c12g1.6xlarge 2 32 24 184; gn6e-c12g1.12xlarge 4 32 48 368;
gn6e-c12g1.24xlarge 8 32 96 736;
gn7-c12g1.3xlarge 1 40 12 94; gn7-c13g1.13xlarge 4 40 52 378; gn7-c13g1.26xlarge 8 40 104 756;
gn7i-c8g1.2xlarge 1 24 8 30; gn7i-c16g1.4xlarge 1 24 16 60; gn7i-c32g1.8xlarge 1 24 32 188;
gn7i-c32g1.16xlarge 2 24 64 376; gn7i-c32g1.32xlarge 4 24 128 752; gn7i-c48g1.12xlarge 1 24 48 310;
gn7i-c56g1.14xlarge 1 24 56 346; gn7i-2x.8xlarge 2 24 32 128; gn7i-4x.8xlarge 4 24 32 128;
gn7i-4x.16xlarge 4 24 64 256; gn7i-8x.32xlarge 8 24 128 512; gn7i-8x.16xlarge 8 24 64 256;
gn7e-c16g1.4xlarge 1 80 16 125; gn7e-c16g1.8xlarge 2 80 32 250; gn7e-c16g1.16xlarge 4 80 64 500;
gn7e-c16g1.32xlarge 8 80 128 1000;
gn7s-c8g1.2xlarge 1 24 8 60; gn7s-c16g1.4xlarge 1 24 16 120; gn7s-c32g1.8xlarge 1 24 32 250;
gn7s-c32g1.16xlarge 2 24 64 500; gn7s-c32g1.32xlarge 4 24 128 1000; gn7s-c48g1.12xlarge 1 24 48 380;
gn7s-c56g1.14xlarge 1 24 56 440;
gn8is.2xlarge 1 48 8 64; gn8is.4xlarge 1 48 16 128; gn8is-2x.8xlarge 2 48 32 256;
gn8is-4x.16xlarge 4 48 64 512; gn8is-8x.32xlarge 8 48 128 1024;
gn8v.4xlarge 1 96 16 96; gn8v.6xlarge 1 96 24 128; gn8v-2x.8xlarge 2 96 32 192; gn8v-4x.8xlarge 4 96 32 384;
gn8v-2x.12xlarge 2 96 48 256; gn8v-8x.16xlarge 8 96 64 768; gn8v-4x.24xlarge 4 96 96 512;
gn8v-8x.48xlarge 8 96 192 1024;
ebmgn6i.24xlarge 4 16 96 384; ebmgn6v.24xlarge 8 16 96 384; ebmgn6e.24xlarge 8 32 96 768;
ebmgn7.26xlarge 8 40 104 768; ebmgn7i.32xlarge 4 24 128 768; ebmgn7e.32xlarge 8 80 128 1024;
ebmgn8is.32xlarge 8 48 128 1024; ebmgn8ia.64xlarge 4 48 256 1536; ebmgn8v.48xlarge 8 96 192 1024
"""
# The same for Tencent's "NVIDIA GPU instances", "GPU Computing instances" and "GPU Rendering instances"
# pages (https://www.tencentcloud.com/document/product/560/19700), whole-GPU sizes only.
TENCENT_SHAPES = """
GN6S.LARGE20 1 8 4 20; GN6S.2XLARGE40 2 8 8 40; GN6.7XLARGE48 1 8 28 48; GN6.14XLARGE96 2 8 56 96;
GN7.2XLARGE32 1 16 8 32; GN7.5XLARGE80 1 16 20 80; GN7.8XLARGE128 1 16 32 128; GN7.10XLARGE160 2 16 40 160;
GN7.20XLARGE320 4 16 80 320; GN7vw.4XLARGE64 1 16 16 64;
GN8.LARGE56 1 24 6 56; GN8.3XLARGE112 2 24 14 112; GN8.7XLARGE224 4 24 28 224; GN8.14XLARGE448 8 24 56 448;
GN10X.2XLARGE40 1 32 8 40; GN10X.4XLARGE80 2 32 18 80; GN10X.9XLARGE160 4 32 36 160;
GN10X.18XLARGE320 8 32 72 320;
GN10Xp.2XLARGE40 1 32 10 40; GN10Xp.5XLARGE80 2 32 20 80; GN10Xp.10XLARGE160 4 32 40 160;
GN10Xp.20XLARGE320 8 32 80 320;
GT4.4XLARGE96 1 40 16 96; GT4.8XLARGE192 2 40 32 192; GT4.20XLARGE474 4 40 82 474;
GT4.41XLARGE948 8 40 164 948;
GNV4.3XLARGE44 1 24 12 44; GNV4v.7XLARGE116 1 24 28 116;
PNV4.7XLARGE116 1 24 28 116; PNV4.14XLARGE232 2 24 56 232; PNV4.28XLARGE466 4 24 112 466;
PNV4.56XLARGE932 8 24 224 932
"""
# Regions each cloud has: Alibaba's as DescribeRegions returned them with the price snapshot, Tencent's
# from its region list (https://www.tencentcloud.com/document/product/213/6091).
ALIBABA_REGIONS = {
    "ap-northeast-1", "ap-northeast-2", "ap-southeast-1", "ap-southeast-3", "ap-southeast-5",
    "ap-southeast-6", "ap-southeast-7", "cn-beijing", "cn-chengdu", "cn-fuzhou", "cn-guangzhou",
    "cn-hangzhou", "cn-heyuan", "cn-hongkong", "cn-huhehaote", "cn-nanjing", "cn-qingdao", "cn-shanghai",
    "cn-shenzhen", "cn-wuhan-lr", "cn-wulanchabu", "cn-zhangjiakou", "eu-central-1", "eu-west-1",
    "me-east-1", "us-east-1", "us-west-1",
}  # fmt: skip
TENCENT_REGIONS = {
    "ap-guangzhou", "ap-shanghai", "ap-nanjing", "ap-beijing", "ap-chengdu", "ap-chongqing",
    "ap-hongkong", "ap-singapore", "ap-jakarta", "ap-seoul", "ap-tokyo", "ap-mumbai", "ap-bangkok",
    "na-siliconvalley", "na-ashburn", "eu-frankfurt", "sa-saopaulo",
}  # fmt: skip


def _shapes(text: str, prefix: str) -> dict[str, tuple[int, float, int, float]]:
    rows = [row.split() for row in text.replace("\n", " ").split(";")]
    return {prefix + name: (int(n), float(vram), int(vcpu), float(mem)) for name, n, vram, vcpu, mem in rows}


ALIBABA = _shapes(ALIBABA_SHAPES, "ecs.")
# The eRDMA bare-metal variants have no table on that page; their shape is DescribeInstanceTypes' in the
# price snapshot (their GPUs follow the naming page: `i` A10, `e` A100 80GB).
ALIBABA |= {"ecs.ebmgn7ix.32xlarge": (8, 24.0, 128, 512.0), "ecs.ebmgn7ex.32xlarge": (8, 80.0, 128, 1024.0)}
TENCENT = _shapes(TENCENT_SHAPES, "")


def _family(cloud: str, name: str) -> str:
    if cloud == "alicloud":
        match = re.match(r"^ecs\.([a-z]+\d+[a-z]*)[.-]", name)
        assert match is not None, name
        return match.group(1)
    return name.split(".", 1)[0]


@pytest.mark.parametrize(("cloud", "shapes"), [("alicloud", ALIBABA), ("tencentcloud", TENCENT)])
def test_every_family_has_all_its_sizes_with_the_published_shape(
    cloud: str, shapes: dict[str, tuple[int, float, int, float]]
) -> None:
    catalog = load_catalog()
    for name, shape in shapes.items():
        t = catalog.get(cloud, name)
        assert (t.gpu_count, t.vram_gib, t.vcpu, t.memory_gib) == shape, name
        assert t.family == _family(cloud, name), name
    families = {_family(cloud, name) for name in shapes}
    for t in catalog.types(cloud):
        assert t.family in families, f"{t.name}: family {t.family} has no published sizes in this test"


def test_the_families_the_issue_names_are_all_there() -> None:
    catalog = load_catalog()
    ali = {t.family for t in catalog.types("alicloud")}
    assert {
        "gn5", "gn5i", "gn6i", "gn6v", "gn6e", "gn7", "gn7i", "gn7e", "gn7s", "gn8is", "gn8v",
        "ebmgn6i", "ebmgn6v", "ebmgn6e", "ebmgn7", "ebmgn7i", "ebmgn7e", "ebmgn8is", "ebmgn8ia", "ebmgn8v",
    } <= ali  # fmt: skip
    tencent = {t.family for t in catalog.types("tencentcloud")}
    named = {"GN6", "GN6S", "GN7", "GN7vw", "GN8", "GN10X", "GN10Xp", "GNV4", "GNV4v", "GT4", "PNV4"}
    assert named <= tencent
    # vGPU slices are not whole GPUs: the catalogue leaves them out.
    assert not [t.name for t in catalog.types("alicloud") if t.family.startswith(("sgn", "vgn"))]
    assert catalog.find("tencentcloud", "GN7.LARGE20") is None


def _count_from_name(cloud: str, t: InstanceType) -> int | None:
    """The GPU count a type's name states: Alibaba `-<n>x.` (gn7i-4x.16xlarge) or `c<v>g1` with <v> vCPUs
    per GPU (gn7i-c32g1.16xlarge: 64 vCPUs, 2 GPUs); Tencent names state memory, not GPUs."""
    if cloud != "alicloud":
        return None
    multi = re.search(r"-(\d+)x\.", t.name)
    if multi:
        return int(multi.group(1))
    per_gpu = re.search(r"-c(\d+)g1\.", t.name)
    if per_gpu and t.vcpu % int(per_gpu.group(1)) == 0:
        return t.vcpu // int(per_gpu.group(1))
    return None


def test_gpu_counts_agree_with_the_names() -> None:
    catalog = load_catalog()
    assert catalog.get("alicloud", "ecs.gn7i-c32g1.8xlarge").gpu_count == 1
    assert catalog.get("alicloud", "ecs.gn7i-c32g1.8xlarge").gpu_class == "A10"
    assert catalog.get("alicloud", "ecs.ebmgn7i.32xlarge").gpu_count == 4
    assert catalog.get("alicloud", "ecs.ebmgn7i.32xlarge").gpu_class == "A10"
    checked = 0
    for t in catalog.types("alicloud"):
        stated = _count_from_name("alicloud", t)
        if stated is not None:
            assert t.gpu_count == stated, t.name
            checked += 1
    assert checked >= 50
    # Two documented sizes break the vCPU-per-GPU pattern of their name: 54 and 82 vCPUs for 8 GPUs.
    assert _count_from_name("alicloud", catalog.get("alicloud", "ecs.gn5-c8g1.14xlarge")) is None
    assert _count_from_name("alicloud", catalog.get("alicloud", "ecs.gn6v-c10g1.20xlarge")) is None
    for t in catalog.types("tencentcloud"):
        memory = re.search(r"LARGE(\d+)$", t.name)
        assert memory is not None and t.memory_gib == float(memory.group(1)), t.name


@pytest.mark.parametrize(
    ("cloud", "regions"), [("alicloud", ALIBABA_REGIONS), ("tencentcloud", TENCENT_REGIONS)]
)
def test_prices_are_positive_dated_sourced_and_in_the_clouds_regions(cloud: str, regions: set[str]) -> None:
    types = load_catalog().types(cloud)
    assert types
    for t in types:
        assert 0.0 <= t.spot_discount < 1.0, t.name
        for region, price in t.spot.items():
            assert 0 < price.amount <= t.on_demand[region].amount, f"{t.name} spot in {region}"
            assert re.fullmatch(r"20\d\d-\d\d-\d\d", price.date), t.name
        for region, price in t.on_demand.items():
            assert region in regions, f"{t.name} is priced in {region!r}, a region {cloud} does not have"
            assert price.amount > 0, t.name
            assert re.fullmatch(r"20\d\d-\d\d-\d\d", price.date), t.name
            assert price.source.startswith("https://"), t.name
            assert price.currency in {"CNY", "USD"}, t.name


def test_the_home_regions_of_the_brief_are_priced() -> None:
    catalog = load_catalog()
    ali = set(catalog.regions("alicloud"))
    assert {"cn-hangzhou", "cn-shanghai", "cn-beijing", "cn-shenzhen", "cn-zhangjiakou", "cn-wulanchabu",
            "cn-hongkong", "ap-southeast-1"} <= ali  # fmt: skip
    tencent = set(catalog.regions("tencentcloud"))
    assert {"ap-guangzhou", "ap-shanghai", "ap-beijing", "ap-nanjing", "ap-chengdu", "ap-hongkong",
            "ap-singapore"} <= tencent  # fmt: skip


def test_snapshot_prices_are_confirmed_and_estimates_are_not() -> None:
    catalog = load_catalog()
    a10 = catalog.get("alicloud", "ecs.gn7i-c16g1.4xlarge").hourly("cn-beijing")
    assert (a10.amount, a10.currency, a10.date, a10.confirmed) == (10.0934, "CNY", "2024-10-09", True)
    assert "cloudpilot-ai/priceserver/blob/" in a10.source
    # Every Tencent figure and every hand-written Alibaba figure is an estimate.
    assert not any(p.confirmed for t in catalog.types("tencentcloud") for p in t.on_demand.values())
    estimated = ("ecs.gn8is.2xlarge", "ecs.gn8v-8x.48xlarge", "ecs.gn7s-c8g1.2xlarge", "ecs.ebmgn7i.32xlarge")
    for name in estimated:
        assert not any(p.confirmed for p in catalog.get("alicloud", name).on_demand.values()), name
    t4 = catalog.get("tencentcloud", "GN7.2XLARGE32").hourly("ap-guangzhou")
    assert (t4.amount, t4.currency, t4.date) == (1.26, "USD", "2023-06-30")


def test_the_stacks_a10_in_hangzhou_is_priced_like_the_other_mainland_regions() -> None:
    a10 = load_catalog().get("alicloud", "ecs.gn7i-c8g1.2xlarge")
    price = a10.hourly("cn-hangzhou")
    assert (price.amount, price.currency, price.confirmed) == (9.5326, "CNY", False)
    for region in ("cn-beijing", "cn-shenzhen", "cn-guangzhou", "cn-chengdu"):
        assert a10.hourly(region).amount == 9.5326
    assert (a10.gpu_count, a10.gpu_class, a10.vram_gib) == (1, "A10", 24)
    assert 8 * 30 * price.amount == pytest.approx(2287.824)
    # Hangzhou has no spot price in the snapshot: spot there is on-demand less the type's discount, the
    # median over the regions that quote one.
    assert "cn-hangzhou" not in a10.spot and a10.spot_discount == 0.65
    assert a10.hourly("cn-hangzhou", spot=True).amount == pytest.approx(9.5326 * 0.35)
    assert a10.spot_basis("cn-beijing") == "median of the region's zones"

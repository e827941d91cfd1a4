# ruff: noqa: E501  (stack file lines and messages are kept whole, as the user sees them)
"""Raw Alibaba Cloud and Tencent Cloud programs (no gpufleet components) that would fail at launch or not
fit their work, written the way a user writes them: an ESS scaling group with its scaling
configuration, an AS group with its launch configuration, a plain instance. Each is run offline and
judged by the pack; the finding carries the rule id and names the cause."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpufleet.engine import run_program
from gpufleet.evaluate import Finding, evaluate_stack
from gpufleet.policies.fit import POLICIES
from tests.engine.projects import write_project

ALICLOUD = """
import pulumi
import pulumi_alicloud as alicloud

cfg = pulumi.Config("t")
region = pulumi.Config("alicloud").require("region")
env = cfg.get("env") or "prod"
tags = {"env": env, **(cfg.get_object("tags") or {})}
vpc = alicloud.vpc.Network("vpc", vpc_name="train", cidr_block="10.0.0.0/16")
switches = [
    alicloud.vpc.Switch(f"vsw{i}", vpc_id=vpc.id, zone_id=f"{region}-{'abc'[i]}", cidr_block=cidr, vswitch_name=f"vsw{i}")
    for i, cidr in enumerate(cfg.require_object("cidrs"))
]
sg = alicloud.ecs.SecurityGroup("sg", vpc_id=vpc.id, security_group_name="train")
interfaces = [
    alicloud.ess.ScalingConfigurationNetworkInterfaceArgs(instance_type="Primary" if i == 0 else "Secondary", network_interface_traffic_mode=mode, security_group_ids=[sg.id])
    for i, mode in enumerate(cfg.get_object("traffic") or [])
]
strategy = cfg.get("deployment_strategy")
dset = alicloud.ecs.EcsDeploymentSet("dset", deployment_set_name="train", strategy=strategy) if strategy else None
if cfg.get_bool("standalone"):
    alicloud.ecs.Instance(
        "gpu",
        instance_type=cfg.require("type"),
        image_id=cfg.get("image") or "m-bp1train0a10image01",
        vswitch_id=switches[0].id,
        security_groups=[sg.id],
        instance_charge_type="PostPaid",
        spot_strategy=cfg.get("spot") or "NoSpot",
        deployment_set_id=dset.id if dset else None,
        network_interface_traffic_mode=(cfg.get_object("traffic") or [None])[0],
        tags=tags,
    )
else:
    group = alicloud.ess.ScalingGroup(
        "gpu",
        scaling_group_name="train",
        min_size=0,
        max_size=cfg.require_int("max"),
        vswitch_ids=[s.id for s in switches],
        tags=tags,
    )
    alicloud.ess.ScalingConfiguration(
        "gpu-config",
        scaling_group_id=group.id,
        instance_type=cfg.require("type"),
        image_id=cfg.get("image") or "m-bp1train0a10image01",
        security_group_id=None if interfaces else sg.id,
        network_interfaces=interfaces or None,
        spot_strategy=cfg.get("spot") or "NoSpot",
        system_disk_category="cloud_essd",
        active=True,
        force_delete=True,
    )
"""

TENCENT = """
import pulumi
import tencentcloud_iac_pulumi as tencentcloud

cfg = pulumi.Config("t")
region = pulumi.Config("tencentcloud").require("region")
env = cfg.get("env") or "prod"
tags = {"env": env, **(cfg.get_object("tags") or {})}
vpc = tencentcloud.vpc.Instance("vpc", name="train", cidr_block="10.0.0.0/16")
subnets = [
    tencentcloud.subnet.Instance(f"subnet{i}", vpc_id=vpc.id, availability_zone=f"{region}-{3 + i}", cidr_block=cidr, name=f"subnet{i}")
    for i, cidr in enumerate(cfg.require_object("cidrs"))
]
charge = "SPOTPAID" if cfg.get_bool("spot") else "POSTPAID_BY_HOUR"
if cfg.get_bool("standalone"):
    tencentcloud.instance.Instance(
        "gpu",
        instance_type=cfg.require("type"),
        image_id=cfg.get("image") or "img-9qrfy1xt",
        availability_zone=f"{region}-3",
        vpc_id=vpc.id,
        subnet_id=subnets[0].id,
        instance_charge_type=charge,
        placement_group_id=cfg.get("placement"),
        hpc_cluster_id=cfg.get("hpc_cluster"),
        tags=tags,
    )
else:
    config = tencentcloud.as_.ScalingConfig(
        "gpu-config",
        configuration_name="train",
        instance_types=[cfg.require("type")],
        image_id=cfg.get("image") or "img-9qrfy1xt",
        instance_charge_type=charge,
        spot_instance_type="one-time" if cfg.get_bool("spot") else None,
        spot_max_price="1000" if cfg.get_bool("spot") else None,
        disaster_recover_group_ids=[cfg.get("placement")] if cfg.get("placement") else None,
    )
    tencentcloud.as_.ScalingGroup(
        "gpu",
        scaling_group_name="train",
        configuration_id=config.id,
        min_size=0,
        max_size=cfg.require_int("max"),
        vpc_id=vpc.id,
        subnet_ids=[s.id for s in subnets],
        tags=tags,
    )
"""

REGIONS = {"alicloud": "alicloud:region: cn-hangzhou", "tencentcloud": "tencentcloud:region: ap-guangzhou"}
PROGRAMS = {"alicloud": ALICLOUD, "tencentcloud": TENCENT}
# A T4 type, an A10 type and an A100 type of each cloud, from the catalogue.
T4 = {"alicloud": "ecs.gn6i-c4g1.xlarge", "tencentcloud": "GN7.2XLARGE32"}
A10 = {"alicloud": "ecs.gn7i-c8g1.2xlarge", "tencentcloud": "GN7.5XLARGE80"}


def judge(
    tmp_path: Path,
    cloud: str,
    config: dict[str, object],
    files: dict[str, str] | None = None,
    region: str | None = None,
) -> list[Finding]:
    lines = [f"  {REGIONS[cloud]}" if region is None else f"  {cloud}:region: {region}"]
    for key, value in config.items():
        lines.append(f"  {key if ':' in key else 't:' + key}: {json.dumps(value)}")
    root = write_project(
        tmp_path / "p", PROGRAMS[cloud], stacks={"prod": "config:\n" + "\n".join(lines) + "\n"}
    )
    for name, text in (files or {}).items():
        (root / name).write_text(text)
    graph = run_program(root, "prod")
    return evaluate_stack(graph, POLICIES, {}, project_root=root).violations


def only(findings: list[Finding], rule_id: str) -> Finding:
    matching = [f for f in findings if f.rule_id == rule_id]
    assert len(matching) == 1, findings
    return matching[0]


def none_of(findings: list[Finding], rule_id: str) -> None:
    assert [f for f in findings if f.rule_id == rule_id] == []


# --- quotas ----------------------------------------------------------------------------------------------


def test_alicloud_spot_vcpu_quota_declared_in_the_stack(tmp_path: Path) -> None:
    config = {
        "cidrs": ["10.0.0.0/24"], "max": 6, "type": A10["alicloud"], "spot": "SpotAsPriceGo",
        "gpufleet:quotas": {"alicloud:cn-hangzhou": {"max-spot-instance-vcpu-count": 40}},
    }  # fmt: skip
    finding = only(judge(tmp_path, "alicloud", config), "GF-FIT-001")
    assert finding.enforcement == "mandatory"
    assert finding.message.startswith(
        "alicloud:cn-hangzhou quota max-spot-instance-vcpu-count (Alibaba Cloud preemptible instance vCPUs) "
        "allows 40 vCPUs; the pools need 48 at their maximum size (gpu 6 x ecs.gn7i-c8g1.2xlarge (8 vCPUs) spot)"
    )


def test_alicloud_pay_as_you_go_quota_from_the_aliyun_cli_file(tmp_path: Path) -> None:
    # `aliyun ecs DescribeAccountAttributes --RegionId cn-hangzhou --AttributeName.1 max-postpaid-instance-vcpu-count`
    answer = {
        "RequestId": "8CE45CD5-31FB-47C2-959D-CA8144CE****",
        "AccountAttributeItems": {"AccountAttributeItem": [
            {"AttributeName": "max-postpaid-instance-vcpu-count", "AttributeValues": {"ValueItem": [{"Value": "16", "ExpiredTime": 1, "Count": 1}]}}
        ]},
    }  # fmt: skip
    config = {
        "cidrs": ["10.0.0.0/24"], "max": 3, "type": A10["alicloud"],
        "gpufleet:quotas": {"alicloud:cn-hangzhou": {"file": "quota.json"}},
    }  # fmt: skip
    finding = only(judge(tmp_path, "alicloud", config, {"quota.json": json.dumps(answer)}), "GF-FIT-001")
    assert (
        "quota max-postpaid-instance-vcpu-count (Alibaba Cloud pay-as-you-go instance vCPUs) allows 16 vCPUs"
        in finding.message
    )
    assert "need 24" in finding.message and "3 x ecs.gn7i-c8g1.2xlarge (8 vCPUs) on-demand" in finding.message


def test_tencent_instance_quota_declared_in_the_stack(tmp_path: Path) -> None:
    config = {
        "cidrs": ["10.0.0.0/24"], "max": 30, "type": T4["tencentcloud"],
        "gpufleet:quotas": {"tencentcloud:ap-guangzhou": {"PostPaidQuotaSet": 20}},
    }  # fmt: skip
    finding = only(judge(tmp_path, "tencentcloud", config), "GF-FIT-001")
    assert finding.message.startswith(
        "tencentcloud:ap-guangzhou quota PostPaidQuotaSet (Tencent Cloud pay-as-you-go instances) allows 20 "
        "instances; the pools need 30 at their maximum size"
    )


def test_tencent_spot_quota_from_the_tccli_file(tmp_path: Path) -> None:
    # `tccli cvm DescribeAccountQuota --region ap-guangzhou` prints the answer without its Response wrapper.
    answer = {
        "AppId": 1251783334,
        "AccountQuotaOverview": {"Region": "ap-guangzhou", "AccountQuota": {
            "PostPaidQuotaSet": [{"UsedQuota": 0, "RemainingQuota": 500, "TotalQuota": 500, "Zone": "ap-guangzhou-3"}],
            "SpotPaidQuotaSet": [
                {"UsedQuota": 0, "RemainingQuota": 2, "TotalQuota": 2, "Zone": "ap-guangzhou-3"},
                {"UsedQuota": 0, "RemainingQuota": 2, "TotalQuota": 2, "Zone": "ap-guangzhou-4"},
            ],
        }},
        "RequestId": "a5bd3ef2-1dcf-4a4d-9a19-8e8bd6b1a2f4",
    }  # fmt: skip
    config = {
        "cidrs": ["10.0.0.0/24"], "max": 8, "type": T4["tencentcloud"], "spot": True,
        "gpufleet:quotas": {"tencentcloud:ap-guangzhou": {"file": "quota.json"}},
    }  # fmt: skip
    finding = only(judge(tmp_path, "tencentcloud", config, {"quota.json": json.dumps(answer)}), "GF-FIT-001")
    assert (
        "quota SpotPaidQuotaSet (Tencent Cloud spot instances) allows 4 instances; the pools need 8"
        in finding.message
    )


@pytest.mark.parametrize("cloud", ["alicloud", "tencentcloud"])
def test_enough_quota_is_no_finding(tmp_path: Path, cloud: str) -> None:
    code, value = (
        ("max-postpaid-instance-vcpu-count", 800) if cloud == "alicloud" else ("PostPaidQuotaSet", 500)
    )
    site = "alicloud:cn-hangzhou" if cloud == "alicloud" else "tencentcloud:ap-guangzhou"
    config = {
        "cidrs": ["10.0.0.0/24"],
        "max": 4,
        "type": A10[cloud],
        "gpufleet:quotas": {site: {code: value}},
    }
    none_of(judge(tmp_path, cloud, config), "GF-FIT-001")


# --- subnet addresses ------------------------------------------------------------------------------------


def test_alicloud_vswitches_keep_four_addresses_each(tmp_path: Path) -> None:
    # Two /28 vSwitches: 2 x (16 - 4) = 24 addresses for 25 instances.
    config = {"cidrs": ["10.0.0.0/28", "10.0.0.16/28"], "max": 25, "type": T4["alicloud"]}
    finding = only(judge(tmp_path, "alicloud", config), "GF-FIT-002")
    assert finding.enforcement == "mandatory"
    assert (
        "ESS scaling group 'gpu' may need 25 private addresses at maximum size (ESS scaling group 'gpu' max 25 x one network interface = 25)"
        in finding.message
    )
    assert (
        "its subnets hold 24 usable (vsw0 10.0.0.0/28 (12), vsw1 10.0.0.16/28 (12)): launches fail once the vSwitches have no free private address"
        in finding.message
    )
    config["max"] = 24
    none_of(judge(tmp_path / "fits", "alicloud", config), "GF-FIT-002")


def test_alicloud_secondary_enis_take_an_address_each(tmp_path: Path) -> None:
    # Two /28 vSwitches hold 24 addresses; 13 instances with a primary and a secondary ENI need 26.
    config = {
        "cidrs": ["10.0.0.0/28", "10.0.0.16/28"], "max": 13, "type": T4["alicloud"],
        "traffic": ["Standard", "Standard"],
    }  # fmt: skip
    finding = only(judge(tmp_path, "alicloud", config), "GF-FIT-002")
    assert "max 13 x 2 network interfaces = 26" in finding.message and "hold 24 usable" in finding.message


def test_tencent_subnets_keep_three_addresses_each(tmp_path: Path) -> None:
    # Two /28 subnets: 2 x (16 - 3) = 26 addresses for 27 instances.
    config = {"cidrs": ["10.0.0.0/28", "10.0.0.16/28"], "max": 27, "type": T4["tencentcloud"]}
    finding = only(judge(tmp_path, "tencentcloud", config), "GF-FIT-002")
    assert "AS scaling group 'gpu' may need 27 private addresses" in finding.message
    assert (
        "its subnets hold 26 usable (subnet0 10.0.0.0/28 (13), subnet1 10.0.0.16/28 (13)): launches fail once the subnets have no free private address"
        in finding.message
    )
    config["max"] = 26
    none_of(judge(tmp_path / "fits", "tencentcloud", config), "GF-FIT-002")


# --- architecture ----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "image",
    [
        "aliyun_3_arm64_20G_alibase_20240819.vhd",
        "ubuntu_22_04_arm64_20G_alibase_20240926.vhd",
    ],
)
@pytest.mark.parametrize("standalone", [False, True])
def test_alicloud_arm64_image_on_a_gpu_type(tmp_path: Path, image: str, standalone: bool) -> None:
    config = {
        "cidrs": ["10.0.0.0/24"],
        "max": 2,
        "type": A10["alicloud"],
        "image": image,
        "standalone": standalone,
    }
    finding = only(judge(tmp_path, "alicloud", config), "GF-FIT-003")
    assert finding.enforcement == "mandatory"
    assert f"boots a arm64 image (imageId '{image}'" in finding.message
    assert "on ecs.gn7i-c8g1.2xlarge, which is x86_64: the launch is refused" in finding.message
    # the whole message, naming the resource that launches and where the image is set
    launcher, owner = ("ECS instance", "gpu") if standalone else ("ESS scaling group", "gpu-config")
    assert finding.message == (
        f"{launcher} 'gpu' boots a arm64 image (imageId '{image}' on '{owner}') on ecs.gn7i-c8g1.2xlarge, "
        "which is x86_64: the launch is refused"
    )


@pytest.mark.parametrize(
    "image", ["ubuntu_22_04_x64_20G_alibase_20240926.vhd", "aliyun_3_x64_20G_alibase_20240819.vhd"]
)
def test_alicloud_x86_image_on_a_gpu_type_is_fine(tmp_path: Path, image: str) -> None:
    config = {"cidrs": ["10.0.0.0/24"], "max": 2, "type": A10["alicloud"], "image": image}
    none_of(judge(tmp_path, "alicloud", config), "GF-FIT-003")


# --- GPU memory ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("cloud", ["alicloud", "tencentcloud"])
def test_model_does_not_fit_a_t4(tmp_path: Path, cloud: str) -> None:
    config = {
        "cidrs": ["10.0.0.0/24"],
        "max": 2,
        "type": T4[cloud],
        "tags": {"gpufleet:fit": "model=llama-7b-inference"},
    }
    finding = only(judge(tmp_path, cloud, config), "GF-FIT-004")
    assert finding.enforcement == "mandatory"
    assert (
        "needs 24 GiB for llama-7b-inference of GPU memory per instance (tag gpufleet:fit)" in finding.message
    )
    assert f"{T4[cloud]} 16 GiB (1 x T4)" in finding.message
    config["tags"] = {"gpufleet:fit": "model=bert-base"}
    none_of(judge(tmp_path / "bert", cloud, config), "GF-FIT-004")


@pytest.mark.parametrize("written", ["LLaMA-7B inference", "llama_7b_inference", "Llama-7B-Inference"])
def test_model_names_as_people_write_them(tmp_path: Path, written: str) -> None:
    config = {
        "cidrs": ["10.0.0.0/24"],
        "max": 2,
        "type": T4["tencentcloud"],
        "tags": {"gpufleet:fit": f"model={written}"},
    }
    finding = only(judge(tmp_path, "tencentcloud", config), "GF-FIT-004")
    assert f"needs 24 GiB for {written} of GPU memory per instance" in finding.message


@pytest.mark.parametrize("cloud", ["alicloud", "tencentcloud"])
def test_declared_memory_in_gib(tmp_path: Path, cloud: str) -> None:
    config = {
        "cidrs": ["10.0.0.0/24"],
        "max": 2,
        "type": A10[cloud],
        "tags": {"gpufleet:fit": "model_memory_gib=40"},
    }
    finding = only(judge(tmp_path, cloud, config), "GF-FIT-004")
    assert "needs 40 GiB of GPU memory per instance" in finding.message


# --- distributed work ------------------------------------------------------------------------------------


def test_alicloud_distributed_on_a_slow_type(tmp_path: Path) -> None:
    config = {
        "cidrs": ["10.0.0.0/24"],
        "max": 2,
        "type": T4["alicloud"],
        "tags": {"gpufleet:fit": "distributed=true"},
    }
    finding = only(judge(tmp_path, "alicloud", config), "GF-FIT-005")
    assert finding.enforcement == "advisory"
    assert "under a sustained 10 Gbps: ecs.gn6i-c4g1.xlarge (4 Gbps)" in finding.message


def test_tencent_distributed_on_a_slow_type(tmp_path: Path) -> None:
    config = {
        "cidrs": ["10.0.0.0/24"],
        "max": 2,
        "type": T4["tencentcloud"],
        "tags": {"gpufleet:fit": "distributed=true"},
    }
    finding = only(judge(tmp_path, "tencentcloud", config), "GF-FIT-005")
    assert "under a sustained 10 Gbps: GN7.2XLARGE32 (3 Gbps)" in finding.message


ERDMA = "ecs.ebmgn8is.32xlarge"  # takes an elastic RDMA interface (catalogue `eri`)


def test_alicloud_distributed_group_without_an_elastic_rdma_interface(tmp_path: Path) -> None:
    config = {"cidrs": ["10.0.0.0/24"], "max": 2, "type": ERDMA, "tags": {"gpufleet:fit": "distributed=true"}}
    finding = only(judge(tmp_path, "alicloud", config), "GF-FIT-005")
    assert (
        "no elastic RDMA interface (networkInterfaceTrafficMode HighPerformance) although "
        "ecs.ebmgn8is.32xlarge take one"
    ) in finding.message
    assert "deployment set" not in finding.message  # an ESS configuration takes none
    config["traffic"] = ["HighPerformance"]
    eri = [f for f in judge(tmp_path / "eri", "alicloud", config) if f.rule_id == "GF-FIT-005"]
    assert all("elastic RDMA" not in f.message for f in eri)


@pytest.mark.parametrize(
    ("strategy", "expected"),
    [
        (None, "no deployment set of strategy LowLatency"),
        ("Availability", "deployment set 'dset' of strategy Availability, not LowLatency"),
    ],
)
def test_alicloud_distributed_instance_outside_a_low_latency_deployment_set(
    tmp_path: Path, strategy: str | None, expected: str
) -> None:
    config: dict[str, object] = {
        "cidrs": ["10.0.0.0/24"], "max": 1, "type": ERDMA, "standalone": True,
        "traffic": ["HighPerformance"], "tags": {"gpufleet:fit": "distributed=true"},
    }  # fmt: skip
    if strategy:
        config["deployment_strategy"] = strategy
    finding = only(judge(tmp_path, "alicloud", config), "GF-FIT-005")
    assert expected in finding.message
    assert "elastic RDMA" not in finding.message
    config["deployment_strategy"] = "LowLatency"
    fine = [f for f in judge(tmp_path / "low", "alicloud", config) if f.rule_id == "GF-FIT-005"]
    assert all("deployment set" not in f.message for f in fine)


# --- hourly ceiling --------------------------------------------------------------------------------------


@pytest.mark.parametrize("cloud", ["alicloud", "tencentcloud"])
def test_dev_t4_pool_over_five_cny_an_hour_on_demand(tmp_path: Path, cloud: str) -> None:
    # gn6i-c4g1.xlarge: 11.63 CNY/h on demand in cn-guangzhou (the catalogue prices no T4 in cn-hangzhou);
    # GN7.2XLARGE32: 1.26 USD/h in ap-guangzhou.
    region = "cn-guangzhou" if cloud == "alicloud" else "ap-guangzhou"
    config = {"cidrs": ["10.0.0.0/24"], "max": 2, "type": T4[cloud], "env": "dev"}
    finding = only(judge(tmp_path, cloud, config, region=region), "GF-FIT-006")
    assert f"{T4[cloud]} at " in finding.message
    assert "CNY/h on-demand (spot " in finding.message
    assert "over the dev ceiling of 5 CNY/h for T4" in finding.message


def test_tencent_image_id_from_the_tccli_describe_images_file(tmp_path: Path) -> None:
    # `tccli cvm DescribeImages --ImageIds '["img-arm64xyz"]'`: Tencent's image ids say nothing offline.
    answer = {
        "TotalCount": 1,
        "ImageSet": [{"ImageId": "img-arm64xyz", "OsName": "TencentOS Server 3.1 for ARM64", "Architecture": "arm", "ImageType": "PUBLIC_IMAGE", "ImageState": "NORMAL"}],
        "RequestId": "7f3d1a2b-0c4e-4b8a-9a71-2d6f5e3c1b90",
    }  # fmt: skip
    for standalone in (False, True):
        config = {
            "cidrs": ["10.0.0.0/24"], "max": 2, "type": A10["tencentcloud"], "image": "img-arm64xyz",
            "standalone": standalone, "gpufleet:images": {"file": "images.json"},
        }  # fmt: skip
        findings = judge(
            tmp_path / str(standalone), "tencentcloud", config, {"images.json": json.dumps(answer)}
        )
        finding = only(findings, "GF-FIT-003")
        assert "boots a arm64 image (imageId 'img-arm64xyz', arm64 in gpufleet:images" in finding.message
        assert "on GN7.5XLARGE80, which is x86_64: the launch is refused" in finding.message


def test_alicloud_custom_image_id_from_the_aliyun_describe_images_file(tmp_path: Path) -> None:
    # `aliyun ecs DescribeImages --RegionId cn-hangzhou --ImageId m-bp1train0a10image01`
    answer = {
        "RequestId": "1CB3BF2A-7D1F-4A8B-9C31-0A1B2C3D4E5F",
        "Images": {"Image": [{"ImageId": "m-bp1train0a10image01", "Architecture": "arm64", "OSType": "linux", "Status": "Available"}]},
        "TotalCount": 1, "PageNumber": 1, "PageSize": 10, "RegionId": "cn-hangzhou",
    }  # fmt: skip
    config = {
        "cidrs": ["10.0.0.0/24"], "max": 2, "type": A10["alicloud"], "gpufleet:images": {"file": "images.json"},
    }  # fmt: skip
    finding = only(judge(tmp_path, "alicloud", config, {"images.json": json.dumps(answer)}), "GF-FIT-003")
    assert "boots a arm64 image (imageId 'm-bp1train0a10image01', arm64 in gpufleet:images" in finding.message


def test_alicloud_arm64_image_looked_up_by_name(tmp_path: Path) -> None:
    lookup = (
        'alicloud.ecs.get_images(name_regex="^ubuntu_22_04_arm64", owners="system", most_recent=True).ids[0]'
    )
    program = ALICLOUD.replace('image_id=cfg.get("image") or "m-bp1train0a10image01"', f"image_id={lookup}")
    assert program.count(lookup) == 2
    root = write_project(
        tmp_path / "p",
        program,
        stacks={
            "prod": 'config:\n  alicloud:region: cn-hangzhou\n  t:cidrs: ["10.0.0.0/24"]\n  t:max: 2\n  t:type: ecs.gn7i-c8g1.2xlarge\n'
        },
    )
    findings = evaluate_stack(run_program(root, "prod"), POLICIES, {}, project_root=root).violations
    finding = only(findings, "GF-FIT-003")
    assert (
        "boots a arm64 image (imageId 'm-bp1" in finding.message
        and "by the ecs.getImages lookup" in finding.message
    )
    assert "on ecs.gn7i-c8g1.2xlarge, which is x86_64" in finding.message

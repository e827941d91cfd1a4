"""pools.<name>.image per cloud: AWS names an AMI or SSM parameter, Alibaba and Tencent an image id of
their format, with its architecture when the id does not name it."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpufleet.components.spec import SpecError, parse_fleet

BASE: dict[str, Any] = {
    "environment": "dev",
    "tags": {"project": "vision", "team": "ml-platform", "cost-center": "cc-042"},
    "budget": {"monthly": 5000},
}
POOLS = {
    "aws": {"instance_types": ["g5.2xlarge"], "size": {"max": 2}},
    "alicloud": {
        "cloud": "alicloud",
        "region": "cn-hangzhou",
        "instance_types": ["ecs.gn7i-c8g1.2xlarge"],
        "size": {"max": 2},
    },
    "tencentcloud": {
        "cloud": "tencentcloud",
        "region": "ap-guangzhou",
        "instance_types": ["GN7.2XLARGE32"],
        "size": {"max": 2},
    },
}


def config(cloud: str, image: dict[str, Any]) -> dict[str, Any]:
    raw = copy.deepcopy(BASE)
    raw["pools"] = {
        "p": {**copy.deepcopy(POOLS[cloud]), "image": image, "workload": {"image_reads_queue": True}}
    }
    return raw


@pytest.mark.parametrize(
    ("cloud", "image", "image_id", "arch"),
    [
        ("alicloud", {"id": "m-bp1g7004ksh0oeuc1234"}, "m-bp1g7004ksh0oeuc1234", None),
        ("alicloud", {"id": "m-bp1g7004ksh0oeuc1234", "arch": "arm64"}, "m-bp1g7004ksh0oeuc1234", "arm64"),
        (
            "alicloud",
            {"id": "ubuntu_22_04_x64_20G_alibase_20240130.vhd"},
            "ubuntu_22_04_x64_20G_alibase_20240130.vhd",
            "x86_64",
        ),
        ("tencentcloud", {"id": "img-eb30mz89", "arch": "x86_64"}, "img-eb30mz89", "x86_64"),
        ("aws", {"ami": "ami-0123456789abcdef0"}, "ami-0123456789abcdef0", None),
    ],
)
def test_each_cloud_names_its_own_image(
    cloud: str, image: dict[str, Any], image_id: str, arch: str | None
) -> None:
    named = parse_fleet(config(cloud, image)).pools["p"].image
    assert named is not None
    assert named.image_id == image_id
    assert named.named_arch == arch


@pytest.mark.parametrize(
    ("cloud", "image", "message"),
    [
        (
            "alicloud",
            {"ami": "ami-0123456789abcdef0"},
            "pools.p.image: ami and ssm_parameter are AWS images; an Alibaba Cloud pool names its image "
            "by id",
        ),
        (
            "tencentcloud",
            {"ssm_parameter": "/aws/service/x:1"},
            "pools.p.image: ami and ssm_parameter are AWS images; a Tencent Cloud pool names its image by id",
        ),
        (
            "aws",
            {"id": "img-eb30mz89"},
            "pools.p.image.id: is for Alibaba and Tencent pools; an AWS pool names ami or ssm_parameter",
        ),
        (
            "alicloud",
            {"id": "img-eb30mz89"},
            "pools.p.image.id: must be an Alibaba image id like m-bp1g7004ksh0oeuc1234, or a public image's "
            "like ubuntu_22_04_x64_20G_alibase_20240130.vhd, got 'img-eb30mz89'",
        ),
        (
            "tencentcloud",
            {"id": "m-bp1g7004ksh0oeuc1234"},
            "pools.p.image.id: must be a Tencent image id like img-eb30mz89, got 'm-bp1g7004ksh0oeuc1234'",
        ),
        (
            "tencentcloud",
            {"id": "img-EB30MZ89"},
            "pools.p.image.id: must be a Tencent image id like img-eb30mz89, got 'img-EB30MZ89'",
        ),
        (
            "alicloud",
            {"id": "m-bp1g7004ksh0oeuc1234", "arch": "sparc"},
            "pools.p.image.arch: must be one of x86_64, arm64, got 'sparc'",
        ),
        (
            "aws",
            {"ami": "ami-0123456789abcdef0", "arch": "arm64"},
            "pools.p.image: arch goes with id (an Alibaba or Tencent image); an AMI's is told by GF-FIT-003",
        ),
        (
            "tencentcloud",
            {"id": "img-eb30mz89", "ami": "ami-0123456789abcdef0"},
            "pools.p.image: give exactly one of ami (an AMI id), ssm_parameter (a name with :version) or id "
            "(an Alibaba or Tencent image id)",
        ),
    ],
)
def test_a_wrong_image_names_the_field_and_what_it_takes(
    cloud: str, image: dict[str, Any], message: str
) -> None:
    with pytest.raises(SpecError) as error:
        parse_fleet(config(cloud, image))
    assert message in error.value.format()
    # the whole line, so a message cut short or naming another field fails
    assert f"stack config: gpufleet:fleet.{message}" in error.value.format().splitlines()

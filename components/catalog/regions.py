"""The regions each cloud's provider accepts: an ``alicloud:region``, ``tencentcloud:region`` or a pool's
``region`` outside its cloud's list is a typo, reported with the allowed values.

Alibaba Cloud: the public region ids of Elastic Compute Service ("Regions and zones", DescribeRegions),
mainland China, Hong Kong, Singapore and the rest. Tencent Cloud: the public CVM regions
("Regions and Availability Zones"), without the finance-only regions. The AWS list is the provider's
own (:data:`gpufleet.components.catalog.AWS_REGIONS`).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from gpufleet.components.catalog import AWS_REGIONS
from gpufleet.components.clouds import CLOUD_NAMES

ALICLOUD_REGIONS = (
    # mainland China
    "cn-qingdao", "cn-beijing", "cn-zhangjiakou", "cn-huhehaote", "cn-wulanchabu", "cn-hangzhou",
    "cn-shanghai", "cn-nanjing", "cn-fuzhou", "cn-shenzhen", "cn-heyuan", "cn-guangzhou", "cn-chengdu",
    "cn-wuhan-lr",
    # Hong Kong, Singapore and the rest
    "cn-hongkong", "ap-southeast-1", "ap-northeast-1", "ap-northeast-2", "ap-southeast-3",
    "ap-southeast-5", "ap-southeast-6", "ap-southeast-7", "us-east-1", "us-west-1", "na-south-1",
    "eu-west-1", "eu-central-1", "me-east-1", "me-central-1",
)  # fmt: skip

TENCENTCLOUD_REGIONS = (
    # mainland China
    "ap-guangzhou", "ap-shanghai", "ap-nanjing", "ap-beijing", "ap-chengdu", "ap-chongqing",
    # Hong Kong, Singapore and the rest
    "ap-hongkong", "ap-singapore", "ap-jakarta", "ap-seoul", "ap-tokyo", "ap-bangkok", "ap-mumbai",
    "na-siliconvalley", "na-ashburn", "sa-saopaulo", "eu-frankfurt",
)  # fmt: skip

# The regions of each cloud, by the cloud's name in the spec.
REGIONS: Mapping[str, tuple[str, ...]] = MappingProxyType(
    {"aws": AWS_REGIONS, "alicloud": ALICLOUD_REGIONS, "tencentcloud": TENCENTCLOUD_REGIONS}
)


def region_problem(cloud: str, region: str) -> str | None:
    """Why ``region`` is not one of ``cloud``'s regions (the allowed values listed), or None."""
    allowed = REGIONS.get(cloud)
    if allowed is None or region in allowed:
        return None
    shown = region if len(region) <= 64 else region[:64] + "..."
    return f"unknown {CLOUD_NAMES[cloud]} region {shown!r}; use one of {', '.join(allowed)}"

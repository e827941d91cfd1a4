"""Alibaba Cloud's part of the catalogue: the public region ids of Elastic Compute Service ("Regions and
zones", DescribeRegions), and how its instance type names read (``ecs.<family>-<size>``)."""

from __future__ import annotations

REGIONS = (
    # mainland China
    "cn-qingdao", "cn-beijing", "cn-zhangjiakou", "cn-huhehaote", "cn-wulanchabu", "cn-hangzhou",
    "cn-shanghai", "cn-nanjing", "cn-fuzhou", "cn-shenzhen", "cn-heyuan", "cn-guangzhou", "cn-chengdu",
    "cn-wuhan-lr",
    # Hong Kong, Singapore and the rest
    "cn-hongkong", "ap-southeast-1", "ap-northeast-1", "ap-northeast-2", "ap-southeast-3",
    "ap-southeast-5", "ap-southeast-6", "ap-southeast-7", "us-east-1", "us-west-1", "na-south-1",
    "eu-west-1", "eu-central-1", "me-east-1", "me-central-1",
)  # fmt: skip


def size_of(name: str, family: str) -> str:
    """The part of a type's name after its family: ``ecs.gn7i-c8g1.2xlarge`` -> ``c8g1.2xlarge``."""
    return name.removeprefix(f"ecs.{family}").lstrip("-.")

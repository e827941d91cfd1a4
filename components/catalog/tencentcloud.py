"""Tencent Cloud's part of the catalogue: the public CVM regions ("Regions and Availability Zones"),
without the finance-only regions."""

from __future__ import annotations

REGIONS = (
    # mainland China
    "ap-guangzhou", "ap-shanghai", "ap-nanjing", "ap-beijing", "ap-chengdu", "ap-chongqing",
    # Hong Kong, Singapore and the rest
    "ap-hongkong", "ap-singapore", "ap-jakarta", "ap-seoul", "ap-tokyo", "ap-bangkok", "ap-mumbai",
    "na-siliconvalley", "na-ashburn", "sa-saopaulo", "eu-frankfurt",
)  # fmt: skip

"""A fake site for link tests: mock ids for the VPC and two route tables, no site built."""

from __future__ import annotations

from typing import Any

import pulumi

from gpufleet.components.links import LinkArgs
from gpufleet.components.sites.base import Cloud, SiteOutputs
from gpufleet.components.spec.links import Link
from gpufleet.graph import SECRET_SIG_KEY

TAGS = {"project": "vision", "team": "ml-platform", "cost-center": "cc-042", "env": "dev"}
ONPREM = ["10.60.0.0/16", "10.70.0.0/20"]
PSK = "psk-from-config-1234"
BGP_KEY = "bgp-md5-from-config"
VPC_CIDRS = {"aws": "10.40.0.0/16", "alicloud": "10.41.0.0/16", "tencentcloud": "10.42.0.0/16"}
REGIONS = {"aws": "us-east-1", "alicloud": "cn-hangzhou", "tencentcloud": "ap-guangzhou"}
CURRENCIES = {"aws": "USD", "alicloud": "CNY", "tencentcloud": "CNY"}


def fake_site(cloud: Cloud, tables: int = 2) -> SiteOutputs:
    return SiteOutputs(
        cloud=cloud,
        region=REGIONS[cloud],
        currency=CURRENCIES[cloud],
        key_id=pulumi.Output.from_input("key-1"),
        vpc_id=pulumi.Output.from_input(f"vpc-{cloud}"),
        vpc_cidr=VPC_CIDRS[cloud],
        route_table_ids=pulumi.Output.from_input([f"rtb-{cloud}-{n}" for n in range(tables)]),
        route_table_count=tables,
    )


def link_args(cloud: Cloud, link: dict[str, Any], ranges: list[str] | None = None) -> LinkArgs:
    pulumi.runtime.set_config("gpufleet:linkPsk", PSK)
    pulumi.runtime.set_config("gpufleet:bgpKey", BGP_KEY)
    return LinkArgs(
        site=fake_site(cloud), link=Link.model_validate(link), onprem_ranges=ranges or ONPREM, tags=TAGS
    )


def is_secret(value: Any, plain: Any) -> bool:
    """True when a recorded input is the secret wire form of ``plain`` (never the plain value)."""
    return isinstance(value, dict) and SECRET_SIG_KEY in value and value.get("value") == plain


VPN = {"kind": "vpn", "gateway_ip": "203.0.113.10", "psk_config": "linkPsk"}

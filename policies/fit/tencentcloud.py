"""Tencent Cloud's facts for the launch and fit rules (GF-FIT-*): the pool types that carry their own
launch settings, the subnet fields and reserved addresses, and the CVM instance quotas (counted in
instances, not vCPUs)."""

from __future__ import annotations

from gpufleet.policies.cost.pools.tokens.tencentcloud import TC_INSTANCE, TC_NODE_POOL, TC_SCALING_GROUP

STANDALONE = frozenset({TC_INSTANCE})

# --- subnets (GF-FIT-002) -------------------------------------------------------------------------------

SUBNET_PROPS = {
    TC_SCALING_GROUP: "subnetIds",
    TC_INSTANCE: "subnetId",
    TC_NODE_POOL: "subnetIds",
}
SUBNET_TYPE = "tencentcloud:Subnet/instance:Instance"
# The first two addresses and the last (a /24 offers .2 to .254: DescribeSubnetAvailableIps,
# https://cloud.tencent.com/document/api/1024/34214, and https://cloud.tencent.com/document/product/215/20046).
RESERVED_ADDRESSES = 3

# --- GPU quotas (GF-FIT-001) ----------------------------------------------------------------------------

_QUOTAS = {
    "on-demand": ("PostPaidQuotaSet", "Tencent Cloud pay-as-you-go instances"),
    "spot": ("SpotPaidQuotaSet", "Tencent Cloud spot instances"),
}
# What the quotas count.
QUOTA_UNIT = "instances"
QUOTA_REQUEST = "the CVM quota page of each zone"


def quota_of(instance_type: str, purchase: str) -> tuple[str, str] | None:
    """The zone's CVM instance quota for `purchase`, whatever the type."""
    return _QUOTAS.get(purchase)

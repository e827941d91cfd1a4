"""Alibaba Cloud's facts for the launch and fit rules (GF-FIT-*): the pool types that carry their own
launch settings, the vSwitch fields and reserved addresses, how many addresses an instance takes, the
ECS vCPU quotas, the elastic RDMA and deployment-set checks of a distributed pool, and the rules'
Alibaba Cloud message fragments."""

from __future__ import annotations

from gpufleet.policies.cost.pools import Pool, ResourceIndex, ResourceView
from gpufleet.policies.cost.pools.tokens.alicloud import ALI_INSTANCE, ALI_NODE_POOL, ALI_SCALING_GROUP
from gpufleet.policies.props import as_list, get_ref, is_unknown

# --- types and launch sources ---------------------------------------------------------------------------

STANDALONE = frozenset({ALI_INSTANCE})

# --- subnets (GF-FIT-002) -------------------------------------------------------------------------------

SUBNET_PROPS = {
    ALI_SCALING_GROUP: "vswitchIds",
    ALI_INSTANCE: "vswitchId",
    ALI_NODE_POOL: "vswitchIds",
}
SUBNET_TYPE = "alicloud:vpc/switch:Switch"
# The first address and the last three of each vSwitch (CreateVSwitch,
# https://www.alibabacloud.com/help/en/vpc/developer-reference/api-vpc-2016-04-28-createvswitch).
RESERVED_ADDRESSES = 4
OUT_OF_ADDRESSES = "launches fail once the vSwitches have no free private address"


def addresses_per_instance(sources: list[ResourceView]) -> tuple[int, str]:
    """An ESS scaling configuration's `networkInterfaces` (the primary ENI and its secondaries) take an
    address each; a standalone ECS instance takes one for its primary ENI, one per secondary ENI in
    `networkInterfaces`, and its `secondaryPrivateIpAddressCount`."""
    best, why = 1, "one network interface"
    for source in sources:
        interfaces = [i for i in as_list(get_ref(source.props, "networkInterfaces")) if i is not None]
        if source.resource_type == ALI_INSTANCE:
            extra = get_ref(source.props, "secondaryPrivateIpAddressCount")
            extra = int(extra) if isinstance(extra, int | float) and not isinstance(extra, bool) else 0
            count = 1 + len(interfaces) + extra
        else:
            count = max(1, len(interfaces))
        if count > best:
            best, why = count, f"{count} private addresses"
            if interfaces:
                why = f"{len(interfaces) + (source.resource_type == ALI_INSTANCE)} network interfaces"
            if source.resource_type == ALI_INSTANCE and count > 1 + len(interfaces):
                why += f", {count - 1 - len(interfaces)} secondary addresses"
    return best, why


# --- GPU quotas (GF-FIT-001) ----------------------------------------------------------------------------

_QUOTAS = {
    "on-demand": ("max-postpaid-instance-vcpu-count", "Alibaba Cloud pay-as-you-go instance vCPUs"),
    "spot": ("max-spot-instance-vcpu-count", "Alibaba Cloud preemptible instance vCPUs"),
}
QUOTA_REQUEST = "Quota Center, ECS vCPU quotas of the region"


def quota_of(instance_type: str, purchase: str) -> tuple[str, str] | None:
    """The region's ECS vCPU quota for `purchase`, whatever the type."""
    return _QUOTAS.get(purchase)


# --- distributed pools (GF-FIT-005) ---------------------------------------------------------------------

INTERCONNECT = "eRDMA (Alibaba Cloud)"
PLACEMENT = "LowLatency deployment set"
DISTRIBUTED_REMEDIATION = (
    "on Alibaba Cloud set "
    "`networkInterfaceTrafficMode: HighPerformance` where the type takes an elastic RDMA interface and "
    "give standalone instances a deployment set of strategy `LowLatency`."
)
DEPLOYMENT_SET = "alicloud:ecs/ecsDeploymentSet:EcsDeploymentSet"
# The ENI mode that makes an elastic RDMA interface (CreateNetworkInterface NetworkInterfaceTrafficMode,
# https://www.alibabacloud.com/help/en/ecs/user-guide/elastic-rdma-network-interface-card-eri).
ERI_MODE = "highperformance"
# What a pool of types that take an elastic RDMA interface lacks without one (`has_interconnect`).
NO_INTERCONNECT = "no elastic RDMA interface (networkInterfaceTrafficMode HighPerformance)"


def has_interconnect(sources: list[ResourceView]) -> bool:
    """True when a launch source gives an elastic RDMA interface."""
    for source in sources:
        modes = [get_ref(source.props, "networkInterfaceTrafficMode")]
        modes += [
            get_ref(interface, "networkInterfaceTrafficMode")
            for interface in as_list(get_ref(source.props, "networkInterfaces"))
        ]
        if any(isinstance(mode, str) and mode.lower() == ERI_MODE for mode in modes):
            return True
    return False


def placement_problem(
    pool: Pool, index: ResourceIndex, view: ResourceView | None, sources: list[ResourceView]
) -> str | None:
    """What is wrong with a standalone ECS instance's deployment set, or None."""
    if view is None or pool.resource_type != ALI_INSTANCE:
        return None
    value = get_ref(view.props, "deploymentSetId")
    if value in (None, ""):
        return "no deployment set of strategy LowLatency"
    literal = value if not is_unknown(value) else ""
    for found in index.refs(view, "deploymentSetId", (DEPLOYMENT_SET,), value=literal):
        strategy = get_ref(found.props, "strategy") or "Availability"  # the provider's default
        if isinstance(strategy, str) and strategy != "LowLatency":
            return f"deployment set '{found.name}' of strategy {strategy}, not LowLatency"
    return None

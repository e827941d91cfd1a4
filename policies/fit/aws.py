"""AWS's facts for the launch and fit rules (GF-FIT-*): the pool types that carry their own launch
settings, the subnet fields and reserved addresses, how many addresses an instance's interfaces take,
Graviton families, the GPU quotas, the interconnect and placement checks of a distributed pool, and the
rules' AWS references and message fragments."""

from __future__ import annotations

import re
from typing import Any

from gpufleet.policies.cost.pools import Pool, ResourceIndex, ResourceView
from gpufleet.policies.cost.pools.tokens.aws import (
    AWS_ASG,
    AWS_EKS_NODE_GROUP,
    AWS_INSTANCE,
    AWS_SPOT_REQUEST,
)
from gpufleet.policies.props import as_list, get_ref, is_unknown

# The rules' references, by rule id.
URLS = {
    "GF-FIT-001": "https://docs.aws.amazon.com/ec2/latest/instancetypes/ec2-instance-quotas.html",
    "GF-FIT-002": "https://docs.aws.amazon.com/vpc/latest/userguide/subnet-sizing.html",
    "GF-FIT-003": "https://docs.aws.amazon.com/ec2/latest/instancetypes/ec2-instance-type-specifications.html",
    "GF-FIT-004": "https://docs.aws.amazon.com/ec2/latest/instancetypes/ac.html",
    "GF-FIT-005": "https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa.html",
    "GF-FIT-006": "https://aws.amazon.com/ec2/spot/pricing/",
}

# --- types and launch sources ---------------------------------------------------------------------------

# A family with a `g` after its generation digit (g5g, c7g) is Graviton, arm64.
_GRAVITON = re.compile(r"^[a-z]+\d+g[a-z]*\.", re.IGNORECASE)


def arch_of_type(name: str) -> str | None:
    """The architecture a type's name says when the catalogue does not know it (Graviton: arm64)."""
    return "arm64" if _GRAVITON.match(name) else None


# Pools that are a single instance, and pools whose own resource carries the launch settings.
STANDALONE = frozenset({AWS_INSTANCE, AWS_SPOT_REQUEST})
LAUNCHES_ITSELF = frozenset({AWS_EKS_NODE_GROUP})
# The AMIs a stack builds, whose `architecture` says what an image id boots.
IMAGE_TYPES = ("aws:ec2/ami:Ami", "aws:ec2/amiCopy:AmiCopy", "aws:ec2/amiFromInstance:AmiFromInstance")

# --- subnets (GF-FIT-002) -------------------------------------------------------------------------------

SUBNET_PROPS = {
    AWS_ASG: "vpcZoneIdentifiers",
    AWS_INSTANCE: "subnetId",
    AWS_SPOT_REQUEST: "subnetId",
    AWS_EKS_NODE_GROUP: "subnetIds",
}
SUBNET_TYPE = "aws:ec2/subnet:Subnet"
# The first four addresses and the last (https://docs.aws.amazon.com/vpc/latest/userguide/subnet-sizing.html).
RESERVED_ADDRESSES = 5
SUBNET_EXAMPLE = "a /24 holds 251 instances on AWS"
# What a launch into a full subnet meets
# (https://docs.aws.amazon.com/AWSEC2/latest/APIReference/errors-overview.html).
OUT_OF_ADDRESSES = "launches fail with InsufficientFreeAddressesInSubnet"


def addresses_per_instance(sources: list[ResourceView]) -> tuple[int, str]:
    """One address per network interface of the launch template (an EFA-only interface takes none)
    plus the secondary addresses they ask for."""
    best, why = 1, "one network interface"
    for source in sources:
        interfaces = as_list(get_ref(source.props, "networkInterfaces"))
        if not interfaces:
            continue
        count = 0
        efa = 0
        for interface in interfaces:
            kind = get_ref(interface, "interfaceType")
            if isinstance(kind, str) and kind.lower() == "efa-only":
                continue
            efa += isinstance(kind, str) and kind.lower() == "efa"
            extra = get_ref(interface, "ipv4AddressCount")
            count += 1 + (int(extra) if isinstance(extra, int | float) and not isinstance(extra, bool) else 0)
        if count > best:
            best = count
            why = f"{len(interfaces)} network interfaces" + (f", {efa} of them EFA" if efa else "")
    return best, why


# --- images (GF-FIT-003) --------------------------------------------------------------------------------

ARCH_IMAGE_HINT = (
    "for g5g an arm64 image, e.g. "
    "`resolve:ssm:/aws/service/deeplearning/ami/arm64/"
    "base-oss-nvidia-driver-gpu-amazon-linux-2023/latest/ami-id`"
)

# --- GPU quotas (GF-FIT-001) ----------------------------------------------------------------------------

_QUOTAS = {
    ("G", "on-demand"): ("L-DB2E81BA", "Running On-Demand G and VT instances"),
    ("G", "spot"): ("L-3819A6DF", "All G and VT Spot Instance Requests"),
    ("P", "on-demand"): ("L-417A185B", "Running On-Demand P instances"),
    ("P", "spot"): ("L-7212CCBC", "All P Spot Instance Requests"),
}
QUOTA_REQUEST = (
    "`aws service-quotas request-service-quota-increase --service-code ec2 --quota-code L-DB2E81BA "
    "--desired-value N`"
)
QUOTA_EXAMPLE = '{"aws:us-east-1": {"L-DB2E81BA": 64}}'


def quota_of(instance_type: str, purchase: str) -> tuple[str, str] | None:
    """The EC2 quota of a type's family (G and VT, or P) for `purchase`."""
    letter = instance_type[:1].lower()
    key = "P" if letter == "p" else "G" if letter in ("g", "v") else None
    return _QUOTAS.get((key, purchase)) if key else None


# --- distributed pools (GF-FIT-005) ---------------------------------------------------------------------

INTERCONNECT = "EFA (AWS)"
PLACEMENT = "cluster placement group"
DISTRIBUTED_REMEDIATION = (
    "Choose types with a sustained 10 Gbps or more (g5.8xlarge and up, p4d, p5), add an EFA interface "
    "(`networkInterfaces: [{interfaceType: efa, deviceIndex: 0}]`) where the type takes one, and "
    "launch into a placement group of strategy `cluster`;"
)
PLACEMENT_GROUP = "aws:ec2/placementGroup:PlacementGroup"
# What a pool of types that take an EFA interface lacks without one (`has_interconnect`).
NO_INTERCONNECT = "no EFA interface"


def has_interconnect(sources: list[ResourceView]) -> bool:
    """True when a launch source gives an EFA interface."""
    for source in sources:
        for interface in as_list(get_ref(source.props, "networkInterfaces")):
            kind = get_ref(interface, "interfaceType")
            if isinstance(kind, str) and kind.lower() in ("efa", "efa-only"):
                return True
    return False


def placement_problem(
    pool: Pool, index: ResourceIndex, view: ResourceView | None, sources: list[ResourceView]
) -> str | None:
    """What is wrong with the pool's placement, or None."""
    named: list[tuple[ResourceView, str, Any]] = []
    if view is not None and pool.resource_type == AWS_ASG:
        named.append((view, "placementGroup", get_ref(view.props, "placementGroup")))
    for source in sources:
        named.append((source, "placement.groupName", get_ref(source.props, "placement.groupName")))
    set_ = [(v, p, value) for v, p, value in named if value not in (None, "")]
    if not set_:
        return "no placement group"
    for holder, prop, value in set_:
        literal = value if not is_unknown(value) else ""
        for group in index.refs(holder, prop, (PLACEMENT_GROUP,), value=literal):
            strategy = get_ref(group.props, "strategy")
            if isinstance(strategy, str) and strategy.lower() != "cluster":
                return f"placement group '{group.name}' of strategy {strategy}, not cluster"
    return None

"""What the launch and fit rules (GF-FIT-*) read of a pool beside its size and types: the templates it
launches from, the subnets it may use, the image it boots, the fit it declares, and the catalogue entries
of its types. Pools come from the cost rules' pool model (`gpufleet.policies.cost.pools`), so every GPU pool a
program writes with the raw SDKs is judged, not only gpufleet's."""

from __future__ import annotations

import ipaddress
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from gpufleet.policies.context import tags_of
from gpufleet.policies.cost.pools import Pool, ResourceIndex, ResourceView
from gpufleet.policies.cost.pools.tokens import (
    ALI_INSTANCE,
    ALI_NODE_POOL,
    ALI_SCALING_GROUP,
    AWS_ASG,
    AWS_EKS_NODE_GROUP,
    AWS_INSTANCE,
    AWS_SPOT_REQUEST,
    TC_INSTANCE,
    TC_NODE_POOL,
    TC_SCALING_GROUP,
)
from gpufleet.policies.gpu import CatalogLike
from gpufleet.policies.props import as_list, get_ref, is_unknown

# --- catalogue ----------------------------------------------------------------------------------------


def entries(pool: Pool, catalog: CatalogLike | None) -> list[tuple[str, Any]]:
    """(type, catalogue entry or None) for each of the pool's instance types."""
    return [(name, catalog.find(pool.cloud, name) if catalog else None) for name in pool.instance_types]


_AWS_GRAVITON = re.compile(r"^[a-z]+\d+g[a-z]*\.", re.IGNORECASE)


def type_arch(cloud: str, name: str, entry: Any) -> str:
    """The CPU architecture of a type: the catalogue's, else (AWS) a family with a `g` after its
    generation digit (g5g, c7g) is Graviton, arm64; every other GPU family of the three clouds is x86_64."""
    if entry is not None:
        return str(getattr(entry, "arch", "x86_64"))
    if cloud == "aws" and _AWS_GRAVITON.match(name):
        return "arm64"
    return "x86_64"


# --- launch sources -------------------------------------------------------------------------------------

STANDALONE = frozenset({AWS_INSTANCE, AWS_SPOT_REQUEST, ALI_INSTANCE, TC_INSTANCE})


def launch_sources(pool: Pool, index: ResourceIndex) -> list[ResourceView]:
    """The launch templates, launch/scaling configurations the pool launches from, and the pool's own
    resource where it carries the launch settings itself (a standalone instance, an EKS node group)."""
    found = [index.by_urn[urn] for urn in pool.role_refs if urn in index.by_urn]
    own = index.by_urn.get(pool.urn)
    if own is not None and own not in found and pool.resource_type in (*STANDALONE, AWS_EKS_NODE_GROUP):
        found.insert(0, own)
    return found


def pool_view(pool: Pool, index: ResourceIndex) -> ResourceView | None:
    return index.by_urn.get(pool.urn)


# --- subnets --------------------------------------------------------------------------------------------

SUBNET_PROPS = {
    AWS_ASG: "vpcZoneIdentifiers",
    AWS_INSTANCE: "subnetId",
    AWS_SPOT_REQUEST: "subnetId",
    AWS_EKS_NODE_GROUP: "subnetIds",
    ALI_SCALING_GROUP: "vswitchIds",
    ALI_INSTANCE: "vswitchId",
    ALI_NODE_POOL: "vswitchIds",
    TC_SCALING_GROUP: "subnetIds",
    TC_INSTANCE: "subnetId",
    TC_NODE_POOL: "subnetIds",
}
SUBNET_TYPES = {
    "aws": "aws:ec2/subnet:Subnet",
    "alicloud": "alicloud:vpc/switch:Switch",
    "tencentcloud": "tencentcloud:Subnet/instance:Instance",
}
# Addresses each cloud keeps in every subnet:
# AWS: the first four and the last (https://docs.aws.amazon.com/vpc/latest/userguide/subnet-sizing.html);
# Alibaba Cloud: the first and the last three of each vSwitch (CreateVSwitch,
# https://www.alibabacloud.com/help/en/vpc/developer-reference/api-vpc-2016-04-28-createvswitch);
# Tencent Cloud: the first two and the last (a /24 offers .2 to .254: DescribeSubnetAvailableIps,
# https://cloud.tencent.com/document/api/1024/34214, and https://cloud.tencent.com/document/product/215/20046).
RESERVED_ADDRESSES = {"aws": 5, "alicloud": 4, "tencentcloud": 3}


@dataclass(frozen=True)
class Subnet:
    urn: str
    name: str
    cidr: str
    usable: int


def subnets(pool: Pool, index: ResourceIndex) -> list[Subnet] | None:
    """The stack's own subnets the pool may launch into, with their usable addresses; None when any of
    them is not the stack's own, or its range is unknown (nothing to count)."""
    view = pool_view(pool, index)
    prop = SUBNET_PROPS.get(pool.resource_type)
    subnet_type = SUBNET_TYPES.get(pool.cloud)
    if view is None or prop is None or subnet_type is None:
        return None
    listed = as_list(get_ref(view.props, prop))
    found = index.refs(view, prop, (subnet_type,))
    if not found or (listed and len(found) < len([v for v in listed if v])):
        return None
    out: list[Subnet] = []
    for subnet in found:
        cidr = get_ref(subnet.props, "cidrBlock")
        if not isinstance(cidr, str) or is_unknown(cidr):
            return None
        try:
            network = ipaddress.ip_network(cidr.strip(), strict=False)
        except ValueError:
            return None
        usable = max(0, network.num_addresses - RESERVED_ADDRESSES[pool.cloud])
        out.append(Subnet(subnet.urn, subnet.name, str(network), usable))
    return out


def addresses_per_instance(pool: Pool, index: ResourceIndex) -> tuple[int, str]:
    """Private addresses one instance takes in its subnet, and why: one per network interface of its
    launch template (an EFA-only interface takes none) plus the secondary addresses they ask for."""
    if pool.cloud == "alicloud":
        return _alicloud_addresses(pool, index)
    if pool.cloud != "aws":
        return 1, "one network interface"
    best, why = 1, "one network interface"
    for source in launch_sources(pool, index):
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


def _alicloud_addresses(pool: Pool, index: ResourceIndex) -> tuple[int, str]:
    """Alibaba Cloud: an ESS scaling configuration's `networkInterfaces` (the primary ENI and its
    secondaries) take an address each; a standalone ECS instance takes one for its primary ENI, one per
    secondary ENI in `networkInterfaces`, and its `secondaryPrivateIpAddressCount`."""
    best, why = 1, "one network interface"
    for source in launch_sources(pool, index):
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


# --- image ----------------------------------------------------------------------------------------------

_ARM = re.compile(r"arm64|aarch64|arm_64|graviton", re.IGNORECASE)
_X86 = re.compile(r"x86_64|x86-64|amd64|x86|(?<![a-z0-9])x64(?![a-z0-9])|_x64_", re.IGNORECASE)
IMAGE_ARCH_TAG = "gpufleet:image-arch"


def arch_of_text(text: Any) -> str | None:
    """The architecture an image name, SSM parameter path or EKS AMI type names, if it names one."""
    if not isinstance(text, str) or is_unknown(text):
        return None
    if _ARM.search(text):
        return "arm64"
    if _X86.search(text):
        return "x86_64"
    return None


_IMAGE_PROPS = ("imageId", "ami", "imageName", "amiType", "imageType")
_AMI_TYPES = ("aws:ec2/ami:Ami", "aws:ec2/amiCopy:AmiCopy", "aws:ec2/amiFromInstance:AmiFromInstance")


def _table_arch(table: Mapping[str, Any] | None, value: Any) -> tuple[str, str] | None:
    """(arch, where it is said) of an image id in the table: a declared entry (`arm64`) or a lookup's
    answer (`{"arch": "arm64", "from": "the ec2.getAmi lookup"}`)."""
    entry = table.get(value) if table and isinstance(value, str) else None
    if entry in ("x86_64", "arm64"):
        return str(entry), "in gpufleet:images"
    if isinstance(entry, Mapping) and entry.get("arch") in ("x86_64", "arm64"):
        return str(entry["arch"]), f"by {entry.get('from') or 'its lookup'}"
    return None


def image_arches(
    pool: Pool, index: ResourceIndex, table: Mapping[str, Any] | None = None
) -> list[tuple[str, str, str]]:
    """(architecture, what says so, the resource it is read from) for each image the pool boots whose
    architecture can be told: from the declared image table (`table`: image id -> arch, what `gpufleet
    check` fills from `gpufleet:images`), its name or parameter path, an AMI the stack builds, or the
    `gpufleet:image-arch` tag on the template (not where the image's name says otherwise)."""
    found: list[tuple[str, str, str]] = []
    for source in launch_sources(pool, index):
        tag = tags_of(source.resource_type, source.props).get(IMAGE_ARCH_TAG)
        # An image name that says its architecture is believed over the tag (a tag left stale when the
        # image was changed by hand); the tag speaks for ids that say nothing.
        named = any(arch_of_text(get_ref(source.props, prop)) for prop in _IMAGE_PROPS)
        if isinstance(tag, str) and tag in ("x86_64", "arm64") and not named:
            found.append((tag, f"its tag {IMAGE_ARCH_TAG}={tag}", source.name))
            continue
        for prop in _IMAGE_PROPS:
            value = get_ref(source.props, prop)
            known = _table_arch(table, value)
            if known is not None:
                found.append((known[0], f"{prop} '{value}', {known[0]} {known[1]}", source.name))
                break
            arch = arch_of_text(value)
            if arch:
                found.append((arch, f"{prop} '{value}'", source.name))
                break
            for ami in index.refs(source, prop, _AMI_TYPES) if value is not None else ():
                built = get_ref(ami.props, "architecture")
                if isinstance(built, str) and built in ("x86_64", "arm64"):
                    found.append((built, f"AMI '{ami.name}' ({built})", source.name))
    return found


# --- declared fit ---------------------------------------------------------------------------------------

FIT_TAG = "gpufleet:fit"


@dataclass(frozen=True)
class Fit:
    model_memory_gib: float | None
    model: str | None
    distributed: bool
    where: str


def _parse_fit_tag(text: str) -> dict[str, Any]:
    """`model=llama-7b-inference,distributed=true` (or `;`-separated, or `model_memory_gib=24`)."""
    out: dict[str, Any] = {}
    for part in re.split(r"[,;]", text):
        key, _, value = part.partition("=")
        key, value = key.strip(), value.strip()
        if not key:
            continue
        out[key] = value
    return out


def _as_fit(value: Mapping[str, Any], where: str) -> Fit | None:
    memory = value.get("model_memory_gib")
    try:
        memory_gib = float(memory) if memory not in (None, "") else None
    except (TypeError, ValueError):
        memory_gib = None
    model = value.get("model")
    distributed = value.get("distributed")
    is_distributed = distributed is True or (isinstance(distributed, str) and distributed.lower() == "true")
    if memory_gib is None and not model and not is_distributed:
        return None
    return Fit(memory_gib, str(model) if model else None, is_distributed, where)


def declared_fit(pool: Pool, index: ResourceIndex, configured: Mapping[str, Any]) -> Fit | None:
    """The fit a pool declares: its `gpufleet:fit` tag, else the rule config's `pools` entry for its
    `gpufleet:pool` tag or its resource name (what `gpufleet check` fills from a spec's `fit`)."""
    view = pool_view(pool, index)
    tags = tags_of(view.resource_type, view.props) if view is not None else {}
    tag = tags.get(FIT_TAG)
    if isinstance(tag, str) and tag and not is_unknown(tag):
        return _as_fit(_parse_fit_tag(tag), f"tag {FIT_TAG}")
    for key in (tags.get("gpufleet:pool"), pool.name):
        entry = configured.get(key) if isinstance(key, str) else None
        if isinstance(entry, Mapping):
            return _as_fit(entry, f"pools.{key}.fit")
    return None


# --- purchase ------------------------------------------------------------------------------------------


def split_at_max(pool: Pool) -> tuple[int, int]:
    """(on-demand, spot) instances at the pool's maximum size."""
    maximum = pool.max_size or 0
    spot = math.floor(maximum * (pool.spot_percent or 0.0) / 100.0)
    return maximum - spot, spot

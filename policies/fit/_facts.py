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
from functools import cache
from types import ModuleType
from typing import Any

from gpufleet.components.clouds import Cloud, as_cloud, cloud_parts, part_merged, part_union, part_values
from gpufleet.policies import rule_facts
from gpufleet.policies.context import tags_of
from gpufleet.policies.cost.pools import Pool, ResourceIndex, ResourceView
from gpufleet.policies.gpu import CatalogLike
from gpufleet.policies.props import as_list, get_ref, is_unknown

# --- each cloud's facts ---------------------------------------------------------------------------------


@cache
def parts() -> Mapping[Cloud, ModuleType]:
    """Each cloud's module of this package (`aws.py`, `alicloud.py`, ...), read on first use: the cloud
    modules import the pool model, not this module, and the rules read them once they are loaded."""
    return cloud_parts("gpufleet.policies.fit")


def part(cloud: str) -> ModuleType | None:
    """The module of the cloud `cloud`, or None (an unknown cloud, or one without fit facts)."""
    key = as_cloud(cloud)
    return parts().get(key) if key is not None else None


def fragments(attribute: str) -> dict[Cloud, Any]:
    """`attribute` of each cloud's module that defines it (a message fragment, a table), by cloud."""
    return part_values(parts(), attribute)


def rule_url(rule_id: str) -> str:
    """The reference of a rule: the one cloud module whose `URLS` names it (ValueError otherwise)."""
    return rule_facts.rule_url(parts(), rule_id)


# --- catalogue ----------------------------------------------------------------------------------------


def entries(pool: Pool, catalog: CatalogLike | None) -> list[tuple[str, Any]]:
    """(type, catalogue entry or None) for each of the pool's instance types."""
    return [(name, catalog.find(pool.cloud, name) if catalog else None) for name in pool.instance_types]


def type_arch(cloud: str, name: str, entry: Any) -> str:
    """The CPU architecture of a type: the catalogue's, else what the cloud module's `arch_of_type`
    reads from the name (AWS: a family with a `g` after its generation digit, g5g or c7g, is Graviton,
    arm64); every other GPU family of the clouds is x86_64."""
    if entry is not None:
        return str(getattr(entry, "arch", "x86_64"))
    guess = getattr(part(cloud), "arch_of_type", None)
    arch = guess(name) if guess is not None else None
    return str(arch) if arch else "x86_64"


# --- launch sources -------------------------------------------------------------------------------------


def standalone() -> frozenset[str]:
    """The pool types that are a single instance (each cloud module's `STANDALONE`)."""
    return part_union(parts(), "STANDALONE")


def launch_sources(pool: Pool, index: ResourceIndex) -> list[ResourceView]:
    """The launch templates, launch/scaling configurations the pool launches from, and the pool's own
    resource where it carries the launch settings itself (a standalone instance, an EKS node group)."""
    found = [index.by_urn[urn] for urn in pool.role_refs if urn in index.by_urn]
    own = index.by_urn.get(pool.urn)
    if own is not None and own not in found and pool.resource_type in _carries_launch():
        found.insert(0, own)
    return found


@cache
def _carries_launch() -> frozenset[str]:
    """Pool types whose own resource carries the launch settings: standalone instances, and what the
    cloud modules list in `LAUNCHES_ITSELF` (an EKS node group)."""
    return standalone() | part_union(parts(), "LAUNCHES_ITSELF")


def pool_view(pool: Pool, index: ResourceIndex) -> ResourceView | None:
    return index.by_urn.get(pool.urn)


# --- subnets --------------------------------------------------------------------------------------------

# Each cloud module holds its pool types' subnet fields (`SUBNET_PROPS`), its subnet type (`SUBNET_TYPE`)
# and the addresses it keeps in every subnet (`RESERVED_ADDRESSES`, with its source).


@cache
def subnet_props() -> Mapping[str, str]:
    """Pool type token -> the property naming its subnets."""
    return part_merged(parts(), "SUBNET_PROPS")


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
    prop = subnet_props().get(pool.resource_type)
    facts = part(pool.cloud)
    subnet_type = getattr(facts, "SUBNET_TYPE", None)
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
        usable = max(0, network.num_addresses - int(getattr(facts, "RESERVED_ADDRESSES", 0)))
        out.append(Subnet(subnet.urn, subnet.name, str(network), usable))
    return out


def addresses_per_instance(pool: Pool, index: ResourceIndex) -> tuple[int, str]:
    """Private addresses one instance takes in its subnet, and why: what the cloud module's
    `addresses_per_instance` counts on the pool's launch sources, else one network interface."""
    count = getattr(part(pool.cloud), "addresses_per_instance", None)
    if count is None:
        return 1, "one network interface"
    best, why = count(launch_sources(pool, index))
    return int(best), str(why)


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


@cache
def _image_types() -> tuple[str, ...]:
    """The image resources a stack may build, whose `architecture` says what an id boots (each cloud
    module's `IMAGE_TYPES`, in the clouds' order)."""
    return tuple(token for types in fragments("IMAGE_TYPES").values() for token in types)


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
            for ami in index.refs(source, prop, _image_types()) if value is not None else ():
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

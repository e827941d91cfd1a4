"""The clouds the fleet runs on, each declared once: every list of clouds, display name, SDK package,
Terraform provider, region config key and region variable elsewhere is read from here.

A :class:`CloudProfile` holds one cloud's facts; :data:`CLOUDS` lists the keys in the fleet's order (AWS
first: the account stack and the default pool cloud), :data:`PROFILES` maps key to profile. This module
imports nothing of the fleet, so components, policies and the CLI may all import it. Kubernetes is not a
cloud here (it has no region, site or SDK facts of this kind); the rule catalogue adds it to its own list
with :data:`KUBERNETES`.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType, ModuleType
from typing import Any, Literal, cast

Cloud = Literal["aws", "alicloud", "tencentcloud"]


@dataclass(frozen=True, kw_only=True)
class CloudProfile:
    """One cloud's facts.

    ``key``: the cloud's name in specs, stack config and type tokens (``aws``). ``name``: how messages
    and documents name it. ``letter``: its code in the rules catalogue (docs/rules.md). ``sdk_package``:
    the Python package of its Pulumi provider; ``sdk_distribution``: the distribution that ships it.
    ``terraform_provider``: the registry address of its Terraform provider. ``region_key``: the stack
    config key naming the provider's region. ``region_envs``: the variables the provider (and its CLI)
    read the region from when the config has none, first preferred. ``workload_region_env``: the
    variable a workload on this cloud is told its region in (what the cloud's own SDKs read).
    ``credential_envs``: the variables the provider reads its credentials from. ``default_region``: the
    region assumed when a stack names none (the offline mocks). ``type_prefix``: the package part of its
    resource type tokens (``aws:s3/bucketV2:BucketV2``).
    """

    key: Cloud
    name: str
    letter: str
    sdk_package: str
    sdk_distribution: str
    terraform_provider: str
    region_key: str
    region_envs: tuple[str, ...]
    workload_region_env: str
    credential_envs: tuple[str, ...]
    default_region: str
    type_prefix: str

    def owns(self, type_token: str) -> bool:
        """True when ``type_token`` names a resource of this cloud's provider."""
        return type_token.startswith(f"{self.type_prefix}:")


AWS = CloudProfile(
    key="aws",
    name="AWS",
    letter="A",
    sdk_package="pulumi_aws",
    sdk_distribution="pulumi-aws",
    terraform_provider="registry.terraform.io/hashicorp/aws",
    region_key="aws:region",
    region_envs=("AWS_REGION", "AWS_DEFAULT_REGION"),
    workload_region_env="AWS_REGION",
    credential_envs=("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"),
    default_region="us-east-1",
    type_prefix="aws",
)
ALICLOUD = CloudProfile(
    key="alicloud",
    name="Alibaba Cloud",
    letter="L",
    sdk_package="pulumi_alicloud",
    sdk_distribution="pulumi-alicloud",
    terraform_provider="registry.terraform.io/aliyun/alicloud",
    region_key="alicloud:region",
    region_envs=("ALICLOUD_REGION",),
    workload_region_env="ALIBABA_CLOUD_REGION_ID",
    credential_envs=("ALICLOUD_ACCESS_KEY", "ALICLOUD_SECRET_KEY", "ALICLOUD_SECURITY_TOKEN"),
    default_region="cn-hangzhou",
    type_prefix="alicloud",
)
TENCENTCLOUD = CloudProfile(
    key="tencentcloud",
    name="Tencent Cloud",
    letter="T",
    sdk_package="tencentcloud_iac_pulumi",
    sdk_distribution="tencentcloud-iac-pulumi",
    terraform_provider="registry.terraform.io/tencentcloudstack/tencentcloud",
    region_key="tencentcloud:region",
    region_envs=("TENCENTCLOUD_REGION",),
    workload_region_env="TENCENTCLOUD_REGION",
    credential_envs=("TENCENTCLOUD_SECRET_ID", "TENCENTCLOUD_SECRET_KEY", "TENCENTCLOUD_SECURITY_TOKEN"),
    default_region="ap-guangzhou",
    type_prefix="tencentcloud",
)

PROFILES: Mapping[Cloud, CloudProfile] = MappingProxyType({p.key: p for p in (AWS, ALICLOUD, TENCENTCLOUD)})
CLOUDS: tuple[Cloud, ...] = tuple(PROFILES)
# The cloud a pool runs on when its spec names none (`Pool.cloud`'s default).
DEFAULT_CLOUD: Cloud = AWS.key
# The cloud of the account baseline stack (`gpufleet:account`), which other stacks' references read, and
# of the fleet's home (its key, checkpoint bucket, trail and budget).
ACCOUNT_CLOUD: Cloud = AWS.key
# The clouds without AWS, in order: the ones whose sites own an explicit provider and price in CNY.
CHINA_CLOUDS: tuple[Cloud, ...] = tuple(c for c in CLOUDS if c != "aws")

# Kubernetes, which the rules catalogue and stack lists name beside the clouds (letter K in docs/rules.md).
KUBERNETES = "kubernetes"
KUBERNETES_NAME = "Kubernetes"
KUBERNETES_LETTER = "K"
KUBERNETES_DISTRIBUTION = "pulumi-kubernetes"

# Derived views, for callers that index by key.
CLOUD_NAMES: Mapping[str, str] = MappingProxyType({p.key: p.name for p in PROFILES.values()})
REGION_CONFIG_KEYS: Mapping[Cloud, str] = MappingProxyType({p.key: p.region_key for p in PROFILES.values()})
SDK_PACKAGES: Mapping[str, str] = MappingProxyType({p.key: p.sdk_package for p in PROFILES.values()})
DEFAULT_REGIONS: Mapping[str, str] = MappingProxyType({p.key: p.default_region for p in PROFILES.values()})


def letters_legend() -> str:
    """``A AWS, L Alibaba Cloud, T Tencent Cloud, K Kubernetes``: each letter of the rules catalogue with
    the name it stands for."""
    named = [f"{p.letter} {p.name}" for p in PROFILES.values()]
    return ", ".join([*named, f"{KUBERNETES_LETTER} {KUBERNETES_NAME}"])


def is_cloud(key: object) -> bool:
    """True when ``key`` is a registered cloud's key."""
    return key in PROFILES


def as_cloud(key: str) -> Cloud | None:
    """``key`` typed as a :data:`Cloud`, or None when no cloud has it."""
    return cast(Cloud, key) if key in PROFILES else None


def profile(key: str) -> CloudProfile:
    """The profile of the cloud ``key``; KeyError names the known clouds."""
    try:
        return PROFILES[cast(Cloud, key)]
    except KeyError:
        raise KeyError(f"unknown cloud {key!r}; known: {', '.join(CLOUDS)}") from None


def by_letter(letter: str) -> CloudProfile:
    """The profile whose rules-catalogue letter is ``letter``."""
    for found in PROFILES.values():
        if found.letter == letter:
            return found
    raise KeyError(f"no cloud has letter {letter!r}")


def of_type(type_token: str) -> CloudProfile | None:
    """The cloud whose provider owns ``type_token``, or None (kubernetes, random, ...)."""
    prefix = type_token.partition(":")[0]
    for found in PROFILES.values():  # a plain loop: called for most resources by several rules
        if found.type_prefix == prefix:
            return found
    return None


def by_sdk_package(package: str) -> CloudProfile | None:
    """The cloud whose Python SDK package is ``package`` (top-level module name), or None."""
    return next((p for p in PROFILES.values() if p.sdk_package == package), None)


def cloud_parts(package: str) -> Mapping[Cloud, ModuleType]:
    """Each registered cloud's module of ``package`` (``<package>.<cloud key>``), for clouds that have one.

    Neutral code keeps a cloud's facts (type tokens, field names, messages, small checks) in a module
    named after the cloud beside it and reads them through this map, so it never names a cloud itself:
    adding a cloud adds a module and a registry entry, no edit to the neutral code.
    """
    found: dict[Cloud, ModuleType] = {}
    for key in CLOUDS:
        name = f"{package}.{key}"
        try:
            found[key] = importlib.import_module(name)
        except ModuleNotFoundError as error:
            if error.name != name:
                raise
    return MappingProxyType(found)


def part_values(parts: Mapping[Cloud, ModuleType], attribute: str) -> dict[Cloud, Any]:
    """``attribute`` of each cloud's module that defines it, by cloud."""
    return {key: getattr(module, attribute) for key, module in parts.items() if hasattr(module, attribute)}


def part_union(parts: Mapping[Cloud, ModuleType], attribute: str) -> frozenset[str]:
    """The union of ``attribute`` (an iterable of strings, e.g. type tokens) over the clouds' modules."""
    found: set[str] = set()
    for value in part_values(parts, attribute).values():
        found.update([value] if isinstance(value, str) else value)
    return frozenset(found)


def part_merged(parts: Mapping[Cloud, ModuleType], attribute: str) -> dict[Any, Any]:
    """The clouds' ``attribute`` mappings merged into one (a key defined twice is a ValueError)."""
    merged: dict[Any, Any] = {}
    for key, value in part_values(parts, attribute).items():
        clash = merged.keys() & value.keys()
        if clash:
            raise ValueError(f"{key}.{attribute} redefines {sorted(map(str, clash))}")
        merged.update(value)
    return merged


def part_of(parts: Mapping[Cloud, ModuleType], type_token: str) -> ModuleType | None:
    """The module, among ``parts``, of the cloud whose provider owns ``type_token``, or None."""
    owner = of_type(type_token)
    return parts.get(owner.key) if owner is not None else None

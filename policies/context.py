"""What a rule may need to know about a resource beyond its own settings: tags, environment, region.

Environments come from the resource's own `env`/`environment` tag first (the cost tags put one on
every taggable resource), then the stack tags, then the stack name in the URN
(`urn:pulumi:<stack>::<project>::...`) when that name is itself an environment.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from policies.props import as_list, get_ref, is_unknown

ENV_TAG_KEYS = ("env", "environment", "Environment", "Env", "stage")
PROD_NAMES = frozenset({"prod", "production", "prd", "live"})
KNOWN_ENVS = {
    "dev": "dev",
    "development": "dev",
    "test": "dev",
    "sandbox": "dev",
    "staging": "staging",
    "stage": "staging",
    "stg": "staging",
    "qa": "staging",
    "preprod": "staging",
    "prod": "prod",
    "production": "prod",
    "prd": "prod",
    "live": "prod",
}


def tags_of(resource_type: str, props: Mapping[str, Any]) -> dict[str, str]:
    """A resource's tags as a plain map, whatever shape its SDK uses.

    - most AWS, Alibaba and Tencent resources: `tags` map;
    - `aws:autoscaling/group:Group`: `tags` list of {key, value, propagateAtLaunch};
    - some Tencent resources: `tags` list of {key, value} / {tagKey, tagValue};
    - Kubernetes: `metadata.labels`.
    Unknown tag values are kept as the unknown sentinel (a tag that is set, value unknown).
    """
    if resource_type.startswith("kubernetes:"):
        labels = get_ref(props, "metadata.labels")
        return _as_map(labels)
    value = get_ref(props, "tags")
    if value is None:
        return {}
    return _as_map(value)


def _as_map(value: Any) -> dict[str, str]:
    if value is None or is_unknown(value):
        return {}
    if isinstance(value, Mapping):
        out: dict[str, str] = {}
        for key in value:
            item = get_ref(value, key) if not isinstance(key, int) else None
            out[str(key)] = item if isinstance(item, str) else ("" if item is None else str(item))
        return out
    result: dict[str, str] = {}
    for item in as_list(value):
        if not isinstance(item, Mapping):
            continue
        key = get_ref(item, "key") or get_ref(item, "tagKey") or get_ref(item, "Key")
        val = get_ref(item, "value") or get_ref(item, "tagValue") or get_ref(item, "Value")
        if isinstance(key, str):
            result[key] = val if isinstance(val, str) else ("" if val is None else str(val))
    return result


def stack_from_urn(urn: str) -> str | None:
    if not urn.startswith("urn:pulumi:"):
        return None
    rest = urn[len("urn:pulumi:") :]
    stack, sep, _ = rest.partition("::")
    return stack if sep else None


def normalise_env(value: str | None) -> str | None:
    if not value or is_unknown(value):
        return None
    return KNOWN_ENVS.get(value.strip().lower())


def environment(
    resource_type: str,
    props: Mapping[str, Any],
    urn: str = "",
    stack_tags: Mapping[str, str] | None = None,
) -> str | None:
    """dev, staging or prod, when it can be told; None otherwise."""
    tags = tags_of(resource_type, props)
    for key in ENV_TAG_KEYS:
        env = normalise_env(tags.get(key))
        if env:
            return env
    for key in ("gpufleet:environment", *ENV_TAG_KEYS):
        env = normalise_env((stack_tags or {}).get(key))
        if env:
            return env
    return normalise_env(stack_from_urn(urn))


def provider_region(provider: Any) -> str | None:
    """The region of an explicit provider resource (PolicyProviderResource.props), if given."""
    if provider is None:
        return None
    props = getattr(provider, "props", None)
    if not isinstance(props, Mapping):
        return None
    region = get_ref(props, "region")
    return region if isinstance(region, str) and not is_unknown(region) else None


def resource_region(props: Mapping[str, Any], provider: Any = None) -> str | None:
    """Region from the resource itself (v7 AWS resources have a `region` input), else its provider."""
    region = get_ref(props, "region")
    if isinstance(region, str) and region and not is_unknown(region):
        return region
    return provider_region(provider)


__all__ = [
    "environment",
    "normalise_env",
    "provider_region",
    "resource_region",
    "stack_from_urn",
    "tags_of",
]

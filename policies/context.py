"""What a rule may need to know about a resource beyond its own settings: tags, environment, region.

Tags set elsewhere count: an AWS provider's `defaultTags.tags` apply to every taggable resource that
provider creates (the resource's own tag wins on the same key), except Auto Scaling groups, which
the AWS provider never gives default tags. `effective_tags` is what every tag-based rule reads.
Alibaba Cloud and Tencent Cloud providers have no default tags.

Environments come from the resource's own `env`/`environment` tag first (the cost tags put one on
every taggable resource), then the stack tags, then the stack name in the URN
(`urn:pulumi:<stack>::<project>::...`) when that name is itself an environment.
"""

from __future__ import annotations

import json
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


AWS_ASG = "aws:autoscaling/group:Group"


def provider_default_tags(provider: Any) -> dict[str, str]:
    """An AWS provider's `defaultTags.tags`, {} when it sets none or they cannot be read.

    Provider inputs cross the wire with every non-string value JSON-encoded (the SDK serialises a
    provider's nested config that way), so `defaultTags` usually arrives as the string
    `'{"tags": {...}}'`; a plain object (tests, other engines) is read the same way."""
    props = getattr(provider, "props", None)
    if not isinstance(props, Mapping) or not str(getattr(provider, "resource_type", "")).startswith(
        "pulumi:providers:aws"
    ):
        return {}
    default_tags = get_ref(props, "defaultTags")
    if isinstance(default_tags, str) and not is_unknown(default_tags):
        try:
            default_tags = json.loads(default_tags)
        except ValueError:
            return {}
    tags = get_ref(default_tags, "tags") if isinstance(default_tags, Mapping) else None
    if isinstance(tags, str) and not is_unknown(tags):
        try:
            tags = json.loads(tags)
        except ValueError:
            return {}
    if not isinstance(tags, Mapping) or is_unknown(tags):
        return {}
    return _as_map(tags)


def effective_tags(resource_type: str, props: Mapping[str, Any], provider: Any = None) -> dict[str, str]:
    """The tags a resource ends up with: its provider's default tags (AWS), overlaid by its own."""
    own = tags_of(resource_type, props)
    if not resource_type.startswith("aws:") or resource_type == AWS_ASG:
        return own
    return {**provider_default_tags(provider), **own}


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
    provider: Any = None,
) -> str | None:
    """dev, staging or prod, when it can be told; None otherwise. Given the resource's provider, an
    AWS provider's default `env` tag counts as the resource's own."""
    tags = effective_tags(resource_type, props, provider)
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
    "effective_tags",
    "environment",
    "normalise_env",
    "provider_default_tags",
    "provider_region",
    "resource_region",
    "stack_from_urn",
    "tags_of",
]

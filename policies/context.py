"""What a rule may need to know about a resource beyond its own settings: tags, environment, region.

Tags set elsewhere count: an AWS provider's `defaultTags.tags` apply to every taggable resource that
provider creates (the resource's own tag wins on the same key), except Auto Scaling groups, which
the AWS provider never gives default tags. `effective_tags` is what every tag-based rule reads.
Alibaba Cloud and Tencent Cloud providers have no default tags.

Environments come from the stack's configuration first: its `gpufleet:environment` stack tag (the
offline engine sets it from the fleet spec's `environment`; `pulumi:tags` may set it too) or its
`env`/`environment` stack tags. A resource tag can never move a resource of a stack so configured
out of its environment's rules. Only a stack whose configuration names no environment leaves it to
the resource's own `env`/`environment` tag (the cost tags put one on every taggable resource), then
to the stack name in the URN (`urn:pulumi:<stack>::<project>::...`) when that name is itself an
environment (a name is a weaker word than a tag). A tag naming another environment than the one the
stack's configuration names is a GF-COST-001 finding (`tag_environment_conflict`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from gpufleet.components.clouds import of_type, part_values
from gpufleet.policies.cloud_facts import PARTS, facts_of
from gpufleet.policies.memo import per_object
from gpufleet.policies.props import as_list, get_ref, is_unknown, map_behind

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


def _takes_default_tags(resource_type: str) -> bool:
    """Whether its provider's default tags land on a resource of `resource_type` (an AWS resource but
    an Auto Scaling group; the cloud's `DEFAULT_TAGS_PROVIDER` and `NO_DEFAULT_TAGS` facts)."""
    owner = of_type(resource_type)
    facts = facts_of(owner.key) if owner is not None else None
    return hasattr(facts, "DEFAULT_TAGS_PROVIDER") and resource_type not in getattr(
        facts, "NO_DEFAULT_TAGS", ()
    )


def provider_default_tags(provider: Any) -> dict[str, str]:
    """An AWS provider's `defaultTags.tags`, {} when it sets none or they cannot be read.

    Provider inputs cross the wire with every non-string value JSON-encoded (the SDK serialises a
    provider's nested config that way), so `defaultTags` usually arrives as the string
    `'{"tags": {...}}'`; a plain object (tests, other engines) is read the same way."""
    props = getattr(provider, "props", None)
    provider_type = str(getattr(provider, "resource_type", ""))
    prefixes = part_values(PARTS, "DEFAULT_TAGS_PROVIDER").values()
    if not isinstance(props, Mapping) or not any(provider_type.startswith(p) for p in prefixes):
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
    return own_and_effective_tags(resource_type, props, provider)[1]


def own_and_effective_tags(
    resource_type: str, props: Mapping[str, Any], provider: Any = None
) -> tuple[dict[str, str], dict[str, str]]:
    """(`tags_of`, `effective_tags`) of a resource, its own tags read once for both."""
    own = tags_of(resource_type, props)
    if not _takes_default_tags(resource_type):
        return own, own
    # One provider serves many resources: its default tags are read once per evaluation.
    return own, {**per_object(provider_default_tags, provider), **own}


def _as_map(value: Any) -> dict[str, str]:
    if value is None or is_unknown(value):
        return {}
    entries = map_behind(value)
    if entries is not None and not any(type(key) is not str or "." in key for key in entries):
        # Plain keys (nearly every tag map): each entry as `get_ref(value, key)` reads it, in one pass.
        return {
            key: item if isinstance(item, str) else ("" if item is None else str(item))
            for key, item in entries.items()
        }
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


STACK_ENV_KEYS = ("gpufleet:environment", *ENV_TAG_KEYS)


def configured_environment(stack_tags: Mapping[str, str] | None = None) -> str | None:
    """The environment the stack's configuration names: its `gpufleet:environment` stack tag (the fleet
    spec's `environment`, or `pulumi:tags`) or its `env`/`environment` stack tags."""
    for key in STACK_ENV_KEYS:
        env = normalise_env((stack_tags or {}).get(key))
        if env:
            return env
    return None


def stack_environment_of(urn: str = "", stack_tags: Mapping[str, str] | None = None) -> str | None:
    """The stack's own environment: its configuration, else its name in the URN; None when neither
    says."""
    return configured_environment(stack_tags) or normalise_env(stack_from_urn(urn))


def tag_environment(
    resource_type: str, props: Mapping[str, Any], provider: Any = None
) -> tuple[str, str] | None:
    """(tag key, environment) of the first env tag of the resource (or its AWS provider's defaults)
    that names a known environment."""
    tags = effective_tags(resource_type, props, provider)
    for key in ENV_TAG_KEYS:
        env = normalise_env(tags.get(key))
        if env:
            return key, env
    return None


def environment(
    resource_type: str,
    props: Mapping[str, Any],
    urn: str = "",
    stack_tags: Mapping[str, str] | None = None,
    provider: Any = None,
) -> str | None:
    """dev, staging or prod, when it can be told; None otherwise. The environment the stack's
    configuration names wins; then the resource's env tag (given its provider, an AWS provider's
    default `env` tag counts as its own); then the stack's name."""
    configured = configured_environment(stack_tags)
    if configured:
        return configured
    tagged = tag_environment(resource_type, props, provider)
    if tagged:
        return tagged[1]
    return normalise_env(stack_from_urn(urn))


def tag_environment_conflict(
    resource_type: str,
    props: Mapping[str, Any],
    urn: str = "",
    stack_tags: Mapping[str, str] | None = None,
    provider: Any = None,
) -> tuple[str, str, str] | None:
    """(tag key, tagged environment, stack environment) when the resource's env tag names another
    environment than its stack's; None when they agree or either is unknown."""
    stack_env = configured_environment(stack_tags)
    if stack_env is None:
        return None
    tags = effective_tags(resource_type, props, provider)
    for key in ENV_TAG_KEYS:  # every env tag key: `env: dev` beside `Environment: prod` is no excuse
        env = normalise_env(tags.get(key))
        if env and env != stack_env:
            return key, env, stack_env
    return None


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
    "configured_environment",
    "effective_tags",
    "environment",
    "normalise_env",
    "own_and_effective_tags",
    "provider_default_tags",
    "provider_region",
    "resource_region",
    "stack_environment_of",
    "stack_from_urn",
    "tag_environment",
    "tag_environment_conflict",
    "tags_of",
]

"""KMS keys of a stack and how a key reference (id, ARN, alias) resolves to one of them.

Used by the key rules and by the bucket rules that must know where a bucket's key material comes
from. A reference resolves by its literal value (key id, key ARN, alias name or alias ARN, matched
against the keys' and aliases' inputs and outputs) or, when the value is an output not known at
preview, by the property dependencies of the input that carries it.

Each cloud's key and alias types are in the cloud's module beside this one (`aws`, `alicloud`,
`tencentcloud`), read through `cloud_parts`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pulumi_policy import PolicyResource

from gpufleet.components.clouds import cloud_parts, part_merged, part_union
from gpufleet.policies.props import get, get_ref, is_unknown

PARTS = cloud_parts("gpufleet.policies.kms")

KEY_TYPES = part_union(PARTS, "KEY_TYPES")
# Alias type: (input naming the alias, input naming its key).
ALIAS_TARGET: dict[str, tuple[str, str]] = part_merged(PARTS, "ALIAS_TARGET")
# Key types whose material is always imported.
EXTERNAL_TYPES = part_union(PARTS, "EXTERNAL_TYPES")
# Key types whose `origin` input tells imported material, with the origin assumed when it is unset.
ORIGIN_DEFAULTS: dict[str, str] = part_merged(PARTS, "ORIGIN_DEFAULTS")


def is_external(key: PolicyResource) -> bool:
    """True when the key's material is imported (origin EXTERNAL)."""
    if key.resource_type in EXTERNAL_TYPES:
        return True
    if key.resource_type in ORIGIN_DEFAULTS:
        # The origin decides the answer: unknown at preview raises (could not be judged).
        origin = get(key.props, "origin")
        return isinstance(origin, str) and origin.upper() == "EXTERNAL"
    return False


def origin_label(key: PolicyResource) -> str:
    if key.resource_type in ORIGIN_DEFAULTS:
        origin = get_ref(key.props, "origin")
        shown = origin if isinstance(origin, str) and origin else ORIGIN_DEFAULTS[key.resource_type]
        return f"origin {shown}"
    return "provider-generated key material"


def _known(value: Any) -> str | None:
    return value if isinstance(value, str) and value and not is_unknown(value) else None


class KeyIndex:
    def __init__(self, resources: Sequence[PolicyResource]) -> None:
        self.by_urn: dict[str, PolicyResource] = {}
        self.by_id: dict[str, PolicyResource] = {}
        aliases: list[PolicyResource] = []
        for resource in resources:
            if resource.resource_type in KEY_TYPES:
                self.by_urn[resource.urn] = resource
                for prop in ("id", "arn", "keyId"):
                    value = _known(get_ref(resource.props, prop))
                    if value:
                        self.by_id[value] = resource
            elif resource.resource_type in ALIAS_TARGET:
                aliases.append(resource)
        self.alias_target: dict[str, PolicyResource] = {}
        for alias in aliases:
            target = self._alias_key(alias)
            if target is None:
                continue
            self.alias_target[alias.urn] = target
            name_prop, _ = ALIAS_TARGET[alias.resource_type]
            for prop in (name_prop, "arn", "id"):
                value = _known(get_ref(alias.props, prop))
                if value:
                    self.by_id[value] = target

    def _alias_key(self, alias: PolicyResource) -> PolicyResource | None:
        _, target_prop = ALIAS_TARGET[alias.resource_type]
        target = _known(get_ref(alias.props, target_prop))
        if target and target in self.by_id:
            return self.by_id[target]
        return self._from_dependencies(alias, target_prop, follow_aliases=False)

    def _from_dependencies(
        self, resource: PolicyResource, prop: str, *, follow_aliases: bool = True
    ) -> PolicyResource | None:
        deps: Mapping[str, list[PolicyResource]] = resource.property_dependencies or {}
        for dependency in deps.get(prop, []) or []:
            if dependency.urn in self.by_urn:
                return self.by_urn[dependency.urn]
            if follow_aliases and dependency.urn in self.alias_target:
                return self.alias_target[dependency.urn]
        return None

    def resolve(self, reference: Any, source: PolicyResource, prop: str) -> PolicyResource | None:
        """The key a reference names, or None when the key is not managed in this stack."""
        value = _known(reference)
        if value is not None:
            if value in self.by_id:
                return self.by_id[value]
            # An alias ARN ends in `alias/<name>`; aliases are also written by bare name.
            if ":alias/" in value and value[value.index(":alias/") + 1 :] in self.by_id:
                return self.by_id[value[value.index(":alias/") + 1 :]]
        return self._from_dependencies(source, prop)

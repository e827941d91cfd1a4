"""The explicit registry of gpufleet policies.

Every family package exposes `POLICIES`, a list of policy objects, one per rule module. The default
registry imports the families by name (no scanning), rejects duplicate ids and names, and selects
packs by family, cloud and severity.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Iterator

from pulumi_policy import Severity

from gpufleet.policies.rule import GfPolicy, GfResourcePolicy, GfStackPolicy

FAMILY_PACKAGES = (
    "gpufleet.policies.storage",
    "gpufleet.policies.kms",
    "gpufleet.policies.access",
    "gpufleet.policies.iam",
    "gpufleet.policies.audit",
    "gpufleet.policies.network",
    "gpufleet.policies.cost",
    "gpufleet.policies.k8s",
    "gpufleet.policies.resilience",
    "gpufleet.policies.ops",
    "gpufleet.policies.deploy",
    "gpufleet.policies.fit",
)

_SEVERITY_ORDER = [Severity.LOW, Severity.MEDIUM, Severity.HIGH, Severity.CRITICAL]


class DuplicateRuleError(ValueError):
    pass


class Registry:
    def __init__(self, policies: Iterable[GfPolicy] = ()) -> None:
        self._by_id: dict[str, GfPolicy] = {}
        self._by_name: dict[str, GfPolicy] = {}
        for policy in policies:
            self.register(policy)

    def register(self, policy: GfPolicy) -> GfPolicy:
        if not isinstance(policy, GfResourcePolicy | GfStackPolicy):
            raise TypeError(f"{policy!r} is not a gpufleet policy (GfResourcePolicy or GfStackPolicy)")
        rule = policy.rule
        if rule.id in self._by_id:
            raise DuplicateRuleError(f"rule id {rule.id} is registered twice")
        if rule.name in self._by_name:
            raise DuplicateRuleError(
                f"policy name {rule.name} is registered twice ({self._by_name[rule.name].rule.id}, {rule.id})"
            )
        self._by_id[rule.id] = policy
        self._by_name[rule.name] = policy
        return policy

    def reset(self) -> None:
        self._by_id.clear()
        self._by_name.clear()

    def __iter__(self) -> Iterator[GfPolicy]:
        return iter(sorted(self._by_id.values(), key=lambda p: p.rule.id))

    def __len__(self) -> int:
        return len(self._by_id)

    def __contains__(self, rule_id: object) -> bool:
        return rule_id in self._by_id

    def get(self, rule_id: str) -> GfPolicy:
        try:
            return self._by_id[rule_id]
        except KeyError:
            raise KeyError(f"no rule {rule_id}; known: {', '.join(sorted(self._by_id))}") from None

    def by_name(self, name: str) -> GfPolicy:
        return self._by_name[name]

    def ids(self) -> list[str]:
        return sorted(self._by_id)

    def select(
        self,
        *,
        families: Iterable[str] | None = None,
        clouds: Iterable[str] | None = None,
        min_severity: Severity | None = None,
        ids: Iterable[str] | None = None,
    ) -> list[GfPolicy]:
        fams = set(families) if families is not None else None
        cls = set(clouds) if clouds is not None else None
        wanted = set(ids) if ids is not None else None
        floor = _SEVERITY_ORDER.index(min_severity) if min_severity else 0
        chosen = []
        for policy in self:
            rule = policy.rule
            if fams is not None and rule.family not in fams:
                continue
            if cls is not None and not cls & set(rule.clouds):
                continue
            if _SEVERITY_ORDER.index(rule.severity) < floor:
                continue
            if wanted is not None and rule.id not in wanted:
                continue
            chosen.append(policy)
        return chosen


def default_registry() -> Registry:
    registry = Registry()
    for package in FAMILY_PACKAGES:
        module = importlib.import_module(package)
        for policy in module.POLICIES:
            registry.register(policy)
    return registry

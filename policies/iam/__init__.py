"""iam policies."""

from gpufleet.policies.iam import (
    no_access_keys,
    no_broad_managed_policies,
    no_privilege_escalation,
    no_unscoped_writes,
    no_wildcard_actions,
    trust_specific_principals,
)
from gpufleet.policies.rule import GfPolicy

POLICIES: list[GfPolicy] = [
    no_wildcard_actions.POLICY,
    no_unscoped_writes.POLICY,
    no_broad_managed_policies.POLICY,
    trust_specific_principals.POLICY,
    no_access_keys.POLICY,
    no_privilege_escalation.POLICY,
]

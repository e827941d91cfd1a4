"""KMS policies: key rotation and key-policy wildcards."""

from gpufleet.policies.kms import key_policy_no_wildcard, key_rotation
from gpufleet.policies.rule import GfPolicy

POLICIES: list[GfPolicy] = [key_rotation.POLICY, key_policy_no_wildcard.POLICY]

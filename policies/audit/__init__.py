"""audit policies."""

from gpufleet.policies.audit import log_group_kms, log_retention, trail_per_cloud
from gpufleet.policies.rule import GfPolicy

POLICIES: list[GfPolicy] = [trail_per_cloud.POLICY, log_retention.POLICY, log_group_kms.POLICY]

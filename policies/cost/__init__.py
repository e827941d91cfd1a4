"""Cost guardrails (GF-COST-001..009): tags, budgets, GPU choice, spot, off-hours, autoscaling,
worst-case spend, data locality and volume types. The pool model they share is the `pools` package."""

from gpufleet.policies.cost import (
    autoscaling_sanity,
    cost_tags,
    gpu_instance_allowlist,
    nonprod_off_hours,
    nonprod_spot_share,
    pool_bucket_region,
    stack_budget,
    volume_current_type,
    worst_case_hourly,
)
from gpufleet.policies.rule import GfPolicy

POLICIES: list[GfPolicy] = [
    cost_tags.POLICY,
    stack_budget.POLICY,
    gpu_instance_allowlist.POLICY,
    nonprod_spot_share.POLICY,
    nonprod_off_hours.POLICY,
    autoscaling_sanity.POLICY,
    worst_case_hourly.POLICY,
    pool_bucket_region.POLICY,
    volume_current_type.POLICY,
]

"""GF-COST-004: non-production GPU pools run on spot/preemptible capacity, at least P%.

The spot share is the pool model's: the percent of the pool's capacity at its maximum size that runs
on spot. AWS auto scaling groups: a mixed-instances policy's on-demand base and
`onDemandPercentageAboveBaseCapacity` (default 100, i.e. no spot), or a launch template with
`instanceMarketOptions.marketType` spot, or a launch configuration with `spotPrice`; EC2 fleets and
spot fleets: their on-demand/spot target capacities; EKS node groups: `capacityType` SPOT; Batch
compute environments: `computeResources.type` SPOT (`bidPercentage` and `allocationStrategy` change
the price paid and the types picked, not the share); instances: `instanceMarketOptions` spot, spot
requests. Alibaba: the scaling group's on-demand base and percentage (COST_OPTIMIZED / COMPOSABLE),
else the scaling configuration's `spotStrategy`; ACK node pools' `spotStrategy` (split by their
on-demand base and percentage under COST_OPTIMIZED); ECS instances' `spotStrategy`. Tencent:
`instanceChargeType` SPOTPAID of the AS launch configuration, the TKE node pool's
`autoScalingConfig` or the instance (no spot mix): a Tencent pool's all-spot and on-demand AS groups
(one `gpufleet:pool` tag, region and environment) are judged as one pool, by the spot groups' share of
their summed maximum.
Production pools and environments without a minimum are not judged.
"""

from __future__ import annotations

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs

from gpufleet.policies.cost._clouds import PARTS, sole
from gpufleet.policies.cost._common import fmt, per_env, stack_pools, unknown_env_message
from gpufleet.policies.cost.pools.joined import JoinedPool, joined_pools
from gpufleet.policies.cost.pools.tokens import POOL_TYPES
from gpufleet.policies.rule import GfStackPolicy, Rule, judge, judges

RULE = Rule(
    id="GF-COST-004",
    name="non-prod-gpu-pools-on-spot",
    description="Non-production GPU pools run on spot/preemptible capacity, at least P% of it.",
    clouds=tuple(PARTS),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.MEDIUM,
    remediation=" ".join(p.SPOT_REMEDIATION for p in PARTS.values()),
    url=sole(PARTS, "SPOT_URL"),
    config={"min_spot_percent": {"type": "object", "default": {"dev": 100, "staging": 50}}},
)


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    minimums = RULE.settings(args)["min_spot_percent"]
    pools, _ = stack_pools(args)
    for unit in joined_pools(pools, args.resources):

        def check(unit: JoinedPool = unit) -> None:
            pool = unit.pool
            if pool.env is None:
                report(unknown_env_message(pool), pool.urn)
                return
            minimum = per_env(minimums, pool.env)
            if minimum is None:
                return
            share = pool.known("spot_percent")
            if share is None:
                report(f"could not be judged: the spot share of {unit.describe()} is unknown", pool.urn)
            elif share < float(minimum):
                # A joined pool's finding is on its group with the least spot (its on-demand group).
                urn = min(unit.members, key=lambda m: m.spot_percent or 0.0).urn
                report(
                    f"{unit.describe()} ({pool.env}) runs {fmt(share)}% of its capacity on spot; "
                    f"{pool.env} pools need at least {fmt(float(minimum))}%",
                    urn,
                )

        judge(unit.pool.urn, check)


POLICY = GfStackPolicy(RULE, validate, judges(POOL_TYPES))

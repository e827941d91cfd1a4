"""Alibaba Cloud facts of the cost rules: the fragments of their remediation texts that name its
services and fields (ESS, ECS, ACK). Read by the neutral rules through
:data:`gpufleet.policies.cost._clouds.PARTS` and joined with the other clouds' in the registry's
order (``(rank, text)`` pairs where one sentence interleaves several clouds' fields)."""

from __future__ import annotations

# --- GF-COST-003 GPU instance allow list ---------------------------------------------------------
DEV_FAMILIES = "ecs.gn6i/ecs.gn7i"
ALLOWLIST_FIELDS = (
    (40, "`instanceType(s)` of an ESS scaling configuration"),
    (70, "`instanceTypes` of an ACK node pool"),
)

# --- GF-COST-004 non-production spot share -------------------------------------------------------
SPOT_REMEDIATION = (
    "Alibaba Cloud: spotStrategy 'SpotAsPriceGo' on the scaling configuration (or multiAzPolicy "
    "COST_OPTIMIZED with onDemandPercentageAboveBaseCapacity at most 100 - P), likewise on ACK node pools."
)

# --- GF-COST-005 non-production off hours --------------------------------------------------------
OFF_HOURS_SCHEDULE = "Alibaba Cloud ess.ScheduledTask with desired_capacity=0"
OFF_HOURS_SCALE_IN = "ess.ScalingRule + ess.Alarm"

# --- GF-COST-006 autoscaling sanity --------------------------------------------------------------
SCALING_SETTINGS = "Alibaba ess.ScalingRule `cooldown` + ess.Alarm `threshold`/`period`/`evaluationCount`"

# --- GF-COST-007 worst-case hourly spend ---------------------------------------------------------
MAX_SIZE_FIELDS = "Alibaba `maxSize`"

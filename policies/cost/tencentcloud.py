"""Tencent Cloud facts of the cost rules: the fragments of their remediation texts that name its
services and fields (AS, CVM, TKE, Monitor). Read by the neutral rules through
:data:`gpufleet.policies.cost._clouds.PARTS` and joined with the other clouds' in the registry's
order (``(rank, text)`` pairs where one sentence interleaves several clouds' fields)."""

from __future__ import annotations

# --- GF-COST-003 GPU instance allow list ---------------------------------------------------------
DEV_FAMILIES = "GN7/GNV4"
ALLOWLIST_FIELDS = (
    (50, "`instanceTypes` of a Tencent AS scaling config"),
    (80, "`autoScalingConfig.instanceType`/`backupInstanceTypes` of a TKE node pool"),
)

# --- GF-COST-004 non-production spot share -------------------------------------------------------
SPOT_REMEDIATION = (
    "Tencent Cloud: instanceChargeType 'SPOTPAID' on the AS scaling config, the TKE node pool's "
    "autoScalingConfig or the instance."
)

# --- GF-COST-005 non-production off hours --------------------------------------------------------
OFF_HOURS_SCHEDULE = "Tencent Cloud As.Schedule with desired_capacity=0"
OFF_HOURS_SCALE_IN = "As.ScalingPolicy or a Monitor AlarmPolicy with an AS trigger"

# --- GF-COST-006 autoscaling sanity --------------------------------------------------------------
SCALING_SETTINGS = (
    "Tencent As.ScalingPolicy `cooldown`/`threshold`/`period`/`continuousTime` or a Monitor AlarmPolicy "
    "with an AS trigger"
)

# --- GF-COST-007 worst-case hourly spend ---------------------------------------------------------
MAX_SIZE_FIELDS = "Tencent `maxSize`"

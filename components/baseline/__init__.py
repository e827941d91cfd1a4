"""The on-prem baseline: the GPUs the fleet owns, which always run first (see
:mod:`gpufleet.components.baseline.kubernetes`)."""

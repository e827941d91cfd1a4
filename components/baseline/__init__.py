"""The on-prem baseline: the GPUs the fleet owns, which always run first (see
:mod:`components.baseline.kubernetes`)."""

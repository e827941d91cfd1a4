"""AWS for the scaling replay (gpufleet.simulate): its pools scale by target-tracking and step policies
as the pool component compiles them (a cloud module without SIMPLE_SCALING has ``compile_alarms``)."""

from __future__ import annotations

from gpufleet.components.pools.aws_metrics import compile_aws_alarms as compile_alarms

__all__ = ["compile_alarms"]

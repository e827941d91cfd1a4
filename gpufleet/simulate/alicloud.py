"""Alibaba Cloud for the scaling replay (gpufleet.simulate): ESS runs simple rules (backlog bands, +1 on
GPU, -1 on idle GPU), and the report's assumptions name it by its short name."""

from __future__ import annotations

SIMPLE_SCALING = True
SHORT_NAME = "Alibaba"

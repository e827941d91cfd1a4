"""Operability policy tests use the shared builders; the runners raise NotApplicable."""

from __future__ import annotations

from tests.policies.support import (
    UNKNOWN_NUMBER_VALUE,
    UNKNOWN_STRING_VALUE,
    NotApplicable,
    provider,
    res,
    run_stack,
)

ACCOUNT = "123456789012"


def asg_policy_arn(name: str) -> str:
    group = "autoScalingGroupName/gpu-asg"
    return f"arn:aws:autoscaling:us-east-1:{ACCOUNT}:scalingPolicy:0f1e2d3c:{group}:policyName/{name}"


__all__ = [
    "ACCOUNT",
    "UNKNOWN_NUMBER_VALUE",
    "UNKNOWN_STRING_VALUE",
    "NotApplicable",
    "asg_policy_arn",
    "provider",
    "res",
    "run_stack",
]

"""Tencent Cloud's part of a new project's files (gpufleet.templates.project): the workflow inputs of its
CI role."""

from __future__ import annotations

# The reusable workflow's inputs for this cloud's ci-access role: input -> repository variable.
WORKFLOW_INPUTS = (
    ("tencentcloud-role-arn", "GPUFLEET_TENCENTCLOUD_ROLE_ARN"),
    ("tencentcloud-provider-id", "GPUFLEET_TENCENTCLOUD_PROVIDER_ID"),
)

"""Alibaba Cloud's part of a new project's files (gpufleet.templates.project): the workflow inputs of its
CI role."""

from __future__ import annotations

# The reusable workflow's inputs for this cloud's ci-access role: input -> repository variable.
WORKFLOW_INPUTS = (
    ("alicloud-role-arn", "GPUFLEET_ALICLOUD_ROLE_ARN"),
    ("alicloud-oidc-provider-arn", "GPUFLEET_ALICLOUD_OIDC_PROVIDER_ARN"),
)

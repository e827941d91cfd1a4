"""AWS's part of a new project's files (gpufleet.templates.project): the principals its stacks may name
before they exist, where its state lives, and the workflow inputs of its CI role."""

from __future__ import annotations

# `policy-principals-exist`: the fleet keys name the Auto Scaling service-linked role, which the
# account-baseline stack creates.
EXISTING_PRINCIPALS = ("AWSServiceRoleForAutoScaling",)
# The workflow's backend comment, ending where its line wraps: state in a bucket read with the CI role.
STATE_BACKEND = "an S3 bucket (s3://bucket) read with the AWS"
# The reusable workflow's inputs for this cloud's ci-access role: input -> repository variable.
WORKFLOW_INPUTS = (("aws-role-arn", "GPUFLEET_AWS_ROLE_ARN"),)

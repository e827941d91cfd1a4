"""AWS's facts for the engine and CLI modules beside this one (gpufleet.new, gpufleet.graph,
gpufleet.findings, gpufleet.docs, gpufleet.schema, gpufleet.sdktypes), read through
``cloud_parts("gpufleet")``. Plain data: nothing of the fleet is imported here."""

from __future__ import annotations

import re

# `gpufleet new`: an AWS region name (us-east-1, us-gov-west-1), and what a bad --region is told.
REGION_RE = re.compile(r"^[a-z]{2}(-gov)?-[a-z]+-\d$")
REGION_HINT = "an AWS region name like us-east-1"

# Packages of AWS components that ship provider plugins (pulumi-eks, awsx): gpufleet.graph.
PLUGIN_PACKAGES = ("eks", "awsx")
# How the opaque-component finding (gpufleet.findings) and its rules page (gpufleet.docs) name AWS's
# remote components.
REMOTE_COMPONENTS = "pulumi-eks, awsx"
REMOTE_COMPONENTS_DOC = "pulumi-eks `Cluster`, awsx components"

# The user of a registry token (ECR's `AWS:<password>`), for the offline placeholder (gpufleet.sdktypes).
REGISTRY_TOKEN_USER = "AWS"

# The account baseline's stack-file description (gpufleet.schema) and a secrets provider example.
ACCOUNT_DESCRIPTION = "The account baseline: the once-only resources of an AWS account "
SECRETS_PROVIDER_EXAMPLE = "awskms://..."

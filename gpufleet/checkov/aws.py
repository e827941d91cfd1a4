"""AWS's facts for the checkov bridge beside this module, read through ``cloud_parts("gpufleet.checkov")``:
its token table (table_aws.py), its Terraform module prefixes (sdk_schema) and the check ids the checkov
config's error message shows as examples (config)."""

from __future__ import annotations

from gpufleet.checkov.table_aws import AWS as TABLE

__all__ = ["EXAMPLE_CHECK_IDS", "TABLE", "TERRAFORM_MODULES"]

# Modules whose Terraform prefix is not their Pulumi name (pulumi-aws maps `aws_dx_*` to `directconnect`).
TERRAFORM_MODULES = {
    "aws:directconnect": "dx",
    "aws:costexplorer": "ce",
}
EXAMPLE_CHECK_IDS = ("CKV_AWS_144", "CKV2_AWS_62")

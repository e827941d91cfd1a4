"""Alibaba Cloud's facts for the checkov bridge beside this module, read through
``cloud_parts("gpufleet.checkov")``: its token table (table_alicloud.py) and its Terraform module
prefixes (sdk_schema)."""

from __future__ import annotations

from gpufleet.checkov.table_alicloud import ALICLOUD as TABLE

__all__ = ["TABLE", "TERRAFORM_MODULES"]

# Modules whose Terraform prefix is not their Pulumi name.
TERRAFORM_MODULES = {
    "alicloud:expressconnect": "express_connect",
}

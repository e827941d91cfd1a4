"""Tencent Cloud's facts for the checkov bridge beside this module, read through
``cloud_parts("gpufleet.checkov")``: its token table (table_tencentcloud.py) and how the bridge names
a module's `instance` resource (sdk_schema)."""

from __future__ import annotations

from gpufleet.checkov.table_tencentcloud import TENCENTCLOUD as TABLE

__all__ = ["MODULE_NAMED_INSTANCE", "TABLE"]

# A module's `instance` resource is the module's own Terraform type (`tencentcloud:Vpc/instance:Instance`
# -> `tencentcloud_vpc`).
MODULE_NAMED_INSTANCE = True

from __future__ import annotations

from typing import Any

from _gpuf_values import blocks, first
from checkov.common.models.enums import CheckCategories, CheckResult
from checkov.terraform.checks.resource.base_resource_check import BaseResourceCheck


class AlicloudInstanceDisksEncrypted(BaseResourceCheck):  # type: ignore[misc]
    def __init__(self) -> None:
        super().__init__(
            name="Ensure Alibaba Cloud ECS instances encrypt their system disk and every data disk",
            id="CKV_GPUF_2",
            categories=[CheckCategories.ENCRYPTION],
            supported_resources=["alicloud_instance"],
        )

    def scan_resource_conf(self, conf: dict[str, Any]) -> CheckResult:
        self.evaluated_keys = ["system_disk_encrypted", "data_disks"]
        if first(conf, "system_disk_encrypted") is not True:
            return CheckResult.FAILED
        for disk in blocks(conf, "data_disks"):
            if first(disk, "encrypted") is not True:
                return CheckResult.FAILED
        return CheckResult.PASSED


check = AlicloudInstanceDisksEncrypted()

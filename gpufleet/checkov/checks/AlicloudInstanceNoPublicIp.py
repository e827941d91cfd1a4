from __future__ import annotations

from typing import Any

from _gpuf_values import first, number
from checkov.common.models.enums import CheckCategories, CheckResult
from checkov.terraform.checks.resource.base_resource_check import BaseResourceCheck


class AlicloudInstanceNoPublicIp(BaseResourceCheck):  # type: ignore[misc]
    def __init__(self) -> None:
        super().__init__(
            name="Ensure Alibaba Cloud ECS instances get no public IP (internet_max_bandwidth_out is 0)",
            id="CKV_GPUF_1",
            categories=[CheckCategories.NETWORKING],
            supported_resources=["alicloud_instance"],
        )

    def scan_resource_conf(self, conf: dict[str, Any]) -> CheckResult:
        self.evaluated_keys = ["internet_max_bandwidth_out"]
        bandwidth = number(first(conf, "internet_max_bandwidth_out"))
        return CheckResult.FAILED if bandwidth and bandwidth > 0 else CheckResult.PASSED


check = AlicloudInstanceNoPublicIp()

from __future__ import annotations

from typing import Any

from _gpuf_values import first
from checkov.common.models.enums import CheckCategories, CheckResult
from checkov.terraform.checks.resource.base_resource_check import BaseResourceCheck


class TencentCosBucketPrivate(BaseResourceCheck):  # type: ignore[misc]
    def __init__(self) -> None:
        super().__init__(
            name="Ensure Tencent Cloud COS buckets are private (acl private or unset)",
            id="CKV_GPUF_6",
            categories=[CheckCategories.GENERAL_SECURITY],
            supported_resources=["tencentcloud_cos_bucket"],
        )

    def scan_resource_conf(self, conf: dict[str, Any]) -> CheckResult:
        self.evaluated_keys = ["acl"]
        return CheckResult.PASSED if (first(conf, "acl") or "private") == "private" else CheckResult.FAILED


check = TencentCosBucketPrivate()

from __future__ import annotations

from typing import Any

from _gpuf_values import first
from checkov.common.models.enums import CheckCategories, CheckResult
from checkov.terraform.checks.resource.base_resource_check import BaseResourceCheck


class TencentCosBucketEncrypted(BaseResourceCheck):  # type: ignore[misc]
    def __init__(self) -> None:
        super().__init__(
            name="Ensure Tencent Cloud COS buckets are encrypted with a KMS key",
            id="CKV_GPUF_5",
            categories=[CheckCategories.ENCRYPTION],
            supported_resources=["tencentcloud_cos_bucket"],
        )

    def scan_resource_conf(self, conf: dict[str, Any]) -> CheckResult:
        self.evaluated_keys = ["encryption_algorithm", "kms_id"]
        algorithm = str(first(conf, "encryption_algorithm") or "")
        return (
            CheckResult.PASSED if algorithm.upper() == "KMS" and first(conf, "kms_id") else CheckResult.FAILED
        )


check = TencentCosBucketEncrypted()

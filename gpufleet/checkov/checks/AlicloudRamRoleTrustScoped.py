from __future__ import annotations

from typing import Any

from _gpuf_values import document, first
from checkov.common.models.enums import CheckCategories, CheckResult
from checkov.terraform.checks.resource.base_resource_check import BaseResourceCheck

_ANYONE = {"*", "acs:ram::*:root"}


class AlicloudRamRoleTrustScoped(BaseResourceCheck):  # type: ignore[misc]
    def __init__(self) -> None:
        super().__init__(
            name="Ensure Alibaba Cloud RAM roles trust named principals, never any account",
            id="CKV_GPUF_3",
            categories=[CheckCategories.IAM],
            supported_resources=["alicloud_ram_role"],
        )

    def scan_resource_conf(self, conf: dict[str, Any]) -> CheckResult:
        self.evaluated_keys = ["assume_role_policy_document", "document"]
        policy = document(first(conf, "assume_role_policy_document") or first(conf, "document"))
        if policy is None:
            return CheckResult.UNKNOWN
        statements = policy.get("Statement") or []
        for statement in statements if isinstance(statements, list) else [statements]:
            if not isinstance(statement, dict) or statement.get("Effect") != "Allow":
                continue
            principal = statement.get("Principal")
            if principal == "*":
                return CheckResult.FAILED
            if isinstance(principal, dict):
                for value in principal.values():
                    values = value if isinstance(value, list) else [value]
                    if any(str(v) in _ANYONE for v in values):
                        return CheckResult.FAILED
        return CheckResult.PASSED


check = AlicloudRamRoleTrustScoped()

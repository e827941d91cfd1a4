from __future__ import annotations

from typing import Any

from _gpuf_values import first
from checkov.common.models.enums import CheckCategories, CheckResult
from checkov.terraform.checks.resource.base_resource_check import BaseResourceCheck

_ADMIN_PORTS = (22, 3389)
_ANYWHERE = {"0.0.0.0/0", "::/0"}


def _covers_admin_port(protocol: str, port_range: str) -> bool:
    if protocol == "all":
        return True
    if protocol != "tcp":
        return False
    low, _, high = port_range.partition("/")
    try:
        start, end = int(low), int(high or low)
    except ValueError:
        return True  # unreadable: assume the worst
    if start == -1:
        return True
    return any(start <= port <= end for port in _ADMIN_PORTS)


class AlicloudSecurityGroupRuleNoAdminPorts(BaseResourceCheck):  # type: ignore[misc]
    def __init__(self) -> None:
        super().__init__(
            name="Ensure Alibaba Cloud security group rules do not accept SSH or RDP from anywhere",
            id="CKV_GPUF_4",
            categories=[CheckCategories.NETWORKING],
            supported_resources=["alicloud_security_group_rule"],
        )

    def scan_resource_conf(self, conf: dict[str, Any]) -> CheckResult:
        self.evaluated_keys = ["type", "policy", "cidr_ip", "ip_protocol", "port_range"]
        if first(conf, "type") != "ingress" or (first(conf, "policy") or "accept") != "accept":
            return CheckResult.PASSED
        if first(conf, "cidr_ip") not in _ANYWHERE and first(conf, "ipv6_cidr_ip") not in _ANYWHERE:
            return CheckResult.PASSED
        protocol = str(first(conf, "ip_protocol") or "").lower()
        port_range = str(first(conf, "port_range") or "-1/-1")
        return CheckResult.FAILED if _covers_admin_port(protocol, port_range) else CheckResult.PASSED


check = AlicloudSecurityGroupRuleNoAdminPorts()

from __future__ import annotations

from typing import Any

from _gpuf_vpn import all_in, strong_dh
from _gpuf_vpn_aws import ENCRYPTION, IKE_VERSIONS, INTEGRITY
from checkov.common.models.enums import CheckCategories, CheckResult
from checkov.terraform.checks.resource.base_resource_check import BaseResourceCheck


def _keys(tunnel: int) -> list[str]:
    prefix = f"tunnel{tunnel}"
    return [f"{prefix}_ike_versions"] + [
        f"{prefix}_phase{phase}_{what}"
        for phase in (1, 2)
        for what in ("encryption_algorithms", "integrity_algorithms", "dh_group_numbers")
    ]


class AwsVpnConnectionStrongCrypto(BaseResourceCheck):  # type: ignore[misc]
    """Both tunnels: IKEv2 only, AES256 or AES256-GCM-16, SHA2-256/384/512 and DH groups 14-21 in both
    phases. An unset list lets AWS offer its defaults (ikev1, AES128, SHA1, group 2): it fails."""

    def __init__(self) -> None:
        super().__init__(
            name=(
                "Ensure AWS VPN connection tunnels allow only IKEv2, AES-256, SHA-256 or better and DH "
                "group 14-21"
            ),
            id="CKV_GPUF_9",
            categories=[CheckCategories.ENCRYPTION],
            supported_resources=["aws_vpn_connection"],
        )

    def scan_resource_conf(self, conf: dict[str, Any]) -> CheckResult:
        self.evaluated_keys = _keys(1) + _keys(2)
        for tunnel in (1, 2):
            prefix = f"tunnel{tunnel}"
            if not all_in(conf, f"{prefix}_ike_versions", IKE_VERSIONS, upper=True):
                return CheckResult.FAILED
            for phase in (1, 2):
                stem = f"{prefix}_phase{phase}"
                if not all_in(conf, f"{stem}_encryption_algorithms", ENCRYPTION, upper=True):
                    return CheckResult.FAILED
                if not all_in(conf, f"{stem}_integrity_algorithms", INTEGRITY, upper=True):
                    return CheckResult.FAILED
                if not strong_dh(conf, f"{stem}_dh_group_numbers"):
                    return CheckResult.FAILED
        return CheckResult.PASSED


check = AwsVpnConnectionStrongCrypto()

from __future__ import annotations

from typing import Any

from _gpuf_vpn import all_in, strong_dh
from _gpuf_vpn_tencentcloud import ENCRYPTION, IKE_VERSIONS, INTEGRITY
from checkov.common.models.enums import CheckCategories, CheckResult
from checkov.terraform.checks.resource.base_resource_check import BaseResourceCheck


class TencentVpnConnectionStrongCrypto(BaseResourceCheck):  # type: ignore[misc]
    """IKE and IPsec set IKEV2, AES-CBC-256 or AES256GCM128, SHA-256 or better and DH group 14-21 (PFS
    included). Unset fields take Tencent's defaults (IKEV1, 3DES-CBC, MD5, GROUP1, no PFS): they fail."""

    def __init__(self) -> None:
        super().__init__(
            name=(
                "Ensure Tencent Cloud VPN connections set IKEv2, AES-256, SHA-256 or better and DH "
                "group 14-21"
            ),
            id="CKV_GPUF_11",
            categories=[CheckCategories.ENCRYPTION],
            supported_resources=["tencentcloud_vpn_connection"],
        )

    def scan_resource_conf(self, conf: dict[str, Any]) -> CheckResult:
        self.evaluated_keys = [
            "ike_version",
            "ike_proto_encry_algorithm",
            "ike_proto_authen_algorithm",
            "ike_dh_group_name",
            "ipsec_encrypt_algorithm",
            "ipsec_integrity_algorithm",
            "ipsec_pfs_dh_group",
        ]
        strong = (
            all_in(conf, "ike_version", IKE_VERSIONS, upper=True)
            and all_in(conf, "ike_proto_encry_algorithm", ENCRYPTION, upper=True)
            and all_in(conf, "ike_proto_authen_algorithm", INTEGRITY, upper=True)
            and strong_dh(conf, "ike_dh_group_name")
            and all_in(conf, "ipsec_encrypt_algorithm", ENCRYPTION, upper=True)
            and all_in(conf, "ipsec_integrity_algorithm", INTEGRITY, upper=True)
            and strong_dh(conf, "ipsec_pfs_dh_group")
        )
        return CheckResult.PASSED if strong else CheckResult.FAILED


check = TencentVpnConnectionStrongCrypto()

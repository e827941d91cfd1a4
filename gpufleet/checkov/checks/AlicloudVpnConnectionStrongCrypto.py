from __future__ import annotations

from typing import Any

from _gpuf_values import blocks
from _gpuf_vpn import all_in, block, strong_dh
from _gpuf_vpn_alicloud import ENCRYPTION, IKE_VERSIONS, INTEGRITY
from checkov.common.models.enums import CheckCategories, CheckResult
from checkov.terraform.checks.resource.base_resource_check import BaseResourceCheck


def _strong(ike: dict[str, Any] | None, ipsec: dict[str, Any] | None) -> bool:
    return bool(
        all_in(ike, "ike_version", IKE_VERSIONS, upper=False)
        and all_in(ike, "ike_enc_alg", ENCRYPTION, upper=False)
        and all_in(ike, "ike_auth_alg", INTEGRITY, upper=False)
        and strong_dh(ike, "ike_pfs")
        and all_in(ipsec, "ipsec_enc_alg", ENCRYPTION, upper=False)
        and all_in(ipsec, "ipsec_auth_alg", INTEGRITY, upper=False)
        and strong_dh(ipsec, "ipsec_pfs")
    )


class AlicloudVpnConnectionStrongCrypto(BaseResourceCheck):  # type: ignore[misc]
    """`ike_config` and `ipsec_config` (or, in dual-tunnel mode, every `tunnel_options_specification`'s
    `tunnel_ike_config` and `tunnel_ipsec_config`) set ikev2, aes256, sha256 or better and DH group 14-21.
    Unset fields take Alibaba's defaults (ikev1, aes, md5, group2): they fail."""

    def __init__(self) -> None:
        super().__init__(
            name=(
                "Ensure Alibaba Cloud VPN connections set IKEv2, AES-256, SHA-256 or better and DH "
                "group 14-21"
            ),
            id="CKV_GPUF_10",
            categories=[CheckCategories.ENCRYPTION],
            supported_resources=["alicloud_vpn_connection", "alicloud_vpn_gateway_vpn_attachment"],
        )

    def scan_resource_conf(self, conf: dict[str, Any]) -> CheckResult:
        tunnels = blocks(conf, "tunnel_options_specification")
        if tunnels:
            self.evaluated_keys = ["tunnel_options_specification"]
            pairs = [(block(t, "tunnel_ike_config"), block(t, "tunnel_ipsec_config")) for t in tunnels]
        else:
            self.evaluated_keys = ["ike_config", "ipsec_config"]
            pairs = [(block(conf, "ike_config"), block(conf, "ipsec_config"))]
        return CheckResult.PASSED if all(_strong(ike, ipsec) for ike, ipsec in pairs) else CheckResult.FAILED


check = AlicloudVpnConnectionStrongCrypto()

"""AWS for `gpufleet preflight`: its quota answers, its quota reader, its CLI's commands and its links.

- Service Quotas: `ListServiceQuotas` (`{"Quotas": [{"QuotaCode", "Value", ...}]}`, what `aws
  service-quotas list-service-quotas --service-code ec2` prints) and `GetServiceQuota` (`{"Quota": {...}}`).
  https://docs.aws.amazon.com/servicequotas/2019-06-24/apireference/API_ListServiceQuotas.html
- The reader uses boto3's Service Quotas client (the optional extra `gpufleet[preflight]`,
  `GetServiceQuota` per code).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from gpufleet.preflight.reading import NoCredentials, number

# The CLI commands whose JSON a quota file or an image file may hold (gpufleet.preflight.settings).
QUOTA_COMMAND = "aws service-quotas list-service-quotas"
IMAGES_COMMAND = "aws ec2 describe-images"

# An AWS Site-to-Site VPN tunnel carries up to 1.25 Gbps
# (https://docs.aws.amazon.com/vpn/latest/s2svpn/vpn-limits.html).
VPN_TUNNEL_GBPS = 1.25
# What a link from a site of this cloud carries (gpufleet.preflight.needs); a link may be named by the
# bare region.
LINK_CARRIES = f"an AWS Site-to-Site VPN tunnel carries up to {VPN_TUNNEL_GBPS:g} Gbps"
BARE_REGION_LINKS = True


def answers_quotas(answer: Mapping[str, Any]) -> bool:
    """The answer has the shape of `ListServiceQuotas` or `GetServiceQuota`."""
    return "Quotas" in answer or "Quota" in answer


def quotas(answer: Mapping[str, Any]) -> dict[str, float]:
    """`ListServiceQuotas` or `GetServiceQuota` -> code -> value."""
    listed = answer.get("Quotas")
    items = list(listed) if isinstance(listed, list) else []
    single = answer.get("Quota")
    if isinstance(single, Mapping):
        items.append(single)
    out: dict[str, float] = {}
    for item in items:
        if not isinstance(item, Mapping):
            continue
        value = number(item.get("Value"))
        if "QuotaCode" in item and value is not None:
            out[str(item["QuotaCode"])] = value
    return out


class AwsQuotas:
    """Service Quotas `GetServiceQuota` (service code `ec2`) in each region."""

    def __init__(self, session: Any = None) -> None:
        if session is None:
            try:
                import boto3
            except ImportError:
                raise NoCredentials(
                    "reading AWS quotas needs boto3: pip install 'gpufleet[preflight]' (or use "
                    "--offline with gpufleet:quotas in the stack file)"
                ) from None
            session = boto3.Session()
        if session.get_credentials() is None:
            raise NoCredentials(
                "no AWS credentials found (environment, ~/.aws, SSO or instance role): sign in "
                "(`aws sso login`, AWS_PROFILE) or run `gpufleet preflight --offline` with the quotas "
                "declared in gpufleet:quotas"
            )
        self.session = session

    def read(self, region: str, codes: Iterable[str]) -> dict[str, float]:
        client = self.session.client("service-quotas", region_name=region)
        found: dict[str, float] = {}
        for code in codes:
            try:
                answer = client.get_service_quota(ServiceCode="ec2", QuotaCode=code)
            except Exception as exc:
                name = type(exc).__name__
                if name in ("NoCredentialsError", "UnrecognizedClientException", "ExpiredTokenException"):
                    raise NoCredentials(f"AWS refused the credentials ({name}): sign in again") from None
                if name == "NoSuchResourceException":
                    continue
                raise
            found[code] = float(answer["Quota"]["Value"])
        return found


READER = AwsQuotas

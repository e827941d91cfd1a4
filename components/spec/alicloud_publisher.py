"""Alibaba Cloud's burst publisher (``burst.publishers.alicloud``): the on-prem exporter's identity on
Alibaba Cloud, a RAM OIDC provider for the on-prem cluster's service-account issuer and a role only that
service account may assume (no AccessKey exists). Alibaba STS must reach the issuer over the public
internet, so an issuer that can never be reached is refused here."""

from __future__ import annotations

import ipaddress
import re

from pydantic import Field, field_validator

from gpufleet.components.spec.values import _Model, _show

_FINGERPRINT = re.compile(r"^[0-9a-f]{40}$")
_K8S_NAME = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
_ISSUER = re.compile(r"^https://[A-Za-z0-9.-]+(:[0-9]{1,5})?(/[A-Za-z0-9._~/-]*)?$")
# Alibaba STS verifies the exporter's token against the issuer: the RAM OIDC provider pins "the
# fingerprints of HTTPS certificates" of the issuer URL (CreateOIDCProvider,
# https://www.alibabacloud.com/help/en/ram/developer-reference/api-ims-2019-08-15-createoidcprovider),
# and the token's keys are read from the issuer's discovery document and JWKS, so the issuer must be
# reachable from Alibaba Cloud over the public internet. Names that can never be: special-use and
# private DNS suffixes (RFC 6761 .localhost/.test/.invalid, RFC 6762 .local, RFC 8375 home.arpa, ICANN's
# .internal) and the cluster's own service names; and non-public IP addresses.
PRIVATE_ISSUER_SUFFIXES = (
    ".localhost",
    ".test",
    ".invalid",
    ".local",
    ".home.arpa",
    ".internal",
    ".svc",
    ".cluster.local",
    ".lan",
)


def issuer_host_problem(url: str) -> str | None:
    """Why the issuer's host cannot be reached from Alibaba Cloud, or None."""
    host = url.removeprefix("https://").split("/", 1)[0].rsplit(":", 1)[0].lower().rstrip(".")
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        if "." not in host or host == "localhost" or host.endswith(PRIVATE_ISSUER_SUFFIXES):
            return f"{host!r} is not a public DNS name"
        return None
    if not address.is_global:
        return f"{host} is not a public address"
    return None


FALLBACK_MIN_S = 600
FALLBACK_MAX_S = 86_400


class AlicloudPublisher(_Model):
    """Who publishes the gate on Alibaba Cloud: the on-prem exporter's Kubernetes service account,
    through a RAM OIDC provider for the cluster's service-account issuer (no AccessKey exists)."""

    issuer_url: str = Field(description="the cluster's service-account issuer, https://host[/path]")
    fingerprints: list[str] = Field(
        description="SHA-1 fingerprints (40 lower-case hex digits) of the issuer's HTTPS certificate, 1 to 5"
    )
    service_account: str = Field(description="the exporter's service account, written namespace/name")
    client_id: str = Field(
        default="sts.aliyuncs.com", description="the audience (aud) of the exporter's projected token"
    )
    fallback_after_s: int = Field(
        default=1800,
        description=(
            f"when a backlog bursts regardless of the order (the exporter silent), {FALLBACK_MIN_S}.."
            f"{FALLBACK_MAX_S} seconds"
        ),
    )

    @field_validator("issuer_url")
    @classmethod
    def _issuer(cls, value: str) -> str:
        if not _ISSUER.match(value) or len(value) > 255:
            raise ValueError(f"must be an https:// URL without query or fragment, got {_show(value)}")
        problem = issuer_host_problem(value)
        if problem is not None:
            raise ValueError(
                f"{problem}: Alibaba STS must reach the issuer's discovery document and keys over the "
                "public internet (docs/hybrid.md, the exporter's identity)"
            )
        return value

    @field_validator("fingerprints")
    @classmethod
    def _fingerprints(cls, value: list[str]) -> list[str]:
        if not 1 <= len(value) <= 5:
            raise ValueError(f"must list 1 to 5 fingerprints, got {len(value)}")
        for index, entry in enumerate(value):
            if not _FINGERPRINT.match(entry):
                raise ValueError(
                    f"item {index}: must be a SHA-1 fingerprint (40 lower-case hex), got {_show(entry)}"
                )
        return value

    @field_validator("service_account")
    @classmethod
    def _service_account(cls, value: str) -> str:
        namespace, sep, name = value.partition("/")
        if not sep or not _K8S_NAME.match(namespace) or not _K8S_NAME.match(name):
            raise ValueError(f"must be namespace/name (Kubernetes names), got {_show(value)}")
        return value

    @field_validator("client_id")
    @classmethod
    def _client_id(cls, value: str) -> str:
        if not value or len(value) > 128 or any(c.isspace() for c in value):
            raise ValueError(f"must be 1 to 128 characters without spaces, got {_show(value)}")
        return value

    @field_validator("fallback_after_s")
    @classmethod
    def _fallback(cls, value: int) -> int:
        if not FALLBACK_MIN_S <= value <= FALLBACK_MAX_S:
            raise ValueError(f"must be within {FALLBACK_MIN_S}..{FALLBACK_MAX_S} seconds, got {value}")
        return value

    @property
    def subject(self) -> str:
        """The ``sub`` of the service account's token."""
        namespace, _, name = self.service_account.partition("/")
        return f"system:serviceaccount:{namespace}:{name}"

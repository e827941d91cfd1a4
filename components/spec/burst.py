"""``burst``: the order in which the fleet takes capacity after its on-prem baseline.

The baseline always comes first. ``order`` then names the sites (``cloud:region``) in the team's
preference, or is ``by_price`` (the cheapest GPU-hour first, from the catalogue). A site left out of a
written order follows the listed ones by price. See docs/burst-order.md for how each cloud enforces it.

    burst:
      order: [aws:us-east-1, alicloud:cn-hangzhou, tencentcloud:ap-guangzhou]
      publishers:
        alicloud:                       # gate the Alibaba pools on the exporter's GatedBacklog
          issuer_url: https://oidc.onprem.example.com
          fingerprints: [0123456789abcdef0123456789abcdef01234567]
          service_account: gpufleet-system/baseline-exporter

``publishers.alicloud`` is the exporter's identity on Alibaba Cloud: a RAM OIDC provider for the
on-prem cluster's service-account issuer and a role only that service account may assume. Tencent
Cloud has no gate to publish for (docs/burst-order.md), so ``publishers.tencentcloud`` is refused.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Mapping
from typing import Any

from pydantic import Field, field_validator

from gpufleet.components import spec_limits as limits
from gpufleet.components.catalog.regions import REGIONS
from gpufleet.components.spec.values import _Model, _show

BY_PRICE = "by_price"
CLOUD_NAMES = tuple(REGIONS)
MAX_SITES = 64
_FORM = f"{BY_PRICE!r} or a list of sites written cloud:region (cloud one of {', '.join(CLOUD_NAMES)})"


def site_problem(entry: Any) -> str | None:
    """Why ``entry`` does not name a site as ``cloud:region``; None when it does."""
    if not isinstance(entry, str):
        return f"must be a site written cloud:region, got {_show(entry)}"
    cloud, sep, region = entry.partition(":")
    if not sep or cloud not in REGIONS:
        return (
            f"must be a site written cloud:region with cloud one of {', '.join(CLOUD_NAMES)}, "
            f"got {limits.quote(entry)}"
        )
    if region not in REGIONS[cloud]:
        return f"{limits.quote(region)} is not one of {cloud}'s regions: {', '.join(REGIONS[cloud])}"
    return None


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
TENCENT_PUBLISHER = (
    "Tencent Cloud alarm policies watch Tencent Cloud service metrics only (monitor_type MT_QCE), so no "
    "alarm could read what the exporter publishes and the Tencent pools are not gated: leave "
    "publishers.tencentcloud out (docs/burst-order.md)"
)


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


class Publishers(_Model):
    alicloud: AlicloudPublisher | None = Field(
        default=None, description="None: the Alibaba pools are not gated (they scale on their own queue)"
    )
    tencentcloud: None = Field(default=None, description="not available: " + TENCENT_PUBLISHER)

    @field_validator("tencentcloud", mode="before")
    @classmethod
    def _tencent(cls, value: Any) -> None:
        if value is not None:
            raise ValueError(TENCENT_PUBLISHER)


class Burst(_Model):
    order: list[str] | str = Field(default=BY_PRICE, description=f"after the baseline: {_FORM}")
    publishers: Publishers = Field(
        default_factory=Publishers, description="the exporter's identity per cloud a custom metric gates"
    )

    @field_validator("order", mode="before")
    @classmethod
    def _order(cls, value: Any) -> Any:
        if isinstance(value, str):
            if value != BY_PRICE:
                raise ValueError(f"must be {_FORM}, got {_show(value)}")
            return value
        if not isinstance(value, list):
            raise ValueError(f"must be {_FORM}, got {_show(value)}")
        if not value:
            raise ValueError(f"must name at least one site, or be {BY_PRICE!r}")
        if len(value) > MAX_SITES:
            raise ValueError(f"must name at most {MAX_SITES} sites, got {len(value)}")
        seen: set[str] = set()
        for index, entry in enumerate(value):
            problem = site_problem(entry)
            if problem is None and entry in seen:
                problem = f"names {limits.quote(entry)} twice"
            if problem is not None:
                raise ValueError(f"item {index}: {problem}")
            seen.add(entry)
        return value

    @property
    def by_price(self) -> bool:
        return self.order == BY_PRICE

    @property
    def sites(self) -> tuple[str, ...]:
        """The sites the team listed, in order (empty for ``by_price``)."""
        return () if isinstance(self.order, str) else tuple(self.order)


def burst_site_problem(site: str, pools: Mapping[str, Any]) -> str | None:
    """Why a listed site can hold none of the spec's pools: its cloud has no pools, or every pool of
    that cloud names another region. None when it may (a pool without a region takes the stack's)."""
    cloud, _, region = site.partition(":")
    same_cloud = [pool for pool in pools.values() if pool.cloud == cloud]
    if not same_cloud:
        return f"{limits.quote(site)} names {cloud}, which has no pools; list only sites with pools"
    regions = {pool.region for pool in same_cloud}
    if None not in regions and region not in regions:
        shown = ", ".join(f"{cloud}:{r}" for r in sorted(r for r in regions if r is not None))
        return f"no pool runs at {limits.quote(site)}; the {cloud} pools run at {shown}"
    return None

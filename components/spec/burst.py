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

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic import Field, field_validator

from gpufleet.components import spec_limits as limits
from gpufleet.components.catalog.regions import REGIONS
from gpufleet.components.spec.keyed import keyed_model
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


class _Publishers(_Model):
    if TYPE_CHECKING:

        def __getattr__(self, cloud: str) -> Any: ...


# The exporter's identity per cloud a custom metric gates: one field per cloud whose spec module has a
# PUBLISHER field (spec/alicloud.py: its publisher, or None; spec/tencentcloud.py: refused).
if TYPE_CHECKING:
    Publishers = _Publishers
else:
    Publishers = keyed_model("Publishers", _Publishers, "PUBLISHER")


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

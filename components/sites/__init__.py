"""Sites: one cloud's presence in one region of the fleet (see :mod:`gpufleet.components.sites.base`).

``SITES`` is the dispatch the fleet builds sites through: adding a cloud is one site module per concern
and one line here. Entries are import paths, so a stack imports only the SDKs of the clouds it uses.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import cast

from gpufleet.components.clouds import CLOUDS, REGION_CONFIG_KEYS, Cloud
from gpufleet.components.sites.base import (
    PoolOutputs,
    Site,
    SiteArgs,
    SiteError,
    SiteFactory,
    SiteOutputs,
    SitePlan,
    site_name,
)

SITES: Mapping[Cloud, str] = {
    "aws": "gpufleet.components.sites.aws:AwsSite",
    "alicloud": "gpufleet.components.sites.alicloud:AlicloudSite",
    "tencentcloud": "gpufleet.components.sites.tencentcloud:TencentSite",
}


def site_factory(cloud: Cloud) -> SiteFactory:
    """The site class of ``cloud``, imported on first use."""
    module, _, attr = SITES[cloud].partition(":")
    return cast("SiteFactory", getattr(importlib.import_module(module), attr))


__all__ = [
    "CLOUDS",
    "REGION_CONFIG_KEYS",
    "SITES",
    "Cloud",
    "PoolOutputs",
    "Site",
    "SiteArgs",
    "SiteError",
    "SiteFactory",
    "SiteOutputs",
    "SitePlan",
    "site_factory",
    "site_name",
]

"""Sites: one cloud's presence in one region of the fleet (see :mod:`gpufleet.components.sites.base`).

``SITES`` is the dispatch the fleet builds sites through: each cloud's site module
(``sites/<cloud>.py``, e.g. :mod:`gpufleet.components.sites.aws`) exports its class as ``SITE``, so adding a
cloud is one site module per concern and no line here. Entries are import paths, resolved when first
read, so a stack imports only the SDKs of the clouds it uses.
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
from gpufleet.components.sites.dispatch import ClassDispatch

SITES: Mapping[Cloud, str] = ClassDispatch(__name__, "SITE")


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

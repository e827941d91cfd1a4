"""Private links: one per site, from the on-prem network into that site's VPC (see
:mod:`gpufleet.components.links.base`). ``LINKS`` is the dispatch the fleet builds links through: each cloud's
link module (``links/<cloud>.py``) exports its class as ``LINK``; entries are import paths, resolved when
first read, so a stack imports only the SDKs of the clouds it uses."""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Protocol, cast

import pulumi

from gpufleet.components.clouds import Cloud
from gpufleet.components.links.base import LinkArgs, ranges_for, secret_config
from gpufleet.components.sites.dispatch import ClassDispatch

LINKS: Mapping[Cloud, str] = ClassDispatch(__name__, "LINK")


class LinkFactory(Protocol):
    def __call__(self, name: str, args: LinkArgs, opts: pulumi.ResourceOptions | None = None) -> object: ...


def link_factory(cloud: Cloud) -> LinkFactory:
    """The link class of ``cloud``, imported on first use."""
    module, _, attr = LINKS[cloud].partition(":")
    return cast("LinkFactory", getattr(importlib.import_module(module), attr))


__all__ = ["LINKS", "LinkArgs", "LinkFactory", "link_factory", "ranges_for", "secret_config"]

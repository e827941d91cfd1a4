"""ci-access on Alibaba Cloud (see ci_access): reads the RAM OIDC provider's certificate fingerprints and
builds the provider and role of ci_alicloud."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import ci_alicloud
import pulumi
from ci_access import NAMESPACE, Common


def read(config: pulumi.Config, chosen: bool) -> dict[str, Any]:
    """The certificate fingerprints of GitHub's issuer, when Alibaba Cloud is chosen."""
    fingerprints = (
        ci_alicloud.check_fingerprints(config.get_object("alicloudFingerprints"), NAMESPACE) if chosen else []
    )
    return {"fingerprints": fingerprints}


def build(common: Common, settings: Mapping[str, Any]) -> dict[str, pulumi.Output[Any]]:
    outputs: dict[str, pulumi.Output[Any]] = ci_alicloud.build(
        common.subject, common.repository, settings["fingerprints"], common.tags
    )
    return outputs

"""ci-access on Tencent Cloud (see ci_access): reads the CAM OIDC identity provider's key and builds the
provider, role and budget of ci_tencentcloud."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import ci_tencentcloud
import pulumi
from ci_access import NAMESPACE, Common


def read(config: pulumi.Config, chosen: bool) -> dict[str, Any]:
    """The public key of GitHub's issuer, when Tencent Cloud is chosen."""
    identity_key = (
        ci_tencentcloud.check_identity_key(config.get("tencentcloudIdentityKey"), NAMESPACE) if chosen else ""
    )
    return {"identity_key": identity_key}


def build(common: Common, settings: Mapping[str, Any]) -> dict[str, pulumi.Output[Any]]:
    outputs: dict[str, pulumi.Output[Any]] = ci_tencentcloud.build(
        common.subject,
        common.repository,
        settings["identity_key"],
        common.tags,
        (common.monthly, common.email),
    )
    return outputs

"""Alibaba Cloud resource answers: ids (``vpc-bp1...``), ARNs (``acs:...``) and the outputs the cloud
fills in, in the formats its APIs return them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pulumi.runtime.mocks import MockResourceArgs

from gpufleet.components.clouds import ALICLOUD
from gpufleet.invokes.alicloud import ALICLOUD_ACCOUNT_ID
from gpufleet.mocks.common import kebab, split_token
from gpufleet.sdktypes import stable_hex, stable_uuid

if TYPE_CHECKING:
    from gpufleet.mocks import FleetMocks

CLOUD = ALICLOUD.key

_ALICLOUD_ID_PREFIX = {
    "vpc/network": "vpc",
    "vpc/switch": "vsw",
    "ecs/securityGroup": "sg",
    "ecs/instance": "i",
    "ecs/ecsLaunchTemplate": "lt",
    "ecs/launchTemplate": "lt",
    "ecs/keyPair": "kp",
    "ess/scalingGroup": "asg",
    "ess/scalingConfiguration": "asc",
    "ess/scalingRule": "asr",
    "vpn/gateway": "vpn",
    "vpn/customerGateway": "cgw",
    "vpn/connection": "vco",
    "cen/instance": "cen",
    "ecs/command": "c",
}


def resource_id(mocks: FleetMocks, token: str, args: MockResourceArgs, out: dict[str, Any]) -> str:
    """The id Alibaba Cloud gives the resource; the outputs it fills in are added to `out`."""
    _pkg, module, resource = split_token(token)
    key = f"{module}/{resource}"
    region = mocks.region(CLOUD, args.provider)
    hexid = stable_hex(token, args.name, length=20)
    if module == "oss" and resource == "bucket":
        out.setdefault("bucket", f"{args.name}-{hexid[:7]}")
        out.setdefault("extranetEndpoint", f"oss-{region}.aliyuncs.com")
        out.setdefault("intranetEndpoint", f"oss-{region}-internal.aliyuncs.com")
        return str(out["bucket"])
    if module == "kms" and resource == "key":
        key_id = stable_uuid(token, args.name)
        out.setdefault("arn", f"acs:kms:{region}:{ALICLOUD_ACCOUNT_ID}:key/{key_id}")
        return key_id
    if module == "ram":
        out.setdefault("name", out.get("roleName") or out.get("policyName") or f"{args.name}-{hexid[:7]}")
        kind = "role" if resource == "role" else "policy" if "olicy" in resource else kebab(resource)
        out.setdefault("arn", f"acs:ram::{ALICLOUD_ACCOUNT_ID}:{kind}/{out['name']}")
        return str(out["name"])
    if key == "ess/scalingRule":
        # The rule's ari, as the provider returns it (``ari:acs:ess:<region>:<uid>:scalingrule/<id>``):
        # what ESS alarm tasks name. CloudMonitor alarm targets name the rule by another ARN
        # (``acs:ess:...:scalingGroupId/<group>:scalingRuleId/<rule>``), which programs build.
        rule_id = f"asr-bp1{hexid}"
        out.setdefault("ari", f"ari:acs:ess:{region}:{ALICLOUD_ACCOUNT_ID}:scalingrule/{rule_id}")
        return rule_id
    if key in _ALICLOUD_ID_PREFIX:
        return f"{_ALICLOUD_ID_PREFIX[key]}-bp1{hexid}"
    if module == "log" and resource in ("project", "store"):
        out.setdefault("name", f"{args.name}-{hexid[:7]}")
        return str(out["name"])
    return f"{args.name}-{hexid[:8]}"


def placeholder_arn(module: str, resource: str, _key: str, region: str, slug: str) -> str:
    """A typed placeholder's ARN (`resource` in kebab case)."""
    return f"acs:{module}:{region}:{ALICLOUD_ACCOUNT_ID}:{resource}/{slug}"

"""Tencent Cloud resource answers: ids (``vpc-...``, numeric CAM ids) and the outputs the cloud fills
in, in the formats its APIs return them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pulumi.runtime.mocks import MockResourceArgs

from gpufleet.components.clouds import TENCENTCLOUD
from gpufleet.invokes.tencentcloud import TENCENT_APP_ID, TENCENT_UIN
from gpufleet.mocks.common import split_token
from gpufleet.sdktypes import stable_hex, stable_uuid

if TYPE_CHECKING:
    from gpufleet.mocks import FleetMocks

CLOUD = TENCENTCLOUD.key

_TENCENT_ID_PREFIX = {
    "Vpc/instance": "vpc",
    "Subnet/instance": "subnet",
    "Security/group": "sg",
    "Instance/instance": "ins",
    "As/scalingGroup": "asg",
    "As/scalingConfig": "asc",
    "Vpn/gateway": "vpngw",
    "Vpn/customerGateway": "cgw",
    "Vpn/connection": "vpnx",
    "Ccn/instance": "ccn",
    "Tat/command": "cmd",
}


def resource_id(mocks: FleetMocks, token: str, args: MockResourceArgs, out: dict[str, Any]) -> str:
    """The id Tencent Cloud gives the resource; the outputs it fills in are added to `out`."""
    _pkg, module, resource = split_token(token)
    key = f"{module}/{resource}"
    hexid = stable_hex(token, args.name, length=8)
    if module == "Cos" and resource == "bucket":
        bucket = str(out.get("bucket") or f"{args.name}-{TENCENT_APP_ID}")
        out["bucket"] = bucket
        region = mocks.region(CLOUD, args.provider)
        out.setdefault("cosBucketUrl", f"{bucket}.cos.{region}.myqcloud.com")
        return bucket
    if module == "Kms":
        return stable_uuid(token, args.name)
    if module == "Cam" and resource in ("role", "policy"):
        return str(int(stable_hex(token, args.name, length=10), 16) % 10**11)
    if key in _TENCENT_ID_PREFIX:
        return f"{_TENCENT_ID_PREFIX[key]}-{hexid}"
    return f"{args.name}-{hexid}"


def placeholder_arn(module: str, resource: str, _key: str, region: str, slug: str) -> str:
    """A typed placeholder's resource name, in the six-part `qcs::` form (`resource` in kebab case)."""
    return f"qcs::{module.lower()}:{region}:uin/{TENCENT_UIN}:{resource}/{slug}"

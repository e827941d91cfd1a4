"""Offline answers to Alibaba Cloud invokes (`alicloud.get_*` data sources), in the shapes its APIs
return them."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from gpufleet.invokes.base import Invoke
from gpufleet.invokes.images import record_image
from gpufleet.sdktypes import stable_hex

if TYPE_CHECKING:
    from gpufleet.mocks import FleetMocks

# The offline Alibaba Cloud account (its UID): every ARN the mocks and invokes write names it.
ALICLOUD_ACCOUNT_ID = "1234567890123456"


def _alicloud_zones(_m: FleetMocks, a: dict[str, Any], region: str) -> dict[str, Any]:
    ids = [f"{region}-{s}" for s in ("h", "i", "j")]
    return {
        "ids": ids,
        "id": region,
        "zones": [
            {
                "id": z,
                "localName": z,
                "availableInstanceTypes": [],
                "availableResourceCreations": ["Instance", "VSwitch", "IoOptimized"],
                "availableDiskCategories": ["cloud_essd", "cloud_efficiency"],
                "multiZoneIds": [],
                "slbSlaveZoneIds": [],
            }
            for z in ids
        ],
    }


def _alicloud_images(_m: FleetMocks, a: dict[str, Any], region: str) -> dict[str, Any]:
    image = f"m-bp1{stable_hex('image', region, json.dumps(a, sort_keys=True, default=str), length=17)}"
    arch = record_image(_m, image, a, "ecs.getImages")
    return {
        "ids": [image],
        "id": image,
        "images": [
            {
                "id": image,
                "imageId": image,
                "name": a.get("nameRegex") or "offline-gpu-image",
                "osType": "linux",
                "osName": "Alibaba Cloud Linux 3",
                "architecture": arch or "x86_64",
                "status": "Available",
                "imageOwnerAlias": a.get("owners") or "system",
                "size": 40,
            }
        ],
    }


def _alicloud_instance_types(_m: FleetMocks, a: dict[str, Any], _region: str) -> dict[str, Any]:
    family = a.get("instanceTypeFamily") or "ecs.gn7i"
    return {
        "ids": [f"{family}-c8g1.2xlarge"],
        "id": family,
        "instanceTypes": [],
    }


def _alicloud_caller_identity(_m: FleetMocks, _a: dict[str, Any], _region: str) -> dict[str, Any]:
    return {
        "accountId": ALICLOUD_ACCOUNT_ID,
        "arn": f"acs:ram::{ALICLOUD_ACCOUNT_ID}:root",
        "identityType": "Account",
        "id": ALICLOUD_ACCOUNT_ID,
    }


def _alicloud_switches(_m: FleetMocks, a: dict[str, Any], region: str) -> dict[str, Any]:
    """The vSwitches asked for by id, in one VPC, one zone each in `_alicloud_zones`' order."""
    ids = [str(i) for i in a.get("ids") or []]
    zones = _alicloud_zones(_m, a, region)["ids"]
    vpc = f"vpc-bp1{stable_hex('vpc', region, *ids, length=17)}"
    switches = [
        {
            "availableIpAddressCount": 250,
            "cidrBlock": f"10.0.{index}.0/24",
            "creationTime": "2025-01-01T00:00:00Z",
            "description": "",
            "enableIpv6": False,
            "id": vswitch,
            "ipv6CidrBlock": "",
            "isDefault": False,
            "name": vswitch,
            "resourceGroupId": "rg-offline",
            "routeTableId": f"vtb-bp1{stable_hex('vtb', vpc, length=17)}",
            "status": "Available",
            "tags": {},
            "vpcId": vpc,
            "vswitchId": vswitch,
            "vswitchName": vswitch,
            "zoneId": zones[index % len(zones)],
        }
        for index, vswitch in enumerate(ids)
    ]
    return {"ids": ids, "names": ids, "vswitches": switches, "id": region}


INVOKES: dict[str, Invoke] = {
    "alicloud:index/getZones:getZones": _alicloud_zones,
    "alicloud:index/getCallerIdentity:getCallerIdentity": _alicloud_caller_identity,
    "alicloud:vpc/getSwitches:getSwitches": _alicloud_switches,
    "alicloud:ecs/getImages:getImages": _alicloud_images,
    "alicloud:ecs/getInstanceTypes:getInstanceTypes": _alicloud_instance_types,
}

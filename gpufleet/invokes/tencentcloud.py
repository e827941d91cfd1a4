"""Offline answers to Tencent Cloud invokes (`tencentcloud` data sources), in the shapes its APIs
return them."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from gpufleet.components.catalog import load_catalog
from gpufleet.components.clouds import TENCENTCLOUD
from gpufleet.invokes.base import Invoke
from gpufleet.invokes.images import record_image
from gpufleet.sdktypes import stable_hex

if TYPE_CHECKING:
    from gpufleet.mocks import FleetMocks


def _tencent_zones(_m: FleetMocks, a: dict[str, Any], region: str) -> dict[str, Any]:
    zones = [f"{region}-{i}" for i in (3, 4, 6)]
    return {
        "id": region,
        "product": a.get("product", "cvm"),
        "zones": [
            {"id": str(100000 + i), "name": z, "description": z, "state": "AVAILABLE"}
            for i, z in enumerate(zones)
        ],
    }


def _tencent_images(_m: FleetMocks, a: dict[str, Any], region: str) -> dict[str, Any]:
    image = f"img-{stable_hex('image', region, json.dumps(a, sort_keys=True, default=str), length=8)}"
    arch = record_image(_m, image, a, "tencentcloud images")
    return {
        "id": image,
        "imageId": image,
        "imageName": "offline-gpu-image",
        "osName": a.get("osName") or "TencentOS Server 3.1",
        "images": [
            {
                "imageId": image,
                "imageName": "offline-gpu-image",
                "osName": "TencentOS Server 3.1",
                "imageType": "PUBLIC_IMAGE",
                "architecture": arch or "x86_64",
                "platform": "TencentOS",
                "imageSize": 50,
                "imageCreator": "",
                "imageDescription": "",
                "imageState": "NORMAL",
                "createdTime": "2025-01-01T00:00:00Z",
                "snapshots": [],
                "support_cloud_init": True,
                "supportCloudInit": True,
                "syncPercent": 100,
                "isSupportCloudinit": True,
            }
        ],
    }


# The offline Tencent account: its APPID (the suffix of every COS bucket name) and owner UIN.
TENCENT_APP_ID = "1250000000"
TENCENT_UIN = "100000000001"


def _tencent_user_info(_m: FleetMocks, _a: dict[str, Any], _region: str) -> dict[str, Any]:
    return {
        "appId": TENCENT_APP_ID,
        "ownerUin": TENCENT_UIN,
        "uin": TENCENT_UIN,
        "name": "offline",
        "id": "offline",
    }


def _tencent_instance_types(_m: FleetMocks, a: dict[str, Any], region: str) -> dict[str, Any]:
    """Every catalogued Tencent type of the families the `instance-family` filter names, on sale in
    each zone `_tencent_zones` lists (or the `zone` filter's zones, or `availabilityZone`)."""
    filters = {
        f.get("name"): list(f.get("values") or []) for f in a.get("filters") or [] if isinstance(f, dict)
    }
    zone_answer = _tencent_zones(_m, {}, region)["zones"]
    zones = filters.get("zone") or ([a["availabilityZone"]] if a.get("availabilityZone") else None)
    zones = zones or [z["name"] for z in zone_answer]
    families = set(filters.get("instance-family") or [])
    types = [t for t in load_catalog().types(TENCENTCLOUD.key) if not families or t.family in families]
    rows = [
        {
            "availabilityZone": zone,
            "instanceType": t.name,
            "family": t.family,
            "cpuCoreCount": t.vcpu,
            "gpuCoreCount": t.gpu_count,
            "memorySize": int(t.memory_gib),
            "instanceChargeType": "POSTPAID_BY_HOUR",
            "status": "SELL",
            "cbsConfigs": [],
        }
        for zone in zones
        for t in types
    ]
    return {"id": region, "instanceTypes": rows}


def _tencent_subnets(_m: FleetMocks, a: dict[str, Any], region: str) -> dict[str, Any]:
    """An existing subnet named by `subnetId`, in one VPC of the region."""
    subnet = str(a.get("subnetId") or f"subnet-{stable_hex('subnet', region, length=8)}")
    vpc = f"vpc-{stable_hex('vpc', region, length=8)}"
    row: dict[str, Any] = {
        "subnetId": subnet,
        "vpcId": vpc,
        "name": subnet,
        "availabilityZone": a.get("availabilityZone") or f"{region}-3",
        "cidrBlock": "10.60.0.0/20",
        "routeTableId": f"rtb-{stable_hex('rtb', vpc, length=8)}",
        "isDefault": False,
        "isMulticast": False,
        "availableIpCount": 4000,
        "createTime": "2025-01-01 00:00:00",
        "tags": {},
        "cdcId": "",
        "ipv6CidrBlock": "",
    }
    return {"id": subnet, "instanceLists": [row]}


INVOKES: dict[str, Invoke] = {
    "tencentcloud:Availability/getZonesByProduct:getZonesByProduct": _tencent_zones,
    "tencentcloud:Images/getInstance:getInstance": _tencent_images,
    "tencentcloud:Image/getInstance:getInstance": _tencent_images,
    "tencentcloud:User/getInfo:getInfo": _tencent_user_info,
    "tencentcloud:Instance/getTypes:getTypes": _tencent_instance_types,
    "tencentcloud:Vpc/getSubnets:getSubnets": _tencent_subnets,
}

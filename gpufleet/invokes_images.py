"""Offline answers to image lookups (AWS `ec2.getAmi`, `ssm.getParameter` of an AMI path, Alibaba Cloud
`ecs.getImages`, Tencent Cloud images lookups), each recording the architecture its arguments ask for.

An offline image id says nothing of its own, so the ids the lookups answer are kept with the
architecture asked for (`looked_up_images`); the engine hands them to the architecture rule (GF-FIT-003)
beside the stack's declared `gpufleet:images`.
"""

from __future__ import annotations

import json
import re
import weakref
from typing import TYPE_CHECKING, Any

from gpufleet.sdktypes import ACCOUNT_ID, stable_hex

if TYPE_CHECKING:
    from gpufleet.mocks import FleetMocks


# An image lookup's architecture, as its arguments ask for it: an `architecture` filter, or a name (filter,
# regex, SSM parameter path) that names one. The image ids the lookups answer are recorded with it
# (`FleetMocks.image_arches`), so the pack can hold them against the instance types (GF-FIT-003): an
# offline id says nothing of its own.
_ARM = re.compile(r"arm64|aarch64|arm_64|graviton", re.IGNORECASE)
_X86 = re.compile(r"x86_64|x86-64|amd64|(?<![a-z0-9])x64(?![a-z0-9])|_x64_", re.IGNORECASE)


def _arch_of(value: Any) -> str | None:
    text = json.dumps(value, sort_keys=True, default=str)
    if _ARM.search(text):
        return "arm64"
    if _X86.search(text):
        return "x86_64"
    return None


def _lookup_arch(a: dict[str, Any]) -> str | None:
    for item in a.get("filters") or []:
        if isinstance(item, dict) and item.get("name") == "architecture":
            return _arch_of(item.get("values"))
    return _arch_of(a.get("architecture")) or _arch_of(
        {k: v for k, v in a.items() if k in ("filters", "nameRegex", "name", "imageNameRegex", "osName")}
    )


_LOOKED_UP: weakref.WeakKeyDictionary[FleetMocks, dict[str, dict[str, str]]] = weakref.WeakKeyDictionary()


def _record_image(m: FleetMocks, image: str, a: dict[str, Any], lookup: str) -> str | None:
    arch = _lookup_arch(a)
    if arch is not None:
        _LOOKED_UP.setdefault(m, {})[image] = {"arch": arch, "from": f"the {lookup} lookup"}
    return arch


def looked_up_images(mocks: FleetMocks) -> dict[str, dict[str, str]]:
    """image id -> {"arch", "from"}: the images this run's lookups answered with an architecture."""
    return dict(_LOOKED_UP.get(mocks, {}))


def _aws_ami(_m: FleetMocks, a: dict[str, Any], region: str) -> dict[str, Any]:
    ami = f"ami-{stable_hex('ami', json.dumps(a, sort_keys=True, default=str))}"
    arch = _record_image(_m, ami, a, "ec2.getAmi")
    return {
        "id": ami,
        "imageId": ami,
        "arn": f"arn:aws:ec2:{region}::image/{ami}",
        "name": "offline-image",
        "architecture": arch or "x86_64",
        "rootDeviceName": "/dev/xvda",
        "rootDeviceType": "ebs",
        "virtualizationType": "hvm",
        "ownerId": ACCOUNT_ID,
        "owners": a.get("owners") or [],
        "mostRecent": bool(a.get("mostRecent")),
        "blockDeviceMappings": [],
        "filters": a.get("filters") or [],
        "tags": {},
        "state": "available",
    }


def _aws_ssm_parameter(_m: FleetMocks, a: dict[str, Any], region: str) -> dict[str, Any]:
    name = str(a.get("name", "offline"))
    # Public AMI parameters (/aws/service/.../image_id) are the common use in fleet programs.
    value = f"ami-{stable_hex('ssm', name)}" if re.search(r"(?i)ami|image", name) else "offline-value"
    if value.startswith("ami-"):
        _record_image(_m, value, {"name": name}, f"ssm.getParameter {name}")
    return {
        "name": name,
        "value": value,
        "insecureValue": value,
        "type": "String",
        "version": 1,
        "arn": f"arn:aws:ssm:{region}:{ACCOUNT_ID}:parameter/{name.lstrip('/')}",
        "id": name,
        "withDecryption": a.get("withDecryption", True),
    }


def _alicloud_images(_m: FleetMocks, a: dict[str, Any], region: str) -> dict[str, Any]:
    image = f"m-bp1{stable_hex('image', region, json.dumps(a, sort_keys=True, default=str), length=17)}"
    arch = _record_image(_m, image, a, "ecs.getImages")
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


def _tencent_images(_m: FleetMocks, a: dict[str, Any], region: str) -> dict[str, Any]:
    image = f"img-{stable_hex('image', region, json.dumps(a, sort_keys=True, default=str), length=8)}"
    arch = _record_image(_m, image, a, "tencentcloud images")
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

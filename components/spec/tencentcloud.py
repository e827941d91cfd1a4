"""Tencent Cloud's facts the spec checks: how its images are named (``ImageId``) and how messages name
its pools."""

from __future__ import annotations

import re

# How messages name the cloud in short ("Alibaba and Tencent pools"), and one of its pools.
SHORT_NAME = "Tencent"
POOL_OF = "a Tencent Cloud"
# How a pool's default image is described (``Pool.image``).
DEFAULT_IMAGE = "TencentOS Server 3.1"
# The image ids it takes: ``img-`` and 8 lowercase letters and digits (CVM API, the Image data
# structure, e.g. ``img-eb30mz89``); with the example a message gives, and the schema's hint.
IMAGE_ID_FORMAT: tuple[re.Pattern[str], str] = (
    re.compile(r"^img-[a-z0-9]{8}$"),
    "a Tencent image id like img-eb30mz89",
)
IMAGE_ID_HINT = "Tencent img-..."
# The key its cluster-autoscaler reads (a CAM key, in a Secret the operator makes).
AUTOSCALER_KEY = "CAM"
# The schema's descriptions of this cloud's own fields (``gpufleet.components.spec.descriptions``).
FIELD_DESCRIPTIONS = {
    "Credentials.tencentcloud": "the Secret in kube-system with the Tencent Cloud autoscaler's CAM key",
}

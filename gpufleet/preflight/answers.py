"""The quota figures in each cloud's own API answers, as its SDK returns them and its CLI prints them.

Each cloud's module (gpufleet/preflight/<cloud>.py) documents its answer and reads it (`quotas`, code ->
value, leaving out what the answer does not carry); `any_quotas` tells the clouds' answers apart by
shape. The image answers of every cloud are read here (`image_arches`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpufleet.components.clouds import cloud_parts

# Each cloud's reader of its quota answer, in registry order (gpufleet/preflight/<cloud>.py).
_PARTS = cloud_parts("gpufleet.preflight")


def any_quotas(answer: Any) -> dict[str, float] | None:
    """The quotas of an answer of any of the clouds, told apart by its shape (each cloud module's
    `answers_quotas`); None when it is none of them."""
    if not isinstance(answer, Mapping):
        return None
    for part in _PARTS.values():
        if part.answers_quotas(answer):
            found: dict[str, float] = part.quotas(answer)
            return found
    return None


# Image architectures as each cloud's describe-images answer states them: AWS `DescribeImages`
# (`Images[].Architecture`: i386 | x86_64 | arm64 | x86_64_mac | arm64_mac,
# https://docs.aws.amazon.com/AWSEC2/latest/APIReference/API_Image.html), Alibaba Cloud ECS
# `DescribeImages` (`Images.Image[].Architecture`: i386 | x86_64 | arm64), Tencent Cloud CVM
# `DescribeImages` (`ImageSet[].Architecture`: x86_64 | arm, https://cloud.tencent.com/document/api/213/15753).
_ARCHES = {"x86_64": "x86_64", "x86_64_mac": "x86_64", "arm64": "arm64", "arm64_mac": "arm64", "arm": "arm64"}


def normal_arch(value: Any) -> str | None:
    """x86_64 or arm64 for what the clouds call them (`aarch64`, Tencent's `arm`); None otherwise."""
    if not isinstance(value, str):
        return None
    text = value.strip().lower()
    return _ARCHES.get("arm64" if text == "aarch64" else text)


def image_arches(answer: Any) -> dict[str, str] | None:
    """image id -> architecture from a describe-images answer of any of the three clouds; None when the
    answer is none of them."""
    if not isinstance(answer, Mapping):
        return None
    inner = answer.get("Response")
    body = inner if isinstance(inner, Mapping) else answer
    images = body.get("Images")
    if isinstance(images, Mapping):  # Alibaba Cloud: {"Images": {"Image": [...]}}
        images = images.get("Image")
    if images is None:
        images = body.get("ImageSet")  # Tencent Cloud
    if not isinstance(images, list):
        return None
    out: dict[str, str] = {}
    for image in images:
        if not isinstance(image, Mapping):
            continue
        arch = normal_arch(image.get("Architecture"))
        if isinstance(image.get("ImageId"), str) and arch:
            out[image["ImageId"]] = arch
    return out

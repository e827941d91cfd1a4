"""The quota figures in each cloud's own API answers, as its SDK returns them and its CLI prints them.

- AWS Service Quotas: `ListServiceQuotas` (`{"Quotas": [{"QuotaCode", "Value", ...}]}`, what `aws
  service-quotas list-service-quotas --service-code ec2` prints) and `GetServiceQuota` (`{"Quota": {...}}`).
  https://docs.aws.amazon.com/servicequotas/2019-06-24/apireference/API_ListServiceQuotas.html
- Alibaba Cloud ECS `DescribeAccountAttributes` (`aliyun ecs DescribeAccountAttributes --RegionId R`):
  `AccountAttributeItems.AccountAttributeItem[]`, each an `AttributeName` with
  `AttributeValues.ValueItem[]` whose `Value` is a string (`"800"`).
  https://www.alibabacloud.com/help/en/ecs/developer-reference/api-ecs-2014-05-26-describeaccountattributes
- Tencent Cloud CVM `DescribeAccountQuota` (`tccli cvm DescribeAccountQuota --region R`):
  `AccountQuotaOverview.AccountQuota.{PostPaidQuotaSet, SpotPaidQuotaSet, ...}`, each a list of
  `{Zone, TotalQuota, UsedQuota, RemainingQuota}` in instances; the region's figure is the sum over its
  zones. The API wraps it in `{"Response": ...}`; the CLI and the SDK's `to_json_string()` do not.
  https://cloud.tencent.com/document/api/213/55628

Each reader returns quota code -> value and leaves out what the answer does not carry.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

ALICLOUD_ATTRIBUTES = ("max-postpaid-instance-vcpu-count", "max-spot-instance-vcpu-count")
TENCENT_SETS = ("PostPaidQuotaSet", "SpotPaidQuotaSet")


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.strip())
        except ValueError:
            return None
    return None


def aws_quotas(answer: Mapping[str, Any]) -> dict[str, float]:
    """`ListServiceQuotas` or `GetServiceQuota` -> code -> value."""
    listed = answer.get("Quotas")
    items = list(listed) if isinstance(listed, list) else []
    single = answer.get("Quota")
    if isinstance(single, Mapping):
        items.append(single)
    out: dict[str, float] = {}
    for item in items:
        if not isinstance(item, Mapping):
            continue
        value = _number(item.get("Value"))
        if "QuotaCode" in item and value is not None:
            out[str(item["QuotaCode"])] = value
    return out


def alicloud_quotas(answer: Mapping[str, Any]) -> dict[str, float]:
    """`DescribeAccountAttributes` -> attribute name -> value (the largest of its value items)."""
    items = answer.get("AccountAttributeItems")
    listed = items.get("AccountAttributeItem") if isinstance(items, Mapping) else None
    out: dict[str, float] = {}
    for item in listed if isinstance(listed, list) else []:
        if not isinstance(item, Mapping) or not isinstance(item.get("AttributeName"), str):
            continue
        values = item.get("AttributeValues")
        value_items = values.get("ValueItem") if isinstance(values, Mapping) else None
        numbers = [
            number
            for value in (value_items if isinstance(value_items, list) else [])
            if isinstance(value, Mapping) and (number := _number(value.get("Value"))) is not None
        ]
        if numbers:
            out[item["AttributeName"]] = max(numbers)
    return out


def tencent_quotas(answer: Mapping[str, Any]) -> dict[str, float]:
    """`DescribeAccountQuota` -> quota set name -> the sum of its zones' `TotalQuota`."""
    inner = answer.get("Response")
    body = inner if isinstance(inner, Mapping) else answer
    overview = body.get("AccountQuotaOverview")
    quota = overview.get("AccountQuota") if isinstance(overview, Mapping) else None
    out: dict[str, float] = {}
    if not isinstance(quota, Mapping):
        return out
    for name in TENCENT_SETS:
        zones = quota.get(name)
        if not isinstance(zones, list):
            continue
        totals = [
            number
            for zone in zones
            if isinstance(zone, Mapping) and (number := _number(zone.get("TotalQuota"))) is not None
        ]
        if totals:
            out[name] = sum(totals)
    return out


def tencent_region(answer: Mapping[str, Any]) -> str | None:
    inner = answer.get("Response")
    body = inner if isinstance(inner, Mapping) else answer
    overview = body.get("AccountQuotaOverview")
    region = overview.get("Region") if isinstance(overview, Mapping) else None
    return region if isinstance(region, str) else None


def any_quotas(answer: Any) -> dict[str, float] | None:
    """The quotas of an answer of any of the three clouds, told apart by its shape; None when it is none
    of them."""
    if not isinstance(answer, Mapping):
        return None
    if "Quotas" in answer or "Quota" in answer:
        return aws_quotas(answer)
    if "AccountAttributeItems" in answer:
        return alicloud_quotas(answer)
    inner = answer.get("Response")
    if "AccountQuotaOverview" in answer or (isinstance(inner, Mapping) and "AccountQuotaOverview" in inner):
        return tencent_quotas(answer)
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

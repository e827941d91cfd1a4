"""Alibaba Cloud for `gpufleet preflight`: its quota answers, its quota reader and its CLI's commands.

ECS `DescribeAccountAttributes` (`aliyun ecs DescribeAccountAttributes --RegionId R`):
`AccountAttributeItems.AccountAttributeItem[]`, each an `AttributeName` with `AttributeValues.ValueItem[]`
whose `Value` is a string (`"800"`).
https://www.alibabacloud.com/help/en/ecs/developer-reference/api-ecs-2014-05-26-describeaccountattributes
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from gpufleet.preflight.reading import credentials, missing, number, read_answer

ATTRIBUTES = ("max-postpaid-instance-vcpu-count", "max-spot-instance-vcpu-count")

# The CLI commands whose JSON a quota file or an image file may hold (gpufleet.preflight.settings).
QUOTA_COMMAND = "aliyun ecs DescribeAccountAttributes"
IMAGES_COMMAND = "aliyun ecs DescribeImages"


def answers_quotas(answer: Mapping[str, Any]) -> bool:
    """The answer has the shape of `DescribeAccountAttributes`."""
    return "AccountAttributeItems" in answer


def quotas(answer: Mapping[str, Any]) -> dict[str, float]:
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
            found
            for value in (value_items if isinstance(value_items, list) else [])
            if isinstance(value, Mapping) and (found := number(value.get("Value"))) is not None
        ]
        if numbers:
            out[item["AttributeName"]] = max(numbers)
    return out


class AlicloudQuotas:
    """ECS `DescribeAccountAttributes` in each region. `call(region, attribute_names)` returns the API's
    answer as a mapping (the SDK's `to_map()` of the response body, or what `aliyun ecs
    DescribeAccountAttributes` prints); without one, the `alibabacloud_ecs20140526` SDK is used with the
    credentials of the environment (`ALIBABA_CLOUD_ACCESS_KEY_ID`, `ALIBABA_CLOUD_ACCESS_KEY_SECRET`)."""

    def __init__(self, call: Callable[[str, list[str]], Mapping[str, Any]] | None = None) -> None:
        self.call = call or _sdk_call()

    def read(self, region: str, codes: Iterable[str]) -> dict[str, float]:
        return read_answer(codes, ATTRIBUTES, lambda wanted: self.call(region, wanted), quotas)


def _sdk_call() -> Callable[[str, list[str]], Mapping[str, Any]]:
    try:
        from alibabacloud_ecs20140526 import models as ecs_models  # type: ignore[import-not-found]
        from alibabacloud_ecs20140526.client import Client  # type: ignore[import-not-found]
        from alibabacloud_tea_openapi import models as api_models  # type: ignore[import-not-found]
    except ImportError:
        raise missing(
            "alicloud", "the Alibaba Cloud ECS SDK (pip install alibabacloud_ecs20140526)"
        ) from None
    access_key, secret = credentials(
        "alicloud", "ALIBABA_CLOUD_ACCESS_KEY_ID", "ALIBABA_CLOUD_ACCESS_KEY_SECRET"
    )

    def call(region: str, names: list[str]) -> Mapping[str, Any]:
        config = api_models.Config(
            access_key_id=access_key,
            access_key_secret=secret,
            region_id=region,
            endpoint=f"ecs.{region}.aliyuncs.com",
        )
        request = ecs_models.DescribeAccountAttributesRequest(region_id=region, attribute_name=names)
        body: Mapping[str, Any] = Client(config).describe_account_attributes(request).body.to_map()
        return body

    return call


READER = AlicloudQuotas

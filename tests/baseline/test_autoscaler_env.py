"""The autoscalers' environment: Alibaba's and Tencent's keys from the operator's Secret by secretKeyRef,
then the region, in the variables each provider reads; AWS's signing helper only from an AwsAccess."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from gpufleet.components.baseline.autoscalers import alicloud, aws, tencentcloud


def _args() -> Any:
    credentials = SimpleNamespace(alicloud="ali-secret", tencentcloud="tc-secret")
    return SimpleNamespace(scheduler=SimpleNamespace(credentials=credentials))


def _ref(secret: str, key: str) -> dict[str, Any]:
    return {"secretKeyRef": {"name": secret, "key": key}}


def test_alicloud_env_reads_the_ram_key_from_the_secret_and_the_region() -> None:
    site: Any = SimpleNamespace(region="cn-hangzhou")
    assert alicloud.env(_args(), site) == [
        {"name": "ACCESS_KEY_ID", "valueFrom": _ref("ali-secret", "access-key-id")},
        {"name": "ACCESS_KEY_SECRET", "valueFrom": _ref("ali-secret", "access-key-secret")},
        {"name": "REGION_ID", "value": "cn-hangzhou"},
    ]


def test_tencentcloud_env_reads_the_cam_key_from_the_secret_and_the_region() -> None:
    site: Any = SimpleNamespace(region="ap-guangzhou")
    assert tencentcloud.env(_args(), site) == [
        {"name": "SECRET_ID", "valueFrom": _ref("tc-secret", "tencentcloud_secret_id")},
        {"name": "SECRET_KEY", "valueFrom": _ref("tc-secret", "tencentcloud_secret_key")},
        {"name": "REGION", "value": "ap-guangzhou"},
    ]


def test_aws_access_of_another_type_is_said_not_silently_dropped() -> None:
    args: Any = SimpleNamespace(access={"aws": {"role_arn": "arn:aws:iam::123456789012:role/x"}})
    site: Any = SimpleNamespace(region="us-east-1")
    with pytest.raises(TypeError, match=r"access\['aws'\]: must be an AwsAccess"):
        aws.env(args, site)
    none: Any = SimpleNamespace(access={})
    assert aws.env(none, site) == [{"name": "AWS_REGION", "value": "us-east-1"}]

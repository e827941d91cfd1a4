"""The Alibaba and Tencent autoscalers' environment: each key from the operator's Secret by
secretKeyRef, then the region, in the variables each provider reads."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from gpufleet.components.baseline.autoscalers import alicloud, tencentcloud


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

"""Tencent Cloud for `gpufleet preflight`: its quota answers, its quota reader and its CLI's commands.

CVM `DescribeAccountQuota` (`tccli cvm DescribeAccountQuota --region R`):
`AccountQuotaOverview.AccountQuota.{PostPaidQuotaSet, SpotPaidQuotaSet, ...}`, each a list of
`{Zone, TotalQuota, UsedQuota, RemainingQuota}` in instances; the region's figure is the sum over its
zones. The API wraps it in `{"Response": ...}`; the CLI and the SDK's `to_json_string()` do not.
https://cloud.tencent.com/document/api/213/55628
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from gpufleet.preflight.reading import NoCredentials, credentials, missing, number, read_answer

SETS = ("PostPaidQuotaSet", "SpotPaidQuotaSet")

# The CLI commands whose JSON a quota file or an image file may hold (gpufleet.preflight.settings).
QUOTA_COMMAND = "tccli cvm DescribeAccountQuota"
IMAGES_COMMAND = "tccli cvm DescribeImages"


def _body(answer: Mapping[str, Any]) -> Mapping[str, Any]:
    inner = answer.get("Response")
    return inner if isinstance(inner, Mapping) else answer


def answers_quotas(answer: Mapping[str, Any]) -> bool:
    """The answer has the shape of `DescribeAccountQuota`, with or without its `Response` wrapper."""
    inner = answer.get("Response")
    return "AccountQuotaOverview" in answer or (
        isinstance(inner, Mapping) and "AccountQuotaOverview" in inner
    )


def quotas(answer: Mapping[str, Any]) -> dict[str, float]:
    """`DescribeAccountQuota` -> quota set name -> the sum of its zones' `TotalQuota`."""
    overview = _body(answer).get("AccountQuotaOverview")
    quota = overview.get("AccountQuota") if isinstance(overview, Mapping) else None
    out: dict[str, float] = {}
    if not isinstance(quota, Mapping):
        return out
    for name in SETS:
        zones = quota.get(name)
        if not isinstance(zones, list):
            continue
        totals = [
            found
            for zone in zones
            if isinstance(zone, Mapping) and (found := number(zone.get("TotalQuota"))) is not None
        ]
        if totals:
            out[name] = sum(totals)
    return out


def answer_region(answer: Mapping[str, Any]) -> str | None:
    """The region a `DescribeAccountQuota` answer is for."""
    overview = _body(answer).get("AccountQuotaOverview")
    found = overview.get("Region") if isinstance(overview, Mapping) else None
    return found if isinstance(found, str) else None


class TencentQuotas:
    """CVM `DescribeAccountQuota` in each region. `call(region)` returns the API's answer as a mapping
    (with or without its `Response` wrapper: what `tccli cvm DescribeAccountQuota` prints, or the SDK's
    `to_json_string()` parsed); without one, `tencentcloud-sdk-python` is used with the credentials of
    the environment (`TENCENTCLOUD_SECRET_ID`, `TENCENTCLOUD_SECRET_KEY`)."""

    def __init__(self, call: Callable[[str], Mapping[str, Any]] | None = None) -> None:
        self.call = call or _sdk_call()

    def read(self, region: str, codes: Iterable[str]) -> dict[str, float]:
        return read_answer(codes, SETS, lambda _wanted: self._answer(region), quotas)

    def _answer(self, region: str) -> Mapping[str, Any]:
        """The region's answer (every quota set at once); one for another region is refused."""
        answer = self.call(region)
        answered = answer_region(answer)
        if answered is not None and answered != region:
            raise NoCredentials(f"Tencent Cloud answered for region {answered}, not {region}")
        return answer


def _sdk_call() -> Callable[[str], Mapping[str, Any]]:
    try:
        from tencentcloud.common import credential  # type: ignore[import-not-found]
        from tencentcloud.cvm.v20170312 import cvm_client, models  # type: ignore[import-not-found]
    except ImportError:
        raise missing(
            "tencentcloud", "tencentcloud-sdk-python (pip install tencentcloud-sdk-python)"
        ) from None
    secret_id, secret_key = credentials("tencentcloud", "TENCENTCLOUD_SECRET_ID", "TENCENTCLOUD_SECRET_KEY")

    def call(region: str) -> Mapping[str, Any]:
        client = cvm_client.CvmClient(credential.Credential(secret_id, secret_key), region)
        answer: Mapping[str, Any] = json.loads(
            client.DescribeAccountQuota(models.DescribeAccountQuotaRequest()).to_json_string()
        )
        return answer

    return call


READER = TencentQuotas

"""Reading the real quotas with the user's credentials, one reader per cloud, injectable.

`READERS` maps a cloud to a factory of a `QuotaReader`; tests (and other tools) replace an entry with a
stub. The AWS reader uses boto3's Service Quotas client (the optional extra `gpufleet[preflight]`,
`GetServiceQuota` per code); the Alibaba Cloud reader calls ECS `DescribeAccountAttributes`, the
Tencent Cloud reader CVM `DescribeAccountQuota`, each through a caller-provided call or the cloud's SDK
when it is installed. The answers are read by `gpufleet.preflight.answers`. A cloud whose SDK or
credentials are missing raises `NoCredentials`, which `gpufleet preflight` reports with exit status 2.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Protocol

from gpufleet.preflight.answers import (
    ALICLOUD_ATTRIBUTES,
    TENCENT_SETS,
    alicloud_quotas,
    tencent_quotas,
    tencent_region,
)


class NoCredentials(Exception):
    """The cloud's quotas cannot be read from here: the message says what is missing and what to do."""


class QuotaReader(Protocol):
    def read(self, region: str, codes: Iterable[str]) -> dict[str, float]:
        """Each quota code's value (vCPUs) in `region`; codes the cloud does not know are left out."""
        ...


class AwsQuotas:
    """Service Quotas `GetServiceQuota` (service code `ec2`) in each region."""

    def __init__(self, session: Any = None) -> None:
        if session is None:
            try:
                import boto3
            except ImportError:
                raise NoCredentials(
                    "reading AWS quotas needs boto3: pip install 'gpufleet[preflight]' (or use "
                    "--offline with gpufleet:quotas in the stack file)"
                ) from None
            session = boto3.Session()
        if session.get_credentials() is None:
            raise NoCredentials(
                "no AWS credentials found (environment, ~/.aws, SSO or instance role): sign in "
                "(`aws sso login`, AWS_PROFILE) or run `gpufleet preflight --offline` with the quotas "
                "declared in gpufleet:quotas"
            )
        self.session = session

    def read(self, region: str, codes: Iterable[str]) -> dict[str, float]:
        client = self.session.client("service-quotas", region_name=region)
        found: dict[str, float] = {}
        for code in codes:
            try:
                answer = client.get_service_quota(ServiceCode="ec2", QuotaCode=code)
            except Exception as exc:
                name = type(exc).__name__
                if name in ("NoCredentialsError", "UnrecognizedClientException", "ExpiredTokenException"):
                    raise NoCredentials(f"AWS refused the credentials ({name}): sign in again") from None
                if name == "NoSuchResourceException":
                    continue
                raise
            found[code] = float(answer["Quota"]["Value"])
        return found


class AlicloudQuotas:
    """ECS `DescribeAccountAttributes` in each region. `call(region, attribute_names)` returns the API's
    answer as a mapping (the SDK's `to_map()` of the response body, or what `aliyun ecs
    DescribeAccountAttributes` prints); without one, the `alibabacloud_ecs20140526` SDK is used with the
    credentials of the environment (`ALIBABA_CLOUD_ACCESS_KEY_ID`, `ALIBABA_CLOUD_ACCESS_KEY_SECRET`)."""

    def __init__(self, call: Callable[[str, list[str]], Mapping[str, Any]] | None = None) -> None:
        self.call = call or _alicloud_sdk_call()

    def read(self, region: str, codes: Iterable[str]) -> dict[str, float]:
        wanted = [code for code in codes if code in ALICLOUD_ATTRIBUTES]
        if not wanted:
            return {}
        found = alicloud_quotas(self.call(region, wanted))
        return {code: found[code] for code in wanted if code in found}


class TencentQuotas:
    """CVM `DescribeAccountQuota` in each region. `call(region)` returns the API's answer as a mapping
    (with or without its `Response` wrapper: what `tccli cvm DescribeAccountQuota` prints, or the SDK's
    `to_json_string()` parsed); without one, `tencentcloud-sdk-python` is used with the credentials of
    the environment (`TENCENTCLOUD_SECRET_ID`, `TENCENTCLOUD_SECRET_KEY`)."""

    def __init__(self, call: Callable[[str], Mapping[str, Any]] | None = None) -> None:
        self.call = call or _tencent_sdk_call()

    def read(self, region: str, codes: Iterable[str]) -> dict[str, float]:
        wanted = [code for code in codes if code in TENCENT_SETS]
        if not wanted:
            return {}
        answer = self.call(region)
        answered = tencent_region(answer)
        if answered is not None and answered != region:
            raise NoCredentials(f"Tencent Cloud answered for region {answered}, not {region}")
        found = tencent_quotas(answer)
        return {code: found[code] for code in wanted if code in found}


def _missing(cloud: str, what: str) -> NoCredentials:
    return NoCredentials(
        f"reading {cloud} quotas needs {what}: install it and set the credentials, or run `gpufleet "
        "preflight --offline` with the quotas declared in gpufleet:quotas"
    )


def _credentials(cloud: str, *names: str) -> list[str]:
    """The values of the environment variables a cloud's SDK reads its credentials from, all of them
    set, or the error naming them."""
    values = [os.environ.get(name, "") for name in names]
    if not all(values):
        raise _missing(cloud, " and ".join(names))
    return values


def _alicloud_sdk_call() -> Callable[[str, list[str]], Mapping[str, Any]]:
    try:
        from alibabacloud_ecs20140526 import models as ecs_models  # type: ignore[import-not-found]
        from alibabacloud_ecs20140526.client import Client  # type: ignore[import-not-found]
        from alibabacloud_tea_openapi import models as api_models  # type: ignore[import-not-found]
    except ImportError:
        raise _missing(
            "alicloud", "the Alibaba Cloud ECS SDK (pip install alibabacloud_ecs20140526)"
        ) from None
    access_key, secret = _credentials(
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


def _tencent_sdk_call() -> Callable[[str], Mapping[str, Any]]:
    try:
        from tencentcloud.common import credential  # type: ignore[import-not-found]
        from tencentcloud.cvm.v20170312 import cvm_client, models  # type: ignore[import-not-found]
    except ImportError:
        raise _missing(
            "tencentcloud", "tencentcloud-sdk-python (pip install tencentcloud-sdk-python)"
        ) from None
    secret_id, secret_key = _credentials("tencentcloud", "TENCENTCLOUD_SECRET_ID", "TENCENTCLOUD_SECRET_KEY")

    def call(region: str) -> Mapping[str, Any]:
        client = cvm_client.CvmClient(credential.Credential(secret_id, secret_key), region)
        answer: Mapping[str, Any] = json.loads(
            client.DescribeAccountQuota(models.DescribeAccountQuotaRequest()).to_json_string()
        )
        return answer

    return call


READERS: dict[str, Callable[[], QuotaReader]] = {
    "aws": AwsQuotas,
    "alicloud": AlicloudQuotas,
    "tencentcloud": TencentQuotas,
}

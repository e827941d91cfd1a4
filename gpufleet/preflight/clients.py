"""Reading the real quotas with the user's credentials, one reader per cloud, injectable.

`READERS` maps a cloud to a factory of a `QuotaReader`; tests (and other tools) replace an entry with a
stub. The AWS reader uses boto3's Service Quotas client (the optional extra `gpufleet[preflight]`); the
Alibaba Cloud and Tencent Cloud readers take the client that calls their quota APIs
(`alibabacloud_quotas20200510`, Quota Center `ListProductQuotas` for product `ecs`; `tencentcloud-sdk-python`
CVM) and read the per-family GPU vCPU quotas through it. A cloud whose SDK or credentials are missing
raises `NoCredentials`, which `gpufleet preflight` reports with exit status 2.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Protocol


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


SDKS = {"alicloud": "alibabacloud_quotas20200510", "tencentcloud": "tencentcloud-sdk-python"}


class ApiQuotas:
    """A cloud whose quotas come from a caller-provided API client: `call(region, code)` returns the
    quota's value in vCPUs, or None when the cloud has no such quota."""

    def __init__(self, cloud: str, call: Callable[[str, str], float | None] | None) -> None:
        if call is None:
            sdk = {"alicloud": "alibabacloud_quotas20200510", "tencentcloud": "tencentcloud-sdk-python"}[
                cloud
            ]
            raise NoCredentials(
                f"reading {cloud} quotas needs its API client ({sdk}) and credentials; none is configured "
                "here: run `gpufleet preflight --offline` with the quotas declared in gpufleet:quotas"
            )
        self.call = call

    def read(self, region: str, codes: Iterable[str]) -> dict[str, float]:
        found: dict[str, float] = {}
        for code in codes:
            value = self.call(region, code)
            if value is not None:
                found[code] = float(value)
        return found


READERS: dict[str, Callable[[], QuotaReader]] = {
    "aws": AwsQuotas,
    "alicloud": lambda: ApiQuotas("alicloud", None),
    "tencentcloud": lambda: ApiQuotas("tencentcloud", None),
}

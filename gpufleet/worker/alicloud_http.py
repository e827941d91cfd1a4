"""Alibaba Cloud over plain HTTP, standard library only: credentials, the three request signatures the
worker needs, and the clients that feed :mod:`gpufleet.worker.alicloud`'s adapters.

Every request, the instance metadata's included, goes through one injectable :data:`Transport`, so the
tests record and answer requests without a network; the clock that timestamps signatures and expires
credentials is injected too.

- **Credentials** (:class:`CredentialSource`): ``ALIBABA_CLOUD_ACCESS_KEY_ID`` /
  ``ALIBABA_CLOUD_ACCESS_KEY_SECRET`` (and ``ALIBABA_CLOUD_SECURITY_TOKEN`` for STS keys) when both are
  set, the variables the Alibaba Cloud SDKs' credential chain and CLI read; otherwise the STS keys of
  the instance's RAM role from ECS metadata in hardened mode: the role's name from
  ``latest/meta-data/ram/security-credentials/``, its keys from ``.../<role>`` (``AccessKeyId``,
  ``AccessKeySecret``, ``SecurityToken``, ``Expiration``, ``Code`` "Success"), fetched again
  :data:`REFRESH_BEFORE_S` before they expire (the official credentials library's margin).
  https://www.alibabacloud.com/help/en/ecs/user-guide/obtain-a-temporary-authorization-token,
  https://www.alibabacloud.com/help/en/sdk/developer-reference/v2-manage-python-access-credentials,
  https://github.com/aliyun/credentials-python (``provider/ecs_ram_role.py``, ``provider/env.py``).
- **RPC** (:class:`RpcClient`, for ESS 2014-08-28): a GET whose query carries the common parameters and
  ``Signature`` = base64(HMAC-SHA1(secret + "&", "GET&%2F&" + percentEncode(sorted, RFC 3986-encoded
  query))). https://www.alibabacloud.com/help/en/sdk/product-overview/rpc-mechanism (signature V2);
  the "Request signature" topic of the RPC API references (its DescribeRegions example, secret
  ``testsecret``, is reproduced by the tests), and ESS's own (its DescribeScalingGroups example, also
  reproduced: https://github.com/AlibabaCloudDocs/ess/blob/master/cn.zh-CN/API参考/签名机制.md); ESS's
  endpoints: https://www.alibabacloud.com/help/en/auto-scaling/developer-reference/api-ess-2014-08-28-endpoint;
  its errors (``Code``, ``Message`` in a 4xx/5xx JSON body):
  https://github.com/AlibabaCloudDocs/ess/blob/master/intl.en-US/API-Reference/Response%20results.md
- **MNS** (:class:`MnsClient`, API 2015-06-06): ``Authorization: MNS <AccessKeyId>:<Signature>`` over
  VERB, Content-MD5, Content-Type, Date, the ``x-mns-`` headers and the resource with its query as
  sent; an STS token rides in ``security-token``, as the official MNS SDKs send it. Errors are
  ``<Error><Code>``.
  https://www.alibabacloud.com/help/en/mns/sign-requests,
  https://www.alibabacloud.com/help/en/mns/support/how-do-i-obtain-the-signature-string-of-an-api-request
  (the example the tests reproduce), https://www.alibabacloud.com/help/en/mns/developer-reference/request-protocol-description,
  https://github.com/aliyun/aliyun-mns-python-sdk (``mns/mns_client.py``: ``build_header``).
- **OSS** (:class:`OssUploader`): PUT Object to ``<bucket>.<endpoint>/<key>`` with the file streamed,
  signed V1: ``Authorization: OSS <AccessKeyId>:<Signature>`` over VERB, Content-MD5, Content-Type,
  Date, the ``x-oss-`` headers (``x-oss-security-token`` among them) and ``/<bucket>/<key>``.
  https://www.alibabacloud.com/help/en/oss/developer-reference/include-signatures-in-the-authorization-header
  (with the example the tests reproduce), https://github.com/aliyun/aliyun-oss-python-sdk
  (``oss2/auth.py``).
"""

from __future__ import annotations

import base64
import calendar
import email.utils
import hashlib
import hmac
import json
import logging
import time
import urllib.parse
import uuid
import xml.etree.ElementTree as ET
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from gpufleet.worker.alicloud import MnsError, mns_fields
from gpufleet.worker.http import PUT_OBJECT_MAX_BYTES, Transport, content_md5, urllib_transport
from gpufleet.worker.metadata import Http

log = logging.getLogger("gpufleet.worker.alicloud")

ENV_ACCESS_KEY_ID = "ALIBABA_CLOUD_ACCESS_KEY_ID"
ENV_ACCESS_KEY_SECRET = "ALIBABA_CLOUD_ACCESS_KEY_SECRET"
ENV_SECURITY_TOKEN = "ALIBABA_CLOUD_SECURITY_TOKEN"
ROLE_PATH = "latest/meta-data/ram/security-credentials/"
# The official credentials library treats a role's keys as stale 15 minutes before they expire.
REFRESH_BEFORE_S = 15 * 60
MNS_VERSION = "2015-06-06"
# MNS's long poll holds the request up to its waitseconds (at most 30 s): the socket waits that long
# plus this margin.
MNS_TIMEOUT_S = 10.0
OSS_CONTENT_TYPE = "application/octet-stream"


def metadata_http(transport: Transport) -> Http:
    """The metadata service's :data:`~gpufleet.worker.metadata.Http` over ``transport``, so the ECS
    metadata reads go through the same transport as every API call."""

    def http(method: str, url: str, headers: Mapping[str, str], timeout_s: float) -> tuple[int, str]:
        status, _, body = transport(method, url, headers, None, timeout_s)
        return status, body.decode("utf-8", errors="replace")

    return http


def _hmac_sha1_b64(key: str, text: str) -> str:
    digest = hmac.new(key.encode("utf-8"), text.encode("utf-8"), hashlib.sha1).digest()
    return base64.b64encode(digest).decode("ascii")


def http_date(epoch: float) -> str:
    """RFC 1123 in GMT (``Thu, 09 Jul 2015 03:01:34 GMT``), the Date MNS and OSS sign."""
    return email.utils.formatdate(epoch, usegmt=True)


# Credentials ------------------------------------------------------------------------------------------


class MetadataReader(Protocol):
    def get(self, path: str) -> str | None: ...


@dataclass(frozen=True)
class Credentials:
    """An AccessKey pair, with the STS token and its expiry (epoch seconds) for temporary keys."""

    access_key_id: str
    access_key_secret: str = field(repr=False)
    security_token: str | None = field(default=None, repr=False)
    expires_at: float | None = None


def env_credentials(env: Mapping[str, str]) -> Credentials | None:
    """The static keys in the environment, when both the id and the secret are set."""
    key_id, secret = env.get(ENV_ACCESS_KEY_ID), env.get(ENV_ACCESS_KEY_SECRET)
    if not key_id or not secret:
        return None
    return Credentials(key_id, secret, env.get(ENV_SECURITY_TOKEN) or None)


def role_credentials(metadata: MetadataReader) -> Credentials:
    """The STS keys of the instance's RAM role, from ECS metadata; OSError when there is none."""
    listed = metadata.get(ROLE_PATH)
    role = listed.strip().splitlines()[0].strip() if listed and listed.strip() else ""
    if not role:
        raise OSError("the instance has no RAM role (ECS metadata ram/security-credentials/ is empty)")
    raw = metadata.get(ROLE_PATH + role)
    if raw is None:
        raise OSError(f"ECS metadata has no credentials for the RAM role {role!r}")
    try:
        data = json.loads(raw)
        if data.get("Code") != "Success":
            raise OSError(f"ECS metadata answered Code={data.get('Code')!r} for the RAM role {role!r}")
        expires = calendar.timegm(time.strptime(data["Expiration"], "%Y-%m-%dT%H:%M:%SZ"))
        return Credentials(
            data["AccessKeyId"], data["AccessKeySecret"], data.get("SecurityToken") or None, float(expires)
        )
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        raise OSError(f"unreadable credentials of the RAM role {role!r}: {error!r}") from None


@dataclass
class CredentialSource:
    """The keys to sign with, read at every request: the environment's when set, else the RAM role's,
    cached and fetched again :data:`REFRESH_BEFORE_S` before they expire. A failed renewal keeps the
    current keys while they are still valid, and says so."""

    metadata: MetadataReader
    # The process's environment may hold keys: never in a repr (a log line, a traceback).
    env: Mapping[str, str] = field(repr=False)
    clock: Callable[[], float] = time.time
    refresh_before_s: float = REFRESH_BEFORE_S
    _cached: Credentials | None = field(default=None, init=False, repr=False)

    def __call__(self) -> Credentials:
        static = env_credentials(self.env)
        if static is not None:
            return static
        now = self.clock()
        cached = self._cached
        if (
            cached is not None
            and cached.expires_at is not None
            and now < cached.expires_at - self.refresh_before_s
        ):
            return cached
        try:
            self._cached = role_credentials(self.metadata)
        except OSError as error:
            if cached is not None and cached.expires_at is not None and now < cached.expires_at:
                log.warning("could not renew the RAM role's keys (%s); the current ones still hold", error)
                return cached
            raise
        return self._cached


# RPC (ESS) --------------------------------------------------------------------------------------------


class RpcError(RuntimeError):
    """An RPC API's error answer: its ``Code`` (``Throttling``, ``Forbidden.Unauthorized``...)."""

    def __init__(self, code: str, message: str = "", status: int = 0, request_id: str | None = None) -> None:
        super().__init__(f"{code} (HTTP {status}): {message}" if message else f"{code} (HTTP {status})")
        self.code = code
        self.status = status
        self.request_id = request_id


def percent_encode(text: str) -> str:
    """RFC 3986 with only ``A-Za-z0-9-_.~`` left as they are: a space is %20, ``*`` %2A."""
    return urllib.parse.quote(text, safe="~")


def rpc_value(value: Any) -> str:
    """A parameter as the RPC API reads it: booleans are ``true`` / ``false``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def canonical_query(params: Mapping[str, str]) -> str:
    """The parameters sorted by name, names and values percent-encoded, joined by ``&``."""
    return "&".join(f"{percent_encode(k)}={percent_encode(v)}" for k, v in sorted(params.items()))


def rpc_string_to_sign(method: str, params: Mapping[str, str]) -> str:
    return f"{method}&{percent_encode('/')}&{percent_encode(canonical_query(params))}"


def rpc_signature(secret: str, method: str, params: Mapping[str, str]) -> str:
    """Signature V2 of an RPC request: base64(HMAC-SHA1(secret + "&", StringToSign))."""
    return _hmac_sha1_b64(secret + "&", rpc_string_to_sign(method, params))


def iso_timestamp(epoch: float) -> str:
    """UTC ISO 8601 to the second, ``YYYY-MM-DDThh:mm:ssZ``."""
    return datetime.fromtimestamp(epoch, tz=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _nonce() -> str:
    return str(uuid.uuid4())


@dataclass
class RpcClient:
    """``rpc(action, params)`` for one RPC API at ``https://<host>/``: a signed GET, the JSON answer
    as a dict; a non-2xx answer raises :class:`RpcError` with the body's ``Code``."""

    host: str
    version: str
    credentials: Callable[[], Credentials]
    transport: Transport = urllib_transport
    clock: Callable[[], float] = time.time
    nonce: Callable[[], str] = _nonce
    timeout_s: float = 10.0

    def __call__(self, action: str, params: Mapping[str, Any]) -> dict[str, Any]:
        keys = self.credentials()
        query = {name: rpc_value(value) for name, value in params.items()}
        query.update(
            {
                "Action": action,
                "Format": "JSON",
                "Version": self.version,
                "AccessKeyId": keys.access_key_id,
                "SignatureMethod": "HMAC-SHA1",
                "SignatureVersion": "1.0",
                "SignatureNonce": self.nonce(),
                "Timestamp": iso_timestamp(self.clock()),
            }
        )
        if keys.security_token:
            query["SecurityToken"] = keys.security_token
        query["Signature"] = rpc_signature(keys.access_key_secret, "GET", query)
        url = f"https://{self.host}/?{canonical_query(query)}"
        status, _, body = self.transport("GET", url, {}, None, self.timeout_s)
        try:
            data = json.loads(body) if body.strip() else {}
        except ValueError:
            data = {}
        if not isinstance(data, dict):
            data = {}
        if not 200 <= status < 300:
            code = str(data.get("Code") or f"HTTP{status}")
            message = str(data.get("Message") or body[:200].decode("utf-8", errors="replace"))
            raise RpcError(code, message, status, data.get("RequestId"))
        return data


# MNS --------------------------------------------------------------------------------------------------


def header_string_to_sign(
    method: str,
    date: str,
    headers: Mapping[str, str],
    resource: str,
    *,
    prefix: str,
    content_md5: str = "",
    content_type: str = "",
) -> str:
    """The string MNS and OSS sign: the verb, Content-MD5, Content-Type and Date lines, then every
    ``prefix`` header (lowercase name, sorted, ``name:value\\n``), then the resource."""
    canonical = sorted(
        (name.lower(), value.strip()) for name, value in headers.items() if name.lower().startswith(prefix)
    )
    lines = "".join(f"{name}:{value}\n" for name, value in canonical)
    return f"{method}\n{content_md5}\n{content_type}\n{date}\n{lines}{resource}"


def header_signature(secret: str, string_to_sign: str) -> str:
    """MNS's and OSS's base64(HMAC-SHA1(AccessKeySecret, StringToSign)): no "&" after the secret,
    unlike RPC."""
    return _hmac_sha1_b64(secret, string_to_sign)


def _xml_fields(body: bytes) -> dict[str, str]:
    text = body.decode("utf-8", errors="replace").strip()
    if not text.startswith("<"):
        return {}
    try:
        return mns_fields(text)
    except ET.ParseError:  # an error page that is not XML
        return {}


@dataclass
class MnsClient:
    """``mns(method, resource, query)`` against one MNS endpoint (``http(s)://<account>.mns.<region>...``,
    given by ``endpoint``, called once at the first request): a signed request without a body, the
    XML answer's fields; an error answer raises :class:`~gpufleet.worker.alicloud.MnsError` with its
    ``Code``."""

    endpoint: Callable[[], str]
    credentials: Callable[[], Credentials]
    transport: Transport = urllib_transport
    clock: Callable[[], float] = time.time
    timeout_s: float = MNS_TIMEOUT_S
    _base: str | None = field(default=None, init=False, repr=False)

    def _endpoint(self) -> str:
        if self._base is None:
            self._base = self.endpoint().rstrip("/")
        return self._base

    def __call__(self, method: str, resource: str, query: Mapping[str, str]) -> Mapping[str, str]:
        keys = self.credentials()
        sent = "&".join(f"{percent_encode(k)}={percent_encode(v)}" for k, v in query.items())
        target = f"{resource}?{sent}" if sent else resource
        date = http_date(self.clock())
        headers = {"Date": date, "x-mns-version": MNS_VERSION}
        signature = header_signature(
            keys.access_key_secret, header_string_to_sign(method, date, headers, target, prefix="x-mns-")
        )
        headers["Authorization"] = f"MNS {keys.access_key_id}:{signature}"
        if keys.security_token:
            headers["security-token"] = keys.security_token
        wait = int(query.get("waitseconds", "0") or 0)
        status, _, body = self.transport(
            method, self._endpoint() + target, headers, None, self.timeout_s + wait
        )
        fields = _xml_fields(body)
        if not 200 <= status < 300:
            raise MnsError(fields.get("Code") or f"HTTP{status}", fields.get("Message", ""))
        return fields


# OSS --------------------------------------------------------------------------------------------------


class OssError(RuntimeError):
    def __init__(self, code: str, message: str = "", status: int = 0) -> None:
        super().__init__(f"{code} (HTTP {status}): {message}" if message else f"{code} (HTTP {status})")
        self.code = code
        self.status = status


@dataclass
class OssUploader:
    """An OSS bucket's ``put_object_from_file(key, filename)`` (the method of ``oss2.Bucket``): one
    signed PUT Object per file, the file streamed from disk with its ``Content-MD5`` (OSS refuses a
    body that does not match it). A file over PUT Object's 5 GB raises ValueError before anything is
    sent (it would need a multipart upload)."""

    bucket: str
    endpoint: str  # host, e.g. oss-cn-hangzhou-internal.aliyuncs.com
    credentials: Callable[[], Credentials]
    transport: Transport = urllib_transport
    clock: Callable[[], float] = time.time
    timeout_s: float = 60.0
    scheme: str = "https"

    def put_object_from_file(self, key: str, filename: str) -> None:
        path = Path(filename)
        size = path.stat().st_size
        if size > PUT_OBJECT_MAX_BYTES:
            raise ValueError(f"{path} is {size} bytes: PUT Object takes at most 5 GB")
        keys = self.credentials()
        date = http_date(self.clock())
        md5 = content_md5(path)
        headers = {
            "Date": date,
            "Content-Type": OSS_CONTENT_TYPE,
            "Content-Length": str(size),
            "Content-MD5": md5,
        }
        if keys.security_token:
            headers["x-oss-security-token"] = keys.security_token
        resource = f"/{self.bucket}/{key}"
        string_to_sign = header_string_to_sign(
            "PUT", date, headers, resource, prefix="x-oss-", content_md5=md5, content_type=OSS_CONTENT_TYPE
        )
        signature = header_signature(keys.access_key_secret, string_to_sign)
        headers["Authorization"] = f"OSS {keys.access_key_id}:{signature}"
        url = f"{self.scheme}://{self.bucket}.{self.endpoint}/{urllib.parse.quote(key, safe='/')}"
        with path.open("rb") as body:
            status, _, answer = self.transport("PUT", url, headers, body, self.timeout_s)
        if not 200 <= status < 300:
            fields = _xml_fields(answer)
            raise OssError(fields.get("Code") or f"HTTP{status}", fields.get("Message", ""), status)

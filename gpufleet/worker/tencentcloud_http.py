"""Tencent Cloud over plain HTTP, standard library only: credentials, the three request signatures the
worker needs, and the clients that feed :mod:`gpufleet.worker.tencentcloud`'s adapters.

Every request goes through one injectable :data:`Transport`, so the tests record and answer requests
without a network; the clock that timestamps and expires signatures is injected too.

- **Credentials** (:func:`credential_source`): ``TENCENTCLOUD_SECRET_ID`` / ``TENCENTCLOUD_SECRET_KEY``
  when both are set (the variables the official SDKs' environment providers and TCCLI read), with a
  token from ``TENCENTCLOUD_TOKEN`` (TCCLI) or ``TENCENTCLOUD_SECURITY_TOKEN`` (the Terraform
  provider); otherwise the temporary keys of the CAM role bound to the CVM instance, read from
  ``latest/meta-data/cam/security-credentials/<role>`` (``TmpSecretId``, ``TmpSecretKey``, ``Token``,
  ``ExpiredTime``, ``Expiration``, ``Code`` "Success") and fetched again :data:`REFRESH_BEFORE_S`
  before they expire: a request signed less than five minutes before the keys expire may reach the
  server after they have.
  https://www.tencentcloud.com/document/product/213/4934 (instance metadata),
  https://github.com/TencentCloud/tencentcloud-sdk-python (``tencentcloud/common/credential.py``:
  ``CVMRoleCredential``, ``EnvironmentVariableCredential``).
- **API 3.0** (:class:`Tc3Client`, for AS ``as`` 2018-04-19): a JSON POST to
  ``<service>.<region>.tencentcloudapi.com`` (the region's own endpoint; ``<service>.tencentcloudapi.com``
  resolves to the nearest one), signed TC3-HMAC-SHA256 over ``content-type;host``, with the common
  parameters in ``X-TC-*`` headers and ``X-TC-Token`` for temporary keys.
  https://www.tencentcloud.com/document/api/213/30654 (Signature v3, with the DescribeInstances example
  the tests reproduce), https://www.tencentcloud.com/document/product/377/30987 (AS common parameters),
  https://github.com/TencentCloud/tencentcloud-sdk-python (``abstract_client.py``: the headers;
  ``autoscaling/v20180419``: the ``as`` service and its parameters).
- **TDMQ for CMQ data flow** (:class:`CmqClient`), which keeps CMQ's data-flow protocol: a form POST
  to ``<endpoint>/v2/index.php``; the private endpoint from inside a VPC is
  ``http://<region code>.mqadapter.cmq.tencentyun.com`` with the short region code (``gz``, ``sh``...).
  Signed with the legacy ``Signature`` parameter: base64 HMAC-SHA1/SHA256 over
  ``POST<host><path>?<params sorted by name, unencoded>``, with ``SecretId``, ``Nonce``,
  ``Timestamp``, ``SignatureMethod`` and ``Token`` for temporary keys.
  https://www.tencentcloud.com/document/product/1111/46417 (ReceiveMessage),
  https://www.tencentcloud.com/document/product/1111/46419 (DeleteMessage),
  https://www.tencentcloud.com/document/product/1111/46459 (common parameters),
  https://www.tencentcloud.com/document/api/406/5906 (signature, with the example the tests reproduce),
  https://cloud.tencent.com/document/product/1496/61039 (data-flow SDKs),
  https://github.com/tencentyun/cmq-python-sdk (``cmq/cmq_client.py``, ``cmq/sign.py``; the ``Token``
  parameter on its ``supportTmpKey`` branch; 7000 is "no message" in ``cmq/cmq_exception.py``).
- **COS** (:class:`CosUploader`): PUT Object to ``<bucket>-<appid>.cos.<region>.myqcloud.com``, the
  file streamed, signed with the ``q-sign-algorithm=sha1`` Authorization over ``content-length``,
  ``content-md5``, ``content-type``, ``host`` and ``x-cos-security-token`` (temporary keys).
  https://www.tencentcloud.com/document/product/436/7778 (request signature, with the examples the tests
  reproduce), https://www.tencentcloud.com/document/product/436/7728 (common request headers),
  https://www.tencentcloud.com/document/product/436/7749 (PUT Object).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import logging
import re
import secrets
import time
import urllib.parse
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from gpufleet.components.spec_limits.tencentcloud import CMQ_REGION_CODES
from gpufleet.worker.http import PUT_OBJECT_MAX_BYTES, Transport, content_md5, urllib_transport
from gpufleet.worker.tencentcloud import TencentError

log = logging.getLogger("gpufleet.worker.tencentcloud")


# --- credentials -------------------------------------------------------------------------------------

SECRET_ID_ENV = "TENCENTCLOUD_SECRET_ID"
SECRET_KEY_ENV = "TENCENTCLOUD_SECRET_KEY"
# A temporary key's token, first preferred: TCCLI's variable, then the Terraform provider's.
TOKEN_ENVS = ("TENCENTCLOUD_TOKEN", "TENCENTCLOUD_SECURITY_TOKEN")
ROLE_PATH = "latest/meta-data/cam/security-credentials/"
# Fetch the role's keys again this long before they expire (the SDKs' margin: a request's timestamp
# may be up to five minutes off the server's).
REFRESH_BEFORE_S = 300.0


@dataclass(frozen=True)
class Credentials:
    """A key pair; ``token`` and ``expires_at`` (Unix seconds) for temporary keys only."""

    secret_id: str
    secret_key: str = field(repr=False)
    token: str | None = field(default=None, repr=False)
    expires_at: float | None = None


class CredentialSource(Protocol):
    def get(self) -> Credentials:
        """Keys valid for a request signed now; OSError when none can be had."""
        ...


class Metadata(Protocol):
    def get(self, path: str) -> str | None: ...


@dataclass(frozen=True)
class StaticCredentials:
    credentials: Credentials

    def get(self) -> Credentials:
        return self.credentials


def env_credentials(env: Mapping[str, str]) -> StaticCredentials | None:
    """The keys in the environment, or None unless both the id and the key are set."""
    secret_id, secret_key = env.get(SECRET_ID_ENV, ""), env.get(SECRET_KEY_ENV, "")
    if not secret_id or not secret_key:
        return None
    token = next((value for name in TOKEN_ENVS if (value := env.get(name))), None)
    return StaticCredentials(Credentials(secret_id, secret_key, token))


def _expiry(answer: Mapping[str, Any]) -> float | None:
    if isinstance(answer.get("ExpiredTime"), int | float):
        return float(answer["ExpiredTime"])
    expiration = answer.get("Expiration")
    if isinstance(expiration, str):
        try:
            when = datetime.fromisoformat(expiration)
        except ValueError:
            return None
        return (when if when.tzinfo else when.replace(tzinfo=UTC)).timestamp()
    return None


@dataclass
class CamRoleCredentials:
    """The temporary keys of the CAM role bound to this CVM instance, cached until
    :data:`REFRESH_BEFORE_S` before they expire. A refresh that fails while the cached keys are still
    valid keeps them (the metadata service may blink); keys without an expiry are fetched every time."""

    metadata: Metadata
    clock: Callable[[], float] = time.time
    role: str | None = None
    refresh_before_s: float = REFRESH_BEFORE_S
    _cached: Credentials | None = field(default=None, init=False, repr=False)

    def _role(self) -> str:
        if self.role is None:
            listed = self.metadata.get(ROLE_PATH)
            names = (listed or "").split()
            if not names:
                raise OSError("no CAM role is bound to this instance (the metadata lists none)")
            self.role = names[0]
        return self.role

    def _fetch(self) -> Credentials:
        role = self._role()
        body = self.metadata.get(ROLE_PATH + urllib.parse.quote(role, safe=""))
        if body is None:
            raise OSError(f"the metadata service has no keys for the CAM role {role!r}")
        try:
            answer = json.loads(body)
        except json.JSONDecodeError:
            raise OSError(f"the CAM role {role!r}'s keys are not JSON") from None
        if not isinstance(answer, dict) or answer.get("Code") != "Success":
            code = answer.get("Code") if isinstance(answer, dict) else None
            raise OSError(f"the metadata service refused the CAM role {role!r}'s keys: Code={code}")
        try:
            secret_id, secret_key, token = answer["TmpSecretId"], answer["TmpSecretKey"], answer["Token"]
        except KeyError as missing:
            raise OSError(f"the CAM role {role!r}'s keys lack {missing}") from None
        return Credentials(str(secret_id), str(secret_key), str(token), _expiry(answer))

    def get(self) -> Credentials:
        now = self.clock()
        cached = self._cached
        expires = cached.expires_at if cached is not None else None
        if cached is not None and expires is not None and now < expires - self.refresh_before_s:
            return cached
        try:
            self._cached = self._fetch()
        except OSError:
            if cached is not None and expires is not None and now < expires:
                log.warning("could not refresh the CAM role's keys; the current ones hold until %s", expires)
                return cached
            raise
        return self._cached


def credential_source(
    env: Mapping[str, str], metadata: Metadata, clock: Callable[[], float] = time.time
) -> CredentialSource:
    """The environment's keys when set (an explicit choice wins), else the instance's CAM role."""
    return env_credentials(env) or CamRoleCredentials(metadata, clock)


# --- API 3.0: TC3-HMAC-SHA256 ------------------------------------------------------------------------

TC3_ALGORITHM = "TC3-HMAC-SHA256"
JSON_CONTENT_TYPE = "application/json; charset=utf-8"


def _sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _hmac_sha256(key: bytes, message: str) -> bytes:
    return hmac.new(key, message.encode(), hashlib.sha256).digest()


def tc3_canonical_request(host: str, content_type: str, payload: bytes) -> str:
    """The CanonicalRequest of a POST to ``/`` with no query, signing ``content-type`` and ``host``."""
    headers = f"content-type:{content_type.strip().lower()}\nhost:{host.strip().lower()}\n"
    return f"POST\n/\n\n{headers}\ncontent-type;host\n{_sha256_hex(payload)}"


def tc3_authorization(
    *,
    secret_id: str,
    secret_key: str,
    service: str,
    host: str,
    content_type: str,
    payload: bytes,
    timestamp: int,
) -> str:
    """The ``Authorization`` header of an API 3.0 POST signed at ``timestamp``, whose UTC date scopes
    the derived key."""
    date = datetime.fromtimestamp(timestamp, UTC).strftime("%Y-%m-%d")
    scope = f"{date}/{service}/tc3_request"
    canonical = tc3_canonical_request(host, content_type, payload)
    to_sign = f"{TC3_ALGORITHM}\n{timestamp}\n{scope}\n{_sha256_hex(canonical.encode())}"
    key = _hmac_sha256(_hmac_sha256(_hmac_sha256(f"TC3{secret_key}".encode(), date), service), "tc3_request")
    signature = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
    return (
        f"{TC3_ALGORITHM} Credential={secret_id}/{scope}, SignedHeaders=content-type;host, "
        f"Signature={signature}"
    )


@dataclass
class Tc3Client:
    """``client(action, params)``: one API 3.0 call, answering its JSON (``{"Response": {...}}``; an
    ``Error`` in it is left to the adapter). An answer that is not JSON raises :class:`TencentError`."""

    service: str
    version: str
    region: str
    credentials: CredentialSource
    transport: Transport = urllib_transport
    clock: Callable[[], float] = time.time
    host: str = ""
    timeout_s: float = 10.0

    def __post_init__(self) -> None:
        self.host = self.host or f"{self.service}.{self.region}.tencentcloudapi.com"

    def __call__(self, action: str, params: Mapping[str, Any]) -> Mapping[str, Any]:
        keys = self.credentials.get()
        timestamp = int(self.clock())
        payload = json.dumps(params, separators=(",", ":")).encode()
        headers = {
            "Authorization": tc3_authorization(
                secret_id=keys.secret_id,
                secret_key=keys.secret_key,
                service=self.service,
                host=self.host,
                content_type=JSON_CONTENT_TYPE,
                payload=payload,
                timestamp=timestamp,
            ),
            "Content-Type": JSON_CONTENT_TYPE,
            "X-TC-Action": action,
            "X-TC-Version": self.version,
            "X-TC-Timestamp": str(timestamp),
            "X-TC-Region": self.region,
        }
        if keys.token:
            headers["X-TC-Token"] = keys.token
        status, _, body = self.transport("POST", f"https://{self.host}/", headers, payload, self.timeout_s)
        return _json_answer(status, body, f"{self.service} {action}")


def _json_answer(status: int, body: bytes, what: str) -> dict[str, Any]:
    """The JSON object an API answered; a TencentError naming the call when it answered something else."""
    try:
        answer = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError):
        answer = None
    if not isinstance(answer, dict):
        raise TencentError(f"HTTP {status}", f"{what}: the answer is not JSON")
    return answer


# --- TDMQ for CMQ data flow: the legacy Signature parameter ------------------------------------------

CMQ_PATH = "/v2/index.php"
CMQ_PRIVATE_ENDPOINT = "http://{code}.mqadapter.cmq.tencentyun.com"
# The short region codes of the data-flow endpoints: CMQ_REGION_CODES, kept with the spec's Tencent
# Cloud limits (the spec refuses a reference worker in a region without one, unless it names the
# endpoint).
# Seconds the HTTP exchange may take beyond the long poll's own wait.
CMQ_TIMEOUT_MARGIN_S = 10.0


def cmq_endpoint(region: str) -> str | None:
    """The private data-flow endpoint for an API 3.0 region, or None for a region without a known code."""
    code = CMQ_REGION_CODES.get(region)
    return CMQ_PRIVATE_ENDPOINT.format(code=code) if code else None


def cmq_signature(
    *, secret_key: str, host: str, path: str, params: Mapping[str, Any], method: str = "HmacSHA256"
) -> str:
    """The ``Signature`` of a POST: base64 HMAC over ``POST<host><path>?k=v&...`` with the parameters
    sorted by name, their values unencoded (an ``_`` in a name counts as ``.``)."""
    query = "&".join(f"{name.replace('_', '.')}={params[name]}" for name in sorted(params))
    digest = hashlib.sha256 if method == "HmacSHA256" else hashlib.sha1
    mac = hmac.new(secret_key.encode(), f"POST{host}{path}?{query}".encode(), digest)
    return base64.b64encode(mac.digest()).decode()


def _nonce() -> int:
    return secrets.randbelow(2**31 - 1) + 1


@dataclass
class CmqClient:
    """``cmq(action, params)``: one data-flow request, answering its JSON (``code`` 0 on success).
    ``region_code`` None sends no ``Region`` (the endpoint's host names the region). The long poll's
    ``pollingWaitSeconds`` is added to the HTTP timeout."""

    endpoint: str
    credentials: CredentialSource
    region_code: str | None = None
    transport: Transport = urllib_transport
    clock: Callable[[], float] = time.time
    nonce: Callable[[], int] = _nonce
    signature_method: str = "HmacSHA256"
    timeout_s: float = CMQ_TIMEOUT_MARGIN_S

    def __call__(self, action: str, params: Mapping[str, Any]) -> Mapping[str, Any]:
        parsed = urllib.parse.urlsplit(self.endpoint)
        path = parsed.path.rstrip("/") or CMQ_PATH
        keys = self.credentials.get()
        signed: dict[str, Any] = {
            **params,
            "Action": action,
            "SecretId": keys.secret_id,
            "Nonce": self.nonce(),
            "Timestamp": int(self.clock()),
            "SignatureMethod": self.signature_method,
        }
        if self.region_code:
            signed["Region"] = self.region_code
        if keys.token:
            signed["Token"] = keys.token
        signed["Signature"] = cmq_signature(
            secret_key=keys.secret_key,
            host=parsed.netloc,
            path=path,
            params=signed,
            method=self.signature_method,
        )
        body = urllib.parse.urlencode(signed).encode()
        headers = {"Content-Type": "application/x-www-form-urlencoded"}
        timeout = self.timeout_s + float(params.get("pollingWaitSeconds", 0))
        url = f"{parsed.scheme}://{parsed.netloc}{path}"
        status, _, answered = self.transport("POST", url, headers, body, timeout)
        return _json_answer(status, answered, f"CMQ {action}")


# --- COS: the q-sign-algorithm=sha1 Authorization --------------------------------------------------

COS_HOST = "{bucket}.cos.{region}.myqcloud.com"
# UrlEncode of the signature: everything but the unreserved characters.
_COS_SAFE = "-_.~"


def _cos_pairs(items: Mapping[str, str]) -> tuple[str, str]:
    encoded = sorted(
        (urllib.parse.quote(k, safe=_COS_SAFE).lower(), urllib.parse.quote(v, safe=_COS_SAFE))
        for k, v in items.items()
    )
    return ";".join(k for k, _ in encoded), "&".join(f"{k}={v}" for k, v in encoded)


def cos_authorization(
    *,
    secret_id: str,
    secret_key: str,
    method: str,
    path: str,
    params: Mapping[str, str],
    headers: Mapping[str, str],
    key_time: str,
) -> str:
    """The ``Authorization`` of a COS request: ``path`` is the object's path unencoded (``/key``),
    ``key_time`` ``start;end`` in Unix seconds."""
    sign_key = hmac.new(secret_key.encode(), key_time.encode(), hashlib.sha1).hexdigest()
    param_list, http_parameters = _cos_pairs(params)
    header_list, http_headers = _cos_pairs(headers)
    http_string = f"{method.lower()}\n{path}\n{http_parameters}\n{http_headers}\n"
    to_sign = f"sha1\n{key_time}\n{hashlib.sha1(http_string.encode()).hexdigest()}\n"
    signature = hmac.new(sign_key.encode(), to_sign.encode(), hashlib.sha1).hexdigest()
    return (
        f"q-sign-algorithm=sha1&q-ak={secret_id}&q-sign-time={key_time}&q-key-time={key_time}"
        f"&q-header-list={header_list}&q-url-param-list={param_list}&q-signature={signature}"
    )


def _cos_error(status: int, body: bytes) -> TencentError:
    text = body.decode(errors="replace")
    code = re.search(r"<Code>([^<]*)</Code>", text)
    message = re.search(r"<Message>([^<]*)</Message>", text)
    return TencentError(code.group(1) if code else f"HTTP {status}", message.group(1) if message else "")


@dataclass
class CosUploader:
    """``upload_file(Bucket=, Key=, LocalFilePath=)``, the call :class:`~gpufleet.worker.tencentcloud.
    CosCheckpoints` makes: one PUT Object, the file streamed from disk with its ``Content-MD5`` (COS
    refuses a body that does not match it). ``Bucket`` is the full name (``name-APPID``). A refused
    upload raises :class:`TencentError` with COS's error code; a file over PUT Object's 5 GB limit
    raises ValueError before anything is sent (it would need a multipart upload)."""

    region: str
    credentials: CredentialSource
    transport: Transport = urllib_transport
    clock: Callable[[], float] = time.time
    timeout_s: float = 60.0
    # The signature's validity: from a minute before now (clock skew) to an hour after.
    valid_s: int = 3600

    def upload_file(self, Bucket: str, Key: str, LocalFilePath: str) -> None:
        local = Path(LocalFilePath)
        size = local.stat().st_size
        if size > PUT_OBJECT_MAX_BYTES:
            raise ValueError(f"{local} is {size} bytes: PUT Object takes at most 5 GB")
        keys = self.credentials.get()
        host = COS_HOST.format(bucket=Bucket, region=self.region)
        key = Key.lstrip("/")
        now = int(self.clock())
        headers = {
            "Content-Length": str(size),
            "Content-MD5": content_md5(local),
            "Content-Type": "application/octet-stream",
            "Host": host,
        }
        if keys.token:
            headers["x-cos-security-token"] = keys.token
        headers["Authorization"] = cos_authorization(
            secret_id=keys.secret_id,
            secret_key=keys.secret_key,
            method="PUT",
            path=f"/{key}",
            params={},
            headers=headers,
            key_time=f"{now - 60};{now + self.valid_s}",
        )
        url = f"https://{host}/{urllib.parse.quote(key, safe='/' + _COS_SAFE)}"
        with local.open("rb") as stream:
            status, _, body = self.transport("PUT", url, headers, stream, self.timeout_s)
        if status != 200:
            raise _cos_error(status, body)

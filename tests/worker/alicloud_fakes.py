"""Fakes for the Alibaba Cloud wiring's tests (``test_wiring_alicloud.py``): a transport that records
requests and plays answers, ECS metadata's RAM role endpoints, and :class:`FakeAlibaba`, one transport
that answers as ECS metadata (hardened mode), ESS, MNS and OSS do and refuses any request whose
signature is not the one the keys it handed out give."""

from __future__ import annotations

import base64
import hashlib
import json
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, BinaryIO

from gpufleet.worker.alicloud_http import (
    header_signature,
    header_string_to_sign,
    iso_timestamp,
    rpc_signature,
)
from tests.worker.fakes import FakeClock

NOW = 1767225600.0  # 2026-01-01T00:00:00Z, the wall clock that signs every request
GROUP, INSTANCE, HOOK_ID, ACCOUNT = "asg-bp1", "i-bp1gpu", "ash-bp1drain", "1234567890"


@dataclass
class Sent:
    method: str
    url: str
    headers: dict[str, str]
    body: bytes | None
    streamed: bool
    timeout_s: float

    @property
    def query(self) -> dict[str, str]:
        return dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(self.url).query, keep_blank_values=True))


@dataclass
class Recorder:
    answers: list[tuple[int, bytes]] = field(default_factory=list)
    sent: list[Sent] = field(default_factory=list)

    def __call__(
        self,
        method: str,
        url: str,
        headers: Mapping[str, str],
        body: bytes | BinaryIO | None,
        timeout_s: float,
    ) -> tuple[int, Mapping[str, str], bytes]:
        streamed = body is not None and not isinstance(body, bytes)
        data = body.read() if body is not None and not isinstance(body, bytes) else body
        self.sent.append(Sent(method, url, dict(headers), data, streamed, timeout_s))
        status, answer = self.answers.pop(0)
        return status, {}, answer


class NoMetadata:
    def get(self, path: str) -> str | None:
        raise AssertionError(f"metadata read ({path}) although the environment has keys")


@dataclass
class RoleMetadata:
    """ECS metadata's RAM role endpoints; each read of the role's keys hands out the next pair."""

    expiration: str = "2026-01-01T06:00:00Z"
    code: str = "Success"
    fail: bool = False
    reads: list[str] = field(default_factory=list)

    def get(self, path: str) -> str | None:
        self.reads.append(path)
        if self.fail:
            raise OSError("the metadata service answered HTTP 500")
        if path == "latest/meta-data/ram/security-credentials/":
            return "gpu-pool-role"
        if path == "latest/meta-data/ram/security-credentials/gpu-pool-role":
            n = sum(1 for p in self.reads if p.endswith("/gpu-pool-role"))
            keys = {
                "AccessKeyId": f"STS.key{n}",
                "AccessKeySecret": f"secret{n}",
                "SecurityToken": f"token{n}",
                "Expiration": self.expiration,
                "LastUpdated": "2026-01-01T00:00:00Z",
                "Code": self.code,
            }
            return json.dumps(keys)
        return None


@dataclass
class FakeAlibaba:
    """ECS metadata (hardened mode), ESS, MNS and OSS as one transport. Every API request must carry a
    valid signature by the keys the metadata handed out, else it is refused as the service would."""

    clock: FakeClock
    visibility_s: int = 60
    state: str = "InService"
    protected: bool = False
    max_size: int = 4
    hooks: dict[str, str] = field(default_factory=lambda: {"gpufleet-drain": HOOK_ID})
    completed: list[dict[str, str]] = field(default_factory=list)
    messages: dict[str, dict[str, Any]] = field(default_factory=dict)
    objects: dict[str, bytes] = field(default_factory=dict)
    calls: list[tuple[str, str, dict[str, str]]] = field(default_factory=list)
    keys: dict[str, tuple[str, str]] = field(default_factory=dict)
    _n: int = 0

    def send(self, body: str) -> None:
        self._n += 1
        self.messages[f"msg-{self._n}"] = {"body": body, "handle": None, "visible_at": 0.0}

    def __call__(
        self,
        method: str,
        url: str,
        headers: Mapping[str, str],
        body: bytes | BinaryIO | None,
        timeout_s: float,
    ) -> tuple[int, Mapping[str, str], bytes]:
        split = urllib.parse.urlsplit(url)
        query = dict(urllib.parse.parse_qsl(split.query, keep_blank_values=True))
        data = body.read() if body is not None and not isinstance(body, bytes) else body
        if split.netloc == "100.100.100.200":
            return self._metadata(method, split.path, headers)
        if split.netloc == "ess-vpc.cn-hangzhou.aliyuncs.com":
            return self._ess(query)
        if split.netloc == f"{ACCOUNT}.mns.cn-hangzhou-internal.aliyuncs.com":
            assert timeout_s > int(query.get("waitseconds", "0"))
            return self._mns(method, split, query, headers)
        if split.netloc == "fleet-ckpt.oss-cn-hangzhou-internal.aliyuncs.com":
            return self._oss(split, headers, data)
        raise AssertionError(f"unexpected host {url}")

    def _metadata(
        self, method: str, path: str, headers: Mapping[str, str]
    ) -> tuple[int, Mapping[str, str], bytes]:
        if method == "PUT" and path == "/latest/api/token":
            assert "X-aliyun-ecs-metadata-token-ttl-seconds" in headers
            return 200, {}, b"md-token"
        if headers.get("X-aliyun-ecs-metadata-token") != "md-token":
            return 401, {}, b""
        self.calls.append(("metadata", path, {}))
        if path == "/latest/meta-data/ram/security-credentials/":
            return 200, {}, b"gpu-pool-role"
        if path == "/latest/meta-data/ram/security-credentials/gpu-pool-role":
            n = len(self.keys) + 1
            self.keys[f"STS.key{n}"] = (f"secret{n}", f"token{n}")
            keys = {
                "AccessKeyId": f"STS.key{n}",
                "AccessKeySecret": f"secret{n}",
                "SecurityToken": f"token{n}",
                "Expiration": "2026-01-01T06:00:00Z",
                "Code": "Success",
            }
            return 200, {}, json.dumps(keys).encode()
        values = {"/latest/meta-data/instance-id": INSTANCE, "/latest/meta-data/owner-account-id": ACCOUNT}
        return (200, {}, values[path].encode()) if path in values else (404, {}, b"")

    def _refused(self, code: str) -> tuple[int, Mapping[str, str], bytes]:
        return 403, {}, json.dumps({"Code": code, "Message": code}).encode()

    def _ess(self, query: dict[str, str]) -> tuple[int, Mapping[str, str], bytes]:
        signature = query.pop("Signature")
        secret, token = self.keys.get(query["AccessKeyId"], ("", ""))
        if signature != rpc_signature(secret, "GET", query) or query.get("SecurityToken") != token:
            return self._refused("SignatureDoesNotMatch")
        assert query["Timestamp"] == iso_timestamp(NOW) and query["Version"] == "2014-08-28"
        action = query["Action"]
        self.calls.append(("ess", action, query))
        answer = self._ess_answer(action, query)
        return 200, {}, json.dumps({"RequestId": "r", **answer}).encode()

    def _ess_answer(self, action: str, query: dict[str, str]) -> dict[str, Any]:
        # The instance and group ids in the adapter's flat form (InstanceIds.N) or the 2014-08-28
        # reference's (InstanceId.N).
        if action == "DescribeScalingInstances":
            assert query.get("InstanceId.1") == INSTANCE
            state = "Protected" if self.protected and self.state == "InService" else self.state
            instance = {"InstanceId": INSTANCE, "ScalingGroupId": GROUP, "LifecycleState": state}
            return {"ScalingInstances": {"ScalingInstance": [instance]}}
        if action == "DescribeScalingGroups":
            assert query.get("ScalingGroupId.1") == GROUP
            return {"ScalingGroups": {"ScalingGroup": [{"ScalingGroupId": GROUP, "MaxSize": self.max_size}]}}
        if action == "SetInstancesProtection":
            assert (query["ScalingGroupId"], query["InstanceId.1"]) == (GROUP, INSTANCE)
            self.protected = {"true": True, "false": False}[query["ProtectedFromScaleIn"]]
            return {}
        if action == "DescribeLifecycleHooks":
            assert query["ScalingGroupId"] == GROUP
            name = query["LifecycleHookName"]
            found = (
                [{"LifecycleHookId": self.hooks[name], "LifecycleHookName": name}]
                if name in self.hooks
                else []
            )
            return {"LifecycleHooks": {"LifecycleHook": found}}
        if action == "DescribeScalingActivities":
            running = self.state == "Removing:Wait" and query["StatusCode"] == "InProgress"
            return {
                "ScalingActivities": {"ScalingActivity": [{"ScalingActivityId": "asa-1"}] if running else []}
            }
        if action == "DescribeLifecycleActions":
            actions = [
                {
                    "LifecycleHookId": "ash-other",
                    "LifecycleActionToken": "tok-other",
                    "InstanceIds": [INSTANCE],
                },
                {
                    "LifecycleHookId": HOOK_ID,
                    "LifecycleActionToken": "tok-1",
                    "InstanceIds": {"InstanceId": [INSTANCE]},
                },
            ]
            return {"LifecycleActions": {"LifecycleAction": actions}}
        if action == "CompleteLifecycleAction":
            self.completed.append(
                {k: query[k] for k in ("LifecycleHookId", "LifecycleActionToken", "LifecycleActionResult")}
            )
            return {}
        raise AssertionError(f"unexpected ESS call {action}")

    def _signed(
        self, method: str, split: urllib.parse.SplitResult, headers: Mapping[str, str], prefix: str, kind: str
    ) -> bool:
        scheme, credential = headers["Authorization"].split(" ", 1)
        key_id, signature = credential.split(":", 1)
        secret, token = self.keys.get(key_id, ("", ""))
        if kind == "mns":
            resource = f"{split.path}?{split.query}" if split.query else split.path
            carried = headers.get("security-token")
        else:
            resource = f"/fleet-ckpt{urllib.parse.unquote(split.path)}"
            carried = headers.get("x-oss-security-token")
        string_to_sign = header_string_to_sign(
            method,
            headers["Date"],
            headers,
            resource,
            prefix=prefix,
            content_md5=headers.get("Content-MD5", ""),
            content_type=headers.get("Content-Type", ""),
        )
        return (
            scheme == kind.upper()
            and carried == token
            and signature == header_signature(secret, string_to_sign)
        )

    def _mns_error(self, status: int, code: str) -> tuple[int, Mapping[str, str], bytes]:
        return (
            status,
            {},
            f'<Error xmlns="http://mns.aliyuncs.com/doc/v1/"><Code>{code}</Code></Error>'.encode(),
        )

    def _mns(
        self, method: str, split: urllib.parse.SplitResult, query: dict[str, str], headers: Mapping[str, str]
    ) -> tuple[int, Mapping[str, str], bytes]:
        if not self._signed(method, split, headers, "x-mns-", "mns"):
            return self._mns_error(403, "SignatureDoesNotMatch")
        assert split.path == "/queues/gpu-jobs/messages" and headers["x-mns-version"] == "2015-06-06"
        self.calls.append(("mns", method, query))
        now = self.clock.now()
        if method == "GET":
            for message_id, message in self.messages.items():
                if message["visible_at"] <= now:
                    message["handle"] = f"{message_id}+h/{len(self.calls)}="
                    message["visible_at"] = now + self.visibility_s
                    handle = message["handle"]
                    fields = f"<MessageId>{message_id}</MessageId><ReceiptHandle>{handle}</ReceiptHandle>"
                    return (
                        200,
                        {},
                        f"<Message>{fields}<MessageBody>{message['body']}</MessageBody></Message>".encode(),
                    )
            return self._mns_error(404, "MessageNotExist")
        handle = query.get("receiptHandle") or query["ReceiptHandle"]
        found = [(i, m) for i, m in self.messages.items() if m["handle"] == handle and now < m["visible_at"]]
        if not found:
            return self._mns_error(404, "MessageNotExist")
        message_id, message = found[0]
        if method == "DELETE":
            del self.messages[message_id]
            return 204, {}, b""
        message["handle"] = f"{message_id}+h/{len(self.calls)}="
        message["visible_at"] = now + int(query["visibilityTimeout"])
        return (
            200,
            {},
            f"<ChangeVisibility><ReceiptHandle>{message['handle']}</ReceiptHandle></ChangeVisibility>".encode(),
        )

    def _oss(
        self, split: urllib.parse.SplitResult, headers: Mapping[str, str], data: bytes | None
    ) -> tuple[int, Mapping[str, str], bytes]:
        if not self._signed("PUT", split, headers, "x-oss-", "oss"):
            return 403, {}, b"<Error><Code>SignatureDoesNotMatch</Code></Error>"
        assert data is not None and int(headers["Content-Length"]) == len(data)
        if headers.get("Content-MD5") != base64.b64encode(hashlib.md5(data).digest()).decode():
            return 400, {}, b"<Error><Code>InvalidDigest</Code></Error>"
        self.objects[urllib.parse.unquote(split.path.lstrip("/"))] = data
        return 200, {}, b""

    def receivable(self) -> int:
        return sum(1 for m in self.messages.values() if m["visible_at"] <= self.clock.now())

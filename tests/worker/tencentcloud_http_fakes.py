"""HTTP-level stand-ins for Tencent Cloud: a recording transport, the CVM metadata service (instance
id, spot notice, the CAM role's temporary keys), CMQ, AS and COS endpoints that refuse a request not
signed with the keys the metadata handed out, as the real APIs would, and a loopback HTTP server for
the real transport."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import threading
import urllib.parse
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, BinaryIO

from gpufleet.worker.core import Settings, Worker
from gpufleet.worker.entry import Config
from gpufleet.worker.tencentcloud_http import (
    Credentials,
    StaticCredentials,
    cmq_signature,
    cos_authorization,
    tc3_authorization,
)
from gpufleet.worker.wiring import tencentcloud as wiring
from tests.worker.fakes import FakeClock, ScriptedProcess, ScriptedRunner

# Keys that sign the tests' own requests (no published example), and the published example's time.
STATIC = StaticCredentials(Credentials("AKIDexample", "secret"))
SIGNED_AT = 1551113065.0

REGION = "ap-guangzhou"
GROUP = "asg-gpu1"
HOOK = "ash-drain1"
INSTANCE = "ins-gpu1"
BUCKET = "fleet-ckpt-1250000000"
ROLE = "gpufleet-worker"
EPOCH = 1_700_000_000.0
JOB = json.dumps({"command": ["python", "train.py"], "checkpoint": "runs/5/"})
METADATA = "http://metadata.tencentyun.com/"


@dataclass
class Sent:
    method: str
    url: str
    headers: dict[str, str]
    body: bytes
    timeout_s: float

    def form(self) -> dict[str, str]:
        return dict(urllib.parse.parse_qsl(self.body.decode(), keep_blank_values=True))


Answer = tuple[int, Mapping[str, str], bytes]


@dataclass
class Recorder:
    """A transport that records each request (a streamed body read whole) and answers it."""

    answer: Callable[[Sent], Answer]
    sent: list[Sent] = field(default_factory=list)

    def __call__(
        self,
        method: str,
        url: str,
        headers: Mapping[str, str],
        body: bytes | BinaryIO | None,
        timeout_s: float,
    ) -> Answer:
        data = body if isinstance(body, bytes) else (b"" if body is None else body.read())
        request = Sent(method, url, dict(headers), data, timeout_s)
        self.sent.append(request)
        return self.answer(request)


def ok_json(payload: Mapping[str, Any]) -> Answer:
    return 200, {"Content-Type": "application/json"}, json.dumps(payload).encode()


@dataclass
class FakeMetadata:
    """CVM metadata: the instance id, a spot notice (404 without one) and the CAM role's keys, each
    fetch handing out a new key pair that expires ``lifetime_s`` after the clock's now."""

    clock: Callable[[], float]
    role: str | None = ROLE
    lifetime_s: float = 7200.0
    spot: str | None = None
    code: str = "Success"
    down: bool = False
    fetches: int = 0
    paths: list[str] = field(default_factory=list)

    def keys(self, n: int) -> tuple[str, str, str]:
        return f"AKIDtmp{n}", f"tmp-secret-{n}", f"token-{n}"

    def __call__(
        self, method: str, url: str, headers: Mapping[str, str], timeout_s: float
    ) -> tuple[int, str]:
        assert method == "GET" and url.startswith(METADATA)
        path = url.removeprefix(METADATA)
        self.paths.append(path)
        if self.down:
            raise OSError("metadata unreachable")
        if path == "latest/meta-data/instance-id":
            return 200, INSTANCE
        if path == "latest/meta-data/spot/termination-time":
            return (404, "") if self.spot is None else (200, self.spot)
        if path == "latest/meta-data/cam/security-credentials/":
            return (404, "") if self.role is None else (200, self.role)
        if self.role is not None and path == f"latest/meta-data/cam/security-credentials/{self.role}":
            self.fetches += 1
            secret_id, secret_key, token = self.keys(self.fetches)
            expires = int(self.clock() + self.lifetime_s)
            answer = {
                "TmpSecretId": secret_id,
                "TmpSecretKey": secret_key,
                "ExpiredTime": expires,
                "Expiration": "2023-11-14T22:13:20Z",
                "Token": token,
                "Code": self.code,
            }
            return 200, json.dumps(answer)
        return 404, ""


def config(**changes: Any) -> Config:
    values: dict[str, Any] = {
        "cloud": "tencentcloud",
        "region": REGION,
        "queue_name": "jobs",
        "queue_url": None,
        "group": GROUP,
        "hook": HOOK,
        "bucket": BUCKET,
        "checkpoint_root": "checkpoints/",
        "settings": Settings(checkpoint_dir=Path("/nonexistent")),
        "visibility_s": None,
    }
    values.update(changes)
    return Config(**values)


@dataclass
class FakeTencentCloud:
    """CMQ, AS and COS behind one transport, each refusing a request not signed with the CAM role's
    current keys (the metadata's latest pair) as its API would: AS ``AuthFailure.SignatureFailure``,
    CMQ code 4100, COS 403 ``SignatureDoesNotMatch`` (and 400 ``BadDigest`` for a body that does not
    match its Content-MD5)."""

    clock: Callable[[], float]
    metadata: FakeMetadata
    state: str = "IN_SERVICE"
    protected: bool = False
    messages: dict[str, str] = field(default_factory=dict)
    handles: dict[str, str] = field(default_factory=dict)
    objects: dict[str, bytes] = field(default_factory=dict)
    completed: list[dict[str, Any]] = field(default_factory=list)
    calls: list[str] = field(default_factory=list)

    def _keys(self) -> tuple[str, str, str]:
        return self.metadata.keys(self.metadata.fetches)

    def __call__(
        self,
        method: str,
        url: str,
        headers: Mapping[str, str],
        body: bytes | BinaryIO | None,
        timeout_s: float,
    ) -> Answer:
        data = body if isinstance(body, bytes) else (b"" if body is None else body.read())
        host = urllib.parse.urlsplit(url).netloc
        if host == "as.ap-guangzhou.tencentcloudapi.com":
            return self._as(headers, data)
        if host == "gz.mqadapter.cmq.tencentyun.com":
            return self._cmq(dict(urllib.parse.parse_qsl(data.decode())))
        if host == f"{BUCKET}.cos.ap-guangzhou.myqcloud.com":
            return self._cos(url, headers, data)
        raise AssertionError(f"no endpoint {host}")

    def _as(self, headers: Mapping[str, str], data: bytes) -> Answer:
        secret_id, secret_key, token = self._keys()
        expected = tc3_authorization(
            secret_id=secret_id,
            secret_key=secret_key,
            service="as",
            host="as.ap-guangzhou.tencentcloudapi.com",
            content_type=headers["Content-Type"],
            payload=data,
            timestamp=int(headers["X-TC-Timestamp"]),
        )
        if headers["Authorization"] != expected or headers.get("X-TC-Token") != token:
            return ok_json({"Response": {"Error": {"Code": "AuthFailure.SignatureFailure", "Message": "no"}}})
        action, params = headers["X-TC-Action"], json.loads(data)
        self.calls.append(action)
        if action == "DescribeAutoScalingInstances":
            described = {"InstanceId": INSTANCE, "AutoScalingGroupId": GROUP, "LifeCycleState": self.state}
            return ok_json({"Response": {"AutoScalingInstanceSet": [described], "TotalCount": 1}})
        if action == "DescribeAutoScalingGroups":
            return ok_json(
                {"Response": {"AutoScalingGroupSet": [{"AutoScalingGroupId": GROUP, "MaxSize": 4}]}}
            )
        if action == "SetInstancesProtection":
            assert params == {
                "AutoScalingGroupId": GROUP,
                "InstanceIds": [INSTANCE],
                "ProtectedFromScaleIn": params["ProtectedFromScaleIn"],
            }
            self.protected = params["ProtectedFromScaleIn"]
        elif action == "DescribeLifecycleHooks":
            filters = {f["Name"]: f["Values"] for f in params["Filters"]}
            assert filters["auto-scaling-group-id"] == [GROUP]
            hooks = [{"LifecycleHookId": HOOK, "LifecycleHookName": "gpufleet-drain"}]
            named = [h for h in hooks if [h["LifecycleHookName"]] == filters["lifecycle-hook-name"]]
            return ok_json({"Response": {"LifecycleHookSet": named, "TotalCount": len(named)}})
        elif action == "CompleteLifecycleAction":
            self.completed.append(params)
        else:
            raise AssertionError(f"an AS call the worker does not make: {action}")
        return ok_json({"Response": {"RequestId": "r"}})

    def _cmq(self, form: dict[str, str]) -> Answer:
        secret_id, secret_key, token = self._keys()
        params = {k: v for k, v in form.items() if k != "Signature"}
        expected = cmq_signature(
            secret_key=secret_key, host="gz.mqadapter.cmq.tencentyun.com", path="/v2/index.php", params=params
        )
        if form["Signature"] != expected or form["SecretId"] != secret_id or form.get("Token") != token:
            return ok_json({"code": 4100, "message": "(100004)authentication failed"})
        assert form["queueName"] == "jobs" and form["Region"] == "gz"
        self.calls.append(form["Action"])
        if form["Action"] == "ReceiveMessage":
            for message_id, body in self.messages.items():
                if message_id not in self.handles:
                    self.handles[message_id] = f"handle-{message_id}"
                    return ok_json(
                        {
                            "code": 0,
                            "msgId": message_id,
                            "receiptHandle": self.handles[message_id],
                            "msgBody": body,
                        }
                    )
            return ok_json({"code": 7000, "message": "(10200)no message"})
        assert form["Action"] == "DeleteMessage", form["Action"]
        for message_id, handle in list(self.handles.items()):
            if handle == form["receiptHandle"]:
                del self.messages[message_id], self.handles[message_id]
                return ok_json({"code": 0, "message": ""})
        return ok_json({"code": 4440, "message": "invalid receiptHandle"})

    def _cos(self, url: str, headers: Mapping[str, str], data: bytes) -> Answer:
        secret_id, secret_key, token = self._keys()
        path = urllib.parse.unquote(urllib.parse.urlsplit(url).path)
        signed = {k: v for k, v in headers.items() if k != "Authorization"}
        key_time = headers["Authorization"].split("&q-key-time=")[1].split("&")[0]
        start, end = (int(t) for t in key_time.split(";"))
        expected = cos_authorization(
            secret_id=secret_id,
            secret_key=secret_key,
            method="PUT",
            path=path,
            params={},
            headers=signed,
            key_time=key_time,
        )
        if (
            headers["Authorization"] != expected
            or headers.get("x-cos-security-token") != token
            or not start <= self.clock() <= end
        ):
            return 403, {}, b"<Error><Code>SignatureDoesNotMatch</Code><Message>no</Message></Error>"
        assert int(headers["Content-Length"]) == len(data)
        if headers.get("Content-MD5") != base64.b64encode(hashlib.md5(data).digest()).decode():
            return 400, {}, b"<Error><Code>BadDigest</Code><Message>no</Message></Error>"
        self.objects[path.lstrip("/")] = data
        return 200, {"ETag": '"e"'}, b""


@dataclass
class Site:
    clock: FakeClock
    metadata: FakeMetadata
    cloud: FakeTencentCloud
    runner: ScriptedRunner
    worker: Worker


def site(
    tmp_path: Path,
    *,
    ends_at: float,
    key_lifetime_s: float = 7200.0,
    hook: str = HOOK,
    visibility_s: int | None = None,
) -> Site:
    clock = FakeClock()
    wall = lambda: EPOCH + clock.now()  # noqa: E731 - the worker's clock, as Unix time for signatures
    metadata = FakeMetadata(wall, lifetime_s=key_lifetime_s)
    cloud = FakeTencentCloud(wall, metadata)
    queue, instance, checkpoints = wiring.parts(
        config(group=None, hook=hook, visibility_s=visibility_s),
        env={},
        transport=cloud,
        metadata_http=metadata,
        clock=wall,
    )
    runner = ScriptedRunner(clock, lambda c, env: ScriptedProcess(c, ends_at=ends_at))
    worker = Worker(
        queue=queue,
        instance=instance,
        checkpoints=checkpoints,
        settings=Settings(checkpoint_dir=tmp_path / "ckpt", poll_s=1.0, notice_s=5.0, grace_s=30.0),
        runner=runner,
        clock=clock,
    )
    return Site(clock, metadata, cloud, runner, worker)


Received = tuple[str, str, dict[str, str], bytes]


@contextlib.contextmanager
def loopback_server() -> Iterator[tuple[str, list[Received]]]:
    """A PUT-only HTTP server on 127.0.0.1 for the real transport: it records each request (header
    names lowercased) and answers ``/denied`` with a COS-style 403."""
    received: list[Received] = []

    class Handler(BaseHTTPRequestHandler):
        def do_PUT(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            headers = {name.lower(): value for name, value in self.headers.items()}
            received.append(("PUT", self.path, headers, body))
            answer = b"<Error><Code>AccessDenied</Code></Error>" if self.path == "/denied" else b"ok"
            self.send_response(403 if self.path == "/denied" else 200)
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, format: str, *args: Any) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", received
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)

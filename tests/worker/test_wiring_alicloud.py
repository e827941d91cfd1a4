"""``python -m gpufleet.worker --cloud alicloud`` without an Alibaba SDK: the signatures against the
examples Alibaba Cloud publishes, the exact requests the adapters' calls become, the credentials of the
instance's RAM role, and a whole job on an HTTP-level fake of ECS metadata, ESS, MNS and OSS that checks
every signature it receives.

Published examples reproduced here:

- RPC signature V2, DescribeRegions, secret ``testsecret``: ``OLeaidS1JvxuMvnyHOwuJ+uX5qY=``
  (the "Request signature" topic of Alibaba Cloud's RPC API references; the V2 algorithm:
  https://www.alibabacloud.com/help/en/sdk/product-overview/rpc-mechanism), and
  ESS's own DescribeScalingGroups example: ``SmhZuLUnXmqxSEZ%2FGqyiwGqmf%2BM%3D`` once URL-encoded
  (AlibabaCloudDocs/ess, cn.zh-CN/API参考/签名机制.md).
- MNS, ``GET /MyQueue``, secret ``TestAccessSecret``: ``uwx3yeWoILzgmvesW0BQSgfM****`` (the page masks
  the last four characters; https://www.alibabacloud.com/help/en/mns/support/how-do-i-obtain-the-signature-string-of-an-api-request).
- OSS V1, ``PUT /oss-example/nelson``: ``26NBxoKdsyly4EDv6inkoDft/yA=`` over the string to sign the
  page's sample code signs (its request table shows a different Content-MD5 than its code signs;
  https://www.alibabacloud.com/help/en/oss/developer-reference/include-signatures-in-the-authorization-header).
"""

from __future__ import annotations

import base64
import hashlib
import json
import urllib.parse
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from gpufleet.components.clouds import cloud_parts
from gpufleet.worker.alicloud import EssInstance, MnsError, MnsQueue, OssCheckpoints
from gpufleet.worker.alicloud_http import (
    CredentialSource,
    MnsClient,
    OssError,
    OssUploader,
    RpcClient,
    RpcError,
    canonical_query,
    header_signature,
    header_string_to_sign,
    http_date,
    percent_encode,
    rpc_signature,
    rpc_string_to_sign,
)
from gpufleet.worker.core import Message, Outcome, Settings, Worker
from gpufleet.worker.entry import Config, ConfigError, NoCheckpoints
from gpufleet.worker.http import PUT_OBJECT_MAX_BYTES
from gpufleet.worker.wiring.alicloud import parts
from tests.worker.alicloud_fakes import (
    HOOK_ID,
    NOW,
    FakeAlibaba,
    NoMetadata,
    Recorder,
    RoleMetadata,
    Sent,
)
from tests.worker.fakes import FakeClock, ScriptedProcess, ScriptedRunner

STATIC = {"ALIBABA_CLOUD_ACCESS_KEY_ID": "LTAIstatic", "ALIBABA_CLOUD_ACCESS_KEY_SECRET": "static-secret"}
HANDLE = "MbZj6wDWli+QEauMZc8ZRv37sIW2iJKq3M9Mx/KSbkJ0"  # MNS's documented receipt-handle example
JOB = json.dumps({"command": ["python", "train.py"], "checkpoint": "runs/9/"})


def wall() -> float:
    return NOW


# Published signature examples -------------------------------------------------------------------------


def test_rpc_signature_is_the_published_describe_regions_example() -> None:
    params = {
        "Timestamp": "2016-02-23T12:46:24Z",
        "Format": "XML",
        "AccessKeyId": "testid",
        "Action": "DescribeRegions",
        "SignatureMethod": "HMAC-SHA1",
        "SignatureNonce": "3ee8c1b8-83d3-44af-a94f-4e0ad82fd6cf",
        "Version": "2014-05-26",
        "SignatureVersion": "1.0",
    }
    assert rpc_string_to_sign("GET", params) == (
        "GET&%2F&AccessKeyId%3Dtestid%26Action%3DDescribeRegions%26Format%3DXML"
        "%26SignatureMethod%3DHMAC-SHA1%26SignatureNonce%3D3ee8c1b8-83d3-44af-a94f-4e0ad82fd6cf"
        "%26SignatureVersion%3D1.0%26Timestamp%3D2016-02-23T12%253A46%253A24Z%26Version%3D2014-05-26"
    )
    assert rpc_signature("testsecret", "GET", params) == "OLeaidS1JvxuMvnyHOwuJ+uX5qY="


def test_rpc_signature_is_the_published_ess_example() -> None:
    params = {
        "TimeStamp": "2014-08-15T11:10:07Z",
        "Format": "xml",
        "AccessKeyId": "testid",
        "Action": "DescribeScalingGroups",
        "SignatureMethod": "HMAC-SHA1",
        "RegionId": "cn-qingdao",
        "SignatureNonce": "1324fd0e-e2bb-4bb1-917c-bd6e437f1710",
        "SignatureVersion": "1.0",
        "Version": "2014-08-28",
    }
    assert canonical_query(params) == (
        "AccessKeyId=testid&Action=DescribeScalingGroups&Format=xml&RegionId=cn-qingdao"
        "&SignatureMethod=HMAC-SHA1&SignatureNonce=1324fd0e-e2bb-4bb1-917c-bd6e437f1710"
        "&SignatureVersion=1.0&TimeStamp=2014-08-15T11%3A10%3A07Z&Version=2014-08-28"
    )
    signature = rpc_signature("testsecret", "GET", params)
    assert percent_encode(signature) == "SmhZuLUnXmqxSEZ%2FGqyiwGqmf%2BM%3D"


def test_percent_encoding_keeps_only_the_unreserved_characters() -> None:
    assert percent_encode("a b*c~d/é:+-_.") == "a%20b%2Ac~d%2F%C3%A9%3A%2B-_."


def test_mns_signature_is_the_published_example() -> None:
    date = http_date(1436410894)
    assert date == "Thu, 09 Jul 2015 03:01:34 GMT"
    string_to_sign = header_string_to_sign(
        "GET", date, {"x-mns-version": "2015-06-06"}, "/MyQueue", prefix="x-mns-"
    )
    assert string_to_sign == "GET\n\n\nThu, 09 Jul 2015 03:01:34 GMT\nx-mns-version:2015-06-06\n/MyQueue"
    signature = header_signature("TestAccessSecret", string_to_sign)
    assert signature.startswith("uwx3yeWoILzgmvesW0BQSgfM") and len(signature) == len(
        "uwx3yeWoILzgmvesW0BQSgfM****"
    )


def test_oss_signature_is_the_published_example() -> None:
    date = http_date(1132253398)
    headers = {"X-OSS-Meta-Author": "foo@bar.com", "X-OSS-Magic": "abracadabra", "Host": "oss-example.oss.x"}
    string_to_sign = header_string_to_sign(
        "PUT",
        date,
        headers,
        "/oss-example/nelson",
        prefix="x-oss-",
        content_md5="ODBGOERFMDMzQTczRUY3NUE3NzA5QzdFNUYzMDQxNEM=",
        content_type="text/html",
    )
    assert string_to_sign == (
        "PUT\nODBGOERFMDMzQTczRUY3NUE3NzA5QzdFNUYzMDQxNEM=\ntext/html\nThu, 17 Nov 2005 18:49:58 GMT\n"
        "x-oss-magic:abracadabra\nx-oss-meta-author:foo@bar.com\n/oss-example/nelson"
    )
    assert (
        header_signature("OtxrzxIsfpFjA7SwPzILwy8Bw21TLhquhboDYROV", string_to_sign)
        == "26NBxoKdsyly4EDv6inkoDft/yA="
    )


# ESS RPC ----------------------------------------------------------------------------------------------


def rpc(recorder: Recorder, env: Mapping[str, str] = STATIC, metadata: Any = None) -> RpcClient:
    credentials = CredentialSource(metadata or NoMetadata(), env, clock=wall)
    return RpcClient(
        "ess-vpc.cn-hangzhou.aliyuncs.com", "2014-08-28", credentials, recorder, wall, lambda: "nonce-1"
    )


def test_an_ess_call_is_one_signed_get_with_the_common_parameters() -> None:
    recorder = Recorder([(200, b'{"RequestId": "r-1"}')])
    answer = rpc(recorder)(
        "SetInstancesProtection",
        {
            "RegionId": "cn-hangzhou",
            "ScalingGroupId": "asg-1",
            "InstanceId.1": "i-1",
            "ProtectedFromScaleIn": True,
        },
    )
    assert answer == {"RequestId": "r-1"}
    (sent,) = recorder.sent
    split = urllib.parse.urlsplit(sent.url)
    assert (sent.method, split.scheme, split.netloc, split.path, sent.body) == (
        "GET",
        "https",
        "ess-vpc.cn-hangzhou.aliyuncs.com",
        "/",
        None,
    )
    expected = {
        "Action": "SetInstancesProtection",
        "Format": "JSON",
        "Version": "2014-08-28",
        "AccessKeyId": "LTAIstatic",
        "SignatureMethod": "HMAC-SHA1",
        "SignatureVersion": "1.0",
        "SignatureNonce": "nonce-1",
        "Timestamp": "2026-01-01T00:00:00Z",
        "RegionId": "cn-hangzhou",
        "ScalingGroupId": "asg-1",
        "InstanceId.1": "i-1",
        "ProtectedFromScaleIn": "true",
    }
    query = sent.query
    signature = query.pop("Signature")
    assert query == expected
    assert signature == rpc_signature("static-secret", "GET", expected)
    assert split.query == canonical_query({**expected, "Signature": signature})
    assert "Timestamp=2026-01-01T00%3A00%3A00Z" in split.query


def test_an_ess_call_with_sts_keys_carries_the_security_token() -> None:
    recorder = Recorder([(200, b"{}")])
    rpc(recorder, env={}, metadata=RoleMetadata())("DescribeScalingGroups", {"RegionId": "cn-hangzhou"})
    query = recorder.sent[0].query
    signature = query.pop("Signature")
    assert (query["AccessKeyId"], query["SecurityToken"]) == ("STS.key1", "token1")
    assert signature == rpc_signature("secret1", "GET", query)


@pytest.mark.parametrize(
    ("status", "body", "code"),
    [
        (
            403,
            b'{"Code": "Forbidden.Unauthorized", "Message": "no", "RequestId": "r-9"}',
            "Forbidden.Unauthorized",
        ),
        (400, b'{"Code": "Throttling", "Message": "slow down"}', "Throttling"),
        (502, b"<html>Bad Gateway</html>", "HTTP502"),
    ],
)
def test_an_ess_error_answer_raises_with_its_code(status: int, body: bytes, code: str) -> None:
    with pytest.raises(RpcError) as raised:
        rpc(Recorder([(status, body)]))("DescribeScalingInstances", {"RegionId": "cn-hangzhou"})
    assert (raised.value.code, raised.value.status) == (code, status)


# MNS --------------------------------------------------------------------------------------------------


def mns_queue(recorder: Recorder, env: Mapping[str, str] = STATIC, metadata: Any = None) -> MnsQueue:
    credentials = CredentialSource(metadata or NoMetadata(), env, clock=wall)
    client = MnsClient(lambda: "https://1234.mns.cn-hangzhou.aliyuncs.com", credentials, recorder, wall)
    return MnsQueue(client, "jobs", visibility_timeout_s=60)


def assert_mns_signed(sent: Sent, secret: str, key_id: str = "LTAIstatic") -> None:
    split = urllib.parse.urlsplit(sent.url)
    resource = f"{split.path}?{split.query}" if split.query else split.path
    date = http_date(NOW)
    assert (sent.headers["Date"], sent.headers["x-mns-version"]) == (date, "2015-06-06")
    string_to_sign = f"{sent.method}\n\n\n{date}\nx-mns-version:2015-06-06\n{resource}"
    assert sent.headers["Authorization"] == f"MNS {key_id}:{header_signature(secret, string_to_sign)}"


def test_mns_receive_change_and_delete_are_the_documented_requests() -> None:
    received = (
        '<?xml version="1.0" encoding="UTF-8"?><Message xmlns="http://mns.aliyuncs.com/doc/v1/">'
        f"<MessageId>5F29</MessageId><ReceiptHandle>{HANDLE}</ReceiptHandle>"
        f"<MessageBody>{JOB}</MessageBody><DequeueCount>1</DequeueCount></Message>"
    )
    changed = (
        "<ChangeVisibility><ReceiptHandle>new-handle</ReceiptHandle>"
        "<NextVisibleTime>1</NextVisibleTime></ChangeVisibility>"
    )
    recorder = Recorder([(200, received.encode()), (200, changed.encode()), (204, b"")])
    queue = mns_queue(recorder)
    message = queue.receive(20)
    assert message is not None and (message.id, message.receipt) == ("5F29", HANDLE)
    extended = queue.extend(message, 60)
    assert extended.receipt == "new-handle"
    queue.delete(extended)
    receive, change, delete = recorder.sent
    base = "https://1234.mns.cn-hangzhou.aliyuncs.com/queues/jobs/messages"
    assert (receive.method, receive.url) == ("GET", f"{base}?waitseconds=20")
    assert receive.timeout_s > 20, "the long poll must end before the socket's timeout"
    assert (change.method, change.url) == (
        "PUT",
        f"{base}?receiptHandle=MbZj6wDWli%2BQEauMZc8ZRv37sIW2iJKq3M9Mx%2FKSbkJ0&visibilityTimeout=60",
    )
    assert (delete.method, delete.url) == ("DELETE", f"{base}?ReceiptHandle=new-handle")
    for sent in recorder.sent:
        assert_mns_signed(sent, "static-secret")
        assert "security-token" not in sent.headers and sent.body is None


def test_mns_with_sts_keys_sends_the_security_token() -> None:
    recorder = Recorder([(204, b"")])
    queue = mns_queue(recorder, env={}, metadata=RoleMetadata())
    queue.mns("DELETE", "/queues/jobs/messages", {"ReceiptHandle": "h"})
    assert recorder.sent[0].headers["security-token"] == "token1"
    assert_mns_signed(recorder.sent[0], "secret1", key_id="STS.key1")


def test_mns_errors_raise_with_mns_code() -> None:
    empty = b'<Error xmlns="http://mns.aliyuncs.com/doc/v1/"><Code>MessageNotExist</Code><Message>none</Message></Error>'
    denied = b"<Error><Code>AccessDenied</Code><Message>no</Message><RequestId>r</RequestId></Error>"
    recorder = Recorder([(404, empty), (403, denied), (503, b"Service Unavailable")])
    queue = mns_queue(recorder)
    assert queue.receive(30) is None
    with pytest.raises(MnsError) as raised:
        queue.receive(30)
    assert raised.value.code == "AccessDenied"
    with pytest.raises(MnsError, match="HTTP503"):
        queue.receive(30)


# OSS --------------------------------------------------------------------------------------------------


def test_an_oss_upload_streams_the_file_with_a_v1_signature(tmp_path: Path) -> None:
    local = tmp_path / "model.pt"
    local.write_bytes(b"w" * 70_000)
    recorder = Recorder([(200, b"")])
    credentials = CredentialSource(RoleMetadata(), {}, clock=wall)
    uploader = OssUploader("fleet-ckpt", "oss-cn-hangzhou-internal.aliyuncs.com", credentials, recorder, wall)
    uploader.put_object_from_file("checkpoints/runs/9/step 7/model.pt", str(local))
    (sent,) = recorder.sent
    assert (sent.method, sent.url) == (
        "PUT",
        "https://fleet-ckpt.oss-cn-hangzhou-internal.aliyuncs.com/checkpoints/runs/9/step%207/model.pt",
    )
    assert sent.streamed and sent.body == b"w" * 70_000
    date = http_date(NOW)
    headers = sent.headers
    md5 = base64.b64encode(hashlib.md5(b"w" * 70_000).digest()).decode()
    assert (headers["Content-Length"], headers["Date"], headers["x-oss-security-token"]) == (
        "70000",
        date,
        "token1",
    )
    assert headers["Content-MD5"] == md5
    string_to_sign = (
        f"PUT\n{md5}\napplication/octet-stream\n{date}\nx-oss-security-token:token1\n"
        "/fleet-ckpt/checkpoints/runs/9/step 7/model.pt"
    )
    assert headers["Authorization"] == f"OSS STS.key1:{header_signature('secret1', string_to_sign)}"


def test_a_file_over_put_objects_5_gb_is_refused_before_anything_is_sent(tmp_path: Path) -> None:
    local = tmp_path / "huge.pt"
    with local.open("wb") as sparse:
        sparse.truncate(PUT_OBJECT_MAX_BYTES + 1)  # sparse: no 5 GB written to the disk
    recorder = Recorder([(200, b"")])
    credentials = CredentialSource(NoMetadata(), STATIC, clock=wall)
    uploader = OssUploader("b", "oss-cn-hangzhou-internal.aliyuncs.com", credentials, recorder, wall)
    with pytest.raises(ValueError, match="PUT Object takes at most 5 GB"):
        uploader.put_object_from_file("checkpoints/huge.pt", str(local))
    assert recorder.sent == []


def test_an_oss_error_answer_raises_with_its_code(tmp_path: Path) -> None:
    local = tmp_path / "x"
    local.write_bytes(b"x")
    error = b"<?xml version='1.0'?><Error><Code>AccessDenied</Code><Message>denied</Message></Error>"
    credentials = CredentialSource(NoMetadata(), STATIC, clock=wall)
    uploader = OssUploader(
        "b", "oss-cn-hangzhou-internal.aliyuncs.com", credentials, Recorder([(403, error)]), wall
    )
    with pytest.raises(OssError) as raised:
        uploader.put_object_from_file("checkpoints/x", str(local))
    assert (raised.value.code, raised.value.status) == ("AccessDenied", 403)


# Credentials ------------------------------------------------------------------------------------------


def test_the_role_keys_are_cached_and_renewed_before_they_expire() -> None:
    clock = FakeClock(NOW)
    metadata = RoleMetadata(expiration="2026-01-01T06:00:00Z")
    source = CredentialSource(metadata, {}, clock=clock.now)
    first = source()
    assert (first.access_key_id, first.security_token, first.expires_at) == (
        "STS.key1",
        "token1",
        NOW + 6 * 3600,
    )
    clock.t = NOW + 6 * 3600 - 16 * 60
    assert source() is first
    assert len(metadata.reads) == 2, "cached: no metadata read"
    clock.t = NOW + 6 * 3600 - 14 * 60
    assert source().access_key_id == "STS.key2"


def test_a_failed_renewal_keeps_valid_keys_and_then_fails() -> None:
    clock = FakeClock(NOW)
    metadata = RoleMetadata()
    source = CredentialSource(metadata, {}, clock=clock.now)
    first = source()
    metadata.fail = True
    clock.t = NOW + 6 * 3600 - 60
    assert source() is first
    clock.t = NOW + 6 * 3600
    with pytest.raises(OSError, match="HTTP 500"):
        source()


def test_the_environment_keys_come_first() -> None:
    source = CredentialSource(
        NoMetadata(), {**STATIC, "ALIBABA_CLOUD_SECURITY_TOKEN": "env-token"}, clock=wall
    )
    keys = source()
    assert (keys.access_key_id, keys.access_key_secret, keys.security_token) == (
        "LTAIstatic",
        "static-secret",
        "env-token",
    )


def test_role_keys_that_are_not_a_success_are_refused() -> None:
    with pytest.raises(OSError, match="Code='Expired'"):
        CredentialSource(RoleMetadata(code="Expired"), {}, clock=wall)()


# The entrypoint's wiring ------------------------------------------------------------------------------


def config(**changes: Any) -> Config:
    base: dict[str, Any] = {
        "cloud": "alicloud",
        "region": "cn-hangzhou",
        "queue_name": "gpu-jobs",
        "queue_url": None,
        "group": None,
        "hook": "gpufleet-drain",
        "bucket": "fleet-ckpt",
        "checkpoint_root": "checkpoints/",
        "settings": Settings(checkpoint_dir=Path("/nonexistent")),
        "visibility_s": 60,
    }
    return Config(**{**base, **changes})


def worker(
    tmp_path: Path, ends_at: float, hook: str = "gpufleet-drain"
) -> tuple[Worker, FakeAlibaba, ScriptedRunner, FakeClock]:
    clock = FakeClock()
    cloud = FakeAlibaba(clock)
    queue, instance, checkpoints = parts(config(hook=hook), env={}, transport=cloud, clock=wall)
    runner = ScriptedRunner(clock, lambda c, env: ScriptedProcess(c, ends_at=ends_at))
    settings = Settings(checkpoint_dir=tmp_path / "ckpt", poll_s=1.0, notice_s=5.0, grace_s=30.0)
    run = Worker(
        queue=queue, instance=instance, checkpoints=checkpoints, settings=settings, runner=runner, clock=clock
    )
    return run, cloud, runner, clock


def test_the_entrypoint_finds_the_alibaba_wiring() -> None:
    assert "alicloud" in cloud_parts("gpufleet.worker.wiring")


def test_parts_builds_the_three_adapters_without_calling_any_api() -> None:
    recorder = Recorder()
    url = "https://1234.mns.cn-shanghai.aliyuncs.com/queues/other-jobs"
    queue, instance, checkpoints = parts(
        config(queue_url=url, visibility_s=None, group="asg-9", hook="ash-9"), env=STATIC, transport=recorder
    )
    assert isinstance(queue, MnsQueue) and (queue.name, queue.visibility_timeout_s) == ("other-jobs", 900)
    assert isinstance(instance, EssInstance)
    assert (instance.region, instance.group_id, instance.hook_id) == ("cn-hangzhou", "asg-9", "ash-9")
    assert (
        isinstance(checkpoints, OssCheckpoints)
        and checkpoints.location("runs/1/") == "oss://fleet-ckpt/checkpoints/runs/1/"
    )
    assert recorder.sent == []
    recorder.answers.append((204, b""))
    queue.delete(Message(id="m", receipt="h", body="{}"))
    assert (
        recorder.sent[0].url
        == "https://1234.mns.cn-shanghai.aliyuncs.com/queues/other-jobs/messages?ReceiptHandle=h"
    )


def test_without_a_bucket_the_checkpoints_stay_on_the_instance() -> None:
    _, _, checkpoints = parts(config(bucket=None), env=STATIC, transport=Recorder())
    assert isinstance(checkpoints, NoCheckpoints)


def test_without_a_queue_url_the_queue_is_the_internal_endpoint_of_the_account() -> None:
    cloud = FakeAlibaba(FakeClock())
    queue, _, _ = parts(config(), env={}, transport=cloud, clock=wall)
    assert queue.receive(1) is None
    assert ("metadata", "/latest/meta-data/owner-account-id", {}) in cloud.calls
    assert ("mns", "GET", {"waitseconds": "1"}) in cloud.calls


@pytest.mark.parametrize(
    "url",
    ["https://1234.mns.cn-hangzhou.aliyuncs.com/topics/t", "1234.mns.cn-hangzhou.aliyuncs.com/queues/q"],
)
def test_a_queue_url_that_is_no_mns_queue_is_refused(url: str) -> None:
    with pytest.raises(ConfigError, match="GPUFLEET_QUEUE_URL"):
        parts(config(queue_url=url), env=STATIC, transport=Recorder())


def test_no_credentials_at_all_is_a_configuration_error() -> None:
    recorder = Recorder([(200, b"md-token"), (404, b"")])
    with pytest.raises(ConfigError, match="ALIBABA_CLOUD_ACCESS_KEY_ID"):
        parts(config(), env={}, transport=recorder)
    assert [s.url for s in recorder.sent] == [
        "http://100.100.100.200/latest/api/token",
        "http://100.100.100.200/latest/meta-data/ram/security-credentials/",
    ]


# A whole job over HTTP --------------------------------------------------------------------------------


def test_a_job_runs_protected_extended_and_deleted_over_http(tmp_path: Path) -> None:
    run, cloud, _, clock = worker(tmp_path, ends_at=50)
    cloud.send(JOB)
    protected: list[bool] = []
    clock.on_sleep = lambda t: protected.append(cloud.protected)
    assert run.run_once() is Outcome.SUCCEEDED
    assert protected and all(protected) and not cloud.protected
    assert cloud.messages == {}
    puts = [q for kind, method, q in cloud.calls if (kind, method) == ("mns", "PUT")]
    assert [q["visibilityTimeout"] for q in puts] == ["60", "60"]
    assert len(cloud.keys) == 1, "one fetch of the role's keys serves every request"


@pytest.mark.parametrize(("hook", "lookups"), [("gpufleet-drain", ["gpufleet-drain"]), (HOOK_ID, [HOOK_ID])])
def test_a_scale_in_hook_checkpoints_to_oss_returns_the_job_and_completes_it(
    tmp_path: Path, hook: str, lookups: list[str]
) -> None:
    # The pool tells its workers the hook's name; an id, which names no hook, is taken as it is.
    run, cloud, runner, clock = worker(tmp_path, ends_at=1000, hook=hook)
    cloud.send(JOB)

    def scale_in(t: float) -> None:
        if t >= 20:
            cloud.state = "Removing:Wait"

    clock.on_sleep = scale_in
    assert run.run_once() is Outcome.INTERRUPTED
    assert runner.processes[0].signals == ["TERM"]
    assert cloud.objects == {"checkpoints/runs/9/step-7/model.pt": b"weights"}
    assert runner.started[0][1]["GPUFLEET_CHECKPOINT_URI"] == "oss://fleet-ckpt/checkpoints/runs/9/"
    assert cloud.receivable() == 0
    clock.sleep(1)
    assert cloud.receivable() == 1, "returned with MNS's shortest visibility"
    assert not cloud.protected
    assert cloud.completed == [
        {"LifecycleHookId": HOOK_ID, "LifecycleActionToken": "tok-1", "LifecycleActionResult": "CONTINUE"}
    ]
    looked_up = [q for kind, action, q in cloud.calls if (kind, action) == ("ess", "DescribeLifecycleHooks")]
    assert [q["LifecycleHookName"] for q in looked_up] == lookups

"""``python -m gpufleet.worker --cloud tencentcloud`` at the HTTP level, with no network: the signature
examples Tencent Cloud publishes (API 3.0 v3, COS, CMQ) byte for byte; the exact AS, CMQ and COS
requests; the CAM role's keys refreshed before they expire and the environment's keys preferred; error
answers raising with their code; ``parts(config)``; whole jobs against fake endpoints that check each
request's signature (tests/worker/tencentcloud_http_fakes.py).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
import urllib.parse
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from gpufleet.worker.core import Outcome
from gpufleet.worker.entry import ConfigError, NoCheckpoints
from gpufleet.worker.http import urllib_transport
from gpufleet.worker.tencentcloud import AsInstance, CmqQueue, CosCheckpoints, CvmMetadata, TencentError
from gpufleet.worker.tencentcloud_http import (
    CamRoleCredentials,
    CmqClient,
    CosUploader,
    Credentials,
    StaticCredentials,
    Tc3Client,
    cmq_signature,
    cos_authorization,
    tc3_authorization,
    tc3_canonical_request,
)
from gpufleet.worker.wiring import tencentcloud as wiring
from tests.worker.fakes import FakeClock
from tests.worker.tencentcloud_http_fakes import (
    BUCKET,
    EPOCH,
    GROUP,
    HOOK,
    INSTANCE,
    JOB,
    REGION,
    ROLE,
    Answer,
    FakeMetadata,
    Recorder,
    Sent,
    config,
    loopback_server,
    ok_json,
    site,
)

# --- published signature examples ----------------------------------------------------------------


def test_tc3_reproduces_the_published_signature_v3_example() -> None:
    # https://www.tencentcloud.com/document/api/213/30654: CVM DescribeInstances in ap-guangzhou at
    # 1551113065, SecretKey Gu5t9xGARNpq86cd98joQYCN3EXAMPLE.
    payload = b'{"Limit": 1, "Filters": [{"Values": ["\\u672a\\u547d\\u540d"], "Name": "instance-name"}]}'
    canonical = tc3_canonical_request("cvm.tencentcloudapi.com", "application/json; charset=utf-8", payload)
    assert canonical == (
        "POST\n/\n\ncontent-type:application/json; charset=utf-8\nhost:cvm.tencentcloudapi.com\n\n"
        "content-type;host\n35e9c5b0e3ae67532d3c9f17ead6c90222632e5b1ff7f6e89887f1398934f064"
    )
    assert hashlib.sha256(canonical.encode()).hexdigest() == (
        "5ffe6a04c0664d6b969fab9a13bdab201d63ee709638e2749d62a09ca18d7031"
    )
    assert tc3_authorization(
        secret_id="AKID**********************0123456789EXAMPLE",
        secret_key="Gu5t9xGARNpq86cd98joQYCN3EXAMPLE",
        service="cvm",
        host="cvm.tencentcloudapi.com",
        content_type="application/json; charset=utf-8",
        payload=payload,
        timestamp=1551113065,
    ) == (
        "TC3-HMAC-SHA256 Credential=AKID**********************0123456789EXAMPLE/2019-02-25/cvm/tc3_request, "
        "SignedHeaders=content-type;host, "
        "Signature=72e494ea809ad7a8c8f7a4507b9bddcbaa8e581f516e8da2f66e2c5a96525168"
    )


COS_ID = "AKIDQjz3ltompVjBni5LitkWHFlFpwkn9U5q"
COS_KEY = "BQYIM75p8x0iWVFSIgqEKwFprpRSVHlz"
COS_HOST = "examplebucket-1250000000.cos.ap-beijing.myqcloud.com"


def test_cos_reproduces_the_published_upload_example() -> None:
    # https://www.tencentcloud.com/document/product/436/7778, "Uploading an Object".
    headers = {
        "Date": "Thu, 16 May 2019 06:45:51 GMT",
        "Host": COS_HOST,
        "Content-Type": "text/plain",
        "Content-Length": "13",
        "Content-MD5": "mQ/fVh815F3k6TAUm8m0eg==",
        "x-cos-acl": "private",
        "x-cos-grant-read": 'uin="100000000011"',
    }
    assert cos_authorization(
        secret_id=COS_ID,
        secret_key=COS_KEY,
        method="PUT",
        path="/exampleobject(腾讯云)",
        params={},
        headers=headers,
        key_time="1557989151;1557996351",
    ) == (
        f"q-sign-algorithm=sha1&q-ak={COS_ID}&q-sign-time=1557989151;1557996351"
        "&q-key-time=1557989151;1557996351"
        "&q-header-list=content-length;content-md5;content-type;date;host;x-cos-acl;x-cos-grant-read"
        "&q-url-param-list=&q-signature=3b8851a11a569213c17ba8fa7dcf2abec6935172"
    )


def test_cos_reproduces_the_published_download_example() -> None:
    # The same page, "Downloading an Object": request parameters are signed too.
    assert cos_authorization(
        secret_id=COS_ID,
        secret_key=COS_KEY,
        method="GET",
        path="/exampleobject(腾讯云)",
        params={"response-content-type": "application/octet-stream", "response-cache-control": "max-age=600"},
        headers={"Date": "Thu, 16 May 2019 06:55:53 GMT", "Host": COS_HOST},
        key_time="1557989753;1557996953",
    ) == (
        f"q-sign-algorithm=sha1&q-ak={COS_ID}&q-sign-time=1557989753;1557996953"
        "&q-key-time=1557989753;1557996953&q-header-list=date;host"
        "&q-url-param-list=response-cache-control;response-content-type"
        "&q-signature=01681b8c9d798a678e43b685a9f1bba0f6c0e012"
    )


def test_cmq_reproduces_the_signature_example() -> None:
    # https://www.tencentcloud.com/document/api/406/5906: SendMessage with HmacSHA1 (the page now
    # masks the middle of the example key; this is the key as first published with it).
    params = {
        "Action": "SendMessage",
        "Nonce": 2889712707386595659,
        "RequestClient": "SDK_Python_1.3",
        "SecretId": "AKIDPcYDclDJCn8D0Xypa4f3pKYUCVYLn3zT",
        "SignatureMethod": "HmacSHA1",
        "Timestamp": 1534154812,
        "clientRequestId": 1231231231,
        "delaySeconds": 0,
        "msgBody": "msg",
        "queueName": "test1",
    }
    assert (
        cmq_signature(
            secret_key="pPgfLipfEXZ7VcRzhAMIyPaU7UbQyFFx",
            host="cmq-queue-gz.api.tencentyun.com",
            path="/v2/index.php",
            params=params,
            method="HmacSHA1",
        )
        == "C16WEtEXsD5v5tnaUMLAbZewXhI="
    )


# --- the exact requests ----------------------------------------------------------------------------

STATIC = StaticCredentials(Credentials("AKIDexample", "secret"))
SIGNED_AT = 1551113065.0


def test_an_as_call_is_one_signed_json_post_to_the_regions_endpoint() -> None:
    recorder = Recorder(lambda sent: ok_json({"Response": {"RequestId": "r"}}))
    client = Tc3Client("as", "2018-04-19", REGION, STATIC, transport=recorder, clock=lambda: SIGNED_AT)
    AsInstance(
        client, CvmMetadata(http=FakeMetadata(time.time)), instance_id=INSTANCE, group_id=GROUP
    ).protect()
    [sent] = recorder.sent
    assert (sent.method, sent.url, sent.timeout_s) == (
        "POST",
        "https://as.ap-guangzhou.tencentcloudapi.com/",
        10.0,
    )
    assert (
        sent.body
        == b'{"AutoScalingGroupId":"asg-gpu1","InstanceIds":["ins-gpu1"],"ProtectedFromScaleIn":true}'
    )
    assert sent.headers == {
        "Authorization": "TC3-HMAC-SHA256 Credential=AKIDexample/2019-02-25/as/tc3_request, "
        "SignedHeaders=content-type;host, "
        "Signature=c63ba00ef440ab1d4228fc41f0d9bd938d93cf59fd4ba5dd20e55233cf3a2408",
        "Content-Type": "application/json; charset=utf-8",
        "X-TC-Action": "SetInstancesProtection",
        "X-TC-Version": "2018-04-19",
        "X-TC-Timestamp": "1551113065",
        "X-TC-Region": "ap-guangzhou",
    }


def test_every_as_call_of_the_instance_adapter() -> None:
    def answer(sent: Sent) -> Answer:
        action = sent.headers["X-TC-Action"]
        if action == "DescribeAutoScalingInstances":
            described = {
                "InstanceId": INSTANCE,
                "AutoScalingGroupId": GROUP,
                "LifeCycleState": "IN_TERMINATING_HOOK",
            }
            return ok_json({"Response": {"AutoScalingInstanceSet": [described], "TotalCount": 1}})
        if action == "DescribeAutoScalingGroups":
            return ok_json(
                {"Response": {"AutoScalingGroupSet": [{"AutoScalingGroupId": GROUP, "MaxSize": 0}]}}
            )
        if action == "DescribeLifecycleHooks":
            hook = {
                "LifecycleHookId": HOOK,
                "LifecycleHookName": "gpufleet-drain",
                "AutoScalingGroupId": GROUP,
            }
            return ok_json({"Response": {"LifecycleHookSet": [hook], "TotalCount": 1}})
        return ok_json({"Response": {"RequestId": "r"}})

    recorder = Recorder(answer)
    client = Tc3Client("as", "2018-04-19", REGION, STATIC, transport=recorder, clock=lambda: SIGNED_AT)
    # The pool tells the worker its hook's name: the id is looked up once, in the instance's group.
    instance = AsInstance(client, CvmMetadata(http=FakeMetadata(time.time)), hook_id="gpufleet-drain")
    instance.protect()
    assert instance.stopped()
    instance.complete_lifecycle()
    calls = [(sent.headers["X-TC-Action"], json.loads(sent.body)) for sent in recorder.sent]
    assert calls == [
        ("DescribeAutoScalingInstances", {"InstanceIds": [INSTANCE]}),
        (
            "SetInstancesProtection",
            {"AutoScalingGroupId": GROUP, "InstanceIds": [INSTANCE], "ProtectedFromScaleIn": True},
        ),
        ("DescribeAutoScalingGroups", {"AutoScalingGroupIds": [GROUP]}),
        ("DescribeAutoScalingInstances", {"InstanceIds": [INSTANCE]}),
        (
            "DescribeLifecycleHooks",
            {
                "Filters": [
                    {"Name": "auto-scaling-group-id", "Values": [GROUP]},
                    {"Name": "lifecycle-hook-name", "Values": ["gpufleet-drain"]},
                ]
            },
        ),
        (
            "CompleteLifecycleAction",
            {"LifecycleHookId": HOOK, "LifecycleActionResult": "CONTINUE", "InstanceId": INSTANCE},
        ),
    ]


def _hand_signed(to_sign: str) -> str:
    return base64.b64encode(hmac.new(b"secret", to_sign.encode(), hashlib.sha256).digest()).decode()


def test_the_cmq_receive_and_delete_requests() -> None:
    def answer(sent: Sent) -> Answer:
        if sent.form()["Action"] == "ReceiveMessage":
            return ok_json(
                {"code": 0, "message": "", "msgId": "msg-1", "receiptHandle": "h1", "msgBody": JOB}
            )
        return ok_json({"code": 0, "message": ""})

    recorder = Recorder(answer)
    cmq = CmqClient(
        "http://gz.mqadapter.cmq.tencentyun.com",
        STATIC,
        region_code="gz",
        transport=recorder,
        clock=lambda: SIGNED_AT,
        nonce=lambda: 12345,
    )
    queue = CmqQueue(cmq, "jobs")
    message = queue.receive(20)
    assert message is not None and (message.id, message.receipt, message.body) == ("msg-1", "h1", JOB)
    queue.delete(message)
    receive, delete = recorder.sent
    url = "http://gz.mqadapter.cmq.tencentyun.com/v2/index.php"
    form = {"Content-Type": "application/x-www-form-urlencoded"}
    # The long poll waits up to 20 s: the HTTP timeout covers it.
    assert (receive.method, receive.url, receive.headers, receive.timeout_s) == ("POST", url, form, 30.0)
    assert (delete.method, delete.url, delete.headers, delete.timeout_s) == ("POST", url, form, 10.0)
    common = "Nonce=12345&Region=gz&SecretId=AKIDexample&SignatureMethod=HmacSHA256&Timestamp=1551113065"
    receive_signature = _hand_signed(
        f"POSTgz.mqadapter.cmq.tencentyun.com/v2/index.php?Action=ReceiveMessage&{common}"
        "&pollingWaitSeconds=20&queueName=jobs"
    )
    delete_signature = _hand_signed(
        f"POSTgz.mqadapter.cmq.tencentyun.com/v2/index.php?Action=DeleteMessage&{common}"
        "&queueName=jobs&receiptHandle=h1"
    )
    assert receive.body == (
        b"queueName=jobs&pollingWaitSeconds=20&Action=ReceiveMessage&SecretId=AKIDexample&Nonce=12345"
        b"&Timestamp=1551113065&SignatureMethod=HmacSHA256&Region=gz&Signature="
        + urllib.parse.quote_plus(receive_signature).encode()
    )
    assert delete.body == (
        b"queueName=jobs&receiptHandle=h1&Action=DeleteMessage&SecretId=AKIDexample&Nonce=12345"
        b"&Timestamp=1551113065&SignatureMethod=HmacSHA256&Region=gz&Signature="
        + urllib.parse.quote_plus(delete_signature).encode()
    )


def test_the_cos_upload_streams_the_file_with_the_temporary_token(tmp_path: Path) -> None:
    local = tmp_path / "model.pt"
    local.write_bytes(b"weights")
    recorder = Recorder(lambda sent: (200, {"ETag": '"e"'}, b""))
    keys = StaticCredentials(Credentials("AKIDtmp", "tmp-secret", "tok"))
    uploader = CosUploader(REGION, keys, transport=recorder, clock=lambda: SIGNED_AT)
    CosCheckpoints(uploader, BUCKET).upload_dir(tmp_path, "runs/5/")
    [sent] = recorder.sent
    host = f"{BUCKET}.cos.ap-guangzhou.myqcloud.com"
    assert (sent.method, sent.url, sent.body) == (
        "PUT",
        f"https://{host}/checkpoints/runs/5/model.pt",
        b"weights",
    )
    signed = {
        "Content-Length": "7",
        "Content-MD5": "Y/Tx6bclNw9FlyBXXNX5Uw==",  # base64(md5(b"weights"))
        "Content-Type": "application/octet-stream",
        "Host": host,
        "x-cos-security-token": "tok",
    }
    assert sent.headers == {
        **signed,
        "Authorization": cos_authorization(
            secret_id="AKIDtmp",
            secret_key="tmp-secret",
            method="PUT",
            path="/checkpoints/runs/5/model.pt",
            params={},
            headers=signed,
            key_time="1551113005;1551116665",
        ),
    }
    assert (
        "q-header-list=content-length;content-md5;content-type;host;x-cos-security-token&"
        in sent.headers["Authorization"]
    )


def test_a_file_over_put_objects_limit_is_refused_before_sending(tmp_path: Path) -> None:
    huge = tmp_path / "huge.pt"
    with huge.open("wb") as stream:
        stream.truncate(5 * 1024**3 + 1)  # sparse: no disk used
    recorder = Recorder(lambda sent: (200, {}, b""))
    with pytest.raises(ValueError, match="at most 5 GB"):
        CosUploader(REGION, STATIC, transport=recorder).upload_file(BUCKET, "k", str(huge))
    assert recorder.sent == []


# --- credentials ------------------------------------------------------------------------------------


def test_the_roles_keys_are_cached_and_fetched_again_before_they_expire() -> None:
    clock = FakeClock(t=EPOCH)
    metadata = FakeMetadata(clock.now, lifetime_s=7200)
    recorder = Recorder(lambda sent: ok_json({"Response": {"RequestId": "r"}}))
    keys = CamRoleCredentials(CvmMetadata(http=metadata), clock.now)
    client = Tc3Client("as", "2018-04-19", REGION, keys, transport=recorder, clock=clock.now)
    client("DescribeAutoScalingGroups", {})
    clock.sleep(7200 - 301)  # still more than five minutes left: the cached keys
    client("DescribeAutoScalingGroups", {})
    clock.sleep(2)  # less than five minutes left: fetched again
    client("DescribeAutoScalingGroups", {})
    assert metadata.fetches == 2
    tokens = [sent.headers["X-TC-Token"] for sent in recorder.sent]
    assert tokens == ["token-1", "token-1", "token-2"]
    assert [sent.headers["Authorization"].split("/")[0] for sent in recorder.sent] == [
        "TC3-HMAC-SHA256 Credential=AKIDtmp1",
        "TC3-HMAC-SHA256 Credential=AKIDtmp1",
        "TC3-HMAC-SHA256 Credential=AKIDtmp2",
    ]
    # The role's name is read once.
    assert metadata.paths.count("latest/meta-data/cam/security-credentials/") == 1


def test_a_failed_refresh_keeps_keys_until_they_expire() -> None:
    clock = FakeClock(t=EPOCH)
    metadata = FakeMetadata(clock.now, lifetime_s=600)
    keys = CamRoleCredentials(CvmMetadata(http=metadata), clock.now)
    first = keys.get()
    clock.sleep(400)
    metadata.down = True
    assert keys.get() == first
    clock.sleep(200)
    with pytest.raises(OSError, match="unreachable"):
        keys.get()


def test_the_expiration_time_is_read_when_there_is_no_expired_time() -> None:
    body = {
        "TmpSecretId": "a",
        "TmpSecretKey": "b",
        "Token": "c",
        "Expiration": "2021-03-12T23:00:47Z",
        "Code": "Success",
    }

    def http(method: str, url: str, headers: Mapping[str, str], timeout_s: float) -> tuple[int, str]:
        return (200, ROLE) if url.endswith("security-credentials/") else (200, json.dumps(body))

    assert CamRoleCredentials(CvmMetadata(http=http), lambda: 0.0).get().expires_at == 1615590047.0


def test_a_refused_role_says_its_code() -> None:
    metadata = FakeMetadata(lambda: EPOCH, code="Failed")
    with pytest.raises(OSError, match="Code=Failed"):
        CamRoleCredentials(CvmMetadata(http=metadata), lambda: EPOCH).get()


def test_the_environments_keys_are_preferred_to_the_role() -> None:
    metadata = FakeMetadata(lambda: EPOCH)
    recorder = Recorder(lambda sent: ok_json({"Response": {"RequestId": "r"}}))
    env = {
        "TENCENTCLOUD_SECRET_ID": "AKIDenv",
        "TENCENTCLOUD_SECRET_KEY": "env-secret",
        "TENCENTCLOUD_TOKEN": "env-tok",
    }
    _, instance, _ = wiring.parts(
        config(), env=env, transport=recorder, metadata_http=metadata, clock=lambda: SIGNED_AT
    )
    instance.protect()
    [sent] = recorder.sent
    assert sent.headers["Authorization"].startswith("TC3-HMAC-SHA256 Credential=AKIDenv/")
    assert sent.headers["X-TC-Token"] == "env-tok"
    assert not any(path.startswith("latest/meta-data/cam/") for path in metadata.paths)


def test_half_the_environments_keys_is_none_and_the_role_answers() -> None:
    metadata = FakeMetadata(lambda: EPOCH)
    recorder = Recorder(lambda sent: ok_json({"Response": {"RequestId": "r"}}))
    _, instance, _ = wiring.parts(
        config(),
        env={"TENCENTCLOUD_SECRET_ID": "AKIDenv"},
        transport=recorder,
        metadata_http=metadata,
        clock=lambda: EPOCH,
    )
    instance.protect()
    assert recorder.sent[0].headers["X-TC-Token"] == "token-1"


# --- error answers ----------------------------------------------------------------------------------


def test_an_as_error_raises_with_its_code() -> None:
    error = {"Response": {"Error": {"Code": "ResourceNotFound.AutoScalingGroupNotFound", "Message": "no"}}}
    client = Tc3Client("as", "2018-04-19", REGION, STATIC, transport=Recorder(lambda sent: ok_json(error)))
    instance = AsInstance(
        client, CvmMetadata(http=FakeMetadata(time.time)), instance_id=INSTANCE, group_id="asg-x"
    )
    with pytest.raises(TencentError) as raised:
        instance.protect()
    assert raised.value.code == "ResourceNotFound.AutoScalingGroupNotFound"


def test_an_answer_that_is_not_json_raises_with_the_http_status() -> None:
    gateway = Recorder(lambda sent: (502, {}, b"<html>bad gateway</html>"))
    with pytest.raises(TencentError) as raised:
        Tc3Client("as", "2018-04-19", REGION, STATIC, transport=gateway)("DescribeAutoScalingGroups", {})
    assert raised.value.code == "HTTP 502"
    with pytest.raises(TencentError) as raised:
        CmqClient("http://gz.mqadapter.cmq.tencentyun.com", STATIC, transport=gateway)("ReceiveMessage", {})
    assert raised.value.code == "HTTP 502"


def test_a_cmq_error_raises_with_its_code() -> None:
    refused = Recorder(lambda sent: ok_json({"code": 4440, "message": "(10610)invalid receiptHandle"}))
    queue = CmqQueue(CmqClient("http://gz.mqadapter.cmq.tencentyun.com", STATIC, transport=refused), "jobs")
    with pytest.raises(TencentError) as raised:
        queue.receive(1)
    assert raised.value.code == "4440"


def test_a_refused_upload_raises_with_coss_code(tmp_path: Path) -> None:
    (tmp_path / "model.pt").write_bytes(b"weights")
    denied = b"<?xml version='1.0'?><Error><Code>AccessDenied</Code><Message>Access Denied.</Message></Error>"
    uploader = CosUploader(REGION, STATIC, transport=Recorder(lambda sent: (403, {}, denied)))
    with pytest.raises(TencentError) as raised:
        uploader.upload_file(
            Bucket=BUCKET, Key="checkpoints/model.pt", LocalFilePath=str(tmp_path / "model.pt")
        )
    assert (raised.value.code, str(raised.value)) == ("AccessDenied", "AccessDenied: Access Denied.")


# --- parts(config) ----------------------------------------------------------------------------------


def test_parts_builds_the_three_adapters() -> None:
    queue, instance, checkpoints = wiring.parts(
        config(), env={}, transport=Recorder(lambda sent: ok_json({})), metadata_http=FakeMetadata(time.time)
    )
    assert isinstance(queue, CmqQueue) and (queue.name, queue.visibility_timeout_s) == ("jobs", 900)
    assert isinstance(queue.cmq, CmqClient)
    assert (queue.cmq.endpoint, queue.cmq.region_code) == ("http://gz.mqadapter.cmq.tencentyun.com", "gz")
    assert isinstance(instance, AsInstance) and (instance.group_id, instance.hook_id) == (GROUP, HOOK)
    assert (
        isinstance(instance.as_api, Tc3Client)
        and instance.as_api.host == "as.ap-guangzhou.tencentcloudapi.com"
    )
    assert isinstance(checkpoints, CosCheckpoints)
    assert (checkpoints.bucket, checkpoints.root) == (BUCKET, "checkpoints/")
    assert isinstance(checkpoints.cos, CosUploader) and checkpoints.cos.region == REGION


def test_parts_without_a_bucket_keeps_checkpoints_on_the_instance() -> None:
    queue, _, checkpoints = wiring.parts(
        config(bucket=None, visibility_s=1800, group=None, hook=None),
        env={},
        metadata_http=FakeMetadata(time.time),
    )
    assert isinstance(checkpoints, NoCheckpoints)
    assert isinstance(queue, CmqQueue) and queue.visibility_timeout_s == 1800


def test_the_queue_url_is_the_data_flow_endpoint() -> None:
    recorder = Recorder(lambda sent: ok_json({"code": 7000, "message": "(10200)no message"}))
    queue, _, _ = wiring.parts(
        config(region="ap-nanjing", queue_url="https://cmq-nj.public.tencenttdmq.com"),
        env={},
        transport=recorder,
        metadata_http=FakeMetadata(time.time),
    )
    assert queue.receive(5) is None
    [sent] = recorder.sent
    assert sent.url == "https://cmq-nj.public.tencenttdmq.com/v2/index.php"
    assert "Region" not in sent.form(), "no known short code for ap-nanjing: the host names the region"
    assert sent.form()["queueName"] == "jobs"


@pytest.mark.parametrize(
    ("changes", "says"),
    [
        ({"region": "ap-nanjing"}, "GPUFLEET_QUEUE_URL"),
        ({"queue_url": "gz.mqadapter.cmq.tencentyun.com"}, "not an http"),
        ({"queue_name": None, "queue_url": "http://gz.mqadapter.cmq.tencentyun.com"}, "GPUFLEET_QUEUE_NAME"),
    ],
)
def test_parts_refuses(changes: dict[str, Any], says: str) -> None:
    with pytest.raises(ConfigError, match=says):
        wiring.parts(config(**changes), env={}, metadata_http=FakeMetadata(time.time))


def test_parts_without_any_credentials_is_a_configuration_error() -> None:
    with pytest.raises(ConfigError, match=r"no Tencent Cloud credentials.*CAM role"):
        wiring.parts(config(), env={}, metadata_http=FakeMetadata(time.time, role=None))


# --- whole jobs against fake Tencent Cloud endpoints -----------------------------------------------


def test_a_job_runs_protected_and_its_message_is_deleted(tmp_path: Path) -> None:
    s = site(tmp_path, ends_at=50)
    s.cloud.messages["msg-1"] = JOB
    protected: list[bool] = []
    s.clock.on_sleep = lambda t: protected.append(s.cloud.protected)
    assert s.worker.run_once() is Outcome.SUCCEEDED
    assert protected and all(protected)
    assert not s.cloud.protected
    assert s.cloud.messages == {}
    assert s.runner.started[0][0] == ("python", "train.py")
    assert [c for c in s.cloud.calls if c in {"ReceiveMessage", "DeleteMessage"}] == [
        "ReceiveMessage",
        "DeleteMessage",
    ]
    assert s.cloud.objects == {}


def test_a_scale_in_hook_uploads_the_checkpoint_and_completes(tmp_path: Path) -> None:
    s = site(tmp_path, ends_at=10_000)
    s.cloud.messages["msg-1"] = JOB

    def scale_in(t: float) -> None:
        if t >= 12:
            s.cloud.state = "IN_TERMINATING_HOOK"

    s.clock.on_sleep = scale_in
    assert s.worker.run_once() is Outcome.INTERRUPTED
    assert s.runner.processes[0].signals == ["TERM"]
    assert s.cloud.objects == {"checkpoints/runs/5/step-7/model.pt": b"weights"}
    assert s.cloud.completed == [
        {"LifecycleHookId": HOOK, "LifecycleActionResult": "CONTINUE", "InstanceId": INSTANCE}
    ]
    assert not s.cloud.protected
    assert list(s.cloud.messages) == ["msg-1"], "not deleted: CMQ returns it after its visibility timeout"


def test_a_long_job_outlives_the_first_keys(tmp_path: Path) -> None:
    # Keys that last 20 minutes: the job runs an hour, every call is signed with current keys.
    s = site(tmp_path, ends_at=3600, key_lifetime_s=1200)
    s.cloud.messages["msg-1"] = JOB
    assert s.worker.run_once() is Outcome.SUCCEEDED
    assert s.cloud.messages == {}
    assert s.metadata.fetches >= 4


# --- the real transport, on loopback -----------------------------------------------------------------


def test_urllib_transport_streams_a_file_and_answers_http_errors(tmp_path: Path) -> None:
    local = tmp_path / "blob"
    local.write_bytes(b"x" * 100_000)
    with loopback_server() as (base, received), local.open("rb") as stream:
        status, _, body = urllib_transport(
            "PUT", f"{base}/ok", {"Content-Length": "100000", "x-cos-security-token": "t"}, stream, 5.0
        )
        assert (status, body) == (200, b"ok")
        assert received[0][3] == b"x" * 100_000 and received[0][2]["x-cos-security-token"] == "t"
        status, _, body = urllib_transport("PUT", f"{base}/denied", {"Content-Length": "1"}, b"y", 5.0)
        assert (status, body) == (403, b"<Error><Code>AccessDenied</Code></Error>")

"""Tencent Cloud's request signing at the HTTP level, with no network: the signature examples Tencent
Cloud publishes (API 3.0 v3, COS, CMQ) byte for byte, and the exact AS, CMQ and COS requests the
worker's clients send (gpufleet/worker/tencentcloud_http.py).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
import urllib.parse
from pathlib import Path

import pytest

from gpufleet.worker.tencentcloud import AsInstance, CmqQueue, CosCheckpoints, CvmMetadata
from gpufleet.worker.tencentcloud_http import (
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
from tests.worker.tencentcloud_http_fakes import (
    BUCKET,
    GROUP,
    HOOK,
    INSTANCE,
    JOB,
    REGION,
    SIGNED_AT,
    STATIC,
    Answer,
    FakeMetadata,
    Recorder,
    Sent,
    ok_json,
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

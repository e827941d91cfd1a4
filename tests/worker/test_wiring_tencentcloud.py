"""``python -m gpufleet.worker --cloud tencentcloud`` at the HTTP level, with no network: the CAM role's
keys refreshed before they expire and the environment's keys preferred; error answers raising with
their code; ``parts(config)``; whole jobs against fake endpoints that check each request's signature
(tests/worker/tencentcloud_http_fakes.py). The signatures and exact requests: test_tencentcloud_signing.py.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from gpufleet.worker.core import Outcome
from gpufleet.worker.entry import ConfigError, NoCheckpoints
from gpufleet.worker.tencentcloud import AsInstance, CmqQueue, CosCheckpoints, CvmMetadata, TencentError
from gpufleet.worker.tencentcloud_http import (
    CamRoleCredentials,
    CmqClient,
    CosUploader,
    Tc3Client,
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
    SIGNED_AT,
    STATIC,
    FakeMetadata,
    Recorder,
    config,
    ok_json,
    site,
)

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


@pytest.mark.parametrize("hook", [HOOK, "gpufleet-drain"], ids=["by-id", "by-name"])
def test_a_scale_in_hook_uploads_the_checkpoint_and_completes(tmp_path: Path, hook: str) -> None:
    # The pool tells its worker the hook's name (looked up over HTTP); an operator may give its id.
    s = site(tmp_path, ends_at=10_000, hook=hook)
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
    # Keys that last 20 minutes: the job runs an hour (within the queue's two-hour visibility timeout),
    # every call is signed with current keys.
    s = site(tmp_path, ends_at=3600, key_lifetime_s=1200, visibility_s=7200)
    s.cloud.messages["msg-1"] = JOB
    assert s.worker.run_once() is Outcome.SUCCEEDED
    assert s.cloud.messages == {}
    assert s.metadata.fetches >= 4


def test_a_job_longer_than_the_visibility_timeout_is_stopped_with_its_checkpoint_before_it(
    tmp_path: Path,
) -> None:
    # CMQ cannot extend the visibility: at 900 - 30 s (the grace) the job is stopped and checkpointed,
    # so that when the message is delivered again the next worker resumes it instead of a second run.
    s = site(tmp_path, ends_at=3600)
    s.cloud.messages["msg-1"] = JOB
    assert s.worker.run_once() is Outcome.LAPSED
    assert s.runner.processes[0].signals == ["TERM"]
    assert s.clock.now() == pytest.approx(870)
    assert s.cloud.objects == {"checkpoints/runs/5/step-7/model.pt": b"weights"}
    assert list(s.cloud.messages) == ["msg-1"], "kept: it comes back when its visibility ends"
    assert not s.cloud.protected

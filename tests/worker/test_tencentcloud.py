"""The Tencent Cloud adapters on fakes that keep the documented semantics of TDMQ for CMQ and AS:

- CMQ ReceiveMessage hides the message for the queue's visibilityTimeout and answers code 7000 when
  a long poll finds nothing; DeleteMessage needs the receipt handle before NextVisibleTime; there is no
  call that changes a received message's visibility.
- AS SetInstancesProtection, DescribeAutoScalingInstances (LifeCycleState, IN_TERMINATING_HOOK while
  a scale-in hook waits), CompleteLifecycleAction by LifecycleHookId and InstanceId; API 3.0 answers
  ``{"Response": {...}}`` with an ``Error`` on failure.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from gpufleet.worker.core import Outcome, Settings, Worker
from gpufleet.worker.tencentcloud import AsInstance, CmqQueue, CosCheckpoints, CvmMetadata, TencentError
from tests.worker.fakes import FakeClock, ScriptedProcess, ScriptedRunner

GROUP = "asg-gpu1"
HOOK = "ash-drain1"
INSTANCE = "ins-gpu1"
JOB = json.dumps({"command": ["python", "train.py"], "checkpoint": "runs/5/"})


@dataclass
class FakeCmq:
    clock: FakeClock
    visibility_s: int = 600
    messages: dict[str, dict[str, Any]] = field(default_factory=dict)
    calls: list[str] = field(default_factory=list)
    _n: int = 0

    def send(self, body: str) -> None:
        self._n += 1
        self.messages[f"m{self._n}"] = {"body": body, "handle": None, "visible_at": 0.0}

    def __call__(self, action: str, params: Mapping[str, Any]) -> Mapping[str, Any]:
        self.calls.append(action)
        assert params["queueName"] == "jobs"
        now = self.clock.now()
        if action == "ReceiveMessage":
            assert 0 <= params["pollingWaitSeconds"] <= 30
            for message_id, message in self.messages.items():
                if message["visible_at"] <= now:
                    self._n += 1
                    message["handle"] = f"h{self._n}"
                    message["visible_at"] = now + self.visibility_s
                    return {
                        "code": 0,
                        "message": "",
                        "msgBody": message["body"],
                        "msgId": message_id,
                        "receiptHandle": message["handle"],
                        "nextVisibleTime": int(message["visible_at"]),
                    }
            return {"code": 7000, "message": "(10200)no message"}
        if action == "DeleteMessage":
            for message_id, message in list(self.messages.items()):
                if message["handle"] == params["receiptHandle"] and now < message["visible_at"]:
                    del self.messages[message_id]
                    return {"code": 0, "message": ""}
            return {"code": 4440, "message": "invalid receiptHandle"}
        raise AssertionError(f"CMQ has no {action} on its data flow endpoint here")

    def receivable(self) -> int:
        return sum(1 for m in self.messages.values() if m["visible_at"] <= self.clock.now())


@dataclass
class FakeAs:
    state: str = "IN_SERVICE"
    protected: bool = False
    max_size: int = 4
    group_reads: int = 0
    completed: list[dict[str, Any]] = field(default_factory=list)

    def __call__(self, action: str, params: Mapping[str, Any]) -> Mapping[str, Any]:
        if action == "DescribeAutoScalingInstances":
            assert params["InstanceIds"] == [INSTANCE]
            instance = {
                "InstanceId": INSTANCE,
                "AutoScalingGroupId": GROUP,
                "LifeCycleState": self.state,
                "ProtectedFromScaleIn": self.protected,
            }
            return {"Response": {"AutoScalingInstanceSet": [instance], "TotalCount": 1, "RequestId": "r"}}
        if action == "DescribeAutoScalingGroups":
            assert params["AutoScalingGroupIds"] == [GROUP]
            self.group_reads += 1
            group = {"AutoScalingGroupId": GROUP, "MinSize": 0, "MaxSize": self.max_size}
            return {"Response": {"AutoScalingGroupSet": [group], "TotalCount": 1, "RequestId": "r"}}
        if action == "SetInstancesProtection":
            if params["AutoScalingGroupId"] != GROUP:
                return {"Response": {"Error": {"Code": "ResourceNotFound.AutoScalingGroupNotFound"}}}
            assert params["InstanceIds"] == [INSTANCE]
            self.protected = bool(params["ProtectedFromScaleIn"])
            return {"Response": {"RequestId": "r"}}
        if action == "DescribeLifecycleHooks":
            filters = {f["Name"]: f["Values"] for f in params["Filters"]}
            assert filters["auto-scaling-group-id"] == [GROUP]
            hooks = [
                {"LifecycleHookId": HOOK, "LifecycleHookName": "gpufleet-drain", "AutoScalingGroupId": GROUP},
                {"LifecycleHookId": "ash-other", "LifecycleHookName": "other", "AutoScalingGroupId": GROUP},
            ]
            named = [h for h in hooks if [h["LifecycleHookName"]] == filters["lifecycle-hook-name"]]
            return {"Response": {"LifecycleHookSet": named, "TotalCount": len(named), "RequestId": "r"}}
        if action == "CompleteLifecycleAction":
            self.completed.append(dict(params))
            return {"Response": {"RequestId": "r"}}
        raise AssertionError(f"unexpected AS call {action}")


@dataclass
class FakeCvmMetadata:
    spot: str | None = None

    def __call__(
        self, method: str, url: str, headers: Mapping[str, str], timeout_s: float
    ) -> tuple[int, str]:
        assert method == "GET"
        path = url.removeprefix("http://metadata.tencentyun.com")
        if path == "/latest/meta-data/instance-id":
            return 200, INSTANCE
        if path == "/latest/meta-data/spot/termination-time":
            return (404, "") if self.spot is None else (200, self.spot)
        return 404, ""


@dataclass
class FakeCos:
    objects: dict[str, str] = field(default_factory=dict)

    def upload_file(self, Bucket: str, Key: str, LocalFilePath: str) -> None:
        assert Bucket == "fleet-ckpt-1250000000"
        self.objects[Key] = Path(LocalFilePath).read_text()


@dataclass
class Site:
    clock: FakeClock
    cmq: FakeCmq
    as_api: FakeAs
    metadata: FakeCvmMetadata
    cos: FakeCos
    runner: ScriptedRunner
    worker: Worker


def site(tmp_path: Path, *, ends_at: float = 50.0, status: int = 0, hook: str = HOOK) -> Site:
    clock = FakeClock()
    cmq, as_api, metadata, cos = FakeCmq(clock), FakeAs(), FakeCvmMetadata(), FakeCos()
    runner = ScriptedRunner(clock, lambda c, env: ScriptedProcess(c, ends_at=ends_at, status=status))
    worker = Worker(
        queue=CmqQueue(cmq, "jobs", visibility_timeout_s=600),
        instance=AsInstance(as_api, CvmMetadata(http=metadata), hook_id=hook, clock=clock.now),
        checkpoints=CosCheckpoints(cos, "fleet-ckpt-1250000000"),
        settings=Settings(checkpoint_dir=tmp_path / "ckpt", poll_s=1.0, notice_s=5.0, grace_s=30.0),
        runner=runner,
        clock=clock,
    )
    return Site(clock, cmq, as_api, metadata, cos, runner, worker)


def test_a_job_is_protected_and_deleted(tmp_path: Path) -> None:
    s = site(tmp_path, ends_at=500)
    s.cmq.send(JOB)
    protected: list[bool] = []
    s.clock.on_sleep = lambda t: protected.append(s.as_api.protected)
    assert s.worker.run_once() is Outcome.SUCCEEDED
    assert protected and all(protected)
    assert not s.as_api.protected
    assert s.cmq.messages == {}
    # No visibility call exists: the worker made none.
    assert s.cmq.calls == ["ReceiveMessage", "DeleteMessage"]


def test_a_failed_job_comes_back_after_the_queues_visibility_timeout(tmp_path: Path) -> None:
    s = site(tmp_path, ends_at=5, status=1)
    s.cmq.send(JOB)
    assert s.worker.run_once() is Outcome.FAILED
    assert len(s.cmq.messages) == 1
    s.clock.sleep(590)
    assert s.cmq.receivable() == 0, "hidden until its visibility timeout, 600 s after the receive"
    s.clock.sleep(10)
    assert s.cmq.receivable() == 1


@pytest.mark.parametrize("hook", [HOOK, "gpufleet-drain"], ids=["by-id", "by-name"])
def test_a_scale_in_hook_checkpoints_and_completes(tmp_path: Path, hook: str) -> None:
    # The pool tells its worker the hook's name; an operator may give its id: either completes it.
    s = site(tmp_path, ends_at=1000, hook=hook)
    s.cmq.send(JOB)

    def scale_in(t: float) -> None:
        if t >= 12:
            s.as_api.state = "IN_TERMINATING_HOOK"

    s.clock.on_sleep = scale_in
    assert s.worker.run_once() is Outcome.INTERRUPTED
    assert s.runner.processes[0].signals == ["TERM"]
    assert s.cos.objects == {"checkpoints/runs/5/step-7/model.pt": "weights"}
    assert s.as_api.completed == [
        {"LifecycleHookId": HOOK, "LifecycleActionResult": "CONTINUE", "InstanceId": INSTANCE}
    ]
    assert not s.as_api.protected
    assert len(s.cmq.messages) == 1, "not deleted: received again after its visibility timeout"


def test_a_spot_termination_notice_interrupts(tmp_path: Path) -> None:
    s = site(tmp_path, ends_at=1000)
    s.cmq.send(JOB)

    def reclaim(t: float) -> None:
        if t >= 7:
            s.metadata.spot = "2026-01-01T00:02:00Z"

    s.clock.on_sleep = reclaim
    assert s.worker.run_once() is Outcome.INTERRUPTED
    assert s.as_api.completed == []


def test_no_message_is_none() -> None:
    assert CmqQueue(FakeCmq(FakeClock()), "jobs").receive(20) is None


def test_api_errors_raise(tmp_path: Path) -> None:
    instance = AsInstance(FakeAs(), CvmMetadata(http=FakeCvmMetadata()), group_id="asg-wrong")
    with pytest.raises(TencentError, match="AutoScalingGroupNotFound"):
        instance.protect()


def test_a_lost_receipt_raises() -> None:
    clock = FakeClock()
    cmq = FakeCmq(clock, visibility_s=10)
    cmq.send(JOB)
    queue = CmqQueue(cmq, "jobs")
    message = queue.receive(1)
    assert message is not None
    clock.sleep(11)
    with pytest.raises(TencentError, match="4440"):
        queue.delete(message)


def test_the_off_hours_stop_checkpoints_the_job_and_lets_the_instance_go(tmp_path: Path) -> None:
    # The off-hours schedule sets the group's maximum to 0 at t=100; AS keeps a protected instance, so
    # the worker takes the 0 as a stop notice: checkpoint, protection off, no hook action to complete.
    s = site(tmp_path, ends_at=10_000)
    s.cmq.send(JOB)

    def stop(t: float) -> None:
        if t >= 100:
            s.as_api.max_size = 0

    s.clock.on_sleep = stop
    assert s.worker.run_once() is Outcome.INTERRUPTED
    assert s.runner.processes[0].signals == ["TERM"]
    assert s.cos.objects
    assert not s.as_api.protected
    assert s.as_api.completed == []
    assert 2 <= s.as_api.group_reads <= 4
    assert s.worker.run_once() is Outcome.TERMINATING

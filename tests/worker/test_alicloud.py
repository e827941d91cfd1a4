"""The Alibaba Cloud adapters on fakes that keep the documented semantics of MNS and ESS:

- MNS ReceiveMessage hides the message for the queue's VisibilityTimeout and hands out a receipt
  handle; ChangeMessageVisibility (VisibilityTimeout in [1, 43200]) hands out a new handle and the old
  one stops working; DeleteMessage needs the current handle while the message is still hidden; a long
  poll that finds nothing answers MessageNotExist.
- ESS SetInstancesProtection, DescribeScalingInstances (LifecycleState), and the scale-in hook's
  pending action, found through DescribeScalingActivities and DescribeLifecycleActions and completed
  by CompleteLifecycleAction with its token.
"""

from __future__ import annotations

import base64
import itertools
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from gpufleet.worker.alicloud import EcsMetadata, EssInstance, MnsError, MnsQueue, OssCheckpoints, mns_fields
from gpufleet.worker.core import Outcome, Settings, Worker
from tests.worker.fakes import FakeClock, ScriptedProcess, ScriptedRunner

GROUP = "asg-bp1"
HOOK = "ash-bp1drain"
INSTANCE = "i-bp1gpu"
JOB = json.dumps({"command": ["python", "train.py"], "checkpoint": "runs/9/"})


@dataclass
class FakeMns:
    clock: FakeClock
    visibility_s: int = 60
    messages: dict[str, dict[str, Any]] = field(default_factory=dict)
    calls: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    def send(self, body: str) -> None:
        n = next(self._ids)
        self.messages[f"msg-{n}"] = {"body": body, "handle": None, "visible_at": 0.0, "receives": 0}

    def _handle(self, message_id: str) -> str:
        return f"{message_id}-h{next(self._ids)}"

    def _by_handle(self, handle: str) -> tuple[str, dict[str, Any]]:
        for message_id, message in self.messages.items():
            if message["handle"] == handle and self.clock.now() < message["visible_at"]:
                return message_id, message
        raise MnsError("MessageNotExist", "the receipt handle is no longer valid")

    def __call__(self, method: str, resource: str, query: Mapping[str, str]) -> Mapping[str, str]:
        assert resource == "/queues/jobs/messages"
        self.calls.append((method, dict(query)))
        now = self.clock.now()
        if method == "GET":
            assert 0 <= int(query["waitseconds"]) <= 30
            for message_id, message in self.messages.items():
                if message["visible_at"] <= now:
                    message["handle"] = self._handle(message_id)
                    message["visible_at"] = now + self.visibility_s
                    message["receives"] += 1
                    return {
                        "MessageId": message_id,
                        "ReceiptHandle": message["handle"],
                        "MessageBody": message["body"],
                        "DequeueCount": str(message["receives"]),
                    }
            raise MnsError("MessageNotExist", "no message")
        if method == "PUT":
            timeout = int(query["visibilityTimeout"])
            if not 1 <= timeout <= 43_200:
                raise MnsError("InvalidArgument", "VisibilityTimeout out of [1, 43200]")
            message_id, message = self._by_handle(query["receiptHandle"])
            message["handle"] = self._handle(message_id)
            message["visible_at"] = now + timeout
            return {"ReceiptHandle": message["handle"], "NextVisibleTime": str(int((now + timeout) * 1000))}
        if method == "DELETE":
            message_id, _ = self._by_handle(query["ReceiptHandle"])
            del self.messages[message_id]
            return {}
        raise AssertionError(method)

    def receivable(self) -> int:
        return sum(1 for m in self.messages.values() if m["visible_at"] <= self.clock.now())


@dataclass
class FakeEss:
    state: str = "InService"
    protected: bool = False
    max_size: int = 4
    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    completed: list[dict[str, Any]] = field(default_factory=list)

    def __call__(self, action: str, params: Mapping[str, Any]) -> Mapping[str, Any]:
        self.calls.append((action, dict(params)))
        assert params["RegionId"] == "cn-hangzhou"
        if action == "DescribeScalingInstances":
            assert params["InstanceId.1"] == INSTANCE
            instance = {
                "InstanceId": INSTANCE,
                "ScalingGroupId": GROUP,
                "LifecycleState": "Protected" if self.protected and self.state == "InService" else self.state,
            }
            return {"ScalingInstances": {"ScalingInstance": [instance]}, "TotalCount": 1}
        if action == "DescribeScalingGroups":
            assert params["ScalingGroupId.1"] == GROUP
            group = {"ScalingGroupId": GROUP, "MinSize": 0, "MaxSize": self.max_size}
            return {"ScalingGroups": {"ScalingGroup": [group]}, "TotalCount": 1}
        if action == "SetInstancesProtection":
            assert (params["ScalingGroupId"], params["InstanceId.1"]) == (GROUP, INSTANCE)
            self.protected = bool(params["ProtectedFromScaleIn"])
            return {"RequestId": "r"}
        if action == "DescribeScalingActivities":
            assert params["ScalingGroupId"] == GROUP
            running = self.state == "Removing:Wait" and params.get("StatusCode") == "InProgress"
            activities = [{"ScalingActivityId": "asa-1", "StatusCode": "InProgress"}] if running else []
            return {"ScalingActivities": {"ScalingActivity": activities}}
        if action == "DescribeLifecycleHooks":
            assert params["ScalingGroupId"] == GROUP
            hooks = [
                {"LifecycleHookId": HOOK, "LifecycleHookName": "gpufleet-drain"},
                {"LifecycleHookId": "ash-other", "LifecycleHookName": "other"},
            ]
            named = [h for h in hooks if h["LifecycleHookName"] == params["LifecycleHookName"]]
            return {"LifecycleHooks": {"LifecycleHook": named}, "TotalCount": len(named)}
        if action == "DescribeLifecycleActions":
            assert params["ScalingActivityId"] == "asa-1"
            actions = [
                {
                    "LifecycleHookId": "ash-other",
                    "LifecycleActionToken": "tok-other",
                    "InstanceIds": [INSTANCE],
                    "LifecycleActionStatus": "Pending",
                },
                {
                    "LifecycleHookId": HOOK,
                    "LifecycleActionToken": "tok-1",
                    "InstanceIds": ["i-someone-else", INSTANCE],
                    "LifecycleActionStatus": "Pending",
                },
            ]
            return {"LifecycleActions": actions, "TotalCount": 2}
        if action == "CompleteLifecycleAction":
            self.completed.append(dict(params))
            return {"RequestId": "r"}
        raise AssertionError(f"unexpected ESS call {action}")


@dataclass
class FakeEcsMetadata:
    """Hardened mode: a token from PUT, required on every GET."""

    spot: str | None = None
    tokens: int = 0

    def __call__(
        self, method: str, url: str, headers: Mapping[str, str], timeout_s: float
    ) -> tuple[int, str]:
        path = url.removeprefix("http://100.100.100.200")
        if method == "PUT" and path == "/latest/api/token":
            assert "X-aliyun-ecs-metadata-token-ttl-seconds" in headers
            self.tokens += 1
            return 200, f"tok{self.tokens}"
        if headers.get("X-aliyun-ecs-metadata-token") != f"tok{self.tokens}":
            return 401, ""
        if path == "/latest/meta-data/instance-id":
            return 200, INSTANCE
        if path == "/latest/meta-data/instance/spot/termination-time":
            return (404, "") if self.spot is None else (200, self.spot)
        return 404, ""


@dataclass
class FakeOssBucket:
    objects: dict[str, str] = field(default_factory=dict)

    def put_object_from_file(self, key: str, filename: str) -> None:
        self.objects[key] = Path(filename).read_text()


@dataclass
class Site:
    clock: FakeClock
    mns: FakeMns
    ess: FakeEss
    metadata: FakeEcsMetadata
    oss: FakeOssBucket
    runner: ScriptedRunner
    worker: Worker


def site(tmp_path: Path, *, ends_at: float = 50.0, status: int = 0, hook: str = HOOK) -> Site:
    clock = FakeClock()
    mns, ess, metadata, oss = FakeMns(clock), FakeEss(), FakeEcsMetadata(), FakeOssBucket()
    runner = ScriptedRunner(clock, lambda c, env: ScriptedProcess(c, ends_at=ends_at, status=status))
    worker = Worker(
        queue=MnsQueue(mns, "jobs", visibility_timeout_s=60),
        instance=EssInstance(ess, EcsMetadata(http=metadata), "cn-hangzhou", hook_id=hook, clock=clock.now),
        checkpoints=OssCheckpoints(oss, "fleet-ckpt"),
        settings=Settings(checkpoint_dir=tmp_path / "ckpt", poll_s=1.0, notice_s=5.0, grace_s=30.0),
        runner=runner,
        clock=clock,
    )
    return Site(clock, mns, ess, metadata, oss, runner, worker)


def test_a_job_is_protected_extended_with_new_handles_and_deleted(tmp_path: Path) -> None:
    s = site(tmp_path, ends_at=130)
    s.mns.send(JOB)
    protected: list[bool] = []
    s.clock.on_sleep = lambda t: protected.append(s.ess.protected)
    assert s.worker.run_once() is Outcome.SUCCEEDED
    assert all(protected) and protected
    assert not s.ess.protected
    assert s.mns.messages == {}
    puts = [q for m, q in s.mns.calls if m == "PUT"]
    # 60 s visibility: extended every 20 s, each with the handle the previous change handed out.
    assert len(puts) == 6
    assert len({q["receiptHandle"] for q in puts}) == 6


def test_a_stale_handle_is_refused_by_the_fake_as_by_mns(tmp_path: Path) -> None:
    clock = FakeClock()
    mns = FakeMns(clock)
    mns.send(JOB)
    queue = MnsQueue(mns, "jobs")
    message = queue.receive(5)
    assert message is not None
    queue.extend(message, 60)
    with pytest.raises(MnsError, match="MessageNotExist"):
        queue.delete(message)  # the receive's handle died with the visibility change


def test_a_failed_job_comes_back_a_second_later(tmp_path: Path) -> None:
    s = site(tmp_path, ends_at=5, status=1)
    s.mns.send(JOB)
    assert s.worker.run_once() is Outcome.FAILED
    assert ("PUT", "1") in [(m, q.get("visibilityTimeout")) for m, q in s.mns.calls]
    s.clock.sleep(1)
    assert s.mns.receivable() == 1


@pytest.mark.parametrize("hook", [HOOK, "gpufleet-drain"], ids=["by-id", "by-name"])
def test_a_scale_in_hook_checkpoints_returns_and_completes_with_its_token(tmp_path: Path, hook: str) -> None:
    # The pool tells its worker the hook's name; an operator may give its id: either completes it.
    s = site(tmp_path, ends_at=1000, hook=hook)
    s.mns.send(JOB)

    def scale_in(t: float) -> None:
        if t >= 20:
            s.ess.state = "Removing:Wait"

    s.clock.on_sleep = scale_in
    assert s.worker.run_once() is Outcome.INTERRUPTED
    assert s.runner.processes[0].signals == ["TERM"]
    assert s.oss.objects == {"checkpoints/runs/9/step-7/model.pt": "weights"}
    assert s.mns.receivable() == 0
    s.clock.sleep(1)
    assert s.mns.receivable() == 1, "returned with MNS's shortest visibility"
    assert not s.ess.protected
    assert s.ess.completed == [
        {
            "RegionId": "cn-hangzhou",
            "LifecycleHookId": HOOK,
            "LifecycleActionToken": "tok-1",
            "LifecycleActionResult": "CONTINUE",
        }
    ]
    assert s.runner.started[0][1]["GPUFLEET_CHECKPOINT_URI"] == "oss://fleet-ckpt/checkpoints/runs/9/"


def test_a_spot_reclaim_notice_interrupts_without_a_hook_to_complete(tmp_path: Path) -> None:
    s = site(tmp_path, ends_at=1000)
    s.mns.send(JOB)

    def reclaim(t: float) -> None:
        if t >= 10:
            s.metadata.spot = "2026-01-01T00:05:00Z"

    s.clock.on_sleep = reclaim
    assert s.worker.run_once() is Outcome.INTERRUPTED
    assert s.ess.completed == []
    assert s.metadata.tokens == 1


def test_a_base64_body_is_decoded() -> None:
    clock = FakeClock()
    mns = FakeMns(clock)
    mns.send(base64.b64encode(JOB.encode()).decode())
    message = MnsQueue(mns, "jobs").receive(1)
    assert message is not None
    assert json.loads(message.body)["checkpoint"] == "runs/9/"


def test_an_empty_long_poll_is_no_message() -> None:
    assert MnsQueue(FakeMns(FakeClock()), "jobs").receive(30) is None


def test_mns_xml_fields() -> None:
    xml = (
        '<?xml version="1.0" encoding="UTF-8"?>'
        '<ChangeVisibility xmlns="http://mns.aliyuncs.com/doc/v1/">'
        "<ReceiptHandle>TbZj6w</ReceiptHandle><NextVisibleTime>1250700979298</NextVisibleTime>"
        "</ChangeVisibility>"
    )
    assert mns_fields(xml) == {"ReceiptHandle": "TbZj6w", "NextVisibleTime": "1250700979298"}


def test_the_off_hours_stop_checkpoints_the_job_and_lets_the_instance_go(tmp_path: Path) -> None:
    # The off-hours task sets the group's maximum to 0 at t=100; ESS keeps a protected instance through
    # that, so the worker reads the 0 (at most once a minute) as a stop notice: checkpoint, job back,
    # protection off. No hook action is pending (the group has not started removing it yet).
    s = site(tmp_path, ends_at=10_000)
    s.mns.send(JOB)

    def stop(t: float) -> None:
        if t >= 100:
            s.ess.max_size = 0

    s.clock.on_sleep = stop
    assert s.worker.run_once() is Outcome.INTERRUPTED
    assert s.runner.processes[0].signals == ["TERM"]
    assert s.oss.objects == {"checkpoints/runs/9/step-7/model.pt": "weights"}
    s.clock.sleep(1)
    assert s.mns.receivable() == 1, "the job is back in the queue for the morning"
    assert not s.ess.protected
    assert s.ess.completed == []
    reads = [c for c in s.ess.calls if c[0] == "DescribeScalingGroups"]
    # Read at start, then once a minute: the stop at 100 is seen by the read at 120 at the latest.
    assert 2 <= len(reads) <= 4
    assert s.clock.t <= 100 + 60 + 30 + 5
    assert s.worker.run_once() is Outcome.TERMINATING


def test_a_running_group_is_no_stop_notice(tmp_path: Path) -> None:
    s = site(tmp_path, ends_at=130)
    s.mns.send(JOB)
    assert s.worker.run_once() is Outcome.SUCCEEDED
    assert [c for c in s.ess.calls if c[0] == "DescribeScalingGroups"]

"""The AWS worker end to end on moto (SQS, Auto Scaling, EC2, S3) with real job processes.

IMDS is a fake HTTP function (the adapter's injection point). moto does not implement
CompleteLifecycleAction nor RecordLifecycleActionHeartbeat, so those two calls are recorded by a thin
proxy around the moto client; every other call goes to moto.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

boto3 = pytest.importorskip("boto3")
moto = pytest.importorskip("moto")

from gpufleet.worker.aws import AsgInstance, Imds, S3Checkpoints, SqsQueue, queue_url  # noqa: E402
from gpufleet.worker.core import Outcome, Settings, Worker  # noqa: E402

REGION = "us-east-1"
GROUP = "gpu-pool"
HOOK = "drain-jobs"
BUCKET = "fleet-checkpoints"
AMI = "ami-12c6146b"  # one of moto's built-in images
MOTO_ACCOUNT = "123456789012"  # moto's default account


@dataclass
class FakeImds:
    """IMDSv2 for one instance: tokens are required, the spot notice appears when ``spot`` is set."""

    instance_id: str
    spot: dict[str, str] | None = None
    tokens: int = 0
    calls: list[tuple[str, str]] = field(default_factory=list)

    def __call__(
        self, method: str, url: str, headers: Mapping[str, str], timeout_s: float
    ) -> tuple[int, str]:
        path = url.split("169.254.169.254", 1)[1]
        self.calls.append((method, path))
        assert timeout_s > 0
        if method == "PUT" and path == "/latest/api/token":
            assert int(headers["X-aws-ec2-metadata-token-ttl-seconds"]) > 0
            self.tokens += 1
            return 200, f"token-{self.tokens}"
        if headers.get("X-aws-ec2-metadata-token") != f"token-{self.tokens}":
            return 401, ""
        if path == "/latest/meta-data/instance-id":
            return 200, self.instance_id
        if path == "/latest/meta-data/spot/instance-action":
            return (404, "") if self.spot is None else (200, json.dumps(self.spot))
        return 404, ""


class RecordingAutoScaling:
    """moto's client, plus the two lifecycle-action calls moto lacks, recorded."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self.completed: list[dict[str, Any]] = []
        self.heartbeats: list[dict[str, Any]] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def complete_lifecycle_action(self, **kwargs: Any) -> dict[str, Any]:
        self.completed.append(kwargs)
        return {}

    def record_lifecycle_action_heartbeat(self, **kwargs: Any) -> dict[str, Any]:
        self.heartbeats.append(kwargs)
        return {}


@dataclass
class ProbingClock:
    """Real time in small steps (real jobs run), and a probe called at every sleep."""

    probes: list[Any] = field(default_factory=list)
    t0: float = field(default_factory=time.monotonic)

    def now(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        for probe in self.probes:
            probe()
        time.sleep(min(seconds, 0.02))


@dataclass
class Fleet:
    sqs: Any
    s3: Any
    autoscaling: RecordingAutoScaling
    url: str
    instance_id: str
    imds: FakeImds

    def protected(self) -> bool:
        found = self.autoscaling.describe_auto_scaling_instances(InstanceIds=[self.instance_id])
        return bool(found["AutoScalingInstances"][0]["ProtectedFromScaleIn"])

    def visible(self) -> int:
        attributes = self.sqs.get_queue_attributes(
            QueueUrl=self.url, AttributeNames=["ApproximateNumberOfMessages"]
        )
        return int(attributes["Attributes"]["ApproximateNumberOfMessages"])

    def in_flight(self) -> int:
        attributes = self.sqs.get_queue_attributes(
            QueueUrl=self.url, AttributeNames=["ApproximateNumberOfMessagesNotVisible"]
        )
        return int(attributes["Attributes"]["ApproximateNumberOfMessagesNotVisible"])

    def send(self, body: dict[str, Any]) -> None:
        self.sqs.send_message(QueueUrl=self.url, MessageBody=json.dumps(body))

    def set_lifecycle_state(self, state: str) -> None:
        from moto.autoscaling.models import autoscaling_backends

        group = autoscaling_backends[MOTO_ACCOUNT][REGION].autoscaling_groups[GROUP]
        for instance_state in group.instance_states:
            if instance_state.instance.id == self.instance_id:
                instance_state.lifecycle_state = state

    def worker(self, tmp_path: Path, clock: ProbingClock, *, hook: str | None = HOOK) -> Worker:
        return Worker(
            queue=SqsQueue(self.sqs, queue_url(self.sqs, "jobs")),
            instance=AsgInstance(self.autoscaling, Imds(http=self.imds), hook=hook),
            checkpoints=S3Checkpoints(self.s3, BUCKET),
            settings=Settings(
                checkpoint_dir=tmp_path / "ckpt", wait_s=0, poll_s=0.02, notice_s=0.05, grace_s=10.0
            ),
            clock=clock,
        )


@pytest.fixture
def fleet(monkeypatch: pytest.MonkeyPatch) -> Iterator[Fleet]:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"):
        monkeypatch.setenv(name, "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)
    with moto.mock_aws():
        ec2 = boto3.client("ec2", region_name=REGION)
        template = ec2.create_launch_template(
            LaunchTemplateName="gpu", LaunchTemplateData={"ImageId": AMI, "InstanceType": "g5.xlarge"}
        )["LaunchTemplate"]["LaunchTemplateId"]
        autoscaling = boto3.client("autoscaling", region_name=REGION)
        autoscaling.create_auto_scaling_group(
            AutoScalingGroupName=GROUP,
            LaunchTemplate={"LaunchTemplateId": template, "Version": "$Latest"},
            MinSize=1,
            MaxSize=1,
            DesiredCapacity=1,
            AvailabilityZones=[f"{REGION}a"],
        )
        instance_id = autoscaling.describe_auto_scaling_instances()["AutoScalingInstances"][0]["InstanceId"]
        sqs = boto3.client("sqs", region_name=REGION)
        url = sqs.create_queue(QueueName="jobs", Attributes={"VisibilityTimeout": "30"})["QueueUrl"]
        s3 = boto3.client("s3", region_name=REGION)
        s3.create_bucket(Bucket=BUCKET)
        yield Fleet(sqs, s3, RecordingAutoScaling(autoscaling), url, instance_id, FakeImds(instance_id))


def python_job(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def test_a_job_runs_protected_and_its_message_is_deleted(fleet: Fleet, tmp_path: Path) -> None:
    fleet.send({"command": python_job("import time; time.sleep(0.3)")})
    clock = ProbingClock()
    seen: list[bool] = []
    clock.probes.append(lambda: seen.append(fleet.protected()))
    assert not fleet.protected()
    assert fleet.worker(tmp_path, clock).run_once() is Outcome.SUCCEEDED
    assert seen and all(seen), "the instance was protected from scale-in while the job ran"
    assert not fleet.protected(), "and is no more"
    assert fleet.visible() == 0
    assert fleet.in_flight() == 0
    # IMDSv2: one session token, the instance id read with it.
    assert fleet.imds.tokens == 1
    assert ("GET", "/latest/meta-data/instance-id") in fleet.imds.calls


def test_a_failing_jobs_message_comes_back_at_once(fleet: Fleet, tmp_path: Path) -> None:
    fleet.send({"command": python_job("raise SystemExit(3)")})
    worker = fleet.worker(tmp_path, ProbingClock())
    assert worker.run_once() is Outcome.FAILED
    assert not fleet.protected()
    # Visibility 0: receivable again now, not after the 30 s timeout.
    received = fleet.sqs.receive_message(QueueUrl=fleet.url, WaitTimeSeconds=0)
    assert len(received.get("Messages", [])) == 1


TRAP = """
import os, pathlib, signal, sys, time
ckpt = pathlib.Path(os.environ["GPUFLEET_CHECKPOINT_DIR"])
def on_term(signum, frame):
    (ckpt / "step-3.pt").write_text("weights at step 3")
    (ckpt / "state").mkdir()
    (ckpt / "state" / "optimizer.json").write_text("{}")
    sys.exit(0)
signal.signal(signal.SIGTERM, on_term)
pathlib.Path(sys.argv[1]).write_text("ready")
time.sleep(60)
raise SystemExit("not interrupted")
"""


def test_a_spot_notice_checkpoints_the_job_and_returns_its_message(fleet: Fleet, tmp_path: Path) -> None:
    ready = tmp_path / "ready"
    fleet.send({"command": [*python_job(TRAP), str(ready)], "checkpoint": "runs/7/"})
    clock = ProbingClock()

    def notice_once_running() -> None:
        if ready.exists():
            fleet.imds.spot = {"action": "terminate", "time": "2026-01-01T00:02:00Z"}

    clock.probes.append(notice_once_running)
    started = time.monotonic()
    assert fleet.worker(tmp_path, clock).run_once() is Outcome.INTERRUPTED
    assert time.monotonic() - started < 10, "the job left on SIGTERM, not after its 60 s"
    keys = sorted(o["Key"] for o in fleet.s3.list_objects_v2(Bucket=BUCKET)["Contents"])
    assert keys == ["checkpoints/runs/7/state/optimizer.json", "checkpoints/runs/7/step-3.pt"]
    body = fleet.s3.get_object(Bucket=BUCKET, Key="checkpoints/runs/7/step-3.pt")["Body"].read()
    assert body == b"weights at step 3"
    assert not fleet.protected()
    assert fleet.visible() == 1, "returned with visibility 0"
    # A spot notice with the instance still InService: no lifecycle action to complete.
    assert fleet.autoscaling.completed == []


def test_a_termination_hook_during_the_job_completes_the_lifecycle(fleet: Fleet, tmp_path: Path) -> None:
    ready = tmp_path / "ready"
    fleet.send({"command": [*python_job(TRAP), str(ready)], "checkpoint": "runs/8/"})
    clock = ProbingClock()

    def hook_once_running() -> None:
        if ready.exists():
            fleet.set_lifecycle_state("Terminating:Wait")

    clock.probes.append(hook_once_running)
    assert fleet.worker(tmp_path, clock).run_once() is Outcome.INTERRUPTED
    assert fleet.visible() == 1
    hook_args = {"LifecycleHookName": HOOK, "AutoScalingGroupName": GROUP, "InstanceId": fleet.instance_id}
    assert fleet.autoscaling.heartbeats == [hook_args]
    assert fleet.autoscaling.completed == [{**hook_args, "LifecycleActionResult": "CONTINUE"}]
    keys = sorted(o["Key"] for o in fleet.s3.list_objects_v2(Bucket=BUCKET)["Contents"])
    assert "checkpoints/runs/8/step-3.pt" in keys


def test_the_off_hours_stop_checkpoints_the_job_and_lets_the_instance_go(
    fleet: Fleet, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The schedule sets the group's min, max and desired to 0; Auto Scaling keeps a protected instance
    # through that scale-in, so the worker itself checkpoints, returns the job and lifts its protection.
    ready = tmp_path / "ready"
    fleet.send({"command": [*python_job(TRAP), str(ready)], "checkpoint": "runs/9/"})
    clock = ProbingClock()

    def stop_once_running() -> None:
        if ready.exists():
            fleet.autoscaling.update_auto_scaling_group(
                AutoScalingGroupName=GROUP, MinSize=0, MaxSize=0, DesiredCapacity=0
            )

    clock.probes.append(stop_once_running)
    monkeypatch.setattr("gpufleet.worker.aws.STOP_CHECK_S", 0.0)  # read the group at every notice
    assert fleet.worker(tmp_path, clock).run_once() is Outcome.INTERRUPTED
    assert not fleet.protected()
    assert fleet.visible() == 1, "returned with visibility 0"
    keys = sorted(o["Key"] for o in fleet.s3.list_objects_v2(Bucket=BUCKET)["Contents"])
    assert "checkpoints/runs/9/step-3.pt" in keys


def test_an_expired_imds_token_is_renewed(fleet: Fleet) -> None:
    imds = Imds(http=fleet.imds)
    assert imds.instance_id() == fleet.instance_id
    fleet.imds.tokens += 1  # the token the client holds is no longer the current one
    assert imds.spot_action() is None
    assert fleet.imds.tokens == 3


def test_the_visibility_timeout_is_read_from_the_queue(fleet: Fleet) -> None:
    assert SqsQueue(fleet.sqs, fleet.url).visibility_timeout_s == 30

"""The worker on AWS: SQS, EC2 Auto Scaling, IMDSv2 and S3, through boto3 (the ``worker-aws`` extra).

The clients are injected (any object with boto3's method names works), so the adapter runs against
moto in the tests and against the real services on an instance. IMDS is read with a session token
(the pools' launch templates require IMDSv2) through an injectable HTTP function with a timeout.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpufleet.worker.core import Message, checkpoint_files, object_key, with_receipt
from gpufleet.worker.metadata import Http, TokenMetadata, required, urllib_http

log = logging.getLogger("gpufleet.worker.aws")

IMDS = "http://169.254.169.254"
# Seconds between two reads of the group's maximum (the stop check).
STOP_CHECK_S = 60.0
# Wait states of a termination lifecycle hook: the instance leaves once the action is completed.
TERMINATING_WAIT = frozenset({"Terminating:Wait", "Warmed:Terminating:Wait"})
TERMINATING = frozenset(
    {"Terminating", "Terminating:Wait", "Terminating:Proceed", "Terminated"}
    | {"Warmed:Terminating", "Warmed:Terminating:Wait", "Warmed:Terminating:Proceed", "Warmed:Terminated"}
)


@dataclass
class Imds(TokenMetadata):
    """IMDSv2, which the pools' launch templates require (``http_tokens: required``)."""

    base: str = IMDS
    ttl_header: str = "X-aws-ec2-metadata-token-ttl-seconds"
    token_header: str = "X-aws-ec2-metadata-token"
    http: Http = urllib_http

    def instance_id(self) -> str:
        return required(self.get("latest/meta-data/instance-id"), "instance-id")

    def spot_action(self) -> dict[str, Any] | None:
        """The spot interruption notice (``{"action": "terminate", "time": ...}``), None without one."""
        value = self.get("latest/meta-data/spot/instance-action")
        if value is None:
            return None
        try:
            parsed = json.loads(value)
        except json.JSONDecodeError:
            return {"action": value}
        return parsed if isinstance(parsed, dict) else {"action": value}


@dataclass
class SqsQueue:
    """``visibility_timeout_s`` None: read from the queue (``GetQueueAttributes``, in the pool role)."""

    sqs: Any
    url: str
    timeout_s: int | None = None

    @property
    def visibility_timeout_s(self) -> int:
        if self.timeout_s is None:
            attributes = self.sqs.get_queue_attributes(
                QueueUrl=self.url, AttributeNames=["VisibilityTimeout"]
            )
            self.timeout_s = int(attributes["Attributes"]["VisibilityTimeout"])
        return self.timeout_s

    def receive(self, wait_s: int) -> Message | None:
        response = self.sqs.receive_message(QueueUrl=self.url, MaxNumberOfMessages=1, WaitTimeSeconds=wait_s)
        messages = response.get("Messages") or []
        if not messages:
            return None
        raw = messages[0]
        return Message(id=raw["MessageId"], receipt=raw["ReceiptHandle"], body=raw["Body"])

    def extend(self, message: Message, timeout_s: int) -> Message:
        self.sqs.change_message_visibility(
            QueueUrl=self.url, ReceiptHandle=message.receipt, VisibilityTimeout=timeout_s
        )
        return with_receipt(message, message.receipt)

    def delete(self, message: Message) -> None:
        self.sqs.delete_message(QueueUrl=self.url, ReceiptHandle=message.receipt)

    def release(self, message: Message) -> None:
        self.sqs.change_message_visibility(
            QueueUrl=self.url, ReceiptHandle=message.receipt, VisibilityTimeout=0
        )


@dataclass
class AsgInstance:
    """This instance in its Auto Scaling group. ``group`` None: read from the group
    (``DescribeAutoScalingInstances``); ``hook`` None: no termination hook to complete."""

    autoscaling: Any
    imds: Imds
    instance_id: str | None = None
    group: str | None = None
    hook: str | None = None
    _stop_checked: float | None = field(default=None, init=False, repr=False)

    def _id(self) -> str:
        if self.instance_id is None:
            self.instance_id = self.imds.instance_id()
        return self.instance_id

    def _describe(self) -> dict[str, Any] | None:
        found = self.autoscaling.describe_auto_scaling_instances(InstanceIds=[self._id()])
        instances = found.get("AutoScalingInstances") or []
        return instances[0] if instances else None

    def _group(self) -> str:
        if self.group is None:
            described = self._describe()
            if described is None:
                raise RuntimeError(f"instance {self._id()} is in no Auto Scaling group")
            self.group = str(described["AutoScalingGroupName"])
        return self.group

    def lifecycle_state(self) -> str | None:
        described = self._describe()
        return None if described is None else str(described["LifecycleState"])

    def _protection(self, on: bool) -> None:
        self.autoscaling.set_instance_protection(
            InstanceIds=[self._id()], AutoScalingGroupName=self._group(), ProtectedFromScaleIn=on
        )

    def protect(self) -> None:
        self._protection(True)

    def unprotect(self) -> None:
        self._protection(False)

    def stopped(self) -> bool:
        """Whether the group's maximum is 0: the off-hours stop (or an operator) has stopped the pool.
        Auto Scaling keeps a protected instance through such a scale-in, so the worker must let go.
        Read at most once a :data:`STOP_CHECK_S`, to spare the Auto Scaling API."""
        now = time.monotonic()
        if self._stop_checked is not None and now - self._stop_checked < STOP_CHECK_S:
            return False
        self._stop_checked = now
        found = self.autoscaling.describe_auto_scaling_groups(AutoScalingGroupNames=[self._group()])
        groups = found.get("AutoScalingGroups") or []
        return bool(groups) and int(groups[0].get("MaxSize", 1)) == 0

    def termination_pending(self) -> bool:
        action = self.imds.spot_action()
        if action is not None:
            log.warning("spot interruption notice: %s", action)
            return True
        state = self.lifecycle_state()
        if state in TERMINATING:
            log.warning("the group is taking the instance out: %s", state)
            return True
        if self.stopped():
            log.warning("the group's maximum is 0: the pool is stopped")
            return True
        return False

    def _hook_args(self) -> dict[str, str] | None:
        if self.hook is None or self.lifecycle_state() not in TERMINATING_WAIT:
            return None
        return {
            "LifecycleHookName": self.hook,
            "AutoScalingGroupName": self._group(),
            "InstanceId": self._id(),
        }

    def lifecycle_heartbeat(self) -> None:
        args = self._hook_args()
        if args is not None:
            self.autoscaling.record_lifecycle_action_heartbeat(**args)

    def complete_lifecycle(self) -> None:
        args = self._hook_args()
        if args is not None:
            self.autoscaling.complete_lifecycle_action(LifecycleActionResult="CONTINUE", **args)


@dataclass
class S3Checkpoints:
    """Objects under ``root`` + the job's prefix: the pool role may write under ``checkpoints/`` only.
    No encryption header is sent, so the bucket's default (SSE-KMS under the fleet key) applies."""

    s3: Any
    bucket: str
    root: str = "checkpoints/"

    def _prefix(self, prefix: str) -> str:
        return object_key(self.root, prefix) if self.root else prefix

    def location(self, prefix: str) -> str:
        return f"s3://{self.bucket}/{self._prefix(prefix)}"

    def upload_dir(self, local: Path, prefix: str) -> int:
        files = checkpoint_files(local)
        for path, relative in files:
            self.s3.upload_file(str(path), self.bucket, object_key(self._prefix(prefix), relative))
        return len(files)


def queue_url(sqs: Any, name: str) -> str:
    return str(sqs.get_queue_url(QueueName=name)["QueueUrl"])

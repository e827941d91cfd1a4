"""The worker on Tencent Cloud: a TDMQ for CMQ queue, an AS scaling group, CVM metadata and COS.

No Tencent SDK is a dependency: each API is reached through an injected client.

- CMQ (:class:`CmqQueue`) takes ``cmq(action, params)``: one request to the queue's data-flow
  endpoint (``ReceiveMessage``, ``DeleteMessage``), answering its JSON (``code`` 0 on success, 7000
  when a long poll finds nothing). CMQ has no call that changes a received message's visibility: a
  message stays hidden for the queue's ``visibilityTimeout`` (the pool sets it), which should cover
  the longest job: the worker never asks to extend it (``CmqQueue.extends_visibility``) and stops a job
  that would outlive it, with its checkpoint, a grace period before it ends. A failed, interrupted or
  stopped job's message comes back when that timeout ends.
- AS (:class:`AsInstance`) takes ``as_api(action, params)``: one API 3.0 call (``as``, version
  2018-04-19), answering its JSON (``{"Response": {...}}`` or the inner object); an ``Error``
  raises. ``tencentcloud.common.common_client.CommonClient("as", "2018-04-19", ...).call_json`` fits.
- COS (:class:`CosCheckpoints`) takes an object with ``upload_file(Bucket, Key, LocalFilePath)``, the
  method of ``qcloud_cos.CosS3Client``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Protocol

from gpufleet.worker.core import Message, checkpoint_files, object_key
from gpufleet.worker.group import GroupInstance
from gpufleet.worker.metadata import Http, PlainMetadata, required, urllib_http

log = logging.getLogger("gpufleet.worker.tencentcloud")

METADATA = "http://metadata.tencentyun.com"
CMQ_NO_MESSAGE = 7000
CMQ_MAX_WAIT_S = 30
# DescribeAutoScalingInstances LifeCycleState while AS takes the instance out; IN_TERMINATING_HOOK is
# the wait of a scale-in lifecycle hook, ended by CompleteLifecycleAction.
IN_TERMINATING_HOOK = "IN_TERMINATING_HOOK"
TERMINATING = frozenset({"TERMINATING", IN_TERMINATING_HOOK})

Rpc = Callable[[str, Mapping[str, Any]], Mapping[str, Any]]


class TencentError(RuntimeError):
    def __init__(self, code: str, message: str = "") -> None:
        super().__init__(f"{code}: {message}" if message else code)
        self.code = code


@dataclass
class CmqQueue:
    cmq: Rpc
    name: str
    visibility_timeout_s: int = 900
    extends_visibility: ClassVar[bool] = False
    """CMQ has no call that extends a received message's visibility: the worker stops a job (with its
    checkpoint) a grace period before the queue's visibility timeout ends, so it never runs twice."""
    _warned: bool = field(default=False, init=False, repr=False)

    def _call(self, action: str, params: Mapping[str, Any]) -> Mapping[str, Any]:
        answer = self.cmq(action, params)
        code = int(answer.get("code", 0))
        if code not in {0, CMQ_NO_MESSAGE}:
            raise TencentError(str(code), str(answer.get("message", "")))
        return answer

    def receive(self, wait_s: int) -> Message | None:
        wait = max(0, min(wait_s, CMQ_MAX_WAIT_S))
        answer = self._call("ReceiveMessage", {"queueName": self.name, "pollingWaitSeconds": wait})
        if int(answer.get("code", 0)) == CMQ_NO_MESSAGE:
            return None
        return Message(id=str(answer["msgId"]), receipt=str(answer["receiptHandle"]), body=answer["msgBody"])

    def extend(self, message: Message, timeout_s: int) -> Message:
        """Nothing to call: the worker does not ask (``extends_visibility``); another caller is warned once
        and gets the message as it was."""
        if not self._warned:
            log.warning(
                "CMQ cannot extend a message's visibility: the message comes back when the queue's "
                "visibilityTimeout (%ss) ends",
                self.visibility_timeout_s,
            )
            self._warned = True
        return message

    def delete(self, message: Message) -> None:
        self._call("DeleteMessage", {"queueName": self.name, "receiptHandle": message.receipt})

    def release(self, message: Message) -> None:
        # No visibility call: the message is received again once its visibilityTimeout ends.
        log.info("message %s comes back after the queue's visibility timeout", message.id)


@dataclass
class CvmMetadata(PlainMetadata):
    base: str = METADATA
    http: Http = urllib_http

    def instance_id(self) -> str:
        return required(self.get("latest/meta-data/instance-id"), "instance-id")

    def spot_termination_time(self) -> str | None:
        return self.get("latest/meta-data/spot/termination-time")


def _response(answer: Mapping[str, Any]) -> Mapping[str, Any]:
    inner: Mapping[str, Any] = answer.get("Response", answer)
    error = inner.get("Error")
    if error:
        raise TencentError(str(error.get("Code", "")), str(error.get("Message", "")))
    return inner


@dataclass
class AsInstance(GroupInstance):
    """This instance in its AS group. ``group_id`` None: read from DescribeAutoScalingInstances;
    ``hook_id`` None: no scale-in hook to complete."""

    as_api: Rpc
    metadata: CvmMetadata
    instance_id: str | None = None
    group_id: str | None = None
    hook_id: str | None = None
    clock: Callable[[], float] = time.monotonic
    removing_states = TERMINATING
    hook_wait_state = IN_TERMINATING_HOOK

    def _call(self, action: str, params: Mapping[str, Any]) -> Mapping[str, Any]:
        return _response(self.as_api(action, params))

    def _describe(self) -> Mapping[str, Any] | None:
        found = self._call("DescribeAutoScalingInstances", {"InstanceIds": [self._id()]})
        instances = found.get("AutoScalingInstanceSet") or []
        return instances[0] if instances else None

    def _group_of(self, described: Mapping[str, Any]) -> str:
        return str(described["AutoScalingGroupId"])

    def _state_of(self, described: Mapping[str, Any]) -> str:
        return str(described["LifeCycleState"])

    def _protection(self, on: bool) -> None:
        self._call(
            "SetInstancesProtection",
            {"AutoScalingGroupId": self._group(), "InstanceIds": [self._id()], "ProtectedFromScaleIn": on},
        )

    def _max_size(self) -> int | None:
        found = self._call("DescribeAutoScalingGroups", {"AutoScalingGroupIds": [self._group()]})
        groups = found.get("AutoScalingGroupSet") or []
        return int(groups[0]["MaxSize"]) if groups else None

    def _hook_ids(self, name: str) -> list[str]:
        # DescribeLifecycleHooks filters by group and hook name; answers LifecycleHookSet[]
        # (https://www.tencentcloud.com/document/api/377/33197).
        filters = [
            {"Name": "auto-scaling-group-id", "Values": [self._group()]},
            {"Name": "lifecycle-hook-name", "Values": [name]},
        ]
        found = self._call("DescribeLifecycleHooks", {"Filters": filters})
        hooks = found.get("LifecycleHookSet") or []
        return [str(h["LifecycleHookId"]) for h in hooks if h.get("LifecycleHookName") == name]

    def complete_lifecycle(self) -> None:
        if not self.hook_waiting():
            return
        self._call(
            "CompleteLifecycleAction",
            {"LifecycleHookId": self._hook(), "LifecycleActionResult": "CONTINUE", "InstanceId": self._id()},
        )


class CosClient(Protocol):
    def upload_file(self, Bucket: str, Key: str, LocalFilePath: str) -> Any: ...


@dataclass
class CosCheckpoints:
    """Objects under ``root`` + the job's prefix; the bucket's default encryption applies."""

    cos: CosClient
    bucket: str
    root: str = "checkpoints/"

    def _prefix(self, prefix: str) -> str:
        return object_key(self.root, prefix) if self.root else prefix

    def location(self, prefix: str) -> str:
        return f"cos://{self.bucket}/{self._prefix(prefix)}"

    def upload_dir(self, local: Path, prefix: str) -> int:
        files = checkpoint_files(local)
        for path, relative in files:
            self.cos.upload_file(
                Bucket=self.bucket, Key=object_key(self._prefix(prefix), relative), LocalFilePath=str(path)
            )
        return len(files)

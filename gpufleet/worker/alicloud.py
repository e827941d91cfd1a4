"""The worker on Alibaba Cloud: MNS queue, ESS scaling group, ECS metadata (hardened mode) and OSS.

No Alibaba SDK is a dependency: each API is reached through an injected client.

- MNS (:class:`MnsQueue`) takes ``mns(method, resource, query)``: one signed request to the queue
  endpoint, answering the response's fields (``ReceiptHandle``, ``MessageBody``...) as a mapping, and
  raising :class:`MnsError` with MNS's error code (``MessageNotExist`` when a long poll finds nothing).
  Every visibility change hands back a *new* receipt handle; the old one is dead from then on.
- ESS (:class:`EssInstance`) takes ``ess(action, params)``: one RPC call (``Action`` plus the flat
  request parameters, ``InstanceId.1``...), answering the JSON response; errors raise.
- OSS (:class:`OssCheckpoints`) takes an object with ``put_object_from_file(key, filename)``, the
  method of ``oss2.Bucket``.

The calls each adapter makes, with their documentation, are listed in ``docs/worker.md``.
"""

from __future__ import annotations

import base64
import binascii
import logging
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from gpufleet.worker.core import Message, checkpoint_files, object_key, with_receipt
from gpufleet.worker.group import GroupInstance
from gpufleet.worker.metadata import Http, TokenMetadata, required, urllib_http

log = logging.getLogger("gpufleet.worker.alicloud")

METADATA = "http://100.100.100.200"
MNS_MIN_VISIBILITY_S = 1  # ChangeMessageVisibility: VisibilityTimeout in [1, 43200]
MNS_MAX_VISIBILITY_S = 43_200
MNS_MAX_WAIT_S = 30  # ReceiveMessage: waitseconds in [0, 30]
# DescribeScalingInstances LifecycleState while ESS takes the instance out; Removing:Wait is the
# wait of a scale-in lifecycle hook, ended by CompleteLifecycleAction.
REMOVING_WAIT = "Removing:Wait"
REMOVING = frozenset({"Removing", REMOVING_WAIT})

Mns = Callable[[str, str, Mapping[str, str]], Mapping[str, str]]
Rpc = Callable[[str, Mapping[str, Any]], Mapping[str, Any]]


class MnsError(RuntimeError):
    def __init__(self, code: str, message: str = "") -> None:
        super().__init__(f"{code}: {message}" if message else code)
        self.code = code


def job_body(raw: str) -> str:
    """The message body as the job's JSON: MNS SDKs may base64 a body on send; one that is not JSON
    but decodes to JSON is taken decoded."""
    stripped = raw.strip()
    if stripped.startswith("{"):
        return raw
    try:
        decoded = base64.b64decode(stripped, validate=True).decode()
    except (binascii.Error, UnicodeDecodeError):
        return raw
    return decoded if decoded.strip().startswith("{") else raw


@dataclass
class MnsQueue:
    mns: Mns
    name: str
    visibility_timeout_s: int = 900

    @property
    def _messages(self) -> str:
        return f"/queues/{self.name}/messages"

    def receive(self, wait_s: int) -> Message | None:
        wait = max(0, min(wait_s, MNS_MAX_WAIT_S))
        try:
            raw = self.mns("GET", self._messages, {"waitseconds": str(wait)})
        except MnsError as error:
            if error.code == "MessageNotExist":
                return None
            raise
        return Message(id=raw["MessageId"], receipt=raw["ReceiptHandle"], body=job_body(raw["MessageBody"]))

    def extend(self, message: Message, timeout_s: int) -> Message:
        timeout = max(MNS_MIN_VISIBILITY_S, min(timeout_s, MNS_MAX_VISIBILITY_S))
        changed = self.mns(
            "PUT", self._messages, {"receiptHandle": message.receipt, "visibilityTimeout": str(timeout)}
        )
        return with_receipt(message, changed["ReceiptHandle"])

    def delete(self, message: Message) -> None:
        self.mns("DELETE", self._messages, {"ReceiptHandle": message.receipt})

    def release(self, message: Message) -> None:
        # MNS takes no 0: one second is the soonest a message can be received again.
        self.extend(message, MNS_MIN_VISIBILITY_S)


@dataclass
class EcsMetadata(TokenMetadata):
    """ECS metadata in hardened mode, which the pools' launch templates require."""

    base: str = METADATA
    ttl_header: str = "X-aliyun-ecs-metadata-token-ttl-seconds"
    token_header: str = "X-aliyun-ecs-metadata-token"
    http: Http = urllib_http

    def instance_id(self) -> str:
        return required(self.get("latest/meta-data/instance-id"), "instance-id")

    def spot_termination_time(self) -> str | None:
        return self.get("latest/meta-data/instance/spot/termination-time")


def _items(value: Any, inner: str) -> list[dict[str, Any]]:
    """RPC lists come as ``{"Inner": [...]}`` (the 2014-08-28 API) or as the list itself."""
    if isinstance(value, Mapping):
        value = value.get(inner, [])
    return [dict(item) for item in value or []]


@dataclass
class EssInstance(GroupInstance):
    """This instance in its ESS scaling group. ``group_id`` None: read from DescribeScalingInstances;
    ``hook_id`` None: no scale-in hook to complete."""

    ess: Rpc
    metadata: EcsMetadata
    region: str
    instance_id: str | None = None
    group_id: str | None = None
    hook_id: str | None = None
    clock: Callable[[], float] = time.monotonic
    removing_states = REMOVING
    hook_wait_state = REMOVING_WAIT

    def _describe(self) -> dict[str, Any] | None:
        # The 2014-08-28 API's list parameters go flat as Name.N: InstanceId.1 (the SDKs' InstanceIds).
        found = self.ess("DescribeScalingInstances", {"RegionId": self.region, "InstanceId.1": self._id()})
        instances = _items(found.get("ScalingInstances"), "ScalingInstance")
        return instances[0] if instances else None

    def _group_of(self, described: Mapping[str, Any]) -> str:
        return str(described["ScalingGroupId"])

    def _state_of(self, described: Mapping[str, Any]) -> str:
        return str(described["LifecycleState"])

    def _protection(self, on: bool) -> None:
        self.ess(
            "SetInstancesProtection",
            {
                "RegionId": self.region,
                "ScalingGroupId": self._group(),
                "InstanceId.1": self._id(),
                "ProtectedFromScaleIn": on,
            },
        )

    def _max_size(self) -> int | None:
        # DescribeScalingGroups (2014-08-28): up to 20 ids, flat as ScalingGroupId.N (the SDKs'
        # ScalingGroupIds); answers ScalingGroups.ScalingGroup[].MaxSize.
        found = self.ess(
            "DescribeScalingGroups", {"RegionId": self.region, "ScalingGroupId.1": self._group()}
        )
        groups = _items(found.get("ScalingGroups"), "ScalingGroup")
        return int(groups[0]["MaxSize"]) if groups else None

    def _hook_ids(self, name: str) -> list[str]:
        # DescribeLifecycleHooks: a group and a hook name; answers LifecycleHooks.LifecycleHook[].
        found = self.ess(
            "DescribeLifecycleHooks",
            {"RegionId": self.region, "ScalingGroupId": self._group(), "LifecycleHookName": name},
        )
        hooks = _items(found.get("LifecycleHooks"), "LifecycleHook")
        return [str(h["LifecycleHookId"]) for h in hooks if h.get("LifecycleHookName") == name]

    def _pending_token(self) -> str | None:
        """The token of this hook's pending action for this instance: the group's scaling activities
        in progress, their pending lifecycle actions (DescribeLifecycleActions)."""
        activities = self.ess(
            "DescribeScalingActivities",
            {"RegionId": self.region, "ScalingGroupId": self._group(), "StatusCode": "InProgress"},
        )
        for activity in _items(activities.get("ScalingActivities"), "ScalingActivity"):
            actions = self.ess(
                "DescribeLifecycleActions",
                {
                    "RegionId": self.region,
                    "ScalingActivityId": activity["ScalingActivityId"],
                    "LifecycleActionStatus": "Pending",
                },
            )
            for action in _items(actions.get("LifecycleActions"), "LifecycleAction"):
                instances: Iterable[str] = action.get("InstanceIds") or []
                if isinstance(instances, Mapping):
                    instances = instances.get("InstanceId", [])
                if action.get("LifecycleHookId") == self._hook() and self._id() in instances:
                    return str(action["LifecycleActionToken"])
        return None

    def complete_lifecycle(self) -> None:
        if not self.hook_waiting():
            return
        token = self._pending_token()
        if token is None:
            log.warning("no pending action of hook %s for this instance", self.hook_id)
            return
        self.ess(
            "CompleteLifecycleAction",
            {
                "RegionId": self.region,
                "LifecycleHookId": self._hook(),
                "LifecycleActionToken": token,
                "LifecycleActionResult": "CONTINUE",
            },
        )


class OssBucket(Protocol):
    def put_object_from_file(self, key: str, filename: str) -> Any: ...


@dataclass
class OssCheckpoints:
    """Objects under ``root`` + the job's prefix (the pool's RAM role may write ``checkpoints/``
    only); the bucket's default encryption (KMS under the site key) applies."""

    bucket: OssBucket
    name: str
    root: str = "checkpoints/"

    def _prefix(self, prefix: str) -> str:
        return object_key(self.root, prefix) if self.root else prefix

    def location(self, prefix: str) -> str:
        return f"oss://{self.name}/{self._prefix(prefix)}"

    def upload_dir(self, local: Path, prefix: str) -> int:
        files = checkpoint_files(local)
        for path, relative in files:
            self.bucket.put_object_from_file(object_key(self._prefix(prefix), relative), str(path))
        return len(files)


def mns_fields(xml_text: str) -> dict[str, str]:
    """The child elements of an MNS XML response (``<Message><ReceiptHandle>...``) as a mapping, for a
    transport that speaks HTTP itself."""
    import xml.etree.ElementTree as ET

    root = ET.fromstring(xml_text)
    return {child.tag.rsplit("}", 1)[-1]: (child.text or "") for child in root}

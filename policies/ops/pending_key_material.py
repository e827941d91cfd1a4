"""GF-OPS-005: resources used at creation are usable at creation.

A KMS key waiting for imported material (BYOK before the import) cannot encrypt anything: the log
groups, volumes and buckets that name it in the same deployment fail to create, and an Auto Scaling
group that waits for capacity times out, since instances whose volumes use the key never launch.

Keys pending import:
- AWS `aws:kms/externalKey:ExternalKey` and `aws:kms/replicaExternalKey:ReplicaExternalKey` without
  `keyMaterialBase64` (a secret config value given there is material: the key is usable at once);
- Alibaba Cloud `alicloud:kms/key:Key` with `origin: EXTERNAL`: the SDK has no resource that imports
  material, so such a key is always pending in the deployment that creates it;
- Tencent Cloud `tencentcloud:Kms/externalKey:ExternalKey` without `keyMaterialBase64`.

An external key (AWS, Tencent, or Alibaba of origin EXTERNAL) tagged `gpufleet:key-material = imported`
is taken at its word: its
owner imported the material out of band in an earlier deployment (the second phase of a BYOK first
deploy), so the key is usable when this deployment runs. The tag is an assertion the program makes,
as the fleet does for `storage.checkpoints.byok_material: imported`; it changes no cloud behaviour.

Users of a key (the inputs read): AWS log groups, EBS volumes, the default EBS key, launch templates
(`blockDeviceMappings`), instances (`rootBlockDevice`, `ebsBlockDevices`), bucket encryption
(`aws:s3/bucketServerSideEncryptionConfiguration` and its V2 twin, a bucket's own
`serverSideEncryptionConfiguration`), SNS topics, SQS queues, CloudTrail trails, EFS and FSx for Lustre
file systems, Secrets Manager secrets, RDS instances and clusters, ECR repositories; Alibaba OSS buckets
and their `oss.BucketServerSideEncryption`, ECS disks, instances, launch templates and ESS scaling
configurations (system and data disks), log stores (`encryptConf`); Tencent COS buckets (`kmsId`), CBS
disks and CVM data disks. A use is a property dependency on the key (or on a KMS alias of it), or the
key's ARN or id written in that input. An Auto Scaling group whose launch template uses a pending key
and that waits for capacity (`waitForCapacityTimeout` other than "0", min size or desired capacity
above 0) gets its own finding.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs

from gpufleet.components.clouds import part_merged, part_union
from gpufleet.components.keys.material import MATERIAL_TAG
from gpufleet.policies.context import tags_of
from gpufleet.policies.cost.pools import ResourceIndex, ResourceView
from gpufleet.policies.ops._common import (
    fragments,
    joined,
    part_of_type,
    parts,
    quoted,
    rule_url,
    stack_index,
)
from gpufleet.policies.props import get_ref, is_unknown
from gpufleet.policies.rule import GfStackPolicy, Rule, judge, judges

# Each cloud module's keys that may wait for imported material (`PENDING_KEY_TYPES`, with an optional
# `pending_reason` where a key's own inputs say it, else it is pending without `keyMaterialBase64`), its
# aliases (`KEY_ALIASES`: type -> the input naming the key), what uses a key (`KEY_USERS`), and its
# groups that wait for capacity on a launch template's key (`CAPACITY_GROUPS`, `capacity_problem`).
PENDING_TYPES = joined("PENDING_KEY_TYPES")
ALIASES: Mapping[str, str] = part_merged(parts(), "KEY_ALIASES")
# type token -> (what it is, the inputs that may name a key)
USERS: Mapping[str, tuple[str, tuple[str, ...]]] = part_merged(parts(), "KEY_USERS")
CHECKED_ON_SEND = part_union(parts(), "CHECKED_ON_SEND")
TEMPLATE_TYPES = part_union(parts(), "KEY_TEMPLATE_TYPES")
CAPACITY_GROUPS = joined("CAPACITY_GROUPS")
_IMPORTS = "; ".join(fragments("IMPORT_COMMAND").values())
_MATERIAL_INPUTS = " and ".join(fragments("MATERIAL_NAME").values())

RULE = Rule(
    id="GF-OPS-005",
    name="usable-at-creation",
    description=(
        "Resources used at creation are usable at creation: a key pending import (BYOK before its "
        "material is imported) is not the key of log groups, volumes or buckets created in the same "
        "deployment; a group that waits for capacity has instances that can launch."
    ),
    clouds=tuple(fragments("PENDING_KEY_TYPES")),
    enforcement=EnforcementLevel.ADVISORY,
    severity=Severity.MEDIUM,
    remediation=(
        "Deploy in two phases: first the keys (pulumi up --target the key), import their material "
        f"({_IMPORTS}), then "
        f"the rest. Or give the material as a secret config value ({_MATERIAL_INPUTS} ExternalKey "
        "key_material_base64). Until the material is imported, do not wait for capacity "
        "(wait_for_capacity_timeout='0'). Once imported, tag the external key "
        "gpufleet:key-material=imported (the fleet does for byok_material: imported)."
    ),
    url=rule_url("GF-OPS-005"),
)


def _pending(view: ResourceView) -> str | None:
    """Why `view` is a key pending import, or None."""
    own = getattr(part_of_type(view.resource_type), "pending_reason", None)
    if own is not None:
        reason = own(view)
        return str(reason) if reason else None
    material = get_ref(view.props, "keyMaterialBase64")
    if material is None or material == "":
        if tags_of(view.resource_type, view.props).get(MATERIAL_TAG) == "imported":
            return None
        return "no keyMaterialBase64"
    return None


def _identifiers(view: ResourceView) -> set[str]:
    found = set()
    for prop in ("arn", "id", "keyId"):
        value = get_ref(view.props, prop)
        if isinstance(value, str) and len(value) >= 8 and not is_unknown(value):
            found.add(value)
    return found


def _mentions(value: Any, needles: Iterable[str]) -> bool:
    if isinstance(value, str):
        return not is_unknown(value) and any(needle in value for needle in needles)
    if isinstance(value, Mapping):
        return any(_mentions(item, needles) for item in value.values())
    if isinstance(value, list | tuple):
        return any(_mentions(item, needles) for item in value)
    return False


class _Keys:
    """The stack's pending keys, with the aliases that stand for them."""

    def __init__(self, index: ResourceIndex, pending: Mapping[str, tuple[ResourceView, str]]) -> None:
        self.pending = pending
        self.by_alias: dict[str, str] = {}
        for alias in index.of_type(*ALIASES):
            prop = ALIASES[alias.resource_type]
            for key_urn, (key, _) in pending.items():
                if key_urn in alias.dependency_urns.get(prop, ()) or _mentions(
                    get_ref(alias.props, prop), _identifiers(key)
                ):
                    self.by_alias[alias.urn] = key_urn
        self.needles = {urn: _identifiers(key) for urn, (key, _) in pending.items()}

    def used_by(self, view: ResourceView, props: Iterable[str]) -> list[str]:
        found: dict[str, None] = {}
        for prop in props:
            for dep in view.dependency_urns.get(prop, ()):
                key_urn = dep if dep in self.pending else self.by_alias.get(dep)
                if key_urn is not None:
                    found[key_urn] = None
            value = get_ref(view.props, prop)
            for key_urn, needles in self.needles.items():
                if needles and _mentions(value, needles):
                    found[key_urn] = None
        return list(found)


# Messaging services check the key when a message is sent, not when the topic or queue is created
# (each cloud module's `CHECKED_ON_SEND`).


def _use_message(what: str, view: ResourceView, keys: list[tuple[ResourceView, str]]) -> str:
    names = quoted(key.name for key, _ in keys)
    why = "; ".join(f"'{key.name}': {reason}" for key, reason in keys)
    noun = "key" if len(keys) == 1 else "keys"
    if view.resource_type in CHECKED_ON_SEND:
        effect = f"'{view.name}' is created but every message sent to it fails until the material is imported"
    else:
        effect = f"'{view.name}' fails to create"
    return (
        f"{what} '{view.name}' encrypts with {noun} {names}, pending import in this deployment ({why}): "
        f"a key without material cannot encrypt, so {effect}; deploy the key first, "
        "import its material, then the rest (or give the material as a secret config value)"
    )


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    index = stack_index(args)
    candidates = index.of_type(*PENDING_TYPES)
    if not candidates:
        args.not_applicable("the stack creates no key whose material is imported")
    pending: dict[str, tuple[ResourceView, str]] = {}
    for key in candidates:

        def classify(key: ResourceView = key) -> None:
            reason = _pending(key)
            if reason:
                pending[key.urn] = (key, reason)

        judge(key.urn, classify)
    if not pending:
        return
    keys = _Keys(index, pending)
    template_keys: dict[str, list[str]] = {}
    for view in index.of_type(*USERS):
        what, props = USERS[view.resource_type]
        used = keys.used_by(view, props)
        if not used:
            continue
        if view.resource_type in TEMPLATE_TYPES:
            template_keys[view.urn] = used
        report(_use_message(what, view, [pending[urn] for urn in used]), view.urn)
    for group in index.of_type(*CAPACITY_GROUPS):

        def check(group: ResourceView = group) -> None:
            problem = part_of_type(group.resource_type).capacity_problem(index, group, template_keys)
            if problem:
                report(problem, group.urn)

        judge(group.urn, check)


POLICY = GfStackPolicy(
    RULE,
    validate,
    judges(USERS, CAPACITY_GROUPS),
)

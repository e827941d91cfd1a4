"""The Tencent Cloud checkpoint replica: the site's COS bucket copied, one way, into a second region.

The destination is a :class:`TencentBucket` built through a provider of the replica region, hardened
like the source: private, TLS only, KMS with its own key of that region, versioned (COS replicates only
between versioned buckets) and the same lifecycle. The source bucket carries the replication itself
(``replica_role`` and one enabled ``replica_rules`` entry naming ``qcs::cos:<region>::<bucket>``):
every object, datasets and checkpoints, with its deletions.

COS replicates as the identity ``replica_role`` names. The replica builds a CAM role that only
``cos.qcloud.com`` may assume, given read on the source, write on the destination and the two keys
(decrypt with the source's, encrypt with the destination's), and names it
``qcs::cam::uin/<owner uin>:roleName/<role>``. The SDK documents the field's form as
``qcs::cam::uin/<owner uin>:uin/<sub uin>`` (a user): the role form was checked under the mocks only,
not against the cloud (docs/tencentcloud.md).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pulumi
import tencentcloud_iac_pulumi as tencentcloud

from gpufleet.components.storage.tencentcloud import TencentBucket, TencentBucketArgs, destination_id
from gpufleet.components.tags import check_cost_tags

TRUSTED_SERVICE = "cos.qcloud.com"
MAX_ROLE_NAME = 128
SOURCE_ACTIONS = ("name/cos:GetObject", "name/cos:HeadObject", "name/cos:GetBucket")
DESTINATION_ACTIONS = (
    "name/cos:PutObject",
    "name/cos:DeleteObject",
    "name/cos:InitiateMultipartUpload",
    "name/cos:UploadPart",
    "name/cos:CompleteMultipartUpload",
    "name/cos:AbortMultipartUpload",
)
SOURCE_KEY_ACTIONS = ("name/kms:Decrypt",)
DESTINATION_KEY_ACTIONS = ("name/kms:Encrypt", "name/kms:GenerateDataKey")


def trust_document() -> str:
    """COS may assume the role; no one else."""
    statement = {
        "action": ["name/sts:AssumeRole"],
        "effect": "allow",
        "principal": {"service": [TRUSTED_SERVICE]},
    }
    return json.dumps({"version": "2.0", "statement": [statement]}, sort_keys=True)


def role_identity(owner_uin: str, role_name: str) -> str:
    """The ``replica_role`` value naming the CAM role."""
    return f"qcs::cam::uin/{owner_uin}:roleName/{role_name}"


@dataclass(frozen=True, kw_only=True)
class ReplicaGrants:
    app_id: str
    uin: str
    source_region: str
    source: str
    source_key: str
    region: str
    destination: str
    key: str


def replication_document(g: ReplicaGrants) -> str:
    """Read the source, write the replica, decrypt with the source key, encrypt with the replica's."""

    def objects(region: str, bucket: str) -> list[str]:
        base = f"qcs::cos:{region}:uid/{g.app_id}:{bucket}"
        return [f"{base}/", f"{base}/*"]

    def key(region: str, key_id: str) -> str:
        return f"qcs::kms:{region}:uin/{g.uin}:key/creatorUin/{g.uin}/{key_id}"

    statements: list[dict[str, Any]] = [
        {"effect": "allow", "action": list(SOURCE_ACTIONS), "resource": objects(g.source_region, g.source)},
        {
            "effect": "allow",
            "action": list(DESTINATION_ACTIONS),
            "resource": objects(g.region, g.destination),
        },
        {
            "effect": "allow",
            "action": list(SOURCE_KEY_ACTIONS),
            "resource": [key(g.source_region, g.source_key)],
        },
        {"effect": "allow", "action": list(DESTINATION_KEY_ACTIONS), "resource": [key(g.region, g.key)]},
    ]
    return json.dumps({"version": "2.0", "statement": statements}, sort_keys=True)


@dataclass(frozen=True, kw_only=True)
class CosReplicaArgs:
    """``source_*``: the site's bucket name part (its name is ``<name_part>-<APPID>``), key and region.
    ``bucket``: the destination's settings, its region, key and provider those of the replica region.
    ``owner_uin``/``uin``: the account, for the role's identity and the key ARNs."""

    source_name_part: str
    source_key_id: pulumi.Input[str]
    source_region: str
    owner_uin: pulumi.Input[str]
    uin: pulumi.Input[str]
    role_name: str
    tags: Mapping[str, str]
    bucket: TencentBucketArgs
    provider: pulumi.ProviderResource | None = None

    def __post_init__(self) -> None:
        problems = check_cost_tags(self.tags)
        if self.bucket.region == self.source_region:
            problems.append(
                f"bucket.region: {self.bucket.region} is the source's region; a replica must be in a "
                "second region"
            )
        if self.bucket.replication is not None:
            problems.append("bucket.replication: the replica does not replicate further")
        if not 1 <= len(self.role_name) <= MAX_ROLE_NAME:
            problems.append(f"role_name: {self.role_name!r} must be 1 to {MAX_ROLE_NAME} characters")
        if problems:
            raise ValueError("CosReplicaArgs: " + "; ".join(problems))


class CosCheckpointReplica(pulumi.ComponentResource):
    """``-bucket`` (a :class:`TencentBucket` in the replica region) and the CAM role ``-role`` with its
    ``-policy`` and ``-attach``. ``destination`` and ``role`` are what the source bucket's replication
    names; the source depends on this component so the versioned destination exists first."""

    bucket_name: pulumi.Output[str]
    destination: pulumi.Output[str]
    role: pulumi.Output[str]

    def __init__(self, name: str, args: CosReplicaArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("gpufleet:storage:CosCheckpointReplica", name, None, opts)
        child = pulumi.ResourceOptions(parent=self, provider=args.provider)
        replica = TencentBucket(f"{name}-bucket", args.bucket, opts=pulumi.ResourceOptions(parent=self))
        role = tencentcloud.cam.Role(
            f"{name}-role",
            name=args.role_name,
            document=trust_document(),
            description="COS replication of the gpufleet checkpoint bucket to its second region",
            console_login=False,
            tags=dict(args.tags),
            opts=child,
        )
        region = args.bucket.region
        document = pulumi.Output.all(
            args.bucket.app_id, args.uin, args.source_key_id, replica.bucket_name, args.bucket.key_id
        ).apply(
            lambda v: replication_document(
                ReplicaGrants(
                    app_id=str(v[0]),
                    uin=str(v[1]),
                    source_region=args.source_region,
                    source=f"{args.source_name_part}-{v[0]}",
                    source_key=str(v[2]),
                    region=region,
                    destination=str(v[3]),
                    key=str(v[4]),
                )
            )
        )
        policy = tencentcloud.cam.Policy(
            f"{name}-policy",
            name=args.role_name,
            document=document,
            description="COS replication: read the source bucket, write the replica, use both keys",
            opts=child,
        )
        attach = tencentcloud.cam.RolePolicyAttachment(
            f"{name}-attach", role_id=role.id, policy_id=policy.id, opts=child
        )
        self.bucket_name = replica.bucket_name
        self.destination = replica.bucket_name.apply(lambda bucket: destination_id(region, bucket))
        # The identity is read once the policy is attached, so the rule never names a role without rights.
        self.role = pulumi.Output.all(args.owner_uin, role.name, attach.id).apply(
            lambda v: role_identity(str(v[0]), str(v[1]))
        )
        self.register_outputs({"bucket_name": self.bucket_name, "role": self.role})

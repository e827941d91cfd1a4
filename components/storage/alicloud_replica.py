"""The Alibaba Cloud checkpoint replica: the site's OSS bucket copied, one way, into a second region.

The destination is an :class:`OssCheckpointBucket` built through a provider of the replica region, so it
is hardened exactly like the source (its own KMS key of that region, versioning, private ACL, the
bucket's public-access block, TLS only, the same lifecycle). ``oss.BucketReplication`` on the source
copies every object (datasets and checkpoints: a job resumed in the other region needs both), its
deletions (``action = ALL``) and the objects written before replication was turned on
(``historical_object_replication = enabled``). The source objects are KMS-encrypted, and OSS skips
those unless ``source_selection_criteria.sse_kms_encrypted_objects`` is ``Enabled``; each copy is
re-encrypted with the destination's key (``encryption_configuration.replica_kms_key_id``).

OSS replicates as a RAM role that trusts ``oss.aliyuncs.com`` only. Its one custom policy allows the
replication actions OSS documents for a same-account copy (``oss:Replicate*`` on the source and the
destination bucket, read-only on the source), ``kms:Decrypt`` with the source key and encrypting with
the destination key: no ``*`` action and no ``*`` resource.

The replica is a second copy, not a second site: no pool reads it until the owner points one at it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pulumi
import pulumi_alicloud as alicloud

from gpufleet.components.identity.alicloud import MAX_ROLE_NAME, attach_custom_policy, service_trust_policy
from gpufleet.components.storage.alicloud import OssCheckpointBucket, OssCheckpointBucketArgs
from gpufleet.components.tags import check_cost_tags

TRUSTED_SERVICE = "oss.aliyuncs.com"
REPLICATION_ACTION = "ALL"
SOURCE_ACTIONS = ("oss:ReplicateList", "oss:ReplicateGet")
DESTINATION_ACTIONS = ("oss:ReplicateList", "oss:ReplicateGet", "oss:ReplicatePut", "oss:ReplicateDelete")
SOURCE_KEY_ACTIONS = ("kms:Decrypt", "kms:DescribeKey")
DESTINATION_KEY_ACTIONS = ("kms:Encrypt", "kms:GenerateDataKey", "kms:DescribeKey")


def oss_location(region: str) -> str:
    """OSS names a region's endpoint ``oss-<region>``: the form ``destination.location`` takes."""
    return f"oss-{region}"


def trust_policy() -> str:
    """OSS may assume the role; no one else."""
    return service_trust_policy(TRUSTED_SERVICE)


def replication_policy(
    *, source: str, destination: str, source_key: str, source_region: str, key: str, region: str
) -> str:
    """What OSS needs to copy ``source`` into ``destination``: every statement names its resources."""
    statements: list[dict[str, Any]] = [
        {
            "Sid": "ReadSource",
            "Effect": "Allow",
            "Action": list(SOURCE_ACTIONS),
            "Resource": [f"acs:oss:*:*:{source}", f"acs:oss:*:*:{source}/*"],
        },
        {
            "Sid": "WriteReplica",
            "Effect": "Allow",
            "Action": list(DESTINATION_ACTIONS),
            "Resource": [f"acs:oss:*:*:{destination}", f"acs:oss:*:*:{destination}/*"],
        },
        {
            "Sid": "DecryptSource",
            "Effect": "Allow",
            "Action": list(SOURCE_KEY_ACTIONS),
            "Resource": [f"acs:kms:{source_region}:*:key/{source_key}"],
        },
        {
            "Sid": "EncryptReplica",
            "Effect": "Allow",
            "Action": list(DESTINATION_KEY_ACTIONS),
            "Resource": [f"acs:kms:{region}:*:key/{key}"],
        },
    ]
    return json.dumps({"Version": "1", "Statement": statements}, sort_keys=True)


@dataclass(frozen=True, kw_only=True)
class OssReplicaArgs:
    """``source_*``: the site's bucket, its key and region. ``region``: the replica's region;
    ``key_id``: the replica region's key (built by the site beside its own, so a BYOK key of that region
    goes through the same material import). ``bucket``: the destination's settings (lifecycle,
    classification, prefix) as the source has them. ``role_name``: the RAM role OSS assumes."""

    source_bucket: pulumi.Input[str]
    source_key_id: pulumi.Input[str]
    source_region: str
    region: str
    key_id: pulumi.Input[str]
    provider: pulumi.ProviderResource
    role_name: str
    tags: Mapping[str, str]
    bucket: OssCheckpointBucketArgs

    def __post_init__(self) -> None:
        problems = check_cost_tags(self.tags)
        if self.region == self.source_region:
            problems.append(
                f"region: {self.region} is the source's region; a replica must be in a second region"
            )
        if not 1 <= len(self.role_name) <= MAX_ROLE_NAME:
            problems.append(f"role_name: {self.role_name!r} must be 1 to {MAX_ROLE_NAME} characters")
        if problems:
            raise ValueError("OssReplicaArgs: " + "; ".join(problems))


class OssCheckpointReplica(pulumi.ComponentResource):
    """``-bucket`` (an :class:`OssCheckpointBucket` in the replica region), ``-role`` with ``-policy``
    and ``-attach`` (the RAM role OSS replicates as), and ``-replication`` on the source bucket."""

    bucket_name: pulumi.Output[str]
    role_name: pulumi.Output[str]

    def __init__(self, name: str, args: OssReplicaArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("gpufleet:storage:OssCheckpointReplica", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        there = pulumi.ResourceOptions(parent=self, providers={"alicloud": args.provider})
        replica = OssCheckpointBucket(f"{name}-bucket", args.bucket, opts=there)
        role = alicloud.ram.Role(
            f"{name}-role",
            role_name=args.role_name,
            assume_role_policy_document=trust_policy(),
            description="OSS replication of the gpufleet checkpoint bucket to its second region",
            max_session_duration=3600,
            tags=dict(args.tags),
            opts=child,
        )
        document = pulumi.Output.all(
            args.source_bucket, replica.bucket_name, args.source_key_id, args.key_id
        ).apply(
            lambda v: replication_policy(
                source=str(v[0]),
                destination=str(v[1]),
                source_key=str(v[2]),
                source_region=args.source_region,
                key=str(v[3]),
                region=args.region,
            )
        )
        policy_name = f"{args.role_name}-access"[:MAX_ROLE_NAME]
        _, attach = attach_custom_policy(
            name,
            role,
            role_name=args.role_name,
            policy_name=policy_name,
            document=document,
            description="OSS replication: read the source bucket, write the replica, use both keys",
            tags=args.tags,
            opts=child,
        )
        self.role_name = role.role_name.apply(lambda value: value or args.role_name)
        alicloud.oss.BucketReplication(
            f"{name}-replication",
            bucket=args.source_bucket,
            action=REPLICATION_ACTION,
            historical_object_replication="enabled",
            destination=alicloud.oss.BucketReplicationDestinationArgs(
                bucket=replica.bucket_name, location=oss_location(args.region)
            ),
            sync_role=self.role_name,
            encryption_configuration=alicloud.oss.BucketReplicationEncryptionConfigurationArgs(
                replica_kms_key_id=args.key_id
            ),
            source_selection_criteria=alicloud.oss.BucketReplicationSourceSelectionCriteriaArgs(
                sse_kms_encrypted_objects=alicloud.oss.BucketReplicationSourceSelectionCriteriaSseKmsEncryptedObjectsArgs(
                    status="Enabled"
                )
            ),
            # OSS checks the role's permissions when the rule is created: attach them first.
            opts=pulumi.ResourceOptions(parent=self, depends_on=[attach]),
        )
        self.bucket_name = replica.bucket_name
        self.register_outputs({"bucket_name": self.bucket_name, "role_name": self.role_name})

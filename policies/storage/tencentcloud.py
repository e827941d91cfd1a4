"""Tencent Cloud COS: bucket type tokens, how COS spells each setting, and what the storage rules say
of COS buckets.

COS keeps most settings inline on the bucket (encryption, versioning, replication, ACL); only the
bucket policy is a separate resource. Read by the neutral storage code through
`cloud_parts("gpufleet.policies.storage")`; the attribute names are those of the `aws` module.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pulumi_policy import PolicyResource

from gpufleet.policies.props import get, get_ref, is_unknown, truthy
from gpufleet.policies.storage._shared import (
    Encryption,
    Replication,
    anonymous_allows_unless_failing,
    encryption,
    walk,
)

if TYPE_CHECKING:
    from gpufleet.policies.storage._buckets import Bucket

COS_BUCKET = "tencentcloud:Cos/bucket:Bucket"
COS_POLICY = "tencentcloud:Cos/bucketPolicy:BucketPolicy"

BUCKET_TYPES = frozenset({COS_BUCKET})
BUCKET_KIND = "COS bucket"
ATTACHMENTS = {COS_POLICY: "policy"}
KMS_ALGORITHMS = ("KMS", "cos/kms")


def encryptions(bucket: Bucket) -> list[Encryption]:
    """The bucket's `encryptionAlgorithm` with its `kmsId`."""
    props = bucket.props
    if get(props, "encryptionAlgorithm") is None:
        return []
    return [encryption(props, "encryptionAlgorithm", "kmsId", bucket.resource, "kmsId")]


def is_versioned(bucket: Bucket) -> bool:
    return truthy(get(bucket.props, "versioningEnable"))


def replications(bucket: Bucket) -> list[Replication]:
    """Enabled `replicaRules`; the region is read from the destination's `qcs::cos:<region>::` form."""
    found: list[Replication] = []
    for rule in walk(bucket.props, "replicaRules"):
        if str(get(rule, "status") or "Enabled").lower() != "enabled":
            continue
        destination = get_ref(rule, "destinationBucket")
        found.append(Replication(destination, _region(destination), bucket.resource))
    return found


def _region(destination: Any) -> str | None:
    # COS destinations are written `qcs::cos:<region>::<bucket>-<appid>`.
    if not isinstance(destination, str) or is_unknown(destination):
        return None
    parts = destination.split(":")
    return parts[3] if len(parts) > 5 and parts[0] == "qcs" and parts[3] else None


# Lifecycle storage classes (see `_storage_classes`).
STORAGE_CLASSES = (
    ("STANDARD_IA", 0, 30),
    ("MAZ_STANDARD_IA", 0, 30),
    ("INTELLIGENT_TIERING", 0, 30),
    ("MAZ_INTELLIGENT_TIERING", 0, 30),
    ("ARCHIVE", 0, 90),
    ("DEEP_ARCHIVE", 0, 180),
)

# GF-STOR-001.
CMK_REMEDIATION = "set the COS bucket's encryptionAlgorithm = 'KMS' and kmsId = your kms.Key id."
CMK_NO_CONFIGURATION = "has no encryptionAlgorithm"
CMK_PROVIDER_KEY = "the COS default KMS key (no kmsId)"
CMK_EXPECTED = "use KMS with a customer-managed key (kmsId)"

# GF-STOR-002.
BYOK_REMEDIATION = "kms.ExternalKey as the COS bucket's kmsId."

# GF-STOR-003.
PUBLIC_REMEDIATION = (
    "keep acl = 'private', "
    "grant nothing to AllUsers in aclBody and allow no anonymous principal in the bucket policy."
)


def public_access_problems(bucket: Bucket, account: list[PolicyResource]) -> list[str]:
    """ACL private, no AllUsers grant in `aclBody`, no anonymous bucket policy (COS has no block)."""
    problems = []
    acl = get(bucket.props, "acl")
    if isinstance(acl, str) and acl.lower() != "private":
        problems.append(f"{bucket.label} has the ACL {acl}; use private")
    body = get(bucket.props, "aclBody")
    if isinstance(body, str) and "allusers" in body.lower():
        problems.append(f"{bucket.label} has an aclBody that grants access to AllUsers; remove the grant")

    def documents() -> list[tuple[object, str]]:
        return [(get(r.props, "policy"), "policy") for r in bucket.of("policy")]

    if anonymous_allows_unless_failing(documents, problems):
        problems.append(f"{bucket.label} has a bucket policy that allows any principal without a condition")
    return problems


# GF-STOR-004. COS has no per-bucket TLS-version setting.
TLS_REMEDIATION = (
    "a cos.BucketPolicy "
    "that denies to qcs::cam::anyone when {'bool_equal': {'cos:secure-transport': 'false'}}."
)
TLS_TRANSPORT_KEY = "cos:secure-transport"
# COS deny statements often omit Action or use name/cos:*.
TLS_ALL_ACTIONS = ("*", "name/cos:*")
TLS_NO_ACTION_IS_ALL = True
TLS_INLINE_POLICY = False
TLS_POLICY_EXAMPLE = "deny to anyone when cos:secure-transport is false"
TLS_RESOURCE_EXAMPLE = "the bucket with all its objects (qcs::cos:<region>:uid/<appid>:<bucket>/*)"
# After the region and account fields of `qcs::cos:<region>:uid/<appid>:`.
TLS_RESOURCE_PREFIX = ("qcs::cos:", 5)
# The bucket itself as the bucket-and-key part: COS writes it with a trailing slash.
TLS_BUCKET_FORM = "{}/"

# GF-STOR-005.
CHECKPOINT_LIFECYCLE_REMEDIATION = (
    "lifecycleRules with expiration {days: 30} and abortIncompleteMultipartUpload {daysAfterInitiation: 1}."
)

# GF-STOR-006.
LIFECYCLE_REMEDIATION = "COS: STANDARD_IA/INTELLIGENT_TIERING 30, ARCHIVE 90, DEEP_ARCHIVE 180 days."
LIFECYCLE_CARRIERS = {COS_BUCKET: "COS bucket"}

# GF-STOR-007.
VERSIONING_REMEDIATION = "versioningEnable = true and lifecycleRules nonCurrentExpiration {nonCurrentDays}."

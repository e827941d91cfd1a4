"""Alibaba Cloud OSS: bucket and bucket-setting type tokens, how OSS spells each setting, and what the
storage rules say of OSS buckets.

Read by the neutral storage code through `cloud_parts("gpufleet.policies.storage")`; the attribute
names are those of the `aws` module beside this one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pulumi_policy import PolicyResource

from gpufleet.policies.props import as_list, get, get_ref, truthy
from gpufleet.policies.storage._shared import (
    Encryption,
    Replication,
    anonymous_allows_unless_failing,
    encryption,
    tls_number,
    walk,
)

if TYPE_CHECKING:
    from gpufleet.policies.storage._buckets import Bucket

OSS_BUCKET = "alicloud:oss/bucket:Bucket"
OSS_SSE = "alicloud:oss/bucketServerSideEncryption:BucketServerSideEncryption"
OSS_VERSIONING = "alicloud:oss/bucketVersioning:BucketVersioning"
OSS_ACL = "alicloud:oss/bucketAcl:BucketAcl"
OSS_POLICY = "alicloud:oss/bucketPolicy:BucketPolicy"
OSS_PUBLIC_ACCESS_BLOCK = "alicloud:oss/bucketPublicAccessBlock:BucketPublicAccessBlock"
OSS_ACCOUNT_PUBLIC_ACCESS_BLOCK = "alicloud:oss/accountPublicAccessBlock:AccountPublicAccessBlock"
OSS_HTTPS_CONFIG = "alicloud:oss/bucketHttpsConfig:BucketHttpsConfig"
OSS_REPLICATION = "alicloud:oss/bucketReplication:BucketReplication"

BUCKET_TYPES = frozenset({OSS_BUCKET})
BUCKET_KIND = "OSS bucket"
ATTACHMENTS = {
    OSS_SSE: "sse",
    OSS_VERSIONING: "versioning",
    OSS_ACL: "acl",
    OSS_POLICY: "policy",
    OSS_PUBLIC_ACCESS_BLOCK: "public_access_block",
    OSS_HTTPS_CONFIG: "https",
    OSS_REPLICATION: "replication",
}
ACCOUNT_LEVEL = frozenset({OSS_ACCOUNT_PUBLIC_ACCESS_BLOCK})
KMS_ALGORITHMS = ("KMS",)


def encryptions(bucket: Bucket) -> list[Encryption]:
    """Inline `serverSideEncryptionRule` and joined `oss.BucketServerSideEncryption`s."""
    found: list[Encryption] = []
    for rule in walk(bucket.props, "serverSideEncryptionRule"):
        found.append(
            encryption(rule, "sseAlgorithm", "kmsMasterKeyId", bucket.resource, "serverSideEncryptionRule")
        )
    for resource in bucket.of("sse"):
        found.append(encryption(resource.props, "sseAlgorithm", "kmsMasterKeyId", resource, "kmsMasterKeyId"))
    return found


def is_versioned(bucket: Bucket) -> bool:
    inline = [str(get(v, "status") or "").lower() == "enabled" for v in walk(bucket.props, "versioning")]
    separate = [str(get(r.props, "status") or "").lower() == "enabled" for r in bucket.of("versioning")]
    # A separate versioning resource overrides the inline (deprecated) setting when both exist.
    return any(separate) if separate else any(inline)


def replications(bucket: Bucket) -> list[Replication]:
    """Joined `oss.BucketReplication`s; the region is the destination's `location` (`oss-<region>`)."""
    found: list[Replication] = []
    for resource in bucket.of("replication"):
        if str(get_ref(resource.props, "status") or "enabled").lower() in ("disabled", "closing"):
            continue
        for destination in walk(resource.props, "destination"):
            location = get_ref(destination, "location")
            region = location.removeprefix("oss-") if isinstance(location, str) else None
            found.append(Replication(get_ref(destination, "bucket"), region, resource))
    return found


# Lifecycle storage classes (see `_storage_classes`): IA's and Archive's minimums count from the
# object's creation (the last field).
STORAGE_CLASSES = (
    ("IA", 0, 30, 0, True),
    ("Archive", 0, 60, 0, True),
    ("ColdArchive", 0, 180),
    ("DeepColdArchive", 0, 180),
)

# GF-STOR-001.
CMK_REMEDIATION = (
    "set serverSideEncryptionRule (or oss.BucketServerSideEncryption) "
    "sseAlgorithm = 'KMS' with kmsMasterKeyId = your kms.Key id."
)
CMK_CHECKOV = ("CKV_ALI_6",)
CMK_NO_CONFIGURATION = "has no server-side encryption rule"
CMK_PROVIDER_KEY = "the OSS-managed default KMS key (no kmsMasterKeyId)"
CMK_EXPECTED = "use KMS with a customer-managed key (kmsMasterKeyId)"

# GF-STOR-002.
BYOK_REMEDIATION = (
    "kms.Key with origin = 'EXTERNAL' (import the material with the KMS API) as kmsMasterKeyId."
)

# GF-STOR-003.
PUBLIC_REMEDIATION = (
    "keep the bucket ACL 'private' and add an oss.BucketPublicAccessBlock with blockPublicAccess = true."
)
PUBLIC_CHECKOV = ("CKV_ALI_1",)


def public_access_problems(bucket: Bucket, account: list[PolicyResource]) -> list[str]:
    """ACL private and a public-access block; without a block, no anonymous bucket policy."""
    problems = []
    for source in [bucket.resource, *bucket.of("acl")]:
        acl = get(source.props, "acl")
        if isinstance(acl, str) and acl.lower() != "private":
            problems.append(f"{bucket.label} has the ACL {acl}; use private")
    blocks = [r.props for r in bucket.of("public_access_block")] + [r.props for r in account]
    if any(truthy(get(block, "blockPublicAccess")) for block in blocks):
        # The block makes OSS refuse public bucket policies, so the policy is not read (at preview
        # it is usually an unknown document built from the bucket's name).
        return problems
    problems.append(
        f"{bucket.label} has no public access block (oss.BucketPublicAccessBlock or "
        "oss.AccountPublicAccessBlock with blockPublicAccess = true); add one"
    )

    def documents() -> list[tuple[object, str]]:
        return [(get(bucket.props, "policy"), "policy")] + [
            (get(r.props, "policy"), "policy") for r in bucket.of("policy")
        ]

    if anonymous_allows_unless_failing(documents, problems):
        problems.append(f"{bucket.label} has a bucket policy that allows any principal without a condition")
    return problems


# GF-STOR-004.
TLS_REMEDIATION = (
    "an oss.BucketPolicy that denies "
    "oss:* to '*' when {'Bool': {'acs:SecureTransport': 'false'}}, and an oss.BucketHttpsConfig "
    "with enable = true and tlsVersions = ['TLSv1.2', 'TLSv1.3']."
)
TLS_TRANSPORT_KEY = "acs:securetransport"
TLS_ALL_ACTIONS = ("*", "oss:*")
TLS_INLINE_POLICY = True
TLS_POLICY_EXAMPLE = "deny oss:* to '*' when acs:SecureTransport is false"
TLS_RESOURCE_EXAMPLE = "both the bucket (acs:oss:*:*:<bucket>) and its objects (acs:oss:*:*:<bucket>/*)"
# After the region and account fields of `acs:oss:<region>:<account>:`.
TLS_RESOURCE_PREFIX = ("acs:oss:", 4)
TLS_BUCKET_FORM = "{}"


def tls_https_problems(bucket: Bucket, min_tls: float) -> list[str]:
    """An enabled `oss.BucketHttpsConfig` allowing only TLS `min_tls` or later (without one, OSS also
    accepts TLS 1.0 and 1.1)."""
    problems: list[str] = []
    configs = [r.props for r in bucket.of("https") if truthy(get(r.props, "enable"))]
    if not configs:
        problems.append(
            f"{bucket.label} has no enabled BucketHttpsConfig, so it also accepts TLS 1.0 and 1.1; "
            f"allow only TLS {min_tls:g} or later in tlsVersions"
        )
    for props in configs:
        versions = [str(v) for v in as_list(get(props, "tlsVersions"))]
        weak = [v for v in versions if (tls_number(v) or 0.0) < min_tls]
        if weak or not versions:
            shown = ", ".join(weak) if weak else "no tlsVersions"
            problems.append(
                f"{bucket.label} allows {shown} in its BucketHttpsConfig; allow only TLS {min_tls:g} or later"
            )
    return problems


# GF-STOR-005.
CHECKPOINT_LIFECYCLE_REMEDIATION = (
    "lifecycleRules with "
    "enabled = true, transitions [{days: 7, storageClass: 'IA'}] (IA's 30-day minimum counts from "
    "the object's creation), expirations [{days: 30}], abortMultipartUploads [{days: 1}]."
)

# GF-STOR-006.
LIFECYCLE_REMEDIATION = (
    "OSS: IA 30, "
    "Archive 60 days counted from the object's creation, ColdArchive/DeepColdArchive 180 days from the "
    "move."
)
LIFECYCLE_CARRIERS = {OSS_BUCKET: "OSS bucket"}

# GF-STOR-007.
VERSIONING_REMEDIATION = (
    "versioning.status = 'Enabled' (or oss.BucketVersioning) and lifecycleRules "
    "noncurrentVersionExpirations [{days}]."
)

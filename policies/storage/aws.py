"""AWS S3: bucket and bucket-setting type tokens, how S3 spells each setting, and what the storage
rules say of S3 buckets.

Read by the neutral storage code through `cloud_parts("gpufleet.policies.storage")`: `BUCKET_*`,
`ATTACHMENTS`, `ACCOUNT_LEVEL` and the readers `encryptions`, `is_versioned`, `replications` for
`_buckets`; `STORAGE_CLASSES` for `_storage_classes`; `CMK_*`, `BYOK_*`, `PUBLIC_*`, `TLS_*`,
`CHECKPOINT_LIFECYCLE_*`, `LIFECYCLE_*` and `VERSIONING_*` for the rules of those names.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from pulumi_policy import PolicyResource

from gpufleet.policies.props import get, get_ref, truthy
from gpufleet.policies.storage._shared import Encryption, Replication, encryption, walk

if TYPE_CHECKING:
    from gpufleet.policies.storage._buckets import Bucket

AWS_BUCKET = "aws:s3/bucket:Bucket"
AWS_BUCKET_V2 = "aws:s3/bucketV2:BucketV2"
AWS_SSE = "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration"
AWS_SSE_V2 = "aws:s3/bucketServerSideEncryptionConfigurationV2:BucketServerSideEncryptionConfigurationV2"
AWS_LIFECYCLE = "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration"
AWS_LIFECYCLE_V2 = "aws:s3/bucketLifecycleConfigurationV2:BucketLifecycleConfigurationV2"
AWS_VERSIONING = "aws:s3/bucketVersioning:BucketVersioning"
AWS_VERSIONING_V2 = "aws:s3/bucketVersioningV2:BucketVersioningV2"
AWS_PUBLIC_ACCESS_BLOCK = "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock"
AWS_ACCOUNT_PUBLIC_ACCESS_BLOCK = "aws:s3/accountPublicAccessBlock:AccountPublicAccessBlock"
AWS_BUCKET_POLICY = "aws:s3/bucketPolicy:BucketPolicy"
AWS_BUCKET_ACL = "aws:s3/bucketAcl:BucketAcl"
AWS_BUCKET_ACL_V2 = "aws:s3/bucketAclV2:BucketAclV2"
AWS_REPLICATION = "aws:s3/bucketReplicationConfig:BucketReplicationConfig"

BUCKET_TYPES = frozenset({AWS_BUCKET, AWS_BUCKET_V2})
BUCKET_KIND = "S3 bucket"
# Separate resources that configure one bucket, by the setting they carry.
ATTACHMENTS = {
    AWS_SSE: "sse",
    AWS_SSE_V2: "sse",
    AWS_LIFECYCLE: "lifecycle",
    AWS_LIFECYCLE_V2: "lifecycle",
    AWS_VERSIONING: "versioning",
    AWS_VERSIONING_V2: "versioning",
    AWS_PUBLIC_ACCESS_BLOCK: "public_access_block",
    AWS_BUCKET_POLICY: "policy",
    AWS_BUCKET_ACL: "acl",
    AWS_BUCKET_ACL_V2: "acl",
    AWS_REPLICATION: "replication",
}
# Settings of the whole account, which cover every bucket.
ACCOUNT_LEVEL = frozenset({AWS_ACCOUNT_PUBLIC_ACCESS_BLOCK})
# Resources whose lifecycle rules are at `rules` (not a bucket's `lifecycleRules`).
LIFECYCLE_RULES_KEY = {AWS_LIFECYCLE: "rules", AWS_LIFECYCLE_V2: "rules"}
KMS_ALGORITHMS = ("aws:kms", "aws:kms:dsse")


def encryptions(bucket: Bucket) -> list[Encryption]:
    """Inline `serverSideEncryptionConfiguration(s)` and joined SSE configurations."""
    props = bucket.props
    found: list[Encryption] = []
    # The property dependency naming the key is recorded on the top-level input.
    top = (
        "serverSideEncryptionConfiguration"
        if get_ref(props, "serverSideEncryptionConfiguration") is not None
        else "serverSideEncryptionConfigurations"
    )
    for default in walk(
        props,
        top,
        ("rule", "rules"),
        ("applyServerSideEncryptionByDefault", "applyServerSideEncryptionByDefaults"),
    ):
        found.append(encryption(default, "sseAlgorithm", "kmsMasterKeyId", bucket.resource, top))
    for resource in bucket.of("sse"):
        for default in walk(resource.props, "rules", "applyServerSideEncryptionByDefault"):
            found.append(encryption(default, "sseAlgorithm", "kmsMasterKeyId", resource, "rules"))
    return found


def is_versioned(bucket: Bucket) -> bool:
    props = bucket.props
    inline = [truthy(get(v, "enabled")) for v in walk(props, ("versioning", "versionings"))]
    separate = [
        str(get(v, "status") or "").lower() == "enabled"
        for r in bucket.of("versioning")
        for v in walk(r.props, "versioningConfiguration")
    ]
    # A separate versioning resource overrides the inline (deprecated) setting when both exist.
    return any(separate) if separate else any(inline)


def replications(bucket: Bucket) -> list[Replication]:
    found: list[Replication] = []
    configs = walk(bucket.props, ("replicationConfiguration", "replicationConfigurations"))
    for config in configs:
        found.extend(_replication_rules(config, bucket.resource))
    for resource in bucket.of("replication"):
        found.extend(_replication_rules(resource.props, resource))
    return found


def _replication_rules(config: Any, source: PolicyResource) -> list[Replication]:
    found = []
    for rule in walk(config, "rules"):
        if str(get(rule, "status") or "").lower() != "enabled":
            continue
        for destination in walk(rule, ("destination", "destinations")):
            found.append(Replication(get_ref(destination, "bucket"), None, source))
    return found


# Lifecycle storage classes: (name, youngest age a transition accepts, minimum storage duration billed,
# days after the move before it bills less). See `_storage_classes`.
STORAGE_CLASSES = (
    ("INTELLIGENT_TIERING", 0, 0, 30),
    ("STANDARD_IA", 30, 30),
    ("ONEZONE_IA", 30, 30),
    ("GLACIER_IR", 0, 90),
    ("GLACIER", 0, 90),
    ("DEEP_ARCHIVE", 0, 180),
)

# GF-STOR-001.
CMK_REMEDIATION = (
    "add an aws.s3.BucketServerSideEncryptionConfiguration with "
    "rules[].applyServerSideEncryptionByDefault.sseAlgorithm = 'aws:kms' and kmsMasterKeyId = the ARN "
    "of your aws.kms.Key."
)
CMK_URL = "https://docs.aws.amazon.com/AmazonS3/latest/userguide/UsingKMSEncryption.html"
CMK_CHECKOV = ("CKV_AWS_145",)
CMK_NO_CONFIGURATION = (
    "has no server-side encryption configuration (S3 then uses AES256 with S3-managed keys)"
)
CMK_PROVIDER_KEY = "the AWS-managed aws/s3 key (no kmsMasterKeyId)"
CMK_EXPECTED = "use aws:kms with a customer-managed KMS key (kmsMasterKeyId)"
# `alias/aws/<service>` names an AWS-managed key, bare or inside an alias ARN.
_MANAGED_ALIAS = re.compile(r"(^|:)alias/aws/[a-z0-9-]+$")


def cmk_managed_alias(label: str, key: object, expected: str) -> str | None:
    """The problem with a key reference that names an AWS-managed key, or None."""
    if not (isinstance(key, str) and _MANAGED_ALIAS.search(key.strip())):
        return None
    return (
        f"{label} is encrypted with the AWS-managed key {key}, which the account "
        f"neither controls nor can rotate on its own terms; {expected}"
    )


# GF-STOR-002.
BYOK_REMEDIATION = "aws.kms.ExternalKey (keyMaterialBase64 from your HSM) as the bucket's kmsMasterKeyId."
BYOK_URL = "https://docs.aws.amazon.com/kms/latest/developerguide/importing-keys.html"

# GF-STOR-003.
PUBLIC_REMEDIATION = (
    "add an aws.s3.BucketPublicAccessBlock for the bucket (or one aws.s3.AccountPublicAccessBlock) "
    "with blockPublicAcls, blockPublicPolicy, ignorePublicAcls and restrictPublicBuckets = true, and "
    "remove public ACLs."
)
PUBLIC_URL = "https://docs.aws.amazon.com/AmazonS3/latest/userguide/access-control-block-public-access.html"
PUBLIC_CHECKOV = ("CKV_AWS_53", "CKV_AWS_54", "CKV_AWS_55", "CKV_AWS_56", "CKV2_AWS_6")
PUBLIC_ACCESS_FLAGS = ("blockPublicAcls", "blockPublicPolicy", "ignorePublicAcls", "restrictPublicBuckets")
PUBLIC_ACLS = frozenset({"public-read", "public-read-write", "authenticated-read"})
PUBLIC_GROUPS = ("allusers", "authenticatedusers")


def public_access_problems(bucket: Bucket, account: list[PolicyResource]) -> list[str]:
    """All four block flags true (bucket or account block), no public canned ACL or group grant."""
    problems = []
    blocks = [r.props for r in bucket.of("public_access_block")] + [r.props for r in account]
    missing = [flag for flag in PUBLIC_ACCESS_FLAGS if not any(truthy(get(block, flag)) for block in blocks)]
    if not blocks:
        problems.append(
            f"{bucket.label} has no public access block (neither a BucketPublicAccessBlock nor an "
            "AccountPublicAccessBlock); set all four flags to true"
        )
    elif missing:
        problems.append(
            f"{bucket.label} does not block public access: {', '.join(missing)} not true on its "
            "BucketPublicAccessBlock or the AccountPublicAccessBlock; set all four flags to true"
        )
    for source in [bucket.resource, *bucket.of("acl")]:
        acl = get(source.props, "acl")
        if isinstance(acl, str) and acl.lower() in PUBLIC_ACLS:
            problems.append(f"{bucket.label} has the public canned ACL {acl}; use private")
        grants = walk(source.props, "grants") + walk(source.props, "accessControlPolicy", "grants", "grantee")
        for grant in grants:
            uri = str(get(grant, "uri") or "").lower()
            if uri.endswith(PUBLIC_GROUPS):
                problems.append(
                    f"{bucket.label} grants access to the group {get(grant, 'uri')}; remove the grant"
                )
    return problems


# GF-STOR-004.
TLS_REMEDIATION = (
    "attach an aws.s3.BucketPolicy that denies s3:* to Principal '*' when "
    "{'Bool': {'aws:SecureTransport': 'false'}}."
)
TLS_URL = "https://docs.aws.amazon.com/AmazonS3/latest/userguide/security-best-practices.html"
TLS_CHECKOV = ("CKV_AWS_379",)
# The condition key that tells a request without TLS (lower case, as conditions are read).
TLS_TRANSPORT_KEY = "aws:securetransport"
# Actions of a deny that cover every request on the bucket.
TLS_ALL_ACTIONS = ("*", "s3:*")
# Whether the bucket resource carries an inline `policy`.
TLS_INLINE_POLICY = True
TLS_POLICY_EXAMPLE = "deny s3:* to Principal '*' when aws:SecureTransport is false"
TLS_RESOURCE_EXAMPLE = "both the bucket ARN (arn:aws:s3:::<bucket>) and its objects (arn:aws:s3:::<bucket>/*)"
# Where the bucket-and-key part of a resource pattern starts: after `arn:aws:s3:::`.
TLS_RESOURCE_PREFIX = ("arn:", 5)
TLS_BUCKET_FORM = "{}"
# S3 endpoints refuse TLS below 1.2 for every request since 2024: a deny on the version key is asked
# for only above it.
TLS_VERSION_KEY = "s3:TlsVersion"
TLS_VERSION_FLOOR = 1.2

# GF-STOR-005.
CHECKPOINT_LIFECYCLE_REMEDIATION = (
    "add an aws.s3.BucketLifecycleConfiguration rule with status 'Enabled', expiration "
    "{days: 30} and abortIncompleteMultipartUpload {daysAfterInitiation: 1}, plus transitions "
    "[{days: 7, storageClass: 'INTELLIGENT_TIERING'}] where objects live more than 30 days after "
    "the move."
)
CHECKPOINT_LIFECYCLE_URL = "https://docs.aws.amazon.com/AmazonS3/latest/userguide/object-lifecycle-mgmt.html"
CHECKPOINT_LIFECYCLE_CHECKOV = ("CKV2_AWS_61", "CKV_AWS_300")

# GF-STOR-006.
LIFECYCLE_REMEDIATION = (
    "S3: STANDARD_IA/ONEZONE_IA need >= 30 days; for earlier moves use "
    "INTELLIGENT_TIERING (no minimum) only when objects are kept more than 30 days after the move, "
    "otherwise drop the transition; GLACIER_IR/GLACIER bill 90 days, DEEP_ARCHIVE 180."
)
LIFECYCLE_URL = (
    "https://docs.aws.amazon.com/AmazonS3/latest/userguide/lifecycle-transition-general-considerations.html"
)
# Resources carrying lifecycle rules, by how findings name them.
LIFECYCLE_CARRIERS = {
    AWS_BUCKET: "S3 bucket",
    AWS_BUCKET_V2: "S3 bucket",
    AWS_LIFECYCLE: "S3 lifecycle configuration",
    AWS_LIFECYCLE_V2: "S3 lifecycle configuration",
}
# S3 rejects an expiration that is not later than a transition of the same rule.
LIFECYCLE_EXPIRY_AFTER_TRANSITION = True
# S3 requires 30 days in an infrequent-access class before a move to a cold one.
LIFECYCLE_IA = frozenset({"STANDARD_IA", "ONEZONE_IA"})
LIFECYCLE_COLD = frozenset({"GLACIER_IR", "GLACIER", "DEEP_ARCHIVE"})

# GF-STOR-007.
VERSIONING_REMEDIATION = (
    "add an aws.s3.BucketVersioning with versioningConfiguration.status = 'Enabled' and a "
    "lifecycle rule with noncurrentVersionExpiration.noncurrentDays <= noncurrent_days."
)
VERSIONING_URL = "https://docs.aws.amazon.com/AmazonS3/latest/userguide/Versioning.html"
VERSIONING_CHECKOV = ("CKV_AWS_21",)

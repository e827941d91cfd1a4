"""Buckets and their settings, however a program spells them, for the storage and resilience rules.

A bucket's settings may be inline on the bucket (AWS v7 `Bucket`, the older `BucketV2`, OSS and COS
buckets) or on separate resources that name the bucket through their `bucket` input (S3 encryption,
lifecycle, versioning, public-access-block, policy, ACL and replication resources and their `V2`
twins; the OSS equivalents). `BucketIndex` joins the separate resources to their bucket once per stack:

1. by equality of the resource's `bucket` input with the bucket's `bucket` or `id` (literal names,
   or outputs once the bucket exists);
2. by the resource's property dependencies on `bucket` (the usual case at preview, where the name
   is an output of the bucket);
3. by its dependencies, when they contain exactly one bucket of the same cloud. A dependency counts
   only while the resource's `bucket` input is unknown or unset, or the bucket's own name and id are
   unknown: a known `bucket` input that is neither name nor id of the bucket names another bucket (one
   outside the stack), and `depends_on` on a bucket does not make the resource configure it.

The readers below return normalised values (algorithm and key reference, lifecycle rules, versioning,
replication) so that each rule states its judgement once for all shapes.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pulumi_policy import PolicyResource, ReportViolation, StackValidationArgs

from gpufleet.policies.context import effective_tags, resource_region
from gpufleet.policies.memo import per_stack
from gpufleet.policies.props import as_int, as_list, get, get_ref, is_unknown, truthy
from gpufleet.policies.rule import judge

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

OSS_BUCKET = "alicloud:oss/bucket:Bucket"
OSS_SSE = "alicloud:oss/bucketServerSideEncryption:BucketServerSideEncryption"
OSS_VERSIONING = "alicloud:oss/bucketVersioning:BucketVersioning"
OSS_ACL = "alicloud:oss/bucketAcl:BucketAcl"
OSS_POLICY = "alicloud:oss/bucketPolicy:BucketPolicy"
OSS_PUBLIC_ACCESS_BLOCK = "alicloud:oss/bucketPublicAccessBlock:BucketPublicAccessBlock"
OSS_ACCOUNT_PUBLIC_ACCESS_BLOCK = "alicloud:oss/accountPublicAccessBlock:AccountPublicAccessBlock"
OSS_HTTPS_CONFIG = "alicloud:oss/bucketHttpsConfig:BucketHttpsConfig"
OSS_REPLICATION = "alicloud:oss/bucketReplication:BucketReplication"

COS_BUCKET = "tencentcloud:Cos/bucket:Bucket"
COS_POLICY = "tencentcloud:Cos/bucketPolicy:BucketPolicy"

BUCKET_CLOUDS = {AWS_BUCKET: "aws", AWS_BUCKET_V2: "aws", OSS_BUCKET: "alicloud", COS_BUCKET: "tencentcloud"}
BUCKET_KINDS = {"aws": "S3 bucket", "alicloud": "OSS bucket", "tencentcloud": "COS bucket"}

# Separate resources that configure one bucket, by the setting they carry.
ATTACHMENTS: dict[str, tuple[str, str]] = {
    AWS_SSE: ("aws", "sse"),
    AWS_SSE_V2: ("aws", "sse"),
    AWS_LIFECYCLE: ("aws", "lifecycle"),
    AWS_LIFECYCLE_V2: ("aws", "lifecycle"),
    AWS_VERSIONING: ("aws", "versioning"),
    AWS_VERSIONING_V2: ("aws", "versioning"),
    AWS_PUBLIC_ACCESS_BLOCK: ("aws", "public_access_block"),
    AWS_BUCKET_POLICY: ("aws", "policy"),
    AWS_BUCKET_ACL: ("aws", "acl"),
    AWS_BUCKET_ACL_V2: ("aws", "acl"),
    AWS_REPLICATION: ("aws", "replication"),
    OSS_SSE: ("alicloud", "sse"),
    OSS_VERSIONING: ("alicloud", "versioning"),
    OSS_ACL: ("alicloud", "acl"),
    OSS_POLICY: ("alicloud", "policy"),
    OSS_PUBLIC_ACCESS_BLOCK: ("alicloud", "public_access_block"),
    OSS_HTTPS_CONFIG: ("alicloud", "https"),
    OSS_REPLICATION: ("alicloud", "replication"),
    COS_POLICY: ("tencentcloud", "policy"),
}
ACCOUNT_LEVEL = {AWS_ACCOUNT_PUBLIC_ACCESS_BLOCK: "aws", OSS_ACCOUNT_PUBLIC_ACCESS_BLOCK: "alicloud"}


def walk(obj: Any, *steps: str | tuple[str, ...]) -> list[Any]:
    """Every value reached by following `steps`, each step a key or alternative keys.

    Single nested objects and lists of them are treated alike, because the same setting is a
    single object in one SDK shape (`Bucket.serverSideEncryptionConfiguration.rule`) and a list in
    another (`BucketV2.serverSideEncryptionConfigurations[].rules[]`). An unknown value on the way
    raises `UnknownValueError` (a decisive value that cannot be judged).
    """
    current = [obj]
    for step in steps:
        keys = (step,) if isinstance(step, str) else step
        reached: list[Any] = []
        for item in current:
            if not isinstance(item, Mapping):
                continue
            for key in keys:
                reached.extend(as_list(get(item, key)))
        current = reached
    return current


def first_int(obj: Any, *keys: str) -> int | None:
    for key in keys:
        value = as_int(get(obj, key))
        if value is not None:
            return value
    return None


@dataclass
class Bucket:
    resource: PolicyResource
    cloud: str
    attached: dict[str, list[PolicyResource]] = field(default_factory=dict)

    @property
    def props(self) -> Mapping[str, Any]:
        return self.resource.props

    @property
    def urn(self) -> str:
        return self.resource.urn

    @property
    def label(self) -> str:
        return f"{BUCKET_KINDS[self.cloud]} '{self.resource.name}'"

    def tags(self) -> dict[str, str]:
        """The bucket's tags, its AWS provider's `defaultTags` included (classification and
        checkpoint selectors set once on the provider count)."""
        return effective_tags(self.resource.resource_type, self.props, self.resource.provider)

    def region(self) -> str | None:
        return resource_region(self.props, self.resource.provider)

    def of(self, kind: str) -> list[PolicyResource]:
        return self.attached.get(kind, [])


def _known_names(resource: PolicyResource) -> set[str]:
    """The bucket's name and id where known (the provider names a bucket at preview when the program
    does not)."""
    names: set[str] = set()
    for key in ("bucket", "id"):
        value = get_ref(resource.props, key)
        if isinstance(value, str) and value and not is_unknown(value):
            names.add(value)
    return names


class BucketIndex:
    """The stack's buckets with their separate configuration resources joined to them."""

    def __init__(self, resources: Sequence[PolicyResource]) -> None:
        self.buckets: list[Bucket] = []
        self.account_level: dict[str, list[PolicyResource]] = {}
        self.by_urn: dict[str, Bucket] = {}
        self.by_name: dict[tuple[str, str], Bucket] = {}
        by_urn, by_name = self.by_urn, self.by_name
        for resource in resources:
            cloud = BUCKET_CLOUDS.get(resource.resource_type)
            if cloud is None:
                continue
            bucket = Bucket(resource, cloud)
            self.buckets.append(bucket)
            by_urn[resource.urn] = bucket
            for key in ("bucket", "id"):
                value = get_ref(resource.props, key)
                if isinstance(value, str) and value and not is_unknown(value):
                    by_name[(cloud, value)] = bucket
        for resource in resources:
            account_cloud = ACCOUNT_LEVEL.get(resource.resource_type)
            if account_cloud is not None:
                self.account_level.setdefault(account_cloud, []).append(resource)
                continue
            attachment = ATTACHMENTS.get(resource.resource_type)
            if attachment is None:
                continue
            cloud, kind = attachment
            target = self._target(resource, cloud, by_urn, by_name)
            if target is not None:
                target.attached.setdefault(kind, []).append(resource)

    @staticmethod
    def _target(
        resource: PolicyResource,
        cloud: str,
        by_urn: Mapping[str, Bucket],
        by_name: Mapping[tuple[str, str], Bucket],
    ) -> Bucket | None:
        name = get_ref(resource.props, "bucket")
        if isinstance(name, str) and not is_unknown(name) and (cloud, name) in by_name:
            return by_name[(cloud, name)]
        for dependency in (resource.property_dependencies or {}).get("bucket", []) or []:
            if dependency.urn in by_urn:
                return by_urn[dependency.urn]
        named = isinstance(name, str) and bool(name) and not is_unknown(name)
        candidates = {
            dep.urn
            for dep in resource.dependencies or []
            if dep.urn in by_urn
            and by_urn[dep.urn].cloud == cloud
            # A known name that is not this bucket's names another one: depends_on alone joins nothing.
            and not (named and _known_names(by_urn[dep.urn].resource))
        }
        if len(candidates) == 1:
            return by_urn[candidates.pop()]
        return None

    def of_cloud(self, cloud: str) -> list[Bucket]:
        return [bucket for bucket in self.buckets if bucket.cloud == cloud]


def parse_tag_selector(selector: str) -> tuple[str, str | None]:
    """`purpose=checkpoints` -> ("purpose", "checkpoints"); a bare key matches any value."""
    key, sep, value = selector.partition("=")
    return key.strip(), (value.strip() if sep else None)


def has_tag(tags: Mapping[str, str], key: str, values: Iterable[str] | None) -> bool:
    if key not in tags:
        return False
    if values is None:
        return True
    actual = tags[key]
    if is_unknown(actual):
        return False
    return actual.strip().lower() in {v.strip().lower() for v in values}


def checkpoint_buckets(args: StackValidationArgs, selector: str) -> list[Bucket]:
    """The stack's buckets tagged as checkpoints (`purpose=checkpoints`); none makes the rule not
    applicable."""
    found = [b for b in per_stack(BucketIndex, args.resources).buckets if is_checkpoint_bucket(b, selector)]
    if not found:
        args.not_applicable(f"no bucket is tagged {selector}")
    return found


def judge_buckets(
    report: ReportViolation, buckets: Iterable[Bucket], problems: Callable[[Bucket], Iterable[str]]
) -> None:
    """Report each bucket's problems on its URN; a value unknown at preview makes that bucket
    "could not be judged" instead of passing."""
    for bucket in buckets:

        def check(bucket: Bucket = bucket) -> None:
            for problem in problems(bucket):
                report(problem, bucket.urn)

        judge(bucket.urn, check)


def is_checkpoint_bucket(bucket: Bucket, selector: str) -> bool:
    key, value = parse_tag_selector(selector)
    return has_tag(bucket.tags(), key, None if value is None else [value])


# --- encryption -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Encryption:
    """One server-side encryption setting: algorithm as written, key reference, and where it is."""

    algorithm: str | None
    key: Any
    source: PolicyResource
    key_prop: str


def encryptions(bucket: Bucket) -> list[Encryption]:
    props = bucket.props
    found: list[Encryption] = []
    if bucket.cloud == "aws":
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
            found.append(_encryption(default, "sseAlgorithm", "kmsMasterKeyId", bucket.resource, top))
        for resource in bucket.of("sse"):
            for default in walk(resource.props, "rules", "applyServerSideEncryptionByDefault"):
                found.append(_encryption(default, "sseAlgorithm", "kmsMasterKeyId", resource, "rules"))
    elif bucket.cloud == "alicloud":
        for rule in walk(props, "serverSideEncryptionRule"):
            found.append(
                _encryption(
                    rule, "sseAlgorithm", "kmsMasterKeyId", bucket.resource, "serverSideEncryptionRule"
                )
            )
        for resource in bucket.of("sse"):
            found.append(
                _encryption(resource.props, "sseAlgorithm", "kmsMasterKeyId", resource, "kmsMasterKeyId")
            )
    elif get(props, "encryptionAlgorithm") is not None:
        found.append(_encryption(props, "encryptionAlgorithm", "kmsId", bucket.resource, "kmsId"))
    return found


def _encryption(obj: Any, algorithm_key: str, key_key: str, source: PolicyResource, top: str) -> Encryption:
    algorithm = get(obj, algorithm_key)
    key = get_ref(obj, key_key)
    return Encryption(None if algorithm is None else str(algorithm), None if key == "" else key, source, top)


KMS_ALGORITHMS = {
    "aws": ("aws:kms", "aws:kms:dsse"),
    "alicloud": ("KMS",),
    "tencentcloud": ("KMS", "cos/kms"),
}


def is_kms(cloud: str, algorithm: str | None) -> bool:
    return algorithm is not None and algorithm.lower() in {a.lower() for a in KMS_ALGORITHMS[cloud]}


# --- lifecycle --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Transition:
    storage_class: str
    days: int | None


@dataclass(frozen=True)
class LifecycleRule:
    label: str
    enabled: bool
    transitions: tuple[Transition, ...]
    expiration_days: int | None
    abort_days: int | None
    noncurrent_expiration_days: int | None
    noncurrent_transitions: tuple[Transition, ...]


def lifecycle_rules_of(resource_type: str, props: Mapping[str, Any]) -> list[LifecycleRule]:
    """Lifecycle rules carried by one resource: a bucket's inline rules or a configuration's rules.

    Shapes read: v7 `BucketLifecycleConfiguration[V2].rules[]` (`status`, `transitions[]`,
    `expiration.days`, `abortIncompleteMultipartUpload.daysAfterInitiation`,
    `noncurrentVersionExpiration.noncurrentDays`); inline S3 `lifecycleRules[]` (`enabled`,
    `expiration`/`expirations[]`, `abortIncompleteMultipartUploadDays`); OSS `lifecycleRules[]`
    (`expirations[]`, `abortMultipartUploads[].days`); COS `lifecycleRules[]` (always enabled,
    `nonCurrentExpiration.nonCurrentDays`).
    """
    key = "rules" if resource_type in (AWS_LIFECYCLE, AWS_LIFECYCLE_V2) else "lifecycleRules"
    rules: list[LifecycleRule] = []
    for index, rule in enumerate(as_list(get(props, key))):
        if not isinstance(rule, Mapping):
            continue
        label = get_ref(rule, "id")
        status = get(rule, "status")
        if status is not None:
            enabled = str(status).lower() == "enabled"
        elif get(rule, "enabled") is not None:
            enabled = truthy(get(rule, "enabled"))
        else:
            enabled = True
        expirations = [first_int(e, "days") for e in walk(rule, ("expiration", "expirations"))]
        abort = first_int(rule, "abortIncompleteMultipartUploadDays")
        if abort is None:
            aborts = [
                first_int(a, "daysAfterInitiation", "days")
                for a in walk(rule, ("abortIncompleteMultipartUpload", "abortMultipartUploads"))
            ]
            abort = _smallest(aborts)
        noncurrent = [
            first_int(e, "noncurrentDays", "nonCurrentDays", "days")
            for e in walk(
                rule, ("noncurrentVersionExpiration", "noncurrentVersionExpirations", "nonCurrentExpiration")
            )
        ]
        rules.append(
            LifecycleRule(
                label=label if isinstance(label, str) and label and not is_unknown(label) else f"#{index}",
                enabled=enabled,
                transitions=tuple(
                    Transition(str(get(t, "storageClass") or ""), first_int(t, "days"))
                    for t in walk(rule, "transitions")
                ),
                expiration_days=_smallest(expirations),
                abort_days=abort,
                noncurrent_expiration_days=_smallest(noncurrent),
                noncurrent_transitions=tuple(
                    Transition(
                        str(get(t, "storageClass") or ""),
                        first_int(t, "noncurrentDays", "nonCurrentDays", "days"),
                    )
                    for t in walk(rule, ("noncurrentVersionTransitions", "nonCurrentTransitions"))
                ),
            )
        )
    return rules


def _smallest(values: Iterable[int | None]) -> int | None:
    known = [v for v in values if v is not None]
    return min(known) if known else None


def bucket_lifecycle(bucket: Bucket) -> list[LifecycleRule]:
    """Enabled lifecycle rules of a bucket, inline and from joined lifecycle configurations."""
    rules = lifecycle_rules_of(bucket.resource.resource_type, bucket.props)
    for resource in bucket.of("lifecycle"):
        rules.extend(lifecycle_rules_of(resource.resource_type, resource.props))
    return [rule for rule in rules if rule.enabled]


# --- versioning and replication ----------------------------------------------------------------


def is_versioned(bucket: Bucket) -> bool:
    props = bucket.props
    if bucket.cloud == "tencentcloud":
        return truthy(get(props, "versioningEnable"))
    if bucket.cloud == "aws":
        inline = [truthy(get(v, "enabled")) for v in walk(props, ("versioning", "versionings"))]
        separate = [
            str(get(v, "status") or "").lower() == "enabled"
            for r in bucket.of("versioning")
            for v in walk(r.props, "versioningConfiguration")
        ]
    else:
        inline = [str(get(v, "status") or "").lower() == "enabled" for v in walk(props, "versioning")]
        separate = [str(get(r.props, "status") or "").lower() == "enabled" for r in bucket.of("versioning")]
    # A separate versioning resource overrides the inline (deprecated) setting when both exist.
    return any(separate) if separate else any(inline)


@dataclass(frozen=True)
class Replication:
    destination: Any
    destination_region: str | None
    source: PolicyResource


def replications(bucket: Bucket) -> list[Replication]:
    """Enabled replication rules with their destination (bucket reference and region when known)."""
    found: list[Replication] = []
    if bucket.cloud == "aws":
        configs = walk(bucket.props, ("replicationConfiguration", "replicationConfigurations"))
        for config in configs:
            found.extend(_s3_replication_rules(config, bucket.resource))
        for resource in bucket.of("replication"):
            found.extend(_s3_replication_rules(resource.props, resource))
    elif bucket.cloud == "alicloud":
        for resource in bucket.of("replication"):
            if str(get_ref(resource.props, "status") or "enabled").lower() in ("disabled", "closing"):
                continue
            for destination in walk(resource.props, "destination"):
                location = get_ref(destination, "location")
                region = location.removeprefix("oss-") if isinstance(location, str) else None
                found.append(Replication(get_ref(destination, "bucket"), region, resource))
    else:
        for rule in walk(bucket.props, "replicaRules"):
            if str(get(rule, "status") or "Enabled").lower() != "enabled":
                continue
            destination = get_ref(rule, "destinationBucket")
            found.append(Replication(destination, _cos_region(destination), bucket.resource))
    return found


def _s3_replication_rules(config: Any, source: PolicyResource) -> list[Replication]:
    found = []
    for rule in walk(config, "rules"):
        if str(get(rule, "status") or "").lower() != "enabled":
            continue
        for destination in walk(rule, ("destination", "destinations")):
            found.append(Replication(get_ref(destination, "bucket"), None, source))
    return found


def _cos_region(destination: Any) -> str | None:
    # COS destinations are written `qcs::cos:<region>::<bucket>-<appid>`.
    if not isinstance(destination, str) or is_unknown(destination):
        return None
    parts = destination.split(":")
    return parts[3] if len(parts) > 5 and parts[0] == "qcs" and parts[3] else None

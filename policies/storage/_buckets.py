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

Each cloud's bucket types, setting resources and readers are in the cloud's module beside this one
(`aws`, `alicloud`, `tencentcloud`), read through `cloud_parts`. Their type tokens are not re-exported
here: import a token from its cloud's module (`storage.aws.AWS_BUCKET`), the tables from this one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any, cast

from pulumi_policy import PolicyResource, ReportViolation, StackValidationArgs

from gpufleet.components.clouds import Cloud, cloud_parts, part_values
from gpufleet.policies.context import effective_tags, resource_region
from gpufleet.policies.memo import per_stack
from gpufleet.policies.props import as_list, get, get_ref, is_unknown, truthy
from gpufleet.policies.rule import judge
from gpufleet.policies.storage._shared import Encryption, Replication, first_int, walk

__all__ = [
    "ACCOUNT_LEVEL",
    "ATTACHMENTS",
    "BUCKET_CLOUDS",
    "BUCKET_KINDS",
    "KMS_ALGORITHMS",
    "PARTS",
    "Bucket",
    "BucketIndex",
    "Encryption",
    "LifecycleRule",
    "Replication",
    "Transition",
    "bucket_lifecycle",
    "checkpoint_buckets",
    "encryptions",
    "first_int",
    "has_tag",
    "is_checkpoint_bucket",
    "is_kms",
    "is_versioned",
    "judge_buckets",
    "lifecycle_rules_of",
    "parse_tag_selector",
    "part",
    "replications",
    "walk",
]

PARTS = cloud_parts("gpufleet.policies.storage")

# Bucket type -> its cloud; cloud -> how findings name its buckets.
BUCKET_CLOUDS: dict[str, str] = {
    kind: cloud for cloud, kinds in part_values(PARTS, "BUCKET_TYPES").items() for kind in kinds
}
BUCKET_KINDS: dict[str, str] = dict(part_values(PARTS, "BUCKET_KIND").items())
# Separate resources that configure one bucket: type -> (cloud, the setting they carry).
ATTACHMENTS: dict[str, tuple[str, str]] = {
    kind: (cloud, setting)
    for cloud, attachments in part_values(PARTS, "ATTACHMENTS").items()
    for kind, setting in attachments.items()
}
# Settings of a whole account, covering each of its buckets: type -> cloud.
ACCOUNT_LEVEL = {
    kind: cloud for cloud, kinds in part_values(PARTS, "ACCOUNT_LEVEL").items() for kind in kinds
}
# Resources whose lifecycle rules are not at a bucket's `lifecycleRules`: type -> the input holding them.
_LIFECYCLE_RULES_KEY: dict[str, str] = {
    kind: key for keys in part_values(PARTS, "LIFECYCLE_RULES_KEY").values() for kind, key in keys.items()
}
KMS_ALGORITHMS: dict[str, tuple[str, ...]] = dict(part_values(PARTS, "KMS_ALGORITHMS").items())


def part(cloud: str) -> ModuleType:
    """The storage module of the cloud ``cloud`` (a bucket's `cloud`)."""
    return PARTS[cast(Cloud, cloud)]


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


def encryptions(bucket: Bucket) -> list[Encryption]:
    """The bucket's server-side encryption settings, inline and on joined resources, as its cloud's
    module reads them."""
    found: list[Encryption] = part(bucket.cloud).encryptions(bucket)
    return found


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
    key = _LIFECYCLE_RULES_KEY.get(resource_type, "lifecycleRules")
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
    """Versioning as the bucket's cloud sets it (a separate resource overriding the inline setting)."""
    versioned: bool = part(bucket.cloud).is_versioned(bucket)
    return versioned


def replications(bucket: Bucket) -> list[Replication]:
    """Enabled replication rules with their destination (bucket reference and region when known)."""
    found: list[Replication] = part(bucket.cloud).replications(bucket)
    return found

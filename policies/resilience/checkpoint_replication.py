"""GF-DR-001: production checkpoint buckets replicate to a second region or cloud.

Checkpoint buckets carry the tag `purpose=checkpoints` (the default of GF-STOR-005). Replication:
S3 inline `replicationConfiguration(s)` or `s3.BucketReplicationConfig` with an enabled rule; OSS
`oss.BucketReplication`; COS `replicaRules` with an enabled rule. Where the destination's region can
be told (the destination bucket is in the stack with a known region, the OSS `destination.location`,
the region inside a COS `qcs::cos:<region>::` destination) and equals the source's region, the
replica does not survive a regional outage and the rule reports it. A bucket that another bucket of
the stack replicates into from a different region is that data's second copy and passes on its own.

A replication that copies nothing is reported as such: an OSS replication of a KMS-encrypted bucket
without `sourceSelectionCriteria.sseKmsEncryptedObjects.status: Enabled` (OSS then skips every
KMS-encrypted object), and a COS replication whose source or in-stack destination bucket is not
versioned (COS replicates only between versioned buckets) or that names no `replicaRole`.
"""

from __future__ import annotations

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs
from pulumi_policy.proxy import UnknownValueError

from gpufleet.components.clouds import as_cloud
from gpufleet.policies.memo import per_stack
from gpufleet.policies.props import is_unknown
from gpufleet.policies.resilience._locations import PARTS, is_production
from gpufleet.policies.rule import GfStackPolicy, Rule, judge, judges
from gpufleet.policies.rule_facts import by_cloud_name, chained, clouds_with, sole
from gpufleet.policies.storage._buckets import (
    BUCKET_CLOUDS,
    Bucket,
    BucketIndex,
    Replication,
    is_checkpoint_bucket,
    replications,
)

CHECKPOINT_TAG = "purpose=checkpoints"

RULE = Rule(
    id="GF-DR-001",
    name="checkpoint-bucket-replication",
    description="Production checkpoint buckets replicate to a second region or cloud.",
    clouds=clouds_with(PARTS, "REPLICATION_REMEDIATION"),
    enforcement=EnforcementLevel.ADVISORY,
    severity=Severity.MEDIUM,
    remediation=by_cloud_name(PARTS, "REPLICATION_REMEDIATION"),
    url=sole(PARTS, "REPLICATION_URL"),
    checkov=chained(PARTS, "REPLICATION_CHECKOV"),
)


def _destination_bucket(index: BucketIndex, bucket: Bucket, replication: Replication) -> Bucket | None:
    """The replication's destination bucket, when it is in the stack."""
    destination = replication.destination
    if isinstance(destination, str) and not is_unknown(destination):
        name = destination.rsplit(":", 1)[-1]
        return index.by_name.get((bucket.cloud, name)) or index.by_name.get((bucket.cloud, destination))
    for deps in (replication.source.property_dependencies or {}).values():
        for dependency in deps or []:
            target = index.by_urn.get(dependency.urn)
            if target is not None and target is not bucket:
                return target
    return None


def _destination_region(index: BucketIndex, bucket: Bucket, replication: Replication) -> str | None:
    if replication.destination_region:
        return replication.destination_region
    target = _destination_bucket(index, bucket, replication)
    return target.region() if target else None


def _replicas(index: BucketIndex) -> dict[str, Bucket]:
    """Buckets in the stack that another bucket replicates into, by URN, with their source: a replica
    in another region is itself the second copy of the data it holds."""
    found: dict[str, Bucket] = {}
    for source in index.buckets:
        try:
            for replication in replications(source):
                target = _destination_bucket(index, source, replication)
                if target is not None and target is not source:
                    found[target.urn] = source
        except UnknownValueError:
            continue
    return found


def _copies_nothing(index: BucketIndex, bucket: Bucket, replication: Replication) -> str | None:
    """Why ``replication`` copies none of the bucket's objects, or None, as the bucket's cloud tells
    (`replication_copies_nothing` in its module)."""
    cloud = as_cloud(bucket.cloud)
    explain = getattr(PARTS.get(cloud), "replication_copies_nothing", None) if cloud else None
    if explain is None:
        return None
    why: str | None = explain(bucket, replication, lambda: _destination_bucket(index, bucket, replication))
    return why


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    index = per_stack(BucketIndex, args.resources)
    buckets = [
        b
        for b in index.buckets
        if is_checkpoint_bucket(b, CHECKPOINT_TAG) and is_production(b.resource, args.stack_tags)
    ]
    if not buckets:
        args.not_applicable("no production bucket is tagged purpose=checkpoints")
    replicas = _replicas(index)
    for bucket in buckets:

        def check(bucket: Bucket = bucket) -> None:
            found = replications(bucket)
            source = replicas.get(bucket.urn)
            if not found and source is not None and source.region() != bucket.region():
                return
            if not found:
                report(
                    f"{bucket.label} is a production checkpoint bucket without replication; replicate it to "
                    "a bucket in a second region or cloud",
                    bucket.urn,
                )
                return
            idle = [why for r in found if (why := _copies_nothing(index, bucket, r)) is not None]
            if idle and len(idle) == len(found):
                for why in idle:
                    report(why, bucket.urn)
                return
            region = bucket.region()
            destinations = [_destination_region(index, bucket, r) for r in found]
            if region and all(d == region for d in destinations):
                report(
                    f"{bucket.label} replicates only within its own region {region}; replicate it to a "
                    "second region or cloud",
                    bucket.urn,
                )

        judge(bucket.urn, check)


POLICY = GfStackPolicy(RULE, validate, judges(BUCKET_CLOUDS))

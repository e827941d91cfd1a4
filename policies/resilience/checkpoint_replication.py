"""GF-DR-001: production checkpoint buckets replicate to a second region or cloud.

Checkpoint buckets carry the tag `purpose=checkpoints` (the default of GF-STOR-005). Replication:
S3 inline `replicationConfiguration(s)` or `s3.BucketReplicationConfig` with an enabled rule; OSS
`oss.BucketReplication`; COS `replicaRules` with an enabled rule. Where the destination's region can
be told (the destination bucket is in the stack with a known region, the OSS `destination.location`,
the region inside a COS `qcs::cos:<region>::` destination) and equals the source's region, the
replica does not survive a regional outage and the rule reports it.
"""

from __future__ import annotations

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs

from policies.props import is_unknown
from policies.resilience._locations import is_production
from policies.rule import GfStackPolicy, Rule, judge
from policies.storage._buckets import Bucket, BucketIndex, Replication, is_checkpoint_bucket, replications

CHECKPOINT_TAG = "purpose=checkpoints"

RULE = Rule(
    id="GF-DR-001",
    name="checkpoint-bucket-replication",
    description="Production checkpoint buckets replicate to a second region or cloud.",
    clouds=("aws", "alicloud", "tencentcloud"),
    enforcement=EnforcementLevel.ADVISORY,
    severity=Severity.MEDIUM,
    remediation=(
        "AWS: add an aws.s3.BucketReplicationConfig (versioning enabled) with an enabled rule whose "
        "destination bucket is in another region. Alibaba Cloud: add an oss.BucketReplication with a "
        "destination location in another region. Tencent Cloud: set the COS bucket's replicaRole and "
        "replicaRules to a bucket in another region."
    ),
    url="https://docs.aws.amazon.com/AmazonS3/latest/userguide/replication.html",
    checkov=("CKV_AWS_144",),
)


def _destination_region(index: BucketIndex, bucket: Bucket, replication: Replication) -> str | None:
    if replication.destination_region:
        return replication.destination_region
    destination = replication.destination
    if isinstance(destination, str) and not is_unknown(destination):
        name = destination.rsplit(":", 1)[-1]
        target = index.by_name.get((bucket.cloud, name)) or index.by_name.get((bucket.cloud, destination))
        return target.region() if target else None
    for deps in (replication.source.property_dependencies or {}).values():
        for dependency in deps or []:
            target = index.by_urn.get(dependency.urn)
            if target is not None and target is not bucket:
                return target.region()
    return None


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    index = BucketIndex(args.resources)
    buckets = [
        b
        for b in index.buckets
        if is_checkpoint_bucket(b, CHECKPOINT_TAG) and is_production(b.resource, args.stack_tags)
    ]
    if not buckets:
        args.not_applicable("no production bucket is tagged purpose=checkpoints")
    for bucket in buckets:

        def check(bucket: Bucket = bucket) -> None:
            found = replications(bucket)
            if not found:
                report(
                    f"{bucket.label} is a production checkpoint bucket without replication; replicate it to "
                    "a bucket in a second region or cloud",
                    bucket.urn,
                )
                return
            region = bucket.region()
            destinations = [_destination_region(index, bucket, r) for r in found]
            if region and all(d == region for d in destinations):
                report(
                    f"{bucket.label} replicates only within its own region {region}; replicate it to a "
                    "second region or cloud",
                    bucket.urn,
                )

        judge(report, bucket.urn, check)


POLICY = GfStackPolicy(RULE, validate)

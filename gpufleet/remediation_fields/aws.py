"""AWS's resources whose findings the spec can fix (gpufleet.remediation_fields): (rule id, resource type)
-> the name of the fixer that says the spec field and its value. Plain data: the fixers are neutral and
live in the package."""

from __future__ import annotations

ASG = "aws:autoscaling/group:Group"
SCALING_POLICY = "aws:autoscaling/policy:Policy"
BUDGET = "aws:budgets/budget:Budget"
TRAIL = "aws:cloudtrail/trail:Trail"
LOG_GROUP = "aws:cloudwatch/logGroup:LogGroup"
BUCKETS = ("aws:s3/bucket:Bucket", "aws:s3/bucketV2:BucketV2")

FIXERS: dict[tuple[str, str], str] = {
    ("GF-COST-003", ASG): "types",
    ("GF-COST-004", ASG): "spot",
    ("GF-COST-006", ASG): "cooldown",
    ("GF-OPS-003", SCALING_POLICY): "cooldown",
    ("GF-COST-002", BUDGET): "budget",
    ("GF-AUD-002", TRAIL): "retention",
    ("GF-AUD-002", LOG_GROUP): "retention",
    **{("GF-STOR-005", bucket): "checkpoint_lifecycle" for bucket in BUCKETS},
    **{("GF-STOR-007", bucket): "noncurrent" for bucket in BUCKETS},
}

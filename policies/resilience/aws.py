"""AWS facts of the resilience rules: burst pool types, how an auto scaling group's zones reveal its
region, and GF-DR-001's and GF-DR-002's remediation, documentation and checkov ids."""

from __future__ import annotations

import re

# (input listing a pool's zones, zone name pattern whose group 1 is the region): `us-east-1a`.
ZONE_PATTERNS = (("availabilityZones", re.compile(r"^([a-z]{2}(?:-[a-z]+)+-\d+)[a-z]$")),)

# GF-DR-001.
REPLICATION_REMEDIATION = (
    "add an aws.s3.BucketReplicationConfig (versioning enabled) with an enabled rule whose "
    "destination bucket is in another region."
)
REPLICATION_URL = "https://docs.aws.amazon.com/AmazonS3/latest/userguide/replication.html"
REPLICATION_CHECKOV = ("CKV_AWS_144",)

# GF-DR-002.
POOL_TYPES = frozenset({"aws:autoscaling/group:Group", "aws:eks/nodeGroup:NodeGroup"})
# The pool resource a remediation names.
POOL_NAME = "aws.autoscaling.Group"
POOL_URL = "https://docs.aws.amazon.com/whitepapers/latest/disaster-recovery-workloads-on-aws/disaster-recovery-options-in-the-cloud.html"

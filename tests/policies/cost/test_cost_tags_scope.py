"""GF-COST-001 judges resources that carry cost: objects inside buckets and identity entities (IAM, RAM,
CAM) are not judged; their billed look-alikes (the bucket, an instance) still are. The list comes from
the generator's exclusions, and the generated file is what the generator writes."""

from __future__ import annotations

from pathlib import Path

import pytest

from policies.cost import _generate_taggable
from policies.cost._taggable import TAGGABLE
from policies.cost.cost_tags import POLICY

from .helpers import check_resource

NO_COST = [
    "aws:s3/bucketObject:BucketObject",
    "aws:s3/bucketObjectv2:BucketObjectv2",
    "aws:s3/objectCopy:ObjectCopy",
    "aws:iam/role:Role",
    "aws:iam/policy:Policy",
    "aws:iam/user:User",
    "aws:iam/instanceProfile:InstanceProfile",
    "aws:iam/openIdConnectProvider:OpenIdConnectProvider",
    "alicloud:ram/role:Role",
    "alicloud:ram/policy:Policy",
    "tencentcloud:Cam/role:Role",
    "tencentcloud:Cam/user:User",
    "tencentcloud:Cos/bucketObject:BucketObject",
]
BILLED = [
    "aws:s3/bucket:Bucket",
    "aws:s3/bucketV2:BucketV2",
    "aws:ec2/instance:Instance",
    "aws:kms/key:Key",
    "alicloud:oss/bucket:Bucket",
    "tencentcloud:Cos/bucket:Bucket",
]


@pytest.mark.parametrize("resource_type", NO_COST)
def test_untagged_objects_and_identities_are_not_judged(resource_type: str) -> None:
    assert resource_type not in TAGGABLE
    assert check_resource(POLICY, resource_type, {}, name="x") == (
        f"n/a: {resource_type} takes no tags or carries no cost of its own"
    )


@pytest.mark.parametrize("resource_type", BILLED)
def test_untagged_billed_look_alikes_fire(resource_type: str) -> None:
    assert resource_type in TAGGABLE
    (message,) = check_resource(POLICY, resource_type, {}, name="x")
    assert message.startswith(f"{resource_type} 'x' lacks the cost tags project, team, cost-center, env")


def test_generated_list_is_up_to_date() -> None:
    written = Path(_generate_taggable.__file__).with_name("_taggable.py").read_text(encoding="utf-8")
    assert written == _generate_taggable.render()

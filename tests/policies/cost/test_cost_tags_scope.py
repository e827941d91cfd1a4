"""GF-COST-001 judges resources that carry cost: objects inside buckets and identity entities (IAM, RAM,
CAM) are not judged; their billed look-alikes (the bucket, an instance) still are. The list comes from
the generator's exclusions, and the generated data files are what the generator writes."""

from __future__ import annotations

import pytest

from gpufleet.policies.cost.cost_tags import POLICY
from gpufleet.policies.cost.taggable import BY_CLOUD, TAGGABLE, data_file, generate

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
    found = check_resource(POLICY, resource_type, {}, name="x")
    assert isinstance(found, list)
    (message,) = found
    assert message.startswith(f"{resource_type} 'x' lacks the cost tags project, team, cost-center, env")


def test_generated_lists_are_up_to_date() -> None:
    rendered = generate.render()
    assert set(rendered) == {"aws", "alicloud", "tencentcloud"}
    for cloud, text in rendered.items():
        assert data_file(cloud).read_text(encoding="utf-8") == text, cloud


def test_each_list_holds_its_own_cloud_only() -> None:
    aws, alicloud, tencentcloud = BY_CLOUD["aws"], BY_CLOUD["alicloud"], BY_CLOUD["tencentcloud"]
    for cloud, tokens in (("aws", aws), ("alicloud", alicloud), ("tencentcloud", tencentcloud)):
        assert tokens and all(token.startswith(f"{cloud}:") for token in tokens), cloud
    assert aws | alicloud | tencentcloud == TAGGABLE

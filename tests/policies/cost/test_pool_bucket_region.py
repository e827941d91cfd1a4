from __future__ import annotations

import json

from pulumi_policy import EnforcementLevel, PolicyResource

from gpufleet.policies.cost.pool_bucket_region import POLICY, RULE

from .helpers import UNKNOWN_STR, check_stack, res

ROLE = "aws:iam/role:Role"
PROFILE = "aws:iam/instanceProfile:InstanceProfile"


def _stack(bucket_region: str, *, by_dependency: bool = False, attach: bool = False) -> list[PolicyResource]:
    bucket = res("aws:s3/bucket:Bucket", "ckpt", {"bucket": "ckpt-bucket", "region": bucket_region})
    role = res(ROLE, "gpu-role", {"name": "gpu-role"})
    profile = res(PROFILE, "gpu-profile", {"name": "gpu-profile", "role": "gpu-role"})
    document = (
        UNKNOWN_STR
        if by_dependency
        else json.dumps(
            {
                "Version": "2012-10-17",
                "Statement": [
                    {
                        "Effect": "Allow",
                        "Action": ["s3:GetObject"],
                        "Resource": ["arn:aws:s3:::ckpt-bucket/*"],
                    }
                ],
            }
        )
    )
    deps = {"policy": [bucket]} if by_dependency else {}
    if attach:
        policy = res("aws:iam/policy:Policy", "read", {"policy": document}, deps=deps)
        link = res(
            "aws:iam/rolePolicyAttachment:RolePolicyAttachment",
            "read-attach",
            {"role": "gpu-role", "policyArn": UNKNOWN_STR},
            deps={"policyArn": [policy]},
        )
        grants = [policy, link]
    else:
        grants = [
            res(
                "aws:iam/rolePolicy:RolePolicy",
                "read",
                {"role": UNKNOWN_STR, "policy": document},
                deps={**deps, "role": [role]},
            )
        ]
    lt = res(
        "aws:ec2/launchTemplate:LaunchTemplate",
        "lt",
        {"instanceType": "g5.2xlarge", "iamInstanceProfile": {"name": "gpu-profile"}},
    )
    asg = res(
        "aws:autoscaling/group:Group",
        "gpu",
        {"minSize": 0, "maxSize": 2, "region": "us-east-1", "launchTemplate": {"id": UNKNOWN_STR}},
        deps={"launchTemplate": [lt]},
    )
    return [bucket, role, profile, *grants, lt, asg]


def test_metadata() -> None:
    assert (RULE.id, POLICY.name, POLICY.enforcement_level) == (
        "GF-COST-008",
        "gpu-pools-near-their-buckets",
        EnforcementLevel.ADVISORY,
    )


def test_same_region_passes() -> None:
    assert check_stack(POLICY, _stack("us-east-1")) == []


def test_cross_region_through_inline_arn() -> None:
    stack = _stack("eu-west-1")
    assert check_stack(POLICY, stack) == [
        (
            "Auto Scaling group 'gpu' in us-east-1 reads S3 bucket 'ckpt' in eu-west-1 through role "
            "'gpu-role'; keep "
            "them in one region to avoid cross-region transfer charges",
            stack[-1].urn,
        )
    ]


def test_cross_region_through_dependency_and_managed_policy() -> None:
    assert len(check_stack(POLICY, _stack("eu-west-1", by_dependency=True))) == 1
    assert len(check_stack(POLICY, _stack("eu-west-1", attach=True))) == 1
    assert len(check_stack(POLICY, _stack("eu-west-1", attach=True, by_dependency=True))) == 1


def test_bucket_region_from_provider_and_unknown_region_not_judged() -> None:
    stack = _stack("us-east-1")
    stack[0] = res(
        "aws:s3/bucket:Bucket", "ckpt", {"bucket": "ckpt-bucket"}, provider_props={"region": "eu-west-1"}
    )
    assert len(check_stack(POLICY, stack)) == 1
    stack[0] = res("aws:s3/bucket:Bucket", "ckpt", {"bucket": "ckpt-bucket"})
    assert check_stack(POLICY, stack) == []


def test_instance_profile_on_instance_with_proxy() -> None:
    bucket = res("aws:s3/bucket:Bucket", "ckpt", {"bucket": "ckpt-bucket", "region": "eu-west-1"})
    role = res(
        ROLE,
        "gpu-role",
        {
            "inlinePolicies": [
                {
                    "name": "read",
                    "policy": json.dumps(
                        {
                            "Statement": [
                                {
                                    "Effect": "Allow",
                                    "Action": "s3:*",
                                    "Resource": "arn:aws:s3:::ckpt-bucket",
                                }
                            ]
                        }
                    ),
                }
            ]
        },
        proxy=True,
    )
    profile = res(PROFILE, "gpu-profile", {"role": UNKNOWN_STR}, deps={"role": [role]})
    box = res(
        "aws:ec2/instance:Instance",
        "box",
        {"instanceType": "g5.2xlarge", "region": "us-east-1", "iamInstanceProfile": UNKNOWN_STR},
        deps={"iamInstanceProfile": [profile]},
        proxy=True,
    )
    assert check_stack(POLICY, [bucket, role, profile, box]) == [
        (
            "EC2 instance 'box' in us-east-1 reads S3 bucket 'ckpt' in eu-west-1 through role "
            "'gpu-role'; keep them "
            "in one region to avoid cross-region transfer charges",
            box.urn,
        )
    ]

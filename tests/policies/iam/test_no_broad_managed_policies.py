from __future__ import annotations

import pytest

from gpufleet.policies.iam.no_broad_managed_policies import POLICY, RULE

from .helpers import UNKNOWN_STRING_VALUE, check

TAIL = "attach a least-privilege policy instead"


def test_metadata() -> None:
    assert RULE.id == "GF-IAM-003"
    assert RULE.defaults()["denied_policies"][:4] == [
        "AdministratorAccess*",
        "PowerUserAccess",
        "IAMFullAccess",
        "*FullAccess*",
    ]


@pytest.mark.parametrize(
    ("token", "props", "label", "name"),
    [
        (
            "aws:iam/rolePolicyAttachment:RolePolicyAttachment",
            {"role": "r", "policyArn": "arn:aws:iam::aws:policy/AdministratorAccess"},
            "IAM role policy attachment",
            "AdministratorAccess",
        ),
        (
            "aws:iam/policyAttachment:PolicyAttachment",
            {"roles": ["r"], "policyArn": "arn:aws-cn:iam::aws:policy/job-function/PowerUserAccess"},
            "IAM policy attachment",
            "PowerUserAccess",
        ),
        (
            "aws:iam/role:Role",
            {
                "managedPolicyArns": [
                    "arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore",
                    "arn:aws:iam::aws:policy/IAMFullAccess",
                ]
            },
            "IAM role",
            "IAMFullAccess",
        ),
        (
            "aws:iam/rolePolicyAttachmentsExclusive:RolePolicyAttachmentsExclusive",
            {"roleName": "r", "policyArns": ["arn:aws:iam::aws:policy/AdministratorAccess"]},
            "IAM role policy attachments",
            "AdministratorAccess",
        ),
        (
            "alicloud:ram/rolePolicyAttachment:RolePolicyAttachment",
            {"roleName": "r", "policyName": "AliyunOSSFullAccess", "policyType": "System"},
            "RAM role policy attachment",
            "AliyunOSSFullAccess",
        ),
        (
            "tencentcloud:Cam/rolePolicyAttachmentByName:RolePolicyAttachmentByName",
            {"roleName": "r", "policyName": "QCloudResourceFullAccess"},
            "CAM role policy attachment",
            "QCloudResourceFullAccess",
        ),
    ],
)
def test_broad_policies(token: str, props: dict[str, object], label: str, name: str) -> None:
    assert check(POLICY, token, props, "x") == [
        f"{label} 'x' attaches the broad managed policy {name!r}; {TAIL}"
    ]


def test_compliant() -> None:
    attach = "aws:iam/rolePolicyAttachment:RolePolicyAttachment"
    assert check(POLICY, attach, {"policyArn": "arn:aws:iam::aws:policy/AmazonSSMManagedInstanceCore"}) == []
    # A customer policy that shares the name is judged by its document, not its name.
    assert check(POLICY, attach, {"policyArn": "arn:aws:iam::123456789012:policy/AdministratorAccess"}) == []
    assert check(POLICY, attach, {"policyArn": UNKNOWN_STRING_VALUE}, proxy=True) == []
    ali = "alicloud:ram/userPolicyAttachment:UserPolicyAttachment"
    assert check(POLICY, ali, {"policyName": "AliyunOSSFullAccess", "policyType": "Custom"}) == []


def test_config_overrides_patterns() -> None:
    attach = "aws:iam/userPolicyAttachment:UserPolicyAttachment"
    props = {"policyArn": "arn:aws:iam::aws:policy/AmazonS3FullAccess"}
    assert check(POLICY, attach, props, config={"denied_policies": ["AdministratorAccess"]}) == []
    assert check(POLICY, attach, props, "u", config={"denied_policies": ["Amazon*FullAccess"]}) == [
        f"IAM user policy attachment 'u' attaches the broad managed policy 'AmazonS3FullAccess'; {TAIL}"
    ]
    job = {"policyArn": "arn:aws:iam::aws:policy/job-function/DataScientist"}
    assert check(POLICY, attach, job, "u", config={"denied_policies": ["job-function/*"]}) == [
        f"IAM user policy attachment 'u' attaches the broad managed policy 'DataScientist'; {TAIL}"
    ]


@pytest.mark.parametrize(
    "arn",
    [
        "arn:aws:iam::aws:policy/AmazonS3FullAccess",
        "arn:aws:iam::aws:policy/AmazonEC2FullAccess",
        "arn:aws:iam::aws:policy/AWSLambda_FullAccess",
        "arn:aws:iam::aws:policy/CloudWatchFullAccessV2",
        "arn:aws:iam::aws:policy/AmazonDynamoDBFullAccesswithDataPipeline",
        "arn:aws-cn:iam::aws:policy/AmazonSageMakerFullAccess",
        "arn:aws:iam::aws:policy/AdministratorAccess-Amplify",
        "arn:aws:iam::aws:policy/job-function/SystemAdministrator",
        "arn:aws:iam::aws:policy/job-function/NetworkAdministrator",
        "arn:aws:iam::aws:policy/service-role/AmazonSSMFullAccess",
    ],
)
def test_aws_managed_full_access_and_administrators_fail(arn: str) -> None:
    attach = "aws:iam/rolePolicyAttachment:RolePolicyAttachment"
    name = arn.rsplit("/", 1)[1]
    assert check(POLICY, attach, {"role": "r", "policyArn": arn}, "x") == [
        f"IAM role policy attachment 'x' attaches the broad managed policy {name!r}; {TAIL}"
    ]


@pytest.mark.parametrize(
    "arn",
    [
        "arn:aws:iam::aws:policy/AmazonS3ReadOnlyAccess",
        "arn:aws:iam::aws:policy/ReadOnlyAccess",
        "arn:aws:iam::aws:policy/job-function/ViewOnlyAccess",
        "arn:aws:iam::aws:policy/service-role/AmazonEC2SpotFleetTaggingRole",
        "arn:aws:iam::aws:policy/CloudWatchAgentServerPolicy",
        # A customer policy that borrows the name is judged by its document.
        "arn:aws:iam::123456789012:policy/AmazonS3FullAccess",
        "arn:aws:iam::123456789012:policy/job-function/SystemAdministrator",
    ],
)
def test_narrow_and_customer_look_alikes_pass(arn: str) -> None:
    attach = "aws:iam/rolePolicyAttachment:RolePolicyAttachment"
    assert check(POLICY, attach, {"role": "r", "policyArn": arn}) == []


def test_unknown_policy_type_cannot_be_judged() -> None:
    ali = "alicloud:ram/groupPolicyAttachment:GroupPolicyAttachment"
    assert check(
        POLICY, ali, {"policyName": "AdministratorAccess", "policyType": UNKNOWN_STRING_VALUE}, proxy=True
    ) == ["could not be judged at preview: the string value at .policyType can't be known during preview"]

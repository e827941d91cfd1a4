from __future__ import annotations

from typing import Any

import pytest

from gpufleet.policies.access.imdsv2_required import POLICY, RULE

from .helpers import UNKNOWN_STRING_VALUE, NotApplicable, check_stack, res
from .helpers import urn_of as urn

INSTANCE = "aws:ec2/instance:Instance"
SPOT = "aws:ec2/spotInstanceRequest:SpotInstanceRequest"
LT = "aws:ec2/launchTemplate:LaunchTemplate"
LC = "aws:ec2/launchConfiguration:LaunchConfiguration"
DEFAULTS = "aws:ec2/instanceMetadataDefaults:InstanceMetadataDefaults"
AMI = "aws:ec2/ami:Ami"
TAIL = "; require IMDSv2 tokens (httpTokens: required) with a hop limit of at most 2"
AL2023 = "resolve:ssm:/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-default-x86_64"


def one(token: str, props: dict[str, Any], name: str = "r", **kwargs: Any) -> list[tuple[str, str | None]]:
    return check_stack(POLICY, [res(token, name, props)], **kwargs)


def test_metadata() -> None:
    assert RULE.id == "GF-ACC-004"
    assert RULE.clouds == ("aws",)
    assert RULE.defaults() == {"max_hop_limit": 2}


@pytest.mark.parametrize("token", [INSTANCE, LT, LC])
def test_compliant(token: str) -> None:
    assert one(token, {"metadataOptions": {"httpTokens": "required", "httpPutResponseHopLimit": 2}}) == []
    assert one(token, {"metadataOptions": {"httpTokens": "required"}}) == []


def test_unset_tokens_fail() -> None:
    assert one(INSTANCE, {"instanceType": "g5.xlarge"}, "gpu") == [
        (f"EC2 instance 'gpu' allows IMDSv1 (httpTokens is unset (optional)){TAIL}", urn(INSTANCE, "gpu"))
    ]


def test_optional_and_hop_limit() -> None:
    props = {"metadataOptions": {"httpTokens": "optional", "httpPutResponseHopLimit": 3.0}}
    assert one(LT, props, "tpl") == [
        (
            "EC2 launch template 'tpl' allows IMDSv1 (httpTokens is optional) and has metadata hop limit "
            f"3{TAIL}",
            urn(LT, "tpl"),
        )
    ]


def test_hop_limit_config() -> None:
    props = {"metadataOptions": {"httpTokens": "required", "httpPutResponseHopLimit": 2}}
    assert one(LC, props, "lc", config={"max_hop_limit": 1}) == [
        (
            "EC2 launch configuration 'lc' has metadata hop limit 2; require IMDSv2 tokens "
            "(httpTokens: required) with a hop limit of at most 1",
            urn(LC, "lc"),
        )
    ]


def test_endpoint_disabled_passes() -> None:
    assert one(INSTANCE, {"metadataOptions": {"httpEndpoint": "disabled"}}) == []


def test_instance_from_template_is_judged_on_the_template() -> None:
    assert one(INSTANCE, {"launchTemplate": {"id": "lt-1"}}) == []


def test_other_clouds_not_applicable() -> None:
    with pytest.raises(NotApplicable, match="AWS-only"):
        one("alicloud:ecs/instance:Instance", {"httpTokens": "optional"})
    with pytest.raises(NotApplicable, match="AWS-only"):
        one("tencentcloud:Instance/instance:Instance", {})


def test_account_defaults_judged_themselves() -> None:
    assert one(DEFAULTS, {"httpTokens": "required"}) == []
    assert one(DEFAULTS, {"httpTokens": "no-preference"}, "acct") == [
        (
            f"EC2 instance metadata defaults 'acct' leaves httpTokens at 'no-preference'{TAIL}",
            urn(DEFAULTS, "acct"),
        )
    ]


def test_unknown_tokens_with_proxy() -> None:
    unknown = res(INSTANCE, "u", {"metadataOptions": {"httpTokens": UNKNOWN_STRING_VALUE}})
    assert check_stack(POLICY, [unknown], proxy=True) == [
        (
            "could not be judged at preview: the string value at .metadataOptions.httpTokens can't be known "
            "during preview",
            urn(INSTANCE, "u"),
        )
    ]
    optional = res(INSTANCE, "i", {"metadataOptions": {"httpTokens": "optional"}})
    assert check_stack(POLICY, [optional], proxy=True) == [
        (f"EC2 instance 'i' allows IMDSv1 (httpTokens is optional){TAIL}", urn(INSTANCE, "i"))
    ]


# --- defaults set elsewhere: the account default -------------------------------------------------------


def test_account_default_required_covers_unset_tokens() -> None:
    resources = [
        res(DEFAULTS, "acct", {"httpTokens": "required", "httpPutResponseHopLimit": 2}),
        res(INSTANCE, "gpu", {"instanceType": "g5.xlarge"}),
        res(LT, "tpl", {"imageId": "ami-123"}),
        res(LC, "lc", {"imageId": "ami-123", "metadataOptions": {"httpEndpoint": "enabled"}}),
    ]
    assert check_stack(POLICY, resources) == []


def test_account_default_does_not_cover_explicit_optional_or_hop_limit() -> None:
    resources = [
        res(DEFAULTS, "acct", {"httpTokens": "required"}),
        res(INSTANCE, "opt", {"metadataOptions": {"httpTokens": "optional"}}),
        res(INSTANCE, "hop", {"metadataOptions": {"httpPutResponseHopLimit": 4}}),
    ]
    assert check_stack(POLICY, resources) == [
        (f"EC2 instance 'opt' allows IMDSv1 (httpTokens is optional){TAIL}", urn(INSTANCE, "opt")),
        (f"EC2 instance 'hop' has metadata hop limit 4{TAIL}", urn(INSTANCE, "hop")),
    ]


@pytest.mark.parametrize(
    "defaults",
    [
        {"httpTokens": "no-preference"},
        {"httpTokens": "optional"},
        {"httpTokens": "required", "httpPutResponseHopLimit": 5},
    ],
)
def test_weak_account_default_covers_nothing(defaults: dict[str, Any]) -> None:
    messages = [
        m for m, _ in check_stack(POLICY, [res(DEFAULTS, "acct", defaults), res(INSTANCE, "gpu", {})])
    ]
    assert f"EC2 instance 'gpu' allows IMDSv1 (httpTokens is unset (optional)){TAIL}" in messages


def test_account_default_of_another_region_does_not_cover() -> None:
    resources = [
        res(DEFAULTS, "acct", {"httpTokens": "required", "region": "us-east-1"}),
        res(INSTANCE, "west", {"region": "us-west-2"}),
        res(INSTANCE, "east", {"region": "us-east-1"}),
    ]
    assert check_stack(POLICY, resources) == [
        (f"EC2 instance 'west' allows IMDSv1 (httpTokens is unset (optional)){TAIL}", urn(INSTANCE, "west"))
    ]


# --- defaults set elsewhere: the image -----------------------------------------------------------------


@pytest.mark.parametrize(("token", "prop"), [(INSTANCE, "ami"), (SPOT, "ami"), (LT, "imageId")])
def test_al2023_ssm_image_passes_without_metadata_options(token: str, prop: str) -> None:
    assert one(token, {prop: AL2023}) == []


def test_al2023_image_with_explicit_optional_still_fails() -> None:
    assert one(INSTANCE, {"ami": AL2023, "metadataOptions": {"httpTokens": "optional"}}, "i") == [
        (f"EC2 instance 'i' allows IMDSv1 (httpTokens is optional){TAIL}", urn(INSTANCE, "i"))
    ]


@pytest.mark.parametrize(
    "ami",
    [
        "ami-0abcdef1234567890",  # an id from aws.ec2.get_ami(name_regex="al2023-ami-*"): just an id
        "resolve:ssm:/aws/service/ami-amazon-linux-latest/amzn2-ami-hvm-x86_64-gp2",  # Amazon Linux 2
        "resolve:ssm:/my/team/al2023-ami-golden",  # a private parameter can hold any image
    ],
)
def test_image_not_provably_al2023_fails(ami: str) -> None:
    assert one(INSTANCE, {"ami": ami}, "i") == [
        (f"EC2 instance 'i' allows IMDSv1 (httpTokens is unset (optional)){TAIL}", urn(INSTANCE, "i"))
    ]


def test_image_registered_with_imds_v2_in_stack_passes() -> None:
    image = res(AMI, "golden", {"imdsSupport": "v2.0", "name": "golden"})
    instance = res(INSTANCE, "gpu", {"ami": UNKNOWN_STRING_VALUE}, prop_deps={"ami": [image]})
    assert check_stack(POLICY, [image, instance]) == []
    plain_image = res(AMI, "plain", {"name": "plain"})
    other = res(INSTANCE, "gpu", {"ami": UNKNOWN_STRING_VALUE}, prop_deps={"ami": [plain_image]})
    assert check_stack(POLICY, [plain_image, other]) == [
        (f"EC2 instance 'gpu' allows IMDSv1 (httpTokens is unset (optional)){TAIL}", urn(INSTANCE, "gpu"))
    ]


def test_account_default_unknown_at_preview_defers_the_launches_it_would_cover() -> None:
    resources = [
        res(DEFAULTS, "acct", {"httpTokens": UNKNOWN_STRING_VALUE, "region": "us-east-1"}),
        res(INSTANCE, "east", {"region": "us-east-1"}),
        res(INSTANCE, "west", {"region": "us-west-2"}),
        res(INSTANCE, "pinned", {"region": "us-east-1", "metadataOptions": {"httpTokens": "required"}}),
    ]
    found = check_stack(POLICY, resources, proxy=True)
    assert set(found) == {
        (
            "could not be judged at preview: the string value at .httpTokens can't be known during preview",
            urn(DEFAULTS, "acct"),
        ),
        (
            "could not be judged at preview: the string value at .httpTokens of instance metadata defaults "
            "'acct' can't be known during preview",
            urn(INSTANCE, "east"),
        ),
        (f"EC2 instance 'west' allows IMDSv1 (httpTokens is unset (optional)){TAIL}", urn(INSTANCE, "west")),
    }

from __future__ import annotations

import pytest

from policies.access.imdsv2_required import POLICY, RULE

from .helpers import UNKNOWN_STRING_VALUE, NotApplicable, check

INSTANCE = "aws:ec2/instance:Instance"
LT = "aws:ec2/launchTemplate:LaunchTemplate"
LC = "aws:ec2/launchConfiguration:LaunchConfiguration"
DEFAULTS = "aws:ec2/instanceMetadataDefaults:InstanceMetadataDefaults"
TAIL = "; require IMDSv2 tokens (httpTokens: required) with a hop limit of at most 2"


def test_metadata() -> None:
    assert RULE.id == "GF-ACC-004"
    assert RULE.clouds == ("aws",)
    assert RULE.defaults() == {"max_hop_limit": 2}


@pytest.mark.parametrize("token", [INSTANCE, LT, LC])
def test_compliant(token: str) -> None:
    assert (
        check(POLICY, token, {"metadataOptions": {"httpTokens": "required", "httpPutResponseHopLimit": 2}})
        == []
    )
    assert check(POLICY, token, {"metadataOptions": {"httpTokens": "required"}}) == []


def test_unset_tokens_fail() -> None:
    assert check(POLICY, INSTANCE, {"instanceType": "g5.xlarge"}, "gpu") == [
        f"EC2 instance 'gpu' allows IMDSv1 (httpTokens is unset (optional)){TAIL}"
    ]


def test_optional_and_hop_limit() -> None:
    props = {"metadataOptions": {"httpTokens": "optional", "httpPutResponseHopLimit": 3.0}}
    assert check(POLICY, LT, props, "tpl") == [
        f"EC2 launch template 'tpl' allows IMDSv1 (httpTokens is optional) and has metadata hop limit 3{TAIL}"
    ]


def test_hop_limit_config() -> None:
    props = {"metadataOptions": {"httpTokens": "required", "httpPutResponseHopLimit": 2}}
    assert check(POLICY, LC, props, "lc", config={"max_hop_limit": 1}) == [
        "EC2 launch configuration 'lc' has metadata hop limit 2; require IMDSv2 tokens "
        "(httpTokens: required) "
        "with a hop limit of at most 1"
    ]


def test_endpoint_disabled_passes() -> None:
    assert check(POLICY, INSTANCE, {"metadataOptions": {"httpEndpoint": "disabled"}}) == []


def test_instance_from_template_not_applicable() -> None:
    with pytest.raises(NotApplicable):
        check(POLICY, INSTANCE, {"launchTemplate": {"id": "lt-1"}})


def test_other_clouds_not_applicable() -> None:
    with pytest.raises(NotApplicable):
        check(POLICY, "alicloud:ecs/instance:Instance", {"httpTokens": "optional"})
    with pytest.raises(NotApplicable):
        check(POLICY, "tencentcloud:Instance/instance:Instance", {})


def test_account_defaults() -> None:
    assert check(POLICY, DEFAULTS, {"httpTokens": "required"}) == []
    assert check(POLICY, DEFAULTS, {"httpTokens": "no-preference"}, "acct") == [
        f"EC2 instance metadata defaults 'acct' leaves httpTokens at 'no-preference'{TAIL}"
    ]


def test_unknown_tokens_with_proxy() -> None:
    props = {"metadataOptions": {"httpTokens": UNKNOWN_STRING_VALUE}}
    assert check(POLICY, INSTANCE, props, proxy=True) == [
        "could not be judged at preview: the string value at .metadataOptions.httpTokens can't be known "
        "during preview"
    ]
    assert check(POLICY, INSTANCE, {"metadataOptions": {"httpTokens": "optional"}}, "i", proxy=True) == [
        f"EC2 instance 'i' allows IMDSv1 (httpTokens is optional){TAIL}"
    ]

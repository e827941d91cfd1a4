from __future__ import annotations

import pytest

from gpufleet.policies.iam.no_access_keys import POLICY, RULE

from .helpers import UNKNOWN_STRING_VALUE, check

TAIL = "use a role with temporary credentials instead"


def test_metadata() -> None:
    assert RULE.id == "GF-IAM-005"
    assert RULE.clouds == ("aws", "alicloud", "tencentcloud")


@pytest.mark.parametrize(
    ("token", "props", "expected"),
    [
        (
            "aws:iam/accessKey:AccessKey",
            {"user": "ci"},
            f"IAM access key 'k' creates a long-lived access key for 'ci'; {TAIL}",
        ),
        (
            "alicloud:ram/accessKey:AccessKey",
            {"userName": "ci", "status": "Inactive"},
            f"RAM access key 'k' creates a long-lived access key for 'ci'; {TAIL}",
        ),
        (
            "tencentcloud:Cam/accessKey:AccessKey",
            {},
            f"CAM access key 'k' creates a long-lived access key; {TAIL}",
        ),
    ],
)
def test_access_keys(token: str, props: dict[str, object], expected: str) -> None:
    assert check(POLICY, token, props, "k") == [expected]


def test_unknown_owner_still_fails_with_proxy() -> None:
    assert check(POLICY, "aws:iam/accessKey:AccessKey", {"user": UNKNOWN_STRING_VALUE}, "k", proxy=True) == [
        f"IAM access key 'k' creates a long-lived access key; {TAIL}"
    ]


def test_compliant_other_resources() -> None:
    assert check(POLICY, "aws:iam/user:User", {"name": "ci"}) == []
    assert check(POLICY, "aws:iam/userLoginProfile:UserLoginProfile", {"user": "ci"}) == []


def test_tencent_target_uin_number_is_shown_as_an_integer() -> None:
    # The engine sends numbers as floats: the UIN must not read as 100037718101.0.
    props = {"targetUin": 100037718101.0}
    assert check(POLICY, "tencentcloud:Cam/accessKey:AccessKey", props, "k", proxy=True) == [
        f"CAM access key 'k' creates a long-lived access key for 100037718101; {TAIL}"
    ]

"""GF-DEPLOY-003: the clouds' rules no schema holds, each refusal with its message, valid values pass."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from typing import Any

import pytest

from gpufleet.analyzer_inputs import wire_form
from gpufleet.graph import make_secret
from gpufleet.policies import waivers
from gpufleet.policies.deploy.cloud_rules import POLICY, rules
from tests.policies.support import regional_provider, res, run_stack

S3 = "aws:s3/bucket:Bucket"
OSS = "alicloud:oss/bucket:Bucket"
COS = "tencentcloud:Cos/bucket:Bucket"
ESS_TASK = "alicloud:ess/scheduledTask:ScheduledTask"
ESS_GROUP = "alicloud:ess/scalingGroup:ScalingGroup"
AS_SCHEDULE = "tencentcloud:As/schedule:Schedule"
ASG_SCHEDULE = "aws:autoscaling/schedule:Schedule"
LIFECYCLE = "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration"


@pytest.fixture(autouse=True)
def today() -> Iterator[None]:
    waivers.set_clock(lambda: date(2026, 12, 5))
    yield
    waivers.set_clock(None)


def messages(*resources: Any) -> list[str]:
    return [message for message, _ in run_stack(POLICY, list(resources))]


def one(token: str, props: dict[str, Any], name: str = "r", **kw: Any) -> Any:
    return res(token, name, wire_form(props), **kw)


def src(rule_id: str, cloud: str | None = None) -> str:
    rule = rules()[rule_id]
    return str((rule.get("sources") or {}).get(cloud) or rule["source"])


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("ab", "2 characters"),
        (
            "My-Bucket",
            "a character other than lowercase letters, digits, '.' and '-', or not a letter "
            "or digit at an end",
        ),
        ("a..b", "two adjacent periods"),
        ("192.168.1.1", "the form of an IP address"),
        ("xn--bucket", "the reserved prefix 'xn--'"),
        ("data-s3alias", "the reserved suffix '-s3alias'"),
    ],
)
def test_s3_bucket_names(name: str, problem: str) -> None:
    assert messages(one(S3, {"bucket": name}, "b")) == [
        f"{S3} 'b': bucket is \"{name}\" ({problem}); allowed: 3-63 lowercase letters, "
        "digits, '.' and '-', a "
        f"letter or digit at each end, no '..', not an IP address, no reserved prefix or suffix "
        f"[{src('s3-bucket-name')}]"
    ]


def test_valid_bucket_names_pass() -> None:
    prov = regional_provider("tencentcloud", "ap-guangzhou")
    assert (
        messages(
            one(S3, {"bucket": "gpufleet-dev-checkpoints.v2"}),
            one(OSS, {"bucket": "gpufleet-cn-dev-ckpt"}),
            one(COS, {"bucket": "ckpt-1250000000"}, prov=prov),
        )
        == []
    )


def test_oss_and_cos_bucket_names() -> None:
    assert messages(one(OSS, {"bucket": "Ckpt_1"}, "o")) == [
        f"{OSS} 'o': bucket is \"Ckpt_1\" (a character other than lowercase letters, digits "
        "and '-', or not a letter "
        "or digit at an end); allowed: 3-63 lowercase letters, digits and '-', a letter or "
        "digit at each end "
        f"[{src('oss-bucket-name')}]"
    ]
    assert messages(one(COS, {"bucket": "ckpt"}, "c")) == [
        f"{COS} 'c': bucket is \"ckpt\" (not the form <name>-<APPID> (APPID digits; the name "
        "lowercase letters, "
        "digits and '-', no '-' at an end)); allowed: <name>-<APPID>, the request domain at "
        "most 60 characters "
        f"[{src('cos-bucket-name')}]"
    ]
    long_name = "gpufleet-hybrid-ckpt-ap-guangzhou-1250000000"
    prov = regional_provider("tencentcloud", "ap-guangzhou")
    found = messages(one(COS, {"bucket": long_name}, "c", prov=prov))
    domain = f"{long_name}.cos.ap-guangzhou.myqcloud.com"
    assert found == [
        f"{COS} 'c': bucket is \"{long_name}\" (a request domain {domain} of {len(domain)} "
        "characters); allowed: "
        f"<name>-<APPID>, the request domain at most 60 characters [{src('cos-bucket-name')}]"
    ]


def test_schedules_in_the_past_on_each_cloud() -> None:
    found = messages(
        one(AS_SCHEDULE, {"startTime": "2026-01-01T00:00:00+08:00", "scalingGroupId": "asg-1"}, "t"),
        one(ESS_TASK, {"launchTime": "2026-12-04T12:00Z", "scalingGroupId": "asg-x"}, "l"),
        one(ASG_SCHEDULE, {"startTime": "2025-06-01T00:00:00Z", "autoscalingGroupName": "g"}, "a"),
    )
    assert found == [
        f"{AS_SCHEDULE} 't': startTime is \"2026-01-01T00:00:00+08:00\", before today "
        "(2026-12-05); allowed: a "
        f"time from today on [{src('schedule-in-the-past', 'tencentcloud')}]",
        f"{ESS_TASK} 'l': launchTime is \"2026-12-04T12:00Z\", before today (2026-12-05); "
        "allowed: a time from "
        f"today on [{src('schedule-in-the-past', 'alicloud')}]",
        f"{ASG_SCHEDULE} 'a': startTime is \"2025-06-01T00:00:00Z\", before today "
        "(2026-12-05); allowed: a time "
        f"from today on [{src('schedule-in-the-past', 'aws')}]",
    ]
    assert messages(one(ESS_TASK, {"launchTime": "2026-12-06T00:00Z", "scalingGroupId": "asg-x"})) == []


def test_s3_ia_transition_before_30_days() -> None:
    rules_ = [{"id": "a", "status": "Enabled", "transitions": [{"days": 7, "storageClass": "STANDARD_IA"}]}]
    assert messages(one(LIFECYCLE, {"bucket": "b", "rules": rules_}, "lc")) == [
        f"{LIFECYCLE} 'lc': rules[0].transitions[0].days is 7 with storageClass "
        '"STANDARD_IA"; allowed: at least '
        f"30 days before a transition to STANDARD_IA or ONEZONE_IA [{src('s3-ia-transition-minimum')}]"
    ]
    ok = [{"id": "a", "status": "Enabled", "transitions": [{"days": 30, "storageClass": "ONEZONE_IA"}]}]
    assert messages(one(LIFECYCLE, {"bucket": "b", "rules": ok})) == []
    secret = [{"id": "a", "transitions": [{"days": make_secret(3), "storageClass": "STANDARD_IA"}]}]
    assert "is [secret] with" in messages(one(LIFECYCLE, {"bucket": "b", "rules": secret}))[0]


def test_desired_capacity_for_a_group_created_without_one() -> None:
    group = one(ESS_GROUP, {"id": "asg-1", "minSize": 0, "maxSize": 4}, "g")
    task = one(
        ESS_TASK, {"scalingGroupId": "asg-1", "desiredCapacity": 0, "launchTime": "2030-01-01T00:00Z"}, "t"
    )
    assert messages(group, task) == [
        f"{ESS_TASK} 't': desiredCapacity is 0 but scaling group {ESS_GROUP} 'g' has no "
        "desiredCapacity; allowed: "
        f"desiredCapacity only for a scaling group created with one [{src('ess-desired-capacity')}]"
    ]
    with_desired = one(ESS_GROUP, {"id": "asg-1", "minSize": 0, "maxSize": 4, "desiredCapacity": 0}, "g")
    assert messages(with_desired, task) == []
    # A group the stack does not hold is not judged.
    assert messages(task) == []


def test_aws_schedule_desired_within_its_bounds() -> None:
    props = {"autoscalingGroupName": "g", "minSize": 0, "maxSize": 2, "desiredCapacity": 3}
    assert messages(one(ASG_SCHEDULE, props, "a")) == [
        f"{ASG_SCHEDULE} 'a': desiredCapacity is 3; allowed: 0 to 2 (the action's minSize to maxSize) "
        f"[{src('asg-schedule-desired-in-bounds')}]"
    ]
    assert messages(one(ASG_SCHEDULE, {**props, "desiredCapacity": 2})) == []
    assert messages(one(ASG_SCHEDULE, {**props, "desiredCapacity": -1})) == []

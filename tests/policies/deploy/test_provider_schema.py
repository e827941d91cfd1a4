"""GF-DEPLOY-001: each constraint kind refuses a bad value with the message a preview would give, and
passes a good one; the generated table matches the installed SDKs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gpufleet.analyzer_inputs import wire_form
from gpufleet.graph import UNKNOWN_STRING, make_secret
from gpufleet.policies.deploy import generate
from gpufleet.policies.deploy._constraints import problems, table
from gpufleet.policies.deploy.provider_schema import POLICY
from tests.policies.support import run_resource

ALARM = "alicloud:cms/alarm:Alarm"
ESS_TASK = "alicloud:ess/scheduledTask:ScheduledTask"
TCMQ = "tencentcloud:Tcmq/queue:Queue"
SQS = "aws:sqs/queue:Queue"
ASG = "aws:autoscaling/group:Group"
CW = "aws:cloudwatch/metricAlarm:MetricAlarm"
CMS_OPS = (
    '">", ">=", "<", "<=", "!=", "==", "GreaterThanYesterday", "LessThanYesterday", "GreaterThanLastWeek", '
    '"LessThanLastWeek", "GreaterThanLastPeriod", "LessThanLastPeriod"'
)
ROOT = Path(__file__).resolve().parents[3]
CMS_SOURCE = "pulumi_alicloud cms/alarm.py AlarmEscalationsCriticalArgs.comparison_operator"


def run(token: str, props: dict[str, Any], name: str = "r", *, required: bool = False) -> list[str]:
    """The findings; those of required arguments only with `required` (the samples here are partial)."""
    found = run_resource(POLICY, token, wire_form(props), name)
    return found if required else [f for f in found if "is required and not set" not in f]


def alarm(**extra: Any) -> dict[str, Any]:
    return {"metric": "ActiveMessages", "project": "acs_mns_new", "metricDimensions": "[]", **extra}


def test_enum_refuses_an_operator_the_provider_does_not_take() -> None:
    found = run(ALARM, alarm(escalationsCritical={"comparisonOperator": "GreaterThanThreshold"}), "deep")
    assert found == [
        f"{ALARM} 'deep': escalationsCritical.comparisonOperator is \"GreaterThanThreshold\"; allowed: "
        f"{CMS_OPS} [{CMS_SOURCE}]"
    ]
    assert run(ALARM, alarm(escalationsCritical={"comparisonOperator": ">="})) == []


def test_range_refuses_values_outside_it() -> None:
    assert run(ALARM, alarm(silenceTime=60), "a") == [
        f"{ALARM} 'a': silenceTime is 60; allowed: 300 to 86400 [pulumi_alicloud cms/alarm.py "
        "AlarmArgs.silence_time]"
    ]
    assert run(ALARM, alarm(silenceTime=86400)) == []
    assert run(TCMQ, {"queueName": "jobs", "msgRetentionSeconds": 345600}, "q") == [
        f"{TCMQ} 'q': msgRetentionSeconds is 345600; allowed: 30 to 43200 "
        "[tencentcloud_iac_pulumi tcmq/queue.py QueueArgs.msg_retention_seconds]"
    ]
    assert run(TCMQ, {"queueName": "jobs", "msgRetentionSeconds": 43200}) == []
    sqs = run(SQS, {"visibilityTimeoutSeconds": 43201, "messageRetentionSeconds": 59}, "q")
    assert sqs == [
        f"{SQS} 'q': messageRetentionSeconds is 59; allowed: 60 to 1209600 "
        "[pulumi_aws sqs/queue.py QueueArgs.message_retention_seconds]",
        f"{SQS} 'q': visibilityTimeoutSeconds is 43201; allowed: 0 to 43200 "
        "[pulumi_aws sqs/queue.py QueueArgs.visibility_timeout_seconds]",
    ]
    assert run(SQS, {"visibilityTimeoutSeconds": 43200, "messageRetentionSeconds": 1209600}) == []


def test_an_open_range_says_at_least() -> None:
    props = {"comparisonOperator": "GreaterThanThreshold", "evaluationPeriods": 0}
    assert run(CW, props, "x") == [
        f"{CW} 'x': evaluationPeriods is 0; allowed: at least 1 "
        "[https://docs.aws.amazon.com/AmazonCloudWatch/latest/APIReference/API_PutMetricAlarm.html "
        "(EvaluationPeriods: minimum value of 1)]"
    ]


def test_length_and_pattern() -> None:
    base = {"scalingGroupId": "asg-1", "launchTime": "2030-01-01T00:00Z"}
    long_name = "gpufleet-cn-dev-cn-hangzhou-a10-dev-start"
    found = run(ESS_TASK, {**base, "scheduledTaskName": long_name}, "t")
    assert found == [
        f"{ESS_TASK} 't': scheduledTaskName is \"{long_name}\", 41 characters; allowed: 2 to 40 characters "
        "[pulumi_alicloud ess/scheduled_task.py ScheduledTaskArgs.scheduled_task_name ('must be 2-40 "
        "characters'); https://www.alibabacloud.com/help/en/auto-scaling/developer-reference/"
        "api-ess-2014-08-28-createscheduledtask (ScheduledTaskName)]"
    ]
    bad = run(ESS_TASK, {**base, "scheduledTaskName": "-stop"}, "t")
    assert len(bad) == 1
    assert bad[0].startswith(f"{ESS_TASK} 't': scheduledTaskName is \"-stop\"; allowed: letters, digits")
    assert run(ESS_TASK, {**base, "scheduledTaskName": "a10-dev-start"}) == []


def test_required_conflicts_exactly_one_and_required_with() -> None:
    assert run(ASG, {"minSize": 0, "launchTemplate": {"id": "lt-1"}}, "g", required=True) == [
        f"{ASG} 'g': maxSize is required and not set [pulumi_aws autoscaling/group.py "
        "GroupArgs.max_size (required)]"
    ]
    both = run(SQS, {"name": "a", "namePrefix": "b"}, "q")
    assert both == [
        f"{SQS} 'q': name and namePrefix cannot be set together; set one of them "
        "[pulumi_aws sqs/queue.py QueueArgs.name_prefix ('Conflicts with name')]"
    ]
    none = run(ASG, {"maxSize": 1, "minSize": 0}, "g")
    assert none == [
        f"{ASG} 'g': exactly one of launchConfiguration, launchTemplate, mixedInstancesPolicy must be set; "
        "none is set "
        "[https://docs.aws.amazon.com/autoscaling/ec2/APIReference/API_CreateAutoScalingGroup.html "
        "(one of LaunchConfigurationName, LaunchTemplate, InstanceId or MixedInstancesPolicy)]"
    ]
    assert run(ASG, {"maxSize": 1, "minSize": 0, "launchTemplate": {"id": "lt-1"}}) == []
    # An unknown launch template will be set: not "none is set".
    assert run(ASG, {"maxSize": 1, "minSize": 0, "launchTemplate": UNKNOWN_STRING}) == []
    partial = run(ESS_TASK, {"scalingGroupId": "asg-1", "recurrenceType": "Daily"}, "t")
    assert partial == [
        f"{ESS_TASK} 't': recurrenceType is set, so recurrenceValue, recurrenceEndTime must be set too "
        "[pulumi_alicloud ess/scheduled_task.py ScheduledTaskArgs.recurrence_type ('You must specify "
        "RecurrenceType, RecurrenceValue, and RecurrenceEndTime at the same time')]"
    ]


def test_nested_lists_name_the_concrete_path_and_every_refusal_is_reported() -> None:
    token = "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration"
    rules = [
        {"id": "a", "status": "Enabled", "transitions": [{"days": 30, "storageClass": "GLACIER"}]},
        {"id": "b", "status": "On", "transitions": [{"days": 1, "storageClass": "COLD"}]},
    ]
    found = run(token, {"bucket": "b", "rules": rules}, "lc")
    assert [f.split(" [")[0] for f in found] == [
        f'{token} \'lc\': rules[1].status is "On"; allowed: "Enabled", "Disabled"',
        f'{token} \'lc\': rules[1].transitions[0].storageClass is "COLD"; allowed: "GLACIER", "STANDARD_IA", '
        '"ONEZONE_IA", "INTELLIGENT_TIERING", "DEEP_ARCHIVE", "GLACIER_IR"',
    ]


def test_unknown_values_are_skipped_and_secrets_never_quoted() -> None:
    assert run(TCMQ, {"queueName": "q", "msgRetentionSeconds": UNKNOWN_STRING}) == []
    found = run(TCMQ, {"queueName": "q", "msgRetentionSeconds": make_secret(99999)}, "q")
    assert found == [
        f"{TCMQ} 'q': msgRetentionSeconds is [secret]; allowed: 30 to 43200 "
        "[tencentcloud_iac_pulumi tcmq/queue.py QueueArgs.msg_retention_seconds]"
    ]
    assert "99999" not in found[0]


def test_other_types_are_not_judged() -> None:
    assert run("aws:ec2/eip:Eip", {"domain": "nonsense"}) == []


def test_every_entry_has_a_source_and_a_known_kind() -> None:
    for token, entries in table().items():
        for entry in entries:
            assert entry["kind"] in (
                "enum",
                "range",
                "length",
                "pattern",
                "required",
                "conflicts",
                "exactlyOneOf",
                "requiredWith",
            ), (token, entry)
            assert entry.get("source"), (token, entry)


def test_the_committed_table_is_what_the_installed_sdks_give() -> None:
    # In a process of its own: importing every SDK module of the scope would change this one's.
    done = subprocess.run(
        [sys.executable, "-m", "gpufleet.policies.deploy.generate", "--check"],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_overrides_drop_only_generated_entries() -> None:
    data = json.loads((Path(generate.HERE) / "overrides.json").read_text(encoding="utf-8"))
    generated = json.loads(generate.OUTPUT.read_text(encoding="utf-8"))["constraints"]
    for drop in data["drop"]:
        assert drop["reason"]
        assert any(
            e["path"] == drop["path"] and e["kind"] == drop["kind"] for e in generated.get(drop["type"], [])
        ), drop


@pytest.mark.parametrize(
    ("doc", "kind", "expected"),
    [
        ("Valid values: `a`, `b`. Default value: `a`.", "str", ["a", "b"]),
        ("Default value: `c`. Valid values: `a`, `b`.", "str", None),  # the default is not among them
        ("Valid values include `a`, `b`.", "str", None),
        ("Valid values: `true`, `false`.", "bool", None),
    ],
)
def test_generator_enum_phrasings(doc: str, kind: str, expected: list[str] | None) -> None:
    assert generate.enum_of(doc, kind) == expected


@pytest.mark.parametrize(
    ("doc", "expected"),
    [
        ("Value range: [0, 86400].", (0, 86400)),
        ("Value range: 30-43,200 seconds (30 seconds to 12 hours).", (30, 43200)),
        ("An integer from 60 (1 minute) to 1209600 (14 days).", (60, 1209600)),
        ("Valid values: `1` to `64`.", (1, 64)),
        ("values must be either equal to 0 or between 86400 and 31536000 seconds.", None),
        ("Value range: 10,240-512,000 MB (if message rewind is enabled).", None),
        ("Value range: [1, 10]. Default value: 30.", None),
    ],
)
def test_generator_range_phrasings(doc: str, expected: tuple[int, int] | None) -> None:
    assert generate.range_of(doc, "int") == expected


def test_generator_length_phrasing() -> None:
    assert generate.length_of("The name must be `2` to `128` characters in length.", "str") == (2, 128)
    assert generate.length_of("The length of character is limited to 1-60.", "str") == (1, 60)
    assert generate.length_of("It can be up to 6144 bytes.", "str") is None


def test_problems_reads_plain_dicts() -> None:
    entry = {"path": "a[].b", "kind": "range", "min": 1, "max": 2, "source": "s"}
    assert list(problems({"a": [{"b": 1.0}, {"b": 3.0}]}, entry)) == ["a[1].b is 3; allowed: 1 to 2"]


def test_no_waiver_lowers_a_refusal() -> None:
    from pulumi_policy import ResourceValidationArgs

    from tests.policies.support import opts, urn_of

    urn = urn_of(TCMQ, "q")
    waiver = {"resource": urn, "reason": "r", "owner": "o", "expires": "2999-01-01"}
    args = ResourceValidationArgs(
        TCMQ,
        {"queueName": "q", "msgRetentionSeconds": 99999.0},
        urn,
        "q",
        opts(),
        None,
        {"waivers": [waiver]},
    )
    reported: list[str] = []
    waived: list[str] = []

    def report(message: str, urn: str | None = None) -> None:
        reported.append(message)

    report.waived = lambda message, urn, waiver: waived.append(message)  # type: ignore[attr-defined]
    POLICY.validate(args, report)
    assert waived == []
    assert [m.split(" [")[0] for m in reported] == [
        f"{TCMQ} 'q': msgRetentionSeconds is 99999; allowed: 30 to 43200"
    ]
    assert POLICY.config_schema is not None
    assert POLICY.config_schema.properties["waivable"]["enum"] == [False]

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from gpufleet.policies.audit.log_retention import POLICY, RULE

from .helpers import UNKNOWN_NUMBER_VALUE, res, run_stack


def run_resource(
    policy: object, resource_type: str, props: Mapping[str, object], name: str = "r", **kwargs: Any
) -> list[str] | str:
    """The messages the stack policy reports for a stack of this one resource (or `N/A: ...`)."""
    proxy = bool(kwargs.pop("proxy", False))
    resource = res(resource_type, name, props, proxy=proxy)
    found = run_stack(POLICY, [resource], **kwargs)
    if isinstance(found, str):
        return found
    assert all(urn == resource.urn for _, urn in found)
    return [message for message, _ in found]


LOG_GROUP = "aws:cloudwatch/logGroup:LogGroup"
EDS = "aws:cloudtrail/eventDataStore:EventDataStore"
ALI_STORE = "alicloud:log/store:Store"
TC_TOPIC = "tencentcloud:Cls/topic:Topic"


def test_metadata() -> None:
    assert RULE.id == "GF-AUD-002"
    assert RULE.defaults() == {"min_days": 180}
    assert POLICY.enforcement_level.value == "mandatory"


@pytest.mark.parametrize(
    ("resource_type", "props"),
    [
        (LOG_GROUP, {"name": "/gpufleet/ssm", "retentionInDays": 180}),
        (LOG_GROUP, {"name": "/gpufleet/ssm", "retentionInDays": 365.0}),
        (LOG_GROUP, {"name": "/gpufleet/ssm"}),  # unset: never expires
        (LOG_GROUP, {"name": "/gpufleet/ssm", "retentionInDays": 0}),
        (EDS, {"name": "lake"}),
        (EDS, {"name": "lake", "retentionPeriod": 365}),
        (ALI_STORE, {"projectName": "p", "logstoreName": "actiontrail_org", "retentionPeriod": 180}),
        (ALI_STORE, {"projectName": "p", "logstoreName": "s", "retentionPeriod": 3650}),
        (TC_TOPIC, {"topicName": "audit", "logsetId": "ls-1", "period": 3640}),
        (TC_TOPIC, {"topicName": "audit", "logsetId": "ls-1", "period": 180}),
    ],
)
def test_compliant(resource_type: str, props: dict[str, object]) -> None:
    assert run_resource(POLICY, resource_type, props, name="logs") == []


def test_aws_log_group_too_short() -> None:
    assert run_resource(POLICY, LOG_GROUP, {"retentionInDays": 30}, name="ssm") == [
        "CloudWatch log group 'ssm' keeps logs for 30 days (retentionInDays); keep them at least 180 days"
    ]


def test_event_data_store_too_short() -> None:
    assert run_resource(POLICY, EDS, {"retentionPeriod": 90}, name="lake") == [
        "CloudTrail event data store 'lake' keeps logs for 90 days (retentionPeriod); "
        "keep them at least 180 days"
    ]


def test_alibaba_store_default_is_30_days() -> None:
    assert run_resource(POLICY, ALI_STORE, {"projectName": "p", "logstoreName": "s"}, name="s") == [
        "SLS logstore 's' has no retentionPeriod, so it keeps logs for the provider default of 30 days; "
        "set retentionPeriod to at least 180 days"
    ]
    assert run_resource(POLICY, ALI_STORE, {"retentionPeriod": 90}, name="s") == [
        "SLS logstore 's' keeps logs for 90 days (retentionPeriod); keep them at least 180 days"
    ]


def test_tencent_topic_default_and_short() -> None:
    assert run_resource(POLICY, TC_TOPIC, {"topicName": "audit"}, name="t") == [
        "CLS topic 't' has no period, so it keeps logs for the log set's period, 30 days by default; "
        "set period to at least 180 days"
    ]
    assert run_resource(POLICY, TC_TOPIC, {"period": 7}, name="t") == [
        "CLS topic 't' keeps logs for 7 days (period); keep them at least 180 days"
    ]


def test_min_days_from_pack_config() -> None:
    props = {"retentionInDays": 180}
    assert run_resource(POLICY, LOG_GROUP, props, name="g", config={"min_days": 365}) == [
        "CloudWatch log group 'g' keeps logs for 180 days (retentionInDays); keep them at least 365 days"
    ]


def test_unknown_retention_is_not_a_pass() -> None:
    assert run_resource(POLICY, ALI_STORE, {"retentionPeriod": UNKNOWN_NUMBER_VALUE}, name="s") == [
        "could not be judged at preview: the number value at .retentionPeriod can't be known during preview"
    ]


def test_proxied_props() -> None:
    assert run_resource(POLICY, TC_TOPIC, {"period": 30}, name="t", proxy=True) == [
        "CLS topic 't' keeps logs for 30 days (period); keep them at least 180 days"
    ]
    assert run_resource(POLICY, TC_TOPIC, {"period": UNKNOWN_NUMBER_VALUE}, name="t", proxy=True) == [
        "could not be judged at preview: the number value at .period can't be known during preview"
    ]


def test_other_resources_are_not_applicable() -> None:
    reason = "N/A: the stack has no log group, log store, log topic or audit trail"
    assert run_resource(POLICY, "aws:s3/bucket:Bucket", {"bucket": "b"}) == reason
    assert run_resource(POLICY, "kubernetes:core/v1:ConfigMap", {"data": {}}) == reason

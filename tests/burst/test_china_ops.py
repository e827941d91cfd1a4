"""GF-OPS-001 on the Alibaba burst gate: a CloudMonitor alarm on GatedBacklog passes only when a RAM role
of the stack holds an attached policy allowing cms:PutCustomMetric (the exporter's publisher role);
otherwise it never fires, the order is not enforced, and the message says what still bursts the pool."""

from __future__ import annotations

import json
from typing import Any

from gpufleet.components.identity.alicloud_publisher import publish_policy
from gpufleet.policies.ops.scaling_metric_published import POLICY
from tests.policies.ops.helpers import res, run_stack

TARGET = "acs:ess:cn-hangzhou:1234567890:scalingGroupId/asg-bp1gpu:scalingRuleId/asr-bp1out"
GROUP = res(
    "alicloud:ess/scalingGroup:ScalingGroup", "pool", {"scalingGroupName": "pool", "id": "asg-bp1gpu"}
)
QUEUE = res("alicloud:message/serviceQueue:ServiceQueue", "jobs", {"queueName": "gf-hz-a10"})


def _alarm(name: str, project: str, metric: str, dimensions: list[dict[str, str]], times: int) -> Any:
    return res(
        "alicloud:cms/alarm:Alarm",
        name,
        {
            "project": project,
            "metric": metric,
            "metricDimensions": json.dumps(dimensions),
            "period": 300,
            "escalationsCritical": {"statistics": "Maximum", "threshold": "0", "times": times},
            "targets": [{"targetId": "1", "arn": TARGET}],
        },
    )


GATED = _alarm(
    "a10-queue-deep",
    "acs_customMetric_1234567890",
    "GatedBacklog",
    [{"Pool": "a10", "Site": "alicloud:cn-hangzhou"}],
    1,
)
FALLBACK = _alarm(
    "a10-queue-deep-fallback",
    "acs_mns_new",
    "ActiveMessages",
    [{"queue": "gf-hz-a10", "region": "cn-hangzhou"}],
    6,
)


def _publisher(document: str, *, attached: bool = True) -> list[Any]:
    role = res("alicloud:ram/role:Role", "publisher-role", {"roleName": "gf-burst-publisher"})
    policy = res(
        "alicloud:ram/policy:Policy",
        "publisher-policy",
        {"policyName": "gf-burst-publisher-publish", "policyDocument": document},
    )
    if not attached:
        return [role, policy]
    attach = res(
        "alicloud:ram/rolePolicyAttachment:RolePolicyAttachment",
        "publisher-attach",
        {
            "roleName": "gf-burst-publisher",
            "policyName": "gf-burst-publisher-publish",
            "policyType": "Custom",
        },
        prop_deps={"roleName": [role], "policyName": [policy]},
    )
    return [role, policy, attach]


def _messages(*resources: Any, config: dict[str, Any] | None = None) -> list[str]:
    return [message for message, _ in run_stack(POLICY, [GROUP, QUEUE, *resources], config)]


def _unpublished(still: str) -> str:
    return (
        "CloudMonitor alarm 'a10-queue-deep' scales out on the burst gate GatedBacklog, which no RAM role "
        "of the stack may publish (no role has an attached policy allowing cms:PutCustomMetric): the alarm "
        f"never fires and the burst order is not enforced; {still}. Build the exporter's publisher role "
        "(burst.publishers.alicloud), or list 'GatedBacklog' in published_namespaces if it is published "
        "outside the stack"
    )


def test_the_gate_with_its_publisher_role_passes() -> None:
    assert _messages(GATED, FALLBACK, *_publisher(publish_policy([("cn-hangzhou", "gf-hz-a10")]))) == []


def test_without_a_publisher_the_fallback_still_bursts_the_pool() -> None:
    assert _messages(GATED, FALLBACK) == [
        _unpublished(
            "the pool still scales out on its raw queue through 'a10-queue-deep-fallback' after 1800s of "
            "backlog, regardless of the sites ahead"
        )
    ]


def test_without_a_publisher_or_a_fallback_a_backlog_never_bursts() -> None:
    assert _messages(GATED) == [
        _unpublished("no other alarm scales the pool out on its queue, so a backlog never bursts it")
    ]


def test_a_policy_attached_to_no_role_publishes_nothing() -> None:
    # The generic custom-metric check accepts any RAM policy allowing the action; the gate needs its role.
    unattached = _publisher(publish_policy([]), attached=False)
    assert _messages(GATED, FALLBACK, *unattached) == [
        _unpublished(
            "the pool still scales out on its raw queue through 'a10-queue-deep-fallback' after 1800s of "
            "backlog, regardless of the sites ahead"
        )
    ]


def test_a_role_whose_policy_does_not_allow_the_put_is_not_the_publisher() -> None:
    read_only = json.dumps(
        {
            "Version": "1",
            "Statement": [{"Effect": "Allow", "Action": ["mns:GetQueueAttributes"], "Resource": ["*"]}],
        }
    )
    assert len(_messages(GATED, FALLBACK, *_publisher(read_only))) == 1


def test_a_gate_published_outside_the_stack_can_be_listed() -> None:
    assert _messages(GATED, FALLBACK, config={"published_namespaces": ["GatedBacklog"]}) == []

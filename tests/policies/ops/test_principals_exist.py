"""GF-OPS-002: resource policies name principals that exist when the policy is set."""

from __future__ import annotations

import json
from typing import Any

import pytest

from gpufleet.policies.ops.principals_exist import POLICY, RULE

from .helpers import ACCOUNT, UNKNOWN_STRING_VALUE, NotApplicable, res, run_stack

KEY = "aws:kms/key:Key"
SLR = "aws:iam/serviceLinkedRole:ServiceLinkedRole"
ROLE = "aws:iam/role:Role"
TOPIC_POLICY = "aws:sns/topicPolicy:TopicPolicy"
AUTOSCALING_SLR = (
    f"arn:aws:iam::{ACCOUNT}:role/aws-service-role/autoscaling.amazonaws.com/AWSServiceRoleForAutoScaling"
)


def key_policy(*principals: Any) -> str:
    statements = [
        {
            "Sid": "Root",
            "Effect": "Allow",
            "Principal": {"AWS": f"arn:aws:iam::{ACCOUNT}:root"},
            "Action": "kms:*",
        },
        {
            "Sid": "Logs",
            "Effect": "Allow",
            "Principal": {"Service": "logs.amazonaws.com"},
            "Action": "kms:Decrypt",
        },
    ]
    for principal in principals:
        statements.append({"Effect": "Allow", "Principal": {"AWS": principal}, "Action": ["kms:Decrypt"]})
    return json.dumps({"Version": "2012-10-17", "Statement": statements})


def fleet(*, with_role: bool = True, depends: bool = True) -> list[Any]:
    """A key whose policy names the Auto Scaling service-linked role, created and waited for."""
    role = res(SLR, "autoscaling-slr", {"awsServiceName": "autoscaling.amazonaws.com"})
    key = res(KEY, "fleet-key", {"policy": key_policy(AUTOSCALING_SLR)}, deps=[role] if depends else [])
    return [role, key] if with_role else [key]


def test_metadata() -> None:
    assert (RULE.id, POLICY.name, RULE.clouds) == ("GF-OPS-002", "policy-principals-exist", ("aws",))
    assert RULE.defaults() == {"existing_principals": []}


def test_service_linked_role_created_and_waited_for_passes() -> None:
    assert run_stack(POLICY, fleet()) == []


def test_service_linked_role_missing_from_the_stack() -> None:
    [key] = fleet(with_role=False)
    assert run_stack(POLICY, [key]) == [
        (
            "key 'fleet-key' names the service-linked role AWSServiceRoleForAutoScaling, which a fresh "
            "account does not have until autoscaling.amazonaws.com first creates it, so the policy is "
            "rejected as malformed; create "
            "aws.iam.ServiceLinkedRole(aws_service_name='autoscaling.amazonaws.com') in the stack and make "
            f"'fleet-key' depend on it, or list {AUTOSCALING_SLR} in existing_principals",
            key.urn,
        )
    ]


def test_service_linked_role_created_but_not_waited_for() -> None:
    role, key = fleet(depends=False)
    assert run_stack(POLICY, [role, key]) == [
        (
            "key 'fleet-key' names the service-linked role AWSServiceRoleForAutoScaling but does not depend "
            "on 'autoscaling-slr', which creates it, so the policy may be set before the role exists; add "
            "depends_on=[autoscaling-slr]",
            key.urn,
        )
    ]


def test_depending_on_the_component_that_holds_the_role_is_waiting_for_it() -> None:
    component = res("gpufleet:keys:Baseline", "baseline", {})
    role, key = fleet(depends=False)
    role.parent = component
    key.dependencies = [component]
    assert run_stack(POLICY, [component, role, key]) == []


def test_a_role_of_another_service_does_not_count() -> None:
    role = res(SLR, "spot-slr", {"awsServiceName": "spot.amazonaws.com"})
    key = res(KEY, "fleet-key", {"policy": key_policy(AUTOSCALING_SLR)}, deps=[role])
    assert len(run_stack(POLICY, [role, key])) == 1


def test_existing_principals_config() -> None:
    [key] = fleet(with_role=False)
    assert run_stack(POLICY, [key], {"existing_principals": [AUTOSCALING_SLR]}) == []
    assert run_stack(POLICY, [key], {"existing_principals": ["AWSServiceRoleForAutoScaling"]}) == []


def test_role_by_arn_must_be_created_in_the_stack() -> None:
    arn = f"arn:aws:iam::{ACCOUNT}:role/data-science"
    topic = res(
        TOPIC_POLICY,
        "alerts-policy",
        {
            "policy": json.dumps(
                {"Statement": [{"Effect": "Allow", "Principal": {"AWS": [arn]}, "Action": "sns:Publish"}]}
            )
        },
    )
    assert run_stack(POLICY, [topic]) == [
        (
            f"topic policy 'alerts-policy' names the role {arn}, which this stack does not create, so the "
            "policy is rejected on an account where it does not exist yet; create the role in the stack "
            "and refer to its arn, or list it in existing_principals",
            topic.urn,
        )
    ]
    created = res(ROLE, "data-science", {"name": "data-science"})
    assert run_stack(POLICY, [created, topic]) == []


@pytest.mark.parametrize(
    "principal",
    [f"arn:aws:iam::{ACCOUNT}:root", ACCOUNT, "*", UNKNOWN_STRING_VALUE],
    ids=["account-root", "account-id", "anyone", "unknown-reference"],
)
def test_principals_that_always_exist(principal: str) -> None:
    assert run_stack(POLICY, [res(KEY, "k", {"policy": key_policy(principal)})]) == []


def test_unknown_actions_do_not_stop_the_principal_check() -> None:
    document = json.loads(key_policy(AUTOSCALING_SLR))
    document["Statement"][2]["Action"] = [UNKNOWN_STRING_VALUE]
    key = res(KEY, "fleet-key", {"policy": json.dumps(document)})
    assert next(m for m, _ in run_stack(POLICY, [key])).startswith(
        "key 'fleet-key' names the service-linked role AWSServiceRoleForAutoScaling, which a fresh account"
    )


def test_unknown_document_is_not_judged() -> None:
    key = res(KEY, "fleet-key", {"policy": UNKNOWN_STRING_VALUE})
    assert run_stack(POLICY, [key]) == [
        ("could not be judged at preview: the string value at .policy can't be known during preview", key.urn)
    ]


def test_a_stack_without_resource_policies_is_not_applicable() -> None:
    with pytest.raises(NotApplicable, match="the stack sets no key, bucket, topic or queue policy"):
        run_stack(POLICY, [res(ROLE, "r", {})])

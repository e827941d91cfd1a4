"""Tencent CAM spellings found on raw-SDK programs: `name/`-prefixed actions and the anyone principal."""

from __future__ import annotations

import json

from policies.documents import action_matches
from policies.iam import no_unscoped_writes, trust_specific_principals

from .helpers import check

TC_POLICY = "tencentcloud:Cam/policy:Policy"
TC_ROLE = "tencentcloud:Cam/role:Role"


def test_name_prefix_is_the_same_action() -> None:
    assert action_matches("name/cvm:TerminateInstances", "cvm:TerminateInstances")
    assert action_matches("name/cos:Put*", "cos:PutObject")
    assert action_matches("cvm:TerminateInstances", "name/cvm:TerminateInstances")
    assert not action_matches("name/cvm:RunInstances", "cvm:TerminateInstances")


def test_name_prefixed_write_on_any_resource_fails() -> None:
    def document(resource: str) -> str:
        statement = {"effect": "allow", "action": ["name/cvm:TerminateInstances"], "resource": [resource]}
        return json.dumps({"version": "2.0", "statement": [statement]})

    assert check(no_unscoped_writes.POLICY, TC_POLICY, {"document": document("*")}, "ops") == [
        "CAM policy 'ops' document statement 1 allows cvm:TerminateInstances on Resource '*'; these actions "
        "accept resource-level scoping: name the resources"
    ]
    # Every instance of the region is every resource the action acts on.
    every = document("qcs::cvm:ap-guangzhou::instance/*")
    assert check(no_unscoped_writes.POLICY, TC_POLICY, {"document": every}, "ops") == [
        "CAM policy 'ops' document statement 1 allows cvm:TerminateInstances on Resource "
        "'qcs::cvm:ap-guangzhou::instance/*'; these actions accept resource-level scoping: name the resources"
    ]
    scoped = document("qcs::cvm:ap-guangzhou::instance/ins-1a2b3c4d")
    assert check(no_unscoped_writes.POLICY, TC_POLICY, {"document": scoped}, "ops") == []


def test_trust_in_cam_anyone_fails() -> None:
    for anyone in ("qcs::cam::anyone:anyone", "qcs::cam::anyone"):
        document = {
            "version": "2.0",
            "statement": [
                {"action": ["name/sts:AssumeRole"], "effect": "allow", "principal": {"qcs": [anyone]}}
            ],
        }
        assert check(
            trust_specific_principals.POLICY, TC_ROLE, {"document": json.dumps(document)}, "gpu"
        ) == [
            f"CAM role 'gpu' trust policy statement 1 trusts any principal (qcs: {anyone!r}) without a "
            "restricting condition; name specific accounts, roles or services"
        ]


def test_trust_in_a_named_account_passes() -> None:
    document = {
        "version": "2.0",
        "statement": [
            {
                "action": ["name/sts:AssumeRole"],
                "effect": "allow",
                "principal": {"qcs": ["qcs::cam::uin/100000000001:root"]},
            }
        ],
    }
    assert check(trust_specific_principals.POLICY, TC_ROLE, {"document": json.dumps(document)}, "gpu") == []

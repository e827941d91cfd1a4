"""Alibaba Cloud RAM (`ali_ram/`) and Tencent Cloud CAM (`tc_cam/`) written with the raw SDKs: a
compliant program each and one broken meaning per variant."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest

from gpufleet.evaluate import evaluate_stack
from gpufleet.graph import UNKNOWN_STRING
from gpufleet.policies.registry import default_registry
from tests.realworld.aws.harness import Outcome, run_variant, with_input

HERE = Path(__file__).resolve().parent
ALI = HERE / "ali_ram"
TC = HERE / "tc_cam"
# Audit trails live in the account stacks: advisory in every variant.
ALWAYS = {"GF-AUD-001"}
# Alibaba Cloud has no budget resource: the stack's budget is declared in the pack's config.
CONFIG = {"stack-has-budget-alert": {"budgets": {"monthly": 20000, "currency": "CNY"}}}


@cache
def outcome(project: Path, variant: str = "none") -> Outcome:
    graph = run_variant(project, variant)
    return Outcome(graph, evaluate_stack(graph, list(default_registry()), CONFIG))


# (program, variant) -> (rule ids, resource named, words in the message)
VARIANTS: dict[tuple[str, str], tuple[set[str], str, str]] = {
    ("ali", "trust-any"): ({"GF-IAM-004"}, "gpu-node", "trusts any principal (RAM: '*')"),
    ("ali", "wildcard-action"): (
        {"GF-IAM-001"},
        "ckpt-rw",
        "policyDocument statement 1 allows wildcard action 'oss:*'",
    ),
    ("ali", "unscoped-write"): ({"GF-IAM-002"}, "ckpt-rw", "allows oss:PutObject on Resource '*'"),
    # ecs:* on every instance is also every instance write on every instance.
    ("ali", "legacy-statements"): (
        {"GF-IAM-001", "GF-IAM-002"},
        "ckpt-rw",
        "statements statement 1 allows wildcard action 'ecs:*'",
    ),
    ("ali", "every-bucket-arn"): (
        {"GF-IAM-002"},
        "ckpt-rw",
        "allows oss:PutObject on Resource 'acs:oss:*:*:*/*'",
    ),
    ("ali", "system-full-access"): (
        {"GF-IAM-003"},
        "gpu-node-readonly",
        "broad managed policy 'AliyunOSSFullAccess'",
    ),
    ("ali", "access-key"): ({"GF-IAM-005"}, "operator-key", "creates a long-lived access key for 'operator'"),
    ("tc", "trust-anyone"): (
        {"GF-IAM-004"},
        "gpu-node",
        "trusts any principal (qcs: 'qcs::cam::anyone:anyone')",
    ),
    ("tc", "trust-anyone-any-uin"): (
        {"GF-IAM-004"},
        "gpu-node",
        "trusts any principal (qcs: 'qcs::cam::anyone:anyone') without a restricting condition (string_like "
        "qcs:uin '*' names no one account or organisation)",
    ),
    ("tc", "wildcard-action"): ({"GF-IAM-001"}, "ckpt-rw", "allows wildcard action 'name/cos:*'"),
    ("tc", "unscoped-write"): ({"GF-IAM-002"}, "ckpt-rw", "allows cos:PutObject on Resource '*'"),
    ("tc", "every-bucket-arn"): (
        {"GF-IAM-002"},
        "ckpt-rw",
        "allows cos:PutObject on Resource 'qcs::cos:ap-guangzhou:uid/1250000000:*'",
    ),
    ("tc", "preset-full-access"): (
        {"GF-IAM-003"},
        "gpu-node-preset",
        "broad managed policy 'QcloudCOSFullAccess'",
    ),
    ("tc", "access-key"): (
        {"GF-IAM-005"},
        "operator-key",
        "creates a long-lived access key for 100037718101;",
    ),
}
PROGRAMS = {"ali": ALI, "tc": TC}


@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_compliant_program_has_only_the_audit_trail_advice(program: str) -> None:
    found = outcome(PROGRAMS[program])
    assert found.mandatory() == [], found.summary()
    assert found.ids() == ALWAYS, found.summary()


@pytest.mark.parametrize("key", sorted(VARIANTS))
def test_each_break_is_reported_by_its_rule(key: tuple[str, str]) -> None:
    rule_ids, resource, words = VARIANTS[key]
    found = outcome(PROGRAMS[key[0]], key[1])
    assert found.ids() == rule_ids | ALWAYS, found.summary()
    for rule_id in rule_ids:
        assert all(
            v.urn.endswith(f"::{resource}") and f"'{resource}'" in v.message for v in found.of(rule_id)
        )
    assert any(words in v.message for rule_id in rule_ids for v in found.of(rule_id)), found.summary()


def test_unknown_role_and_policy_names_keep_the_programs_compliant() -> None:
    ali = with_input(
        run_variant(ALI),
        "gpu-node-ckpt",
        "alicloud:ram/rolePolicyAttachment:RolePolicyAttachment",
        "policyName",
        UNKNOWN_STRING,
    )
    tc = with_input(
        run_variant(TC),
        "gpu-node-ckpt",
        "tencentcloud:Cam/rolePolicyAttachmentByName:RolePolicyAttachmentByName",
        "roleName",
        UNKNOWN_STRING,
    )
    for graph in (ali, tc):
        assert evaluate_stack(graph, list(default_registry()), CONFIG).mandatory_violations == []


def test_unknown_policy_type_is_not_judged_rather_than_passed() -> None:
    graph = with_input(
        run_variant(ALI, "system-full-access"),
        "gpu-node-readonly",
        "alicloud:ram/rolePolicyAttachment:RolePolicyAttachment",
        "policyType",
        UNKNOWN_STRING,
    )
    result = evaluate_stack(graph, list(default_registry()), CONFIG)
    found = [v for v in result.violations if v.rule_id == "GF-IAM-003"]
    assert len(found) == 1 and "could not be judged at preview" in found[0].message, found

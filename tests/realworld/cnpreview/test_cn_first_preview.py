"""The Alibaba Cloud and Tencent Cloud real-world programs at their first `pulumi preview`.

Each compliant program must raise nothing mandatory when the ids, ARNs and computed names of the
resources it creates are unknown, and must say "could not be judged" exactly where a decisive value
(a bucket or RAM/CAM policy document built from an unknown id) is unknown. Each is replayed twice
(see tests/realworld/preview.py): as the program is written (a bucket's or role's given name is
known), and strictly (every reference to a name-valued id unknown too, as `bucket=oss_bucket.id`).
Variants whose mistake is a known setting must still fail at preview although their references
are unknown.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from gpufleet.engine import run_program
from gpufleet.evaluate import StackResult, evaluate_stack
from gpufleet.graph import ResourceGraph
from gpufleet.policies.registry import default_registry
from tests.project_policy import judged
from tests.realworld.preview import first_preview, unknown_inputs

REALWORLD = Path(__file__).resolve().parent.parent
ALI_BUDGET = {"stack-has-budget-alert": {"budgets": {"monthly": 20000, "currency": "CNY"}}}


# program -> (project dir, stack, config key that selects a mistake, pack config)
PROGRAMS: dict[str, tuple[Path, str, str, Mapping[str, Any] | None]] = {
    "ali-gpu": (REALWORLD / "alicloud" / "gpu_stack", "dev", "break", ALI_BUDGET),
    "tc-gpu": (REALWORLD / "tencentcloud" / "gpu_stack", "dev", "break", ALI_BUDGET),
    "ali-web": (REALWORLD / "ordinary" / "alicloud_web", "prod", "break", ALI_BUDGET),
    "tc-web": (REALWORLD / "ordinary" / "tencentcloud_web", "prod", "break", None),
    "storage-mix": (
        REALWORLD / "storage" / "mixed",
        "dev",
        "storage-mix:break",
        {"GF-COST-002": {"budgets": {"monthly": 2000, "currency": "CNY"}}},
    ),
    "ali-ram": (REALWORLD / "iam" / "ali_ram", "dev", "ali-ram:break", ALI_BUDGET),
    "tc-cam": (REALWORLD / "iam" / "tc_cam", "dev", "tc-cam:break", ALI_BUDGET),
    "cn-fleet": (
        REALWORLD / "netaccess" / "cn_fleet",
        "prod",
        "cn-inference:break",
        {"stack-has-budget-alert": {"budgets": {"monthly": 50000, "currency": "CNY"}}},
    ),
}

Found = list[tuple[str, str]]

# Advice the compliant programs get whatever the phase: these stacks declare no audit trail of
# their own (the account stacks do), which GF-AUD-001 reports as advisory for each cloud they use.
ALWAYS: dict[str, Found] = {
    # The OSS bucket encrypted with an EXTERNAL key waits for its imported material (GF-OPS-005).
    "ali-gpu": [("GF-OPS-005", "datasets")],
    "tc-gpu": [],
    "ali-web": [],
    "tc-web": [],
    "storage-mix": [("GF-AUD-001", ""), ("GF-AUD-001", ""), ("GF-AUD-001", "")],
    "ali-ram": [("GF-AUD-001", "")],
    "tc-cam": [("GF-AUD-001", "")],
    "cn-fleet": [("GF-AUD-001", ""), ("GF-AUD-001", "")],
}

# "could not be judged" at a first preview, as the programs are written.
UNJUDGED: dict[str, Found] = {
    # `datasets-tls` is `Output.all(datasets.bucket, byok_key.id).apply(...)`: the new BYOK key's id is
    # unknown, so the whole TLS-only bucket policy is (the HTTPS config and the block are known and
    # pass; with the block on, GF-STOR-003 does not need the policy).
    # The node policy names the program's two new keys (`key/<id>`, not every key of the region), so
    # it is unknown as a whole too.
    "ali-gpu": [
        ("GF-IAM-001", "gpu-node-policy"),
        ("GF-IAM-002", "gpu-node-policy"),
        ("GF-STOR-004", "datasets"),
    ],
    # The same document on COS, where no public-access block exists: both rules need the policy.
    "tc-gpu": [("GF-STOR-003", "datasets"), ("GF-STOR-004", "datasets")],
    # Bucket names given as literals: every document is known.
    "ali-web": [],
    "tc-web": [],
    # The S3 bucket is named by `bucket_prefix` (the name is chosen at create) and its policy built
    # from `ckpt.arn`: neither its TLS deny nor its principals can be read.
    "storage-mix": [("GF-OPS-002", "ckpt"), ("GF-STOR-004", "ckpt")],
    # Documents written as literals; only attachments reference new resources.
    "ali-ram": [],
    "tc-cam": [],
    # Only ids of networks, groups and gateways are unknown; no rule needs their value.
    "cn-fleet": [],
}

# Added when a reference to a name-valued id is unknown too: the documents built from the buckets'
# names (`checkpoints.bucket`, `oss_ckpt.id`) are then unknown as a whole.
STRICT_EXTRA: dict[str, Found] = {
    "ali-gpu": [("GF-STOR-004", "checkpoints")],
    "tc-gpu": [
        ("GF-IAM-001", "gpu-node-policy"),
        ("GF-IAM-002", "gpu-node-policy"),
        ("GF-STOR-003", "checkpoints"),
        ("GF-STOR-004", "checkpoints"),
    ],
    "ali-web": [],
    "tc-web": [],
    "storage-mix": [("GF-STOR-003", "cos-ckpt"), ("GF-STOR-004", "cos-ckpt"), ("GF-STOR-004", "oss-ckpt")],
    "ali-ram": [],
    "tc-cam": [],
    "cn-fleet": [],
}


@cache
def graph_of(program: str, variant: str = "") -> ResourceGraph:
    project, stack, key, _ = PROGRAMS[program]
    return run_program(project, stack, config_overrides={key: variant} if variant else None)


@cache
def preview_of(program: str, variant: str = "", strict: bool = False) -> StackResult:
    graph = first_preview(graph_of(program, variant), strict=strict)
    return evaluate_stack(graph, list(default_registry()), PROGRAMS[program][3])


def name(urn: str) -> str:
    return urn.rsplit("::", 1)[-1] if urn else ""


def advice(result: StackResult) -> tuple[Found, Found]:
    """(not judged at preview, other advice), each as sorted (rule id, resource name)."""
    unjudged = sorted(
        (f.rule_id, name(f.urn)) for f in result.violations if "could not be judged at preview" in f.message
    )
    other = sorted(
        (f.rule_id, name(f.urn))
        for f in judged(result.violations)
        if f.enforcement == "advisory" and "could not be judged at preview" not in f.message
    )
    return unjudged, other


@pytest.mark.parametrize("strict", [False, True], ids=["as-written", "strict"])
@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_compliant_program_at_first_preview(program: str, strict: bool) -> None:
    result = preview_of(program, strict=strict)
    assert [(f.rule_id, name(f.urn), f.message) for f in result.mandatory_violations] == []
    unjudged, other = advice(result)
    expected = UNJUDGED[program] + (STRICT_EXTRA[program] if strict else [])
    assert unjudged == sorted(expected), [f.message for f in result.violations]
    assert other == ALWAYS[program]


def test_unjudged_message_names_the_bucket_and_the_unknown_document() -> None:
    [finding] = [f for f in preview_of("tc-gpu").violations if f.rule_id == "GF-STOR-004"]
    assert finding.enforcement == "advisory"
    assert name(finding.urn) == "datasets"
    assert finding.message.endswith(
        "'datasets' could not be judged at preview: the string value at .policy can't be known during preview"
    )


def test_what_a_first_preview_does_not_know_on_alibaba_cloud() -> None:
    unknown = unknown_inputs(first_preview(graph_of("ali-gpu")))
    assert unknown["gpu-private-a"] == ["vpcId"]  # vpc-...
    assert unknown["allow-nccl-from-onprem"] == ["securityGroupId"]  # sg-...
    assert unknown["checkpoints-sse"] == ["kmsMasterKeyId"]  # KMS key id
    assert unknown["datasets"] == ["serverSideEncryptionRule.kmsMasterKeyId"]
    assert unknown["vision-trail"] == ["slsWriteRoleArn"]  # acs:ram::...:role/...
    assert unknown["gpu-pool-config"] == [
        "dataDisks.0.kmsKeyId",
        "scalingGroupId",
        "securityGroupIds.0",
        "systemDiskKmsKeyId",
    ]
    # Given names stay known: the role and the policy it attaches, the bucket every resource names.
    assert "gpu-node-policy-attach" not in unknown and "checkpoints-pab" not in unknown
    strict = unknown_inputs(first_preview(graph_of("ali-gpu"), strict=True))
    assert strict["gpu-node-policy-attach"] == ["policyName", "roleName"]
    assert strict["checkpoints-pab"] == ["bucket"]


def test_what_a_first_preview_does_not_know_on_tencent_cloud() -> None:
    unknown = unknown_inputs(first_preview(graph_of("tc-gpu")))
    assert unknown["gpu-sg-rules"] == ["securityGroupId"]
    assert unknown["checkpoints"] == ["kmsId"]
    assert unknown["gpu-node-policy-attach"] == ["policyId", "roleId"]  # CAM ids are numbers
    assert unknown["gpu-pool"] == ["configurationId", "subnetIds.0", "vpcId"]
    assert unknown["vision-track"] == ["storage.storageName"]  # the CLS topic id
    assert "gpu-launch" in unknown and "camRoleName" not in unknown["gpu-launch"]


# (program, variant) -> (rule id, resource): the mistake is a known setting next to unknown references,
# so a strict first preview must still fail it.
CAUGHT_AT_PREVIEW: dict[tuple[str, str], tuple[str, str]] = {
    ("ali-gpu", "oss_public_read"): ("GF-STOR-003", "checkpoints"),
    ("ali-gpu", "tls11"): ("GF-STOR-004", "checkpoints"),
    ("ali-gpu", "admin_policy"): ("GF-IAM-003", "gpu-node-admin"),
    ("ali-gpu", "disk_unencrypted"): ("GF-STOR-008", "gpu-pool-config"),
    ("ali-gpu", "no_session_manager"): ("GF-ACC-003", "gpu-pool"),
    ("tc-gpu", "cos_public_read"): ("GF-STOR-003", "checkpoints"),
    ("tc-gpu", "admin_policy"): ("GF-IAM-003", "gpu-node-cos-full"),
    ("tc-gpu", "public_ip"): ("GF-ACC-005", "gpu-launch"),
    ("storage-mix", "oss-no-pab"): ("GF-STOR-003", "oss-ckpt"),
    ("storage-mix", "cos-public"): ("GF-STOR-003", "cos-ckpt"),
    ("cn-fleet", "ali-key"): ("GF-ACC-002", "ali-gpu-vm"),
}


@pytest.mark.parametrize("case", sorted(CAUGHT_AT_PREVIEW), ids="/".join)
def test_known_mistake_still_fails_at_strict_first_preview(case: tuple[str, str]) -> None:
    program, variant = case
    rule_id, resource = CAUGHT_AT_PREVIEW[case]
    result = preview_of(program, variant, strict=True)
    mandatory = [(f.rule_id, name(f.urn)) for f in result.mandatory_violations]
    assert mandatory == [(rule_id, resource)], [f.message for f in result.violations]

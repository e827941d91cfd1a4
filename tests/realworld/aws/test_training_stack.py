"""A raw-SDK GPU training stack (VPC, SG rules, KMS, v7 S3 bucket with separate configuration
resources, IAM, launch template + mixed-instances ASG + step scaling + alarms + schedules, budget,
CloudTrail, log groups, Session Manager preferences), compliant and broken one rule at a time."""

from __future__ import annotations

from pathlib import Path

import pytest

from gpufleet.graph import UNKNOWN_STRING

from .harness import as_preview, judge, outcome, run_variant, with_input

PROGRAM = Path(__file__).resolve().parent / "training_stack"

LT = "aws:ec2/launchTemplate:LaunchTemplate"
ASG = "aws:autoscaling/group:Group"
SUBNET = "aws:ec2/subnet:Subnet"

# variant -> (every rule id reported, resource the finding names, words the message must contain)
VARIANTS: dict[str, tuple[set[str], str, str]] = {
    "sg-all-tcp-world": (
        {"GF-ACC-001"},
        "debug",
        "allows SSH (TCP 22) and RDP (3389) ingress from 0.0.0.0/0",
    ),
    "sg-ssh-ipv6": ({"GF-ACC-001"}, "ssh-v6", "SSH (TCP 22) ingress from ::/0"),
    "sg-all-protocols": ({"GF-ACC-001"}, "anything", "from 0.0.0.0/0"),
    "sg-inline-rdp": ({"GF-ACC-001"}, "gpu-nodes", "RDP (3389) ingress from 0.0.0.0/0 (ingress rule 1)"),
    "sg-port-range": ({"GF-ACC-001"}, "ftp-to-smtp", "SSH (TCP 22) ingress from 0.0.0.0/0"),
    "kms-wildcard-principal": ({"GF-KMS-002"}, "checkpoints", "allows kms:* to any principal"),
    "kms-no-rotation": ({"GF-KMS-001"}, "checkpoints", "does not rotate"),
    "bucket-aes256": ({"GF-STOR-001"}, "checkpoints", "S3 bucket 'checkpoints' is encrypted with AES256"),
    "bucket-public": ({"GF-STOR-003"}, "checkpoints", "restrictPublicBuckets not true"),
    "tls-deny-getobject-only": ({"GF-STOR-004"}, "checkpoints", "accepts requests without TLS"),
    "lifecycle-too-long": ({"GF-STOR-005"}, "checkpoints", "expires objects after 60 days"),
    "lifecycle-disabled": ({"GF-STOR-005", "GF-STOR-007"}, "checkpoints", "lifecycle has no expiration"),
    # S3 refuses the move itself, so the deploy check reports it beside the cost rule.
    "lifecycle-ia-7": (
        {"GF-STOR-006", "GF-DEPLOY-003"},
        "checkpoints",
        "S3 rejects STANDARD_IA before 30 days",
    ),
    "versioning-suspended": ({"GF-STOR-007"}, "checkpoints", "is not versioned"),
    "trust-star": ({"GF-IAM-004"}, "gpu-node", "trusts any principal ('*')"),
    "admin-attached": ({"GF-IAM-003"}, "gpu-node-admin", "broad managed policy 'AdministratorAccess'"),
    "iam-s3-star": ({"GF-IAM-001"}, "gpu-node-checkpoints", "allows wildcard action 's3:*'"),
    # NotAction grants everything but IAM: wildcard, unscoped writes and sts:AssumeRole at once.
    "inline-notaction": (
        {"GF-IAM-001", "GF-IAM-002", "GF-IAM-006"},
        "gpu-node",
        "inline policy 'ecr-pull' statement 1 allows every action except 'iam:*'",
    ),
    # iam:PassRole on * is both an unscoped write and a privilege escalation.
    "passrole-star": ({"GF-IAM-002", "GF-IAM-006"}, "gpu-metrics", "iam:PassRole on '*'"),
    "access-key": ({"GF-IAM-005"}, "ci", "creates a long-lived access key"),
    "lt-key-pair": ({"GF-ACC-002"}, "gpu", "has SSH key pair 'ops-key'"),
    "no-ssm": ({"GF-ACC-003"}, "gpu-burst", "does not grant Session Manager access"),
    "imds-optional": ({"GF-ACC-004"}, "gpu", "allows IMDSv1"),
    "hop-limit-3": ({"GF-ACC-004"}, "gpu", "metadata hop limit 3"),
    "lt-public-ip": ({"GF-ACC-005"}, "gpu", "gets a public IP"),
    "gpu-in-public-subnet": (
        {"GF-ACC-005", "GF-NET-003"},
        "gpu-burst",
        "launches into subnet 'public-a', which gives every instance a public IP",
    ),
    # Without public IPs the instances in the public subnet have no way out either: the CloudWatch agent
    # cannot reach ec2 for the tags it appends, so the scaling alarms never see data (GF-OPS-001).
    "gpu-public-subnet": (
        {"GF-NET-003", "GF-OPS-001"},
        "gpu-burst",
        "route table 'public' has an inline route",
    ),
    "lt-unencrypted": ({"GF-STOR-008"}, "gpu", "unencrypted volume /dev/xvda"),
    "gp2": ({"GF-COST-009"}, "gpu", "legacy volume type gp2"),
    "half-on-demand": ({"GF-COST-004"}, "gpu-burst", "runs 50% of its capacity on spot"),
    # An A100 pool at max size also breaks the dev hourly cap.
    "a100-in-dev": ({"GF-COST-003", "GF-COST-007"}, "gpu-burst", "uses p4d.24xlarge (A100)"),
    "thresholds-inverted": ({"GF-COST-006"}, "gpu-burst", "scales out at 70 but in at 80"),
    # A step policy takes no cooldown: the scale-in rule, not the sanity rule, names it.
    "step-scale-in": ({"GF-OPS-003"}, "gpu-scale-in", "'gpu-scale-in' scales in by 1 and is fired by alarm"),
    "no-schedule-no-idle": ({"GF-COST-005"}, "gpu-burst", "no off-hours schedule to zero and no scale-in"),
    # The night schedule alone, restarting the pool every morning: the weekends stay on.
    "no-idle-weekends-on": ({"GF-COST-005"}, "gpu-burst", "is scaled to zero at night only"),
    "no-budget": ({"GF-COST-002"}, "", "no budget"),
    "budget-95": ({"GF-COST-002"}, "vision-dev", "alerts at 95%"),
    "trail-single-region": ({"GF-AUD-001"}, "account", "is single-region"),
    "retention-30": ({"GF-AUD-002"}, "ssm-sessions", "keeps logs for 30 days"),
    "log-group-no-kms": ({"GF-AUD-003"}, "training-jobs", "has no kmsKeyId"),
    "sessions-unencrypted": ({"GF-ACC-006"}, "session-preferences", "cloudWatchEncryptionEnabled off"),
    "missing-cost-tags": ({"GF-COST-001"}, "scratch", "lacks the cost tags project, team, cost-center, env"),
}

# Variations that stay within every rule's meaning.
COMPLIANT_VARIANTS = (
    "none",
    "kms-caller-account",  # Principal AWS "*" narrowed by kms:CallerAccount
    "budget-absolute",  # an ABSOLUTE_VALUE alert at 80% of the limit
    "no-schedule",  # no off-hours schedule, but idle scale-in
    "no-idle",  # no idle scale-in, but off nights and weekends
)


@pytest.mark.parametrize("variant", COMPLIANT_VARIANTS)
def test_compliant_program_has_no_findings(variant: str) -> None:
    found = outcome(PROGRAM, variant)
    assert found.summary() == []


def test_compliant_program_registers_the_expected_shape() -> None:
    graph = run_variant(PROGRAM)
    types = {r.type for r in graph.resources}
    assert {
        "aws:s3/bucket:Bucket",
        "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration",
        "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration",
        "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule",
        ASG,
        LT,
        "aws:budgets/budget:Budget",
        "aws:ssm/document:Document",
    } <= types
    assert 40 <= len(graph.resources) <= 60


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_each_break_is_reported_by_its_rule(variant: str) -> None:
    rule_ids, resource, words = VARIANTS[variant]
    found = outcome(PROGRAM, variant)
    assert found.ids() == rule_ids, found.summary()
    matching = [
        v
        for rule_id in rule_ids
        for v in found.of(rule_id)
        if words in v.message and (not resource or v.urn.endswith(f"::{resource}"))
    ]
    assert matching, found.summary()
    for finding in matching:
        if resource:
            assert f"'{resource}'" in finding.message


def test_preview_unknown_references_never_fail_and_unknown_documents_are_not_passed() -> None:
    preview = judge(as_preview(run_variant(PROGRAM)))
    # Only the documents built with apply() from ARNs are unknown; each is reported as not judged.
    assert sorted((v.rule_id, v.urn.rsplit("::", 1)[-1]) for v in preview.violations) == [
        ("GF-ACC-006", "session-preferences"),
        ("GF-IAM-001", "gpu-node-checkpoints"),
        ("GF-IAM-002", "gpu-node-checkpoints"),
        ("GF-IAM-006", "gpu-node-checkpoints"),
        ("GF-OPS-002", "checkpoints"),
        ("GF-OPS-002", "trail"),
        ("GF-STOR-004", "checkpoints"),
        ("GF-STOR-004", "trail"),
    ]
    assert all("could not be judged at preview" in v.message for v in preview.violations)


def test_preview_still_catches_a_public_subnet_through_unknown_subnet_ids() -> None:
    preview = judge(as_preview(run_variant(PROGRAM, "gpu-in-public-subnet")))
    public_ip = preview.of("GF-ACC-005")
    assert [v.urn.rsplit("::", 1)[-1] for v in public_ip] == ["gpu-burst"]
    assert "launches into subnet 'public-a'" in public_ip[0].message


@pytest.mark.parametrize(
    ("name", "resource_type", "path", "rule_ids"),
    [
        (
            "gpu",
            LT,
            "metadataOptions.httpTokens",
            {"GF-ACC-004"},
        ),
        ("gpu", LT, "blockDeviceMappings.0.ebs.encrypted", {"GF-STOR-008"}),
        ("checkpoints", "aws:kms/key:Key", "enableKeyRotation", {"GF-KMS-001"}),
        ("ssm-sessions", "aws:cloudwatch/logGroup:LogGroup", "retentionInDays", {"GF-AUD-002"}),
        ("vision-dev", "aws:budgets/budget:Budget", "notifications.0.threshold", {"GF-COST-002"}),
        # An unknown alarm threshold or policy warmup leaves the scaling sanity open.
        ("gpu-busy", "aws:cloudwatch/metricAlarm:MetricAlarm", "threshold", {"GF-COST-006"}),
        ("gpu-scale-out", "aws:autoscaling/policy:Policy", "estimatedInstanceWarmup", {"GF-COST-006"}),
        (
            "gpu-burst",
            ASG,
            "mixedInstancesPolicy.launchTemplate.overrides.1.instanceType",
            {"GF-ACC-003", "GF-COST-003", "GF-COST-007", "GF-NET-003"},
        ),
        (
            "checkpoints",
            "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration",
            "rules.0.applyServerSideEncryptionByDefault.sseAlgorithm",
            {"GF-STOR-001"},
        ),
    ],
)
def test_unknown_decisive_setting_is_not_judged(
    name: str, resource_type: str, path: str, rule_ids: set[str]
) -> None:
    found = judge(with_input(run_variant(PROGRAM), name, resource_type, path, UNKNOWN_STRING))
    assert found.ids() == rule_ids, found.summary()
    assert all("could not be judged at preview" in v.message for v in found.violations)


def test_unknown_subnet_setting_of_a_gpu_pool_is_not_judged() -> None:
    graph = with_input(
        run_variant(PROGRAM, "gpu-in-public-subnet"),
        "public-a",
        SUBNET,
        "mapPublicIpOnLaunch",
        UNKNOWN_STRING,
    )
    found = judge(graph).of("GF-ACC-005")
    assert [(v.enforcement, v.message) for v in found] == [
        (
            "advisory",
            "can't run policy 'gpu-no-public-ip' from policy pack 'gpufleet@v0.0.1' during preview: "
            "'gpu-burst' could not be judged at preview: the string value at .mapPublicIpOnLaunch can't be "
            "known during preview",
        )
    ]

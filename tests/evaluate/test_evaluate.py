"""evaluate_stack: what each policy sees and how its results become findings, as under the Pulumi engine."""

# Expected messages are kept whole so a failing assertion shows the exact text.
# ruff: noqa: E501

from __future__ import annotations

from typing import Any

import pytest
from pulumi_policy import (
    EnforcementLevel,
    PolicyResource,
    ReportViolation,
    ResourceValidationArgs,
    Severity,
    StackValidationArgs,
)

from gpufleet.analyzer_inputs import default_provider_name, provider_version
from gpufleet.evaluate import evaluate_stack
from gpufleet.graph import Resource, ResourceGraph
from gpufleet.policies.rule import GfResourcePolicy, GfStackPolicy, Rule
from gpufleet.policy_config import PolicyConfigError
from tests.evaluate.sample_policies import (
    BUCKET,
    CKPT_BUCKET,
    COMPONENT,
    COMPONENT_URN,
    EAST_BUCKET,
    EAST_PROVIDER,
    LOG_GROUP_URN,
    LOGS_BUCKET,
    OSS_URN,
    UNKNOWN_BUCKET,
    UNKNOWN_LOG_GROUP_URN,
    VERSIONING_URN,
    sample_graph,
    sample_policies,
)

DEFAULT_AWS = f"urn:pulumi:dev::gpufleet::pulumi:providers:aws::{default_provider_name('aws')}"


def rows(config: dict[str, Any] | None = None) -> list[tuple[str, str, str, str]]:
    result = evaluate_stack(sample_graph(), sample_policies(), config)
    return [
        (f.rule_id, f.enforcement, f.urn.rsplit("::", 1)[-1] if f.urn else "", f.message)
        for f in result.violations
    ]


# A decisive value unknown at preview is the engine's advisory "can't run policy" diagnostic, never a
# pass and never a mandatory block of the preview; `pulumi up` judges it once the value is known.
UNKNOWN_SSE = (
    "can't run policy 'sample-bucket-kms' from policy pack 'gpufleet@v0.0.1' during preview: "
    "could not be judged at preview: the string value at "
    ".serverSideEncryptionConfiguration.rule.applyServerSideEncryptionByDefault.sseAlgorithm can't be known during preview"
)
RAW_UNKNOWN = (
    "can't run policy 'sample-raw-unknown' from policy pack 'gpufleet@v0.0.1' during preview: "
    "string value at .name can't be known during preview"
)


def test_findings_in_order_with_exact_messages() -> None:
    provider = default_provider_name("aws")
    assert rows() == [
        (
            "GF-STOR-901",
            "mandatory",
            "ckpt-bucket",
            "S3 bucket 'ckpt-bucket' is encrypted with AES256; use aws:kms",
        ),
        (
            "GF-AUD-901",
            "mandatory",
            "train-logs",
            "log group 'train-logs' keeps logs 30.0 days; at least 180.0 required",
        ),
        ("GF-COST-902", "mandatory", "", "the stack has no budget"),
        ("GF-STOR-901", "advisory", "unknown-bucket", UNKNOWN_SSE),
        (
            "GF-COST-908",
            "advisory",
            "logs-bucket",
            f"'logs-bucket' deploys to eu-west-1 through provider {provider}",
        ),
        (
            "GF-COST-908",
            "advisory",
            "unknown-bucket",
            f"'unknown-bucket' deploys to eu-west-1 through provider {provider}",
        ),
        (
            "GF-COST-908",
            "advisory",
            "ckpt-bucket",
            f"'ckpt-bucket' deploys to eu-west-1 through provider {provider}",
        ),
        ("GF-NET-909", "advisory", "late-logs", RAW_UNKNOWN),
        ("GF-STOR-907", "advisory", "east-bucket", "S3 bucket 'east-bucket' has no versioning resource"),
        ("GF-STOR-907", "advisory", "logs-bucket", "S3 bucket 'logs-bucket' has no versioning resource"),
        (
            "GF-STOR-907",
            "advisory",
            "unknown-bucket",
            "S3 bucket 'unknown-bucket' has no versioning resource",
        ),
    ]


def test_finding_fields_follow_the_output_contract() -> None:
    result = evaluate_stack(sample_graph(), sample_policies())
    finding = next(f for f in result.violations if f.urn == CKPT_BUCKET)
    assert finding.to_json() == {
        "rule_id": "GF-STOR-901",
        "policy": "sample-bucket-kms",
        "enforcement": "mandatory",
        "severity": "high",
        "engine": "crossguard",
        "urn": CKPT_BUCKET,
        "resource_type": "aws:s3/bucket:Bucket",
        "message": "S3 bucket 'ckpt-bucket' is encrypted with AES256; use aws:kms",
        "remediation": "Set serverSideEncryptionConfiguration.rule.applyServerSideEncryptionByDefault.sseAlgorithm.",
    }
    stack_wide = next(f for f in result.violations if f.rule_id == "GF-COST-902")
    assert (stack_wide.urn, stack_wide.resource_type) == ("", "")
    assert result.resources == 10
    assert (result.stack, result.project) == ("dev", "gpufleet")
    assert [f.rule_id for f in result.mandatory_violations] == [
        "GF-STOR-901",
        "GF-AUD-901",
        "GF-COST-902",
    ]


def test_per_policy_level_beats_all_which_beats_the_default() -> None:
    config = {"all": "advisory", "sample-stack-budget": {"enforcementLevel": "mandatory"}}
    levels = {(r[0], r[1]) for r in rows(config)}
    assert ("GF-STOR-901", "advisory") in levels
    assert ("GF-COST-902", "mandatory") in levels
    assert ("GF-STOR-901", "mandatory") not in levels


def test_rule_id_keys_and_remediate_counts_as_mandatory() -> None:
    levels = {(r[0], r[1]) for r in rows({"GF-COST-908": "remediate"})}
    assert ("GF-COST-908", "mandatory") in levels
    assert ("GF-COST-908", "advisory") not in levels


def test_disabled_policies_do_not_run() -> None:
    found = {r[0] for r in rows({"sample-bucket-kms": "disabled", "sample-stack-budget": "disabled"})}
    assert "GF-STOR-901" not in found
    assert "GF-COST-902" not in found
    assert "GF-AUD-901" in found
    assert not {r[0] for r in rows({"all": "disabled"})}


def test_config_overlays_schema_defaults() -> None:
    assert "GF-AUD-901" not in {r[0] for r in rows({"sample-log-retention": {"min_days": 30}})}
    assert (
        "GF-AUD-901",
        "mandatory",
        "train-logs",
        "log group 'train-logs' keeps logs 30.0 days; at least 400.0 required",
    ) in rows({"sample-log-retention": {"min_days": 400}})
    regions = {"sample-allowed-region": {"allowed_regions": ["eu-west-1", "us-east-1"]}}
    assert "GF-COST-908" not in {r[0] for r in rows(regions)}


def test_bad_config_is_a_user_error_naming_key_and_type() -> None:
    with pytest.raises(PolicyConfigError) as error:
        evaluate_stack(sample_graph(), sample_policies(), {"sample-log-retention": {"min_days": "a year"}})
    assert (
        str(error.value)
        == 'policy config: sample-log-retention.min_days: "a year" is not allowed; expected integer (>= 1)'
    )
    with pytest.raises(
        PolicyConfigError,
        match="is not an enforcement level; allowed: advisory, mandatory, remediate, disabled",
    ):
        evaluate_stack(sample_graph(), sample_policies(), {"all": "strict"})


def test_not_applicable_is_recorded_not_reported() -> None:
    result = evaluate_stack(sample_graph(), sample_policies())
    assert result.not_applicable == [
        {
            "rule_id": "GF-STOR-901",
            "policy": "sample-bucket-kms",
            "urn": OSS_URN,
            "reason": "OSS buckets are judged elsewhere",
        }
    ]
    assert all(f.urn != OSS_URN for f in result.violations)


def test_unknown_values_guarded_and_escaping() -> None:
    result = evaluate_stack(sample_graph(), sample_policies())
    guarded = [f for f in result.violations if f.urn == UNKNOWN_BUCKET and f.rule_id == "GF-STOR-901"]
    assert [(f.enforcement, f.message) for f in guarded] == [("advisory", UNKNOWN_SSE)]
    escaped = [f for f in result.violations if f.rule_id == "GF-NET-909"]
    assert [(f.enforcement, f.urn, f.message) for f in escaped] == [
        ("advisory", UNKNOWN_LOG_GROUP_URN, RAW_UNKNOWN)
    ]


def _capture(seen: list[ResourceValidationArgs]) -> GfResourcePolicy:
    rule = Rule(
        id="GF-NET-950",
        name="capture-resource-args",
        description="captures",
        clouds=("aws",),
        enforcement=EnforcementLevel.ADVISORY,
        severity=Severity.LOW,
        remediation="-",
        url="https://example.invalid",
    )

    def validate(args: ResourceValidationArgs, report: ReportViolation) -> None:
        seen.append(args)

    return GfResourcePolicy(rule, validate)


def test_every_registration_is_analyzed_with_its_provider() -> None:
    seen: list[ResourceValidationArgs] = []
    evaluate_stack(sample_graph(), [_capture(seen)], stack_tags={"vcs:repo": "gpufleet"})
    by_urn = {a.urn: a for a in seen}
    # Components, explicit providers and the synthesized default provider are analyzed, as the engine does.
    assert set(by_urn) == {
        COMPONENT_URN,
        CKPT_BUCKET,
        VERSIONING_URN,
        LOGS_BUCKET,
        UNKNOWN_BUCKET,
        EAST_PROVIDER,
        EAST_BUCKET,
        LOG_GROUP_URN,
        UNKNOWN_LOG_GROUP_URN,
        OSS_URN,
        DEFAULT_AWS,
        f"urn:pulumi:dev::gpufleet::pulumi:providers:alicloud::{default_provider_name('alicloud')}",
    }
    assert by_urn[COMPONENT_URN].provider is None
    assert by_urn[COMPONENT_URN].resource_type == COMPONENT
    assert by_urn[EAST_PROVIDER].provider is None
    east = by_urn[EAST_BUCKET].provider
    assert east is not None
    assert (east.resource_type, east.urn, east.name, dict(east.props)) == (
        "pulumi:providers:aws",
        EAST_PROVIDER,
        "east",
        {"region": "us-east-1"},
    )
    default = by_urn[CKPT_BUCKET].provider
    assert default is not None
    assert (default.resource_type, default.urn, default.name) == (
        "pulumi:providers:aws",
        DEFAULT_AWS,
        default_provider_name("aws"),
    )
    assert dict(default.props) == {"region": "eu-west-1", "version": provider_version("aws")}
    assert isinstance(by_urn[LOG_GROUP_URN].props["retentionInDays"], float)
    assert by_urn[LOG_GROUP_URN].props["retentionInDays"] == 30.0
    ckpt = by_urn[CKPT_BUCKET]
    assert ckpt.opts.parent == COMPONENT_URN
    assert (
        ckpt.props["serverSideEncryptionConfiguration"]["rule"]["applyServerSideEncryptionByDefault"][
            "sseAlgorithm"
        ]
        == "AES256"
    )
    assert dict(ckpt.stack_tags) == {
        "pulumi:project": "gpufleet",
        "pulumi:runtime": "python",
        "team": "ml-platform",
        "vcs:repo": "gpufleet",
    }


def test_stack_policies_get_linked_policy_resources_with_outputs() -> None:
    seen: list[StackValidationArgs] = []
    rule = Rule(
        id="GF-NET-951",
        name="capture-stack-args",
        description="captures",
        clouds=("aws",),
        enforcement=EnforcementLevel.ADVISORY,
        severity=Severity.LOW,
        remediation="-",
        url="https://example.invalid",
        config={"limit": {"type": "integer", "default": 3}},
    )

    def validate(args: StackValidationArgs, report: ReportViolation) -> None:
        seen.append(args)

    evaluate_stack(sample_graph(), [GfStackPolicy(rule, validate)], {"capture-stack-args": {"limit": 5}})
    [args] = seen
    assert dict(args.get_config()) == {"limit": 5}
    # Config and properties cross the Analyzer protocol as protobuf Structs: numbers are floats.
    assert isinstance(args.get_config()["limit"], float)
    by_urn: dict[str, PolicyResource] = {r.urn: r for r in args.resources}
    versioning = by_urn[VERSIONING_URN]
    assert versioning.parent is by_urn[COMPONENT_URN]
    assert versioning.dependencies == [by_urn[CKPT_BUCKET]]
    assert versioning.property_dependencies == {"bucket": [by_urn[CKPT_BUCKET]]}
    bucket = by_urn[CKPT_BUCKET]
    # Stack policies see outputs (the synthetic ones recorded offline) over the inputs.
    assert bucket.props["arn"] == "arn:aws:s3:::ckpt-bucket-1234"
    assert bucket.props["bucket"] == "ckpt-bucket"
    assert bucket.provider is not None and bucket.provider.urn == DEFAULT_AWS
    assert DEFAULT_AWS in by_urn


def test_explicit_provider_props_and_default_provider_config_objects() -> None:
    graph = ResourceGraph(
        project="p",
        stack="prod",
        config={
            "kubernetes:kubeconfig": "~/.kube/config",
            "aws:assumeRole": '{"roleArn": "arn:aws:iam::1:role/x"}',
        },
        resources=[
            Resource(
                urn="urn:pulumi:prod::p::aws:s3/bucket:Bucket::b",
                type=BUCKET,
                name="b",
                custom=True,
                inputs={},
            )
        ],
    )
    seen: list[ResourceValidationArgs] = []
    evaluate_stack(graph, [_capture(seen)])
    bucket = next(a for a in seen if a.resource_type == BUCKET)
    assert bucket.provider is not None
    assert bucket.provider.props["assumeRole"]["roleArn"] == "arn:aws:iam::1:role/x"
    assert "kubeconfig" not in bucket.provider.props

"""Small policies with known behaviour, used to test evaluation, reports and the gRPC pack."""

from __future__ import annotations

from typing import Any

from pulumi_policy import (
    EnforcementLevel,
    ReportViolation,
    ResourceValidationArgs,
    Severity,
    StackValidationArgs,
)

from gpufleet.graph import UNKNOWN_STRING, Resource, ResourceGraph
from gpufleet.policies.props import get
from gpufleet.policies.rule import GfPolicy, GfResourcePolicy, GfStackPolicy, Rule

BUCKET = "aws:s3/bucket:Bucket"
VERSIONING = "aws:s3/bucketVersioning:BucketVersioning"
LOG_GROUP = "aws:cloudwatch/logGroup:LogGroup"
OSS_BUCKET = "alicloud:oss/bucket:Bucket"
BUDGET = "aws:budgets/budget:Budget"
AWS_PROVIDER = "pulumi:providers:aws"
STACK = "dev"
PROJECT = "gpufleet"


def urn(token: str, name: str, parent_type: str | None = None) -> str:
    qualified = f"{parent_type}${token}" if parent_type else token
    return f"urn:pulumi:{STACK}::{PROJECT}::{qualified}::{name}"


KMS_RULE = Rule(
    id="GF-STOR-901",
    name="sample-bucket-kms",
    description="Buckets are encrypted with aws:kms",
    clouds=("aws", "alicloud"),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation="Set serverSideEncryptionConfiguration.rule.applyServerSideEncryptionByDefault.sseAlgorithm.",
    url="https://docs.aws.amazon.com/AmazonS3/latest/userguide/UsingKMSEncryption.html",
)


def _bucket_kms(args: ResourceValidationArgs, report: ReportViolation) -> None:
    if args.resource_type == OSS_BUCKET:
        args.not_applicable("OSS buckets are judged elsewhere")
    if args.resource_type != BUCKET:
        return
    algorithm = get(
        args.props, "serverSideEncryptionConfiguration.rule.applyServerSideEncryptionByDefault.sseAlgorithm"
    )
    if algorithm != "aws:kms":
        report(f"S3 bucket '{args.name}' is encrypted with {algorithm}; use aws:kms", None)


RETENTION_RULE = Rule(
    id="GF-AUD-901",
    name="sample-log-retention",
    description="Log groups keep logs at least min_days",
    clouds=("aws",),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.MEDIUM,
    remediation="Set retentionInDays.",
    url="https://docs.aws.amazon.com/AmazonCloudWatch/latest/logs/Working-with-log-groups-and-streams.html",
    config={"min_days": {"type": "integer", "default": 180, "minimum": 1}},
)


def _log_retention(args: ResourceValidationArgs, report: ReportViolation) -> None:
    if args.resource_type != LOG_GROUP:
        return
    days = get(args.props, "retentionInDays")
    minimum = RETENTION_RULE.settings(args)["min_days"]
    if days and days < minimum:
        report(f"log group '{args.name}' keeps logs {days} days; at least {minimum} required", None)


REGION_RULE = Rule(
    id="GF-COST-908",
    name="sample-allowed-region",
    description="Resources deploy to allowed regions",
    clouds=("aws",),
    enforcement=EnforcementLevel.ADVISORY,
    severity=Severity.LOW,
    remediation="Deploy to an allowed region.",
    url="https://www.pulumi.com/registry/packages/aws/installation-configuration/",
    config={"allowed_regions": {"type": "array", "items": {"type": "string"}, "default": ["us-east-1"]}},
)


def _allowed_region(args: ResourceValidationArgs, report: ReportViolation) -> None:
    if args.resource_type != BUCKET or args.provider is None:
        return
    region = args.provider.props.get("region")
    if region not in REGION_RULE.settings(args)["allowed_regions"]:
        report(f"'{args.name}' deploys to {region} through provider {args.provider.name}", None)


VERSIONING_RULE = Rule(
    id="GF-STOR-907",
    name="sample-bucket-versioned",
    description="Buckets have a separate versioning resource",
    clouds=("aws",),
    enforcement=EnforcementLevel.ADVISORY,
    severity=Severity.LOW,
    remediation="Add an aws.s3.BucketVersioning for the bucket.",
    url="https://www.pulumi.com/registry/packages/aws/api-docs/s3/bucketversioning/",
)


def _bucket_versioned(args: StackValidationArgs, report: ReportViolation) -> None:
    versioned = {
        dep.urn
        for r in args.resources
        if r.resource_type == VERSIONING
        for dep in r.property_dependencies.get("bucket", [])
    }
    for resource in args.resources:
        if resource.resource_type == BUCKET and resource.urn not in versioned:
            report(f"S3 bucket '{resource.name}' has no versioning resource", resource.urn)


BUDGET_RULE = Rule(
    id="GF-COST-902",
    name="sample-stack-budget",
    description="The stack has a budget",
    clouds=("aws",),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.MEDIUM,
    remediation="Add an aws.budgets.Budget.",
    url="https://www.pulumi.com/registry/packages/aws/api-docs/budgets/budget/",
)


def _stack_budget(args: StackValidationArgs, report: ReportViolation) -> None:
    if not any(r.resource_type == BUDGET for r in args.resources):
        report("the stack has no budget", None)


RAW_RULE = Rule(
    id="GF-NET-909",
    name="sample-raw-unknown",
    description="Log group names are known (no unknown guard)",
    clouds=("aws",),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.LOW,
    remediation="None.",
    url="https://example.invalid/raw",
)


class UnguardedPolicy(GfResourcePolicy):
    """A policy whose UnknownValueError escapes, as a plain pulumi_policy policy's would."""

    def validate(self, args: ResourceValidationArgs, report_violation: ReportViolation) -> None:
        if args.resource_type == LOG_GROUP:
            _ = args.props["name"]  # raises UnknownValueError through the proxy when unknown


def _never(args: ResourceValidationArgs, report: ReportViolation) -> None:
    return None


def sample_policies() -> list[GfPolicy]:
    return [
        GfResourcePolicy(KMS_RULE, _bucket_kms),
        GfResourcePolicy(RETENTION_RULE, _log_retention),
        GfResourcePolicy(REGION_RULE, _allowed_region),
        GfStackPolicy(VERSIONING_RULE, _bucket_versioned),
        GfStackPolicy(BUDGET_RULE, _stack_budget),
        UnguardedPolicy(RAW_RULE, _never),
    ]


def kms_encryption(algorithm: str) -> dict[str, Any]:
    return {"rule": {"applyServerSideEncryptionByDefault": {"sseAlgorithm": algorithm}}}


COMPONENT = "gpufleet:storage:CheckpointStore"
COMPONENT_URN = urn(COMPONENT, "ckpt")
CKPT_BUCKET = urn(BUCKET, "ckpt-bucket", COMPONENT)
LOGS_BUCKET = urn(BUCKET, "logs-bucket")
UNKNOWN_BUCKET = urn(BUCKET, "unknown-bucket")
EAST_BUCKET = urn(BUCKET, "east-bucket")
EAST_PROVIDER = urn(AWS_PROVIDER, "east")
VERSIONING_URN = urn(VERSIONING, "ckpt-versioning", COMPONENT)
LOG_GROUP_URN = urn(LOG_GROUP, "train-logs")
UNKNOWN_LOG_GROUP_URN = urn(LOG_GROUP, "late-logs")
OSS_URN = urn(OSS_BUCKET, "oss-ckpt")


def sample_graph() -> ResourceGraph:
    resources = [
        Resource(urn=COMPONENT_URN, type=COMPONENT, name="ckpt", custom=False, inputs={}),
        Resource(
            urn=CKPT_BUCKET,
            type=BUCKET,
            name="ckpt-bucket",
            custom=True,
            parent=COMPONENT_URN,
            inputs={"bucket": "ckpt-bucket", "serverSideEncryptionConfiguration": kms_encryption("AES256")},
            outputs={"id": "ckpt-bucket-1234", "arn": "arn:aws:s3:::ckpt-bucket-1234"},
        ),
        Resource(
            urn=VERSIONING_URN,
            type=VERSIONING,
            name="ckpt-versioning",
            custom=True,
            parent=COMPONENT_URN,
            inputs={"bucket": "ckpt-bucket-1234", "versioningConfiguration": {"status": "Enabled"}},
            dependencies=(CKPT_BUCKET,),
            property_dependencies={"bucket": (CKPT_BUCKET,)},
        ),
        Resource(
            urn=LOGS_BUCKET,
            type=BUCKET,
            name="logs-bucket",
            custom=True,
            inputs={"serverSideEncryptionConfiguration": kms_encryption("aws:kms")},
        ),
        Resource(
            urn=UNKNOWN_BUCKET,
            type=BUCKET,
            name="unknown-bucket",
            custom=True,
            inputs={"serverSideEncryptionConfiguration": kms_encryption(UNKNOWN_STRING)},
        ),
        Resource(
            urn=EAST_PROVIDER,
            type=AWS_PROVIDER,
            name="east",
            custom=True,
            inputs={"region": "us-east-1"},
            id="prov-east",
        ),
        Resource(
            urn=EAST_BUCKET,
            type=BUCKET,
            name="east-bucket",
            custom=True,
            inputs={"serverSideEncryptionConfiguration": kms_encryption("aws:kms")},
            provider=f"{EAST_PROVIDER}::prov-east",
        ),
        Resource(
            urn=LOG_GROUP_URN,
            type=LOG_GROUP,
            name="train-logs",
            custom=True,
            inputs={"name": "train-logs", "retentionInDays": 30},
        ),
        Resource(
            urn=UNKNOWN_LOG_GROUP_URN,
            type=LOG_GROUP,
            name="late-logs",
            custom=True,
            inputs={"name": UNKNOWN_STRING, "retentionInDays": 365},
        ),
        Resource(urn=OSS_URN, type=OSS_BUCKET, name="oss-ckpt", custom=True, inputs={"bucket": "oss-ckpt"}),
    ]
    return ResourceGraph(
        project=PROJECT,
        stack=STACK,
        resources=resources,
        config={"aws:region": "eu-west-1", "pulumi:tags": {"team": "ml-platform"}},
    )

"""GF-ACC-006 on AWS: the account's Session Manager preferences document (`SSM-SessionManagerRunShell`)
logs sessions encrypted, to a CloudWatch log group with a KMS key or to S3 (see the package for the
rule)."""

from __future__ import annotations

import json
from functools import partial
from typing import Any

import yaml
from pulumi_policy import PolicyResource, ReportViolation, StackValidationArgs
from pulumi_policy.proxy import UnknownValueError

from gpufleet.policies.access import compute as c
from gpufleet.policies.access.aws import (
    AWS_AUTOSCALING_GROUP,
    AWS_FLEET,
    AWS_INSTANCE,
    AWS_LAUNCH_CONFIGURATION,
    AWS_LAUNCH_TEMPLATE,
    AWS_SPOT_FLEET,
    AWS_SPOT_INSTANCE,
)
from gpufleet.policies.memo import per_stack
from gpufleet.policies.props import get, is_set, truthy

AWS_SSM_DOCUMENT = "aws:ssm/document:Document"
AWS_LOG_GROUP = "aws:cloudwatch/logGroup:LogGroup"
PREFERENCES_NAME = "SSM-SessionManagerRunShell"

_GPU_COMPUTE = (
    AWS_INSTANCE,
    AWS_SPOT_INSTANCE,
    AWS_AUTOSCALING_GROUP,
    AWS_FLEET,
    AWS_SPOT_FLEET,
    AWS_LAUNCH_TEMPLATE,
    AWS_LAUNCH_CONFIGURATION,
)
REMEDIATION = (
    "Add aws.ssm.Document `SSM-SessionManagerRunShell` (documentType Session, schemaVersion 1.0, "
    "sessionType Standard_Stream) whose inputs set `cloudWatchLogGroupName` with "
    "`cloudWatchEncryptionEnabled: true` (and give that aws.cloudwatch.LogGroup a `kmsKeyId` and a "
    "retention) or `s3BucketName` with `s3EncryptionEnabled: true`. Where another stack of the "
    "account owns the preferences (an account-baseline stack), tag this stack "
    "`gpufleet:account-baseline-stack: <that stack>` instead."
)
URL = "https://docs.aws.amazon.com/systems-manager/latest/userguide/session-manager-logging.html"
CHECKOV = ("CKV_AWS_112", "CKV_AWS_113")


def _content(index: c.StackIndex, document: PolicyResource) -> Any:
    props = index.p(document)
    content = get(props, "content")
    form = str(get(props, "documentFormat") or "JSON").upper()
    if not isinstance(content, str):
        return content
    try:
        return yaml.safe_load(content) if form == "YAML" else json.loads(content)
    except (ValueError, yaml.YAMLError):
        return None


def _judge_preferences(index: c.StackIndex, document: PolicyResource, report: ReportViolation) -> None:
    content = _content(index, document)
    inputs = get(content, "inputs") if isinstance(content, dict) else None
    what = f"Session Manager preferences '{document.name}'"
    if not isinstance(inputs, dict):
        report(
            f"{what} has no readable `inputs`; log sessions to an encrypted log group or bucket", document.urn
        )
        return
    group_name = get(inputs, "cloudWatchLogGroupName")
    bucket = get(inputs, "s3BucketName")
    if not group_name and not bucket:
        report(
            f"{what} does not log sessions; set cloudWatchLogGroupName (encrypted) or s3BucketName "
            "(encrypted)",
            document.urn,
        )
        return
    if bucket and not truthy(get(inputs, "s3EncryptionEnabled")):
        report(
            f"{what} logs sessions to bucket {bucket!r} with s3EncryptionEnabled off; set it to true",
            document.urn,
        )
    if group_name:
        if not truthy(get(inputs, "cloudWatchEncryptionEnabled")):
            report(
                f"{what} logs sessions to log group {group_name!r} with cloudWatchEncryptionEnabled off; "
                "set it to true",
                document.urn,
            )
        groups = index.lookup((AWS_LOG_GROUP,), str(group_name))
        groups += [
            d
            for d in (document.property_dependencies or {}).get("content", [])
            if d.resource_type == AWS_LOG_GROUP
        ]
        if not groups:
            raise c.NotJudgeable(
                f"{what} logs to log group {group_name!r}, which is not defined in this stack"
            )
        for group in {g.urn: g for g in groups}.values():
            if not is_set(index.p(group), "kmsKeyId"):
                report(
                    f"CloudWatch log group '{group.name}' holds Session Manager logs without a KMS key; "
                    "set kmsKeyId",
                    group.urn,
                )


def judge_stack(args: StackValidationArgs, baseline_tag: str, report: ReportViolation) -> None:
    """Judge the stack's Session Manager preferences, when it runs EC2 GPU compute (`baseline_tag`: the
    stack tag naming the stack that owns them instead)."""
    index = per_stack(c.ComputeIndex, args.resources)
    gpu: list[PolicyResource] = []
    for resource in index.of_type(*_GPU_COMPUTE):
        try:
            if index.is_gpu(resource):
                gpu.append(resource)
        except (UnknownValueError, c.NotJudgeable):
            continue  # the GPU rules report these; here they only decide whether sessions matter
    if not gpu:
        args.not_applicable("no EC2 GPU instances in this stack")
    session_documents = [
        d for d in index.of_type(AWS_SSM_DOCUMENT) if str(index.p(d).get("documentType") or "") == "Session"
    ]
    preferences = [d for d in session_documents if index.p(d).get("name") == PREFERENCES_NAME]
    owner = (args.stack_tags or {}).get(baseline_tag)
    if not preferences and owner:
        args.not_applicable(
            f"the Session Manager preferences are the account baseline's (stack tag {baseline_tag}: {owner})"
        )
    if not preferences:
        others = ", ".join(f"'{d.name}'" for d in session_documents)
        hint = f" (Session document {others} is not named {PREFERENCES_NAME})" if others else ""
        report(
            "This stack runs EC2 GPU instances but defines no Session Manager preferences document"
            f"{hint}; add aws.ssm.Document '{PREFERENCES_NAME}' that logs sessions encrypted",
            None,
        )
        return
    for document in preferences:
        c.judge_resource(report, document.urn, partial(_judge_preferences, index, document, report))

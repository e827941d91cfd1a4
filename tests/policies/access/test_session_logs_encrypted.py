from __future__ import annotations

import json

import pytest

from gpufleet.policies.access.session_logs_encrypted import POLICY, RULE

from .helpers import UNKNOWN_STRING_VALUE, NotApplicable, check_stack, res
from .helpers import urn_of as urn

INSTANCE = "aws:ec2/instance:Instance"
DOCUMENT = "aws:ssm/document:Document"
LOG_GROUP = "aws:cloudwatch/logGroup:LogGroup"
GPU = res(INSTANCE, "train", {"instanceType": "p4d.24xlarge"})


def _prefs(
    inputs: dict[str, object], name: str = "SSM-SessionManagerRunShell", fmt: str = "JSON"
) -> dict[str, object]:
    content = {"schemaVersion": "1.0", "sessionType": "Standard_Stream", "inputs": inputs}
    text = (
        json.dumps(content)
        if fmt == "JSON"
        else (
            "schemaVersion: '1.0'\nsessionType: Standard_Stream\ninputs:\n"
            + "".join(f"  {k}: {json.dumps(v)}\n" for k, v in inputs.items())
        )
    )
    return {"name": name, "documentType": "Session", "documentFormat": fmt, "content": text}


def test_metadata() -> None:
    assert RULE.id == "GF-ACC-006"
    assert RULE.enforcement.value == "advisory"


def test_compliant_cloudwatch() -> None:
    group = res(
        LOG_GROUP,
        "sessions",
        {"name": "/ssm/sessions", "kmsKeyId": UNKNOWN_STRING_VALUE, "retentionInDays": 180},
    )
    doc = res(
        DOCUMENT,
        "prefs",
        _prefs({"cloudWatchLogGroupName": "/ssm/sessions", "cloudWatchEncryptionEnabled": True}),
    )
    assert check_stack(POLICY, [GPU, group, doc]) == []


def test_compliant_s3_yaml() -> None:
    doc = res(DOCUMENT, "prefs", _prefs({"s3BucketName": "logs", "s3EncryptionEnabled": True}, fmt="YAML"))
    assert check_stack(POLICY, [GPU, doc]) == []


def test_no_document() -> None:
    assert check_stack(POLICY, [GPU]) == [
        (
            "This stack runs EC2 GPU instances but defines no Session Manager preferences document; add "
            "aws.ssm.Document 'SSM-SessionManagerRunShell' that logs sessions encrypted",
            None,
        )
    ]


def test_wrongly_named_document() -> None:
    doc = res(
        DOCUMENT, "custom", _prefs({"s3BucketName": "logs", "s3EncryptionEnabled": True}, name="MySessions")
    )
    assert check_stack(POLICY, [GPU, doc]) == [
        (
            "This stack runs EC2 GPU instances but defines no Session Manager preferences document (Session "
            "document 'custom' is not named SSM-SessionManagerRunShell); add aws.ssm.Document "
            "'SSM-SessionManagerRunShell' that logs sessions encrypted",
            None,
        )
    ]


def test_unencrypted_group_and_flag() -> None:
    group = res(LOG_GROUP, "sessions", {"name": "/ssm/sessions"})
    doc = res(DOCUMENT, "prefs", _prefs({"cloudWatchLogGroupName": "/ssm/sessions"}))
    assert check_stack(POLICY, [GPU, group, doc]) == [
        (
            "Session Manager preferences 'prefs' logs sessions to log group '/ssm/sessions' with "
            "cloudWatchEncryptionEnabled off; set it to true",
            urn(DOCUMENT, "prefs"),
        ),
        (
            "CloudWatch log group 'sessions' holds Session Manager logs without a KMS key; set kmsKeyId",
            urn(LOG_GROUP, "sessions"),
        ),
    ]


def test_no_logging_and_s3_unencrypted() -> None:
    assert check_stack(POLICY, [GPU, res(DOCUMENT, "prefs", _prefs({"idleSessionTimeout": "20"}))]) == [
        (
            "Session Manager preferences 'prefs' does not log sessions; set "
            "cloudWatchLogGroupName (encrypted) "
            "or s3BucketName (encrypted)",
            urn(DOCUMENT, "prefs"),
        )
    ]
    assert check_stack(POLICY, [GPU, res(DOCUMENT, "prefs", _prefs({"s3BucketName": "logs"}))]) == [
        (
            "Session Manager preferences 'prefs' logs sessions to bucket 'logs' with "
            "s3EncryptionEnabled off; "
            "set it to true",
            urn(DOCUMENT, "prefs"),
        )
    ]


def test_log_group_elsewhere_and_unknown_content_with_proxy() -> None:
    doc = res(
        DOCUMENT, "prefs", _prefs({"cloudWatchLogGroupName": "/shared", "cloudWatchEncryptionEnabled": True})
    )
    assert check_stack(POLICY, [GPU, doc]) == [
        (
            "could not be judged: Session Manager preferences 'prefs' logs to log group "
            "'/shared', which is not "
            "defined in this stack",
            urn(DOCUMENT, "prefs"),
        )
    ]
    unknown = res(
        DOCUMENT,
        "prefs",
        {"name": "SSM-SessionManagerRunShell", "documentType": "Session", "content": UNKNOWN_STRING_VALUE},
        proxy=True,
    )
    assert check_stack(POLICY, [GPU, unknown]) == [
        (
            "could not be judged at preview: the string value at .content can't be known during preview",
            urn(DOCUMENT, "prefs"),
        )
    ]


def test_preferences_owned_by_the_account_baseline_stack() -> None:
    tags = {"gpufleet:account-baseline-stack": "account"}
    with pytest.raises(
        NotApplicable, match=r"account baseline's \(stack tag gpufleet:account-baseline-stack: account\)"
    ):
        check_stack(POLICY, [GPU], stack_tags=tags)
    # The tag vouches for a missing document only; a document in the stack is still judged.
    doc = res(DOCUMENT, "prefs", _prefs({"s3BucketName": "logs", "s3EncryptionEnabled": False}))
    assert check_stack(POLICY, [GPU, doc], stack_tags=tags) == [
        (
            "Session Manager preferences 'prefs' logs sessions to bucket 'logs' with s3EncryptionEnabled "
            "off; set it to true",
            doc.urn,
        )
    ]
    # Another tag name, from the pack's config.
    with pytest.raises(NotApplicable):
        check_stack(POLICY, [GPU], {"baseline_stack_tag": "landing-zone"}, {"landing-zone": "core"})
    assert len(check_stack(POLICY, [GPU], stack_tags={"landing-zone": "core"})) == 1


def test_not_applicable_without_gpu() -> None:
    with pytest.raises(NotApplicable):
        check_stack(POLICY, [res(INSTANCE, "web", {"instanceType": "t3.micro"})])
    with pytest.raises(NotApplicable):
        check_stack(
            POLICY, [res("alicloud:ecs/instance:Instance", "g", {"instanceType": "ecs.gn7i-c8g1.2xlarge"})]
        )

from __future__ import annotations

import json

import pytest

from gpufleet.components.audit.aws import FleetAudit, FleetAuditArgs

from .builders import ACCOUNT, KEY_ARN, REGION, TAGS
from .conftest import Runner, statements_by_sid

TRAIL_BUCKET_ARN = "arn:aws:s3:::audit-trail-bucket-0a1b2c3"
TRAIL_ARN = f"arn:aws:cloudtrail:{REGION}:{ACCOUNT}:trail/gpufleet-dev-trail"


def _build(**overrides: object):  # type: ignore[no-untyped-def]
    values: dict[str, object] = {
        "fleet": "gpufleet-dev",
        "kms_key_arn": KEY_ARN,
        "account_id": ACCOUNT,
        "region": REGION,
        "tags": TAGS,
    }
    values.update(overrides)
    return lambda: FleetAudit("audit", FleetAuditArgs(**values))  # type: ignore[arg-type]


def test_children(run_pulumi: Runner) -> None:
    mocks = run_pulumi(_build())
    assert mocks.names_by_type() == [
        ("aws:cloudtrail/trail:Trail", "audit-trail"),
        ("aws:cloudwatch/logGroup:LogGroup", "audit-agent-logs"),
        ("aws:cloudwatch/logGroup:LogGroup", "audit-session-logs"),
        ("aws:s3/bucket:Bucket", "audit-trail-bucket"),
        ("aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration", "audit-trail-bucket-lifecycle"),
        ("aws:s3/bucketPolicy:BucketPolicy", "audit-trail-bucket-policy"),
        ("aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock", "audit-trail-bucket-public-access"),
        (
            "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration",
            "audit-trail-bucket-encryption",
        ),
        ("aws:s3/bucketVersioning:BucketVersioning", "audit-trail-bucket-versioning"),
        ("aws:ssm/document:Document", "audit-session-prefs"),
        ("gpufleet:audit:FleetAudit", "audit"),
    ]


def test_trail_is_multi_region_validated_and_encrypted(run_pulumi: Runner) -> None:
    mocks = run_pulumi(_build())
    trail = mocks.one("aws:cloudtrail/trail:Trail", "audit-trail").inputs
    assert {
        k: trail[k]
        for k in (
            "name",
            "isMultiRegionTrail",
            "enableLogFileValidation",
            "includeGlobalServiceEvents",
            "kmsKeyId",
            "s3BucketName",
        )
    } == {
        "name": "gpufleet-dev-trail",
        "isMultiRegionTrail": True,
        "enableLogFileValidation": True,
        "includeGlobalServiceEvents": True,
        "kmsKeyId": KEY_ARN,
        "s3BucketName": "audit-trail-bucket-0a1b2c3",
    }


def test_trail_bucket_is_private_tls_only_and_scoped_to_this_trail(run_pulumi: Runner) -> None:
    mocks = run_pulumi(_build())
    block = mocks.one(
        "aws:s3/bucketPublicAccessBlock:BucketPublicAccessBlock", "audit-trail-bucket-public-access"
    ).inputs
    assert all(
        block[k] is True
        for k in ("blockPublicAcls", "blockPublicPolicy", "ignorePublicAcls", "restrictPublicBuckets")
    )
    sse = mocks.one(
        "aws:s3/bucketServerSideEncryptionConfiguration:BucketServerSideEncryptionConfiguration",
        "audit-trail-bucket-encryption",
    ).inputs
    assert sse["rules"][0]["applyServerSideEncryptionByDefault"] == {
        "sseAlgorithm": "aws:kms",
        "kmsMasterKeyId": KEY_ARN,
    }
    statements = statements_by_sid(
        mocks.one("aws:s3/bucketPolicy:BucketPolicy", "audit-trail-bucket-policy").inputs
    )
    assert set(statements) == {
        "DenyInsecureTransport",
        "DenyOutdatedTls",
        "DenyNonKmsEncryption",
        "CloudTrailAclCheck",
        "CloudTrailWrite",
    }
    # No SSE-S3 upload; CloudTrail's own key id form is not second-guessed (no key-id condition).
    assert statements["DenyNonKmsEncryption"] == {
        "Sid": "DenyNonKmsEncryption",
        "Effect": "Deny",
        "Principal": "*",
        "Action": ["s3:PutObject"],
        "Resource": [f"{TRAIL_BUCKET_ARN}/*"],
        "Condition": {"StringNotEqualsIfExists": {"s3:x-amz-server-side-encryption": "aws:kms"}},
    }
    assert statements["DenyInsecureTransport"]["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}
    assert statements["CloudTrailWrite"] == {
        "Sid": "CloudTrailWrite",
        "Effect": "Allow",
        "Action": ["s3:PutObject"],
        "Principal": {"Service": ["cloudtrail.amazonaws.com"]},
        "Resource": [f"{TRAIL_BUCKET_ARN}/AWSLogs/{ACCOUNT}/*"],
        "Condition": {
            "StringEquals": {"s3:x-amz-acl": "bucket-owner-full-control", "aws:SourceArn": TRAIL_ARN}
        },
    }
    assert statements["CloudTrailAclCheck"]["Condition"] == {"StringEquals": {"aws:SourceArn": TRAIL_ARN}}


def test_log_groups_are_encrypted_and_kept(run_pulumi: Runner) -> None:
    mocks = run_pulumi(_build(session_log_retention_days=365))
    agent = mocks.one("aws:cloudwatch/logGroup:LogGroup", "audit-agent-logs").inputs
    sessions = mocks.one("aws:cloudwatch/logGroup:LogGroup", "audit-session-logs").inputs
    assert (agent["name"], agent["retentionInDays"], agent["kmsKeyId"]) == (
        "/gpufleet/gpufleet-dev/agent",
        180,
        KEY_ARN,
    )
    assert (sessions["name"], sessions["retentionInDays"], sessions["kmsKeyId"]) == (
        "/gpufleet/gpufleet-dev/sessions",
        365,
        KEY_ARN,
    )


def test_session_preferences_stream_encrypted_logs(run_pulumi: Runner) -> None:
    mocks = run_pulumi(_build())
    doc = mocks.one("aws:ssm/document:Document", "audit-session-prefs").inputs
    assert (doc["name"], doc["documentType"], doc["documentFormat"]) == (
        "SSM-SessionManagerRunShell",
        "Session",
        "JSON",
    )
    inputs = json.loads(doc["content"])["inputs"]
    assert {
        k: inputs[k]
        for k in (
            "cloudWatchLogGroupName",
            "cloudWatchEncryptionEnabled",
            "cloudWatchStreamingEnabled",
            "kmsKeyId",
            "runAsEnabled",
        )
    } == {
        "cloudWatchLogGroupName": "/gpufleet/gpufleet-dev/sessions",
        "cloudWatchEncryptionEnabled": True,
        "cloudWatchStreamingEnabled": True,
        "kmsKeyId": KEY_ARN,
        "runAsEnabled": False,
    }


def test_trail_and_session_document_can_be_left_to_the_organisation(run_pulumi: Runner) -> None:
    # Session logs then go to the account baseline's log group, named in its preferences.
    mocks = run_pulumi(_build(trail=False, session_manager=False))
    assert [(r.type, r.name) for r in mocks.custom()] == [
        ("aws:cloudwatch/logGroup:LogGroup", "audit-agent-logs")
    ]


def test_args_report_every_problem() -> None:
    with pytest.raises(ValueError) as raised:
        FleetAuditArgs(
            fleet="bad name",
            kms_key_arn=KEY_ARN,
            account_id=ACCOUNT,
            region=REGION,
            tags=TAGS,
            log_retention_days=-1,
        )
    assert str(raised.value) == (
        "FleetAuditArgs: log_retention_days: must not be negative (0 keeps logs "
        "forever); "
        "fleet: 'bad name' may hold letters, digits and '-' only"
    )


def test_trail_logs_go_at_the_retention_period_with_their_versions_and_markers(run_pulumi: Runner) -> None:
    mocks = run_pulumi(_build())
    rules = mocks.one(
        "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration", "audit-trail-bucket-lifecycle"
    ).inputs["rules"]
    # Expired after 180 days, its noncurrent version one day later (not another 180): about 181 days.
    assert rules == [
        {
            "id": "audit-retention",
            "status": "Enabled",
            "filter": {"prefix": ""},
            "expiration": {"days": 180},
            "noncurrentVersionExpiration": {"noncurrentDays": 1},
            "abortIncompleteMultipartUpload": {"daysAfterInitiation": 7},
        },
        {
            "id": "expired-delete-markers",
            "status": "Enabled",
            "filter": {"prefix": ""},
            "expiration": {"expiredObjectDeleteMarker": True},
        },
    ]


def test_zero_retention_keeps_logs_forever(run_pulumi: Runner) -> None:
    mocks = run_pulumi(_build(log_retention_days=0))
    assert "retentionInDays" not in mocks.one("aws:cloudwatch/logGroup:LogGroup", "audit-agent-logs").inputs
    rule = mocks.one(
        "aws:s3/bucketLifecycleConfiguration:BucketLifecycleConfiguration", "audit-trail-bucket-lifecycle"
    ).inputs["rules"][0]
    assert "expiration" not in rule and "noncurrentVersionExpiration" not in rule

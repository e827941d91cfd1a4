"""Audit on AWS: a multi-region CloudTrail, the fleet's encrypted log groups, Session Manager logging."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field

import pulumi
import pulumi_aws as aws

from gpufleet.components.identity.documents import Statement, document
from gpufleet.components.storage.aws import harden_bucket, sse_kms_only_statements, tls_only_statements
from gpufleet.components.tags import check_cost_tags

# Session Manager reads its account-wide preferences from a Session document with exactly this name.
SESSION_PREFERENCES_DOCUMENT = "SSM-SessionManagerRunShell"
IDLE_SESSION_MINUTES = 20
# Days a trail log is kept as a noncurrent version once its retention has expired it.
NONCURRENT_LOG_DAYS = 1


@dataclass(frozen=True, kw_only=True)
class FleetAuditArgs:
    fleet: str
    kms_key_arn: pulumi.Input[str]
    account_id: pulumi.Input[str]
    region: str
    tags: Mapping[str, str]
    partition: pulumi.Input[str] = "aws"
    log_retention_days: int = 180  # 0 keeps logs forever
    session_log_retention_days: int = 180  # 0 keeps logs forever
    trail: bool = True
    session_manager: bool = True
    agent_logs: bool = True
    singleton_tags: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        problems = check_cost_tags(self.tags)
        for field_name in ("log_retention_days", "session_log_retention_days"):
            if getattr(self, field_name) < 0:
                problems.append(f"{field_name}: must not be negative (0 keeps logs forever)")
        if not self.fleet.replace("-", "").isalnum():
            problems.append(f"fleet: {self.fleet!r} may hold letters, digits and '-' only")
        if problems:
            raise ValueError("FleetAuditArgs: " + "; ".join(problems))


def session_preferences(log_group_name: str, kms_key_arn: str) -> str:
    """Session Manager preferences: sessions encrypted with the fleet key and streamed, encrypted, to
    the session log group; no run-as, idle sessions closed."""
    return json.dumps(
        {
            "schemaVersion": "1.0",
            "description": "gpufleet Session Manager preferences",
            "sessionType": "Standard_Stream",
            "inputs": {
                "s3BucketName": "",
                "s3KeyPrefix": "",
                "s3EncryptionEnabled": True,
                "cloudWatchLogGroupName": log_group_name,
                "cloudWatchEncryptionEnabled": True,
                "cloudWatchStreamingEnabled": True,
                "kmsKeyId": kms_key_arn,
                "runAsEnabled": False,
                "runAsDefaultUser": "",
                "idleSessionTimeout": str(IDLE_SESSION_MINUTES),
                "shellProfile": {"windows": "", "linux": ""},
            },
        },
        sort_keys=True,
    )


def _log_group(
    resource_name: str, kind: str, retention_days: int, args: FleetAuditArgs, opts: pulumi.ResourceOptions
) -> aws.cloudwatch.LogGroup:
    """The fleet's ``/gpufleet/<fleet>/<kind>`` log group, encrypted with the fleet key; a retention of 0
    keeps logs forever (CloudWatch's own "never expire")."""
    return aws.cloudwatch.LogGroup(
        resource_name,
        name=f"/gpufleet/{args.fleet}/{kind}",
        retention_in_days=retention_days or None,
        kms_key_id=args.kms_key_arn,
        region=args.region,
        tags=dict(args.tags),
        opts=opts,
    )


class FleetAudit(pulumi.ComponentResource):
    """Children: the agent log group (``-agent-logs``, unless ``agent_logs`` is off) and, with
    ``session_manager``, the session log group (``-session-logs``), both encrypted with the fleet key
    and retained ``log_retention_days``/``session_log_retention_days``, and the Session Manager
    preferences document (``-session-prefs``, tagged ``singleton_tags``: an account/region holds one,
    so this is for a stack that owns the account's baseline; otherwise the account-baseline stack holds
    both); and, when ``trail`` is on, a multi-region CloudTrail with log-file validation, encrypted
    with the fleet key, writing to a dedicated bucket (``-trail-bucket`` with SSE-KMS, versioning,
    public-access block, expiry after the retention period, then of the noncurrent version a day
    later and of the delete marker left behind, and a TLS-only, SSE-KMS-only policy plus
    CloudTrail's write statements scoped to this trail)."""

    agent_log_group_arn: pulumi.Output[str] | None
    agent_log_group_name: pulumi.Output[str] | None
    session_log_group_arn: pulumi.Output[str] | None
    session_log_group_name: pulumi.Output[str] | None
    trail_arn: pulumi.Output[str] | None

    def __init__(self, name: str, args: FleetAuditArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__("gpufleet:audit:FleetAudit", name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        self.agent_log_group_arn = None
        self.agent_log_group_name = None
        if args.agent_logs:
            agent_logs = _log_group(f"{name}-agent-logs", "agent", args.log_retention_days, args, child)
            self.agent_log_group_arn = agent_logs.arn
            self.agent_log_group_name = agent_logs.name
        self.session_log_group_arn = None
        self.session_log_group_name = None
        if args.session_manager:
            session_logs = _log_group(
                f"{name}-session-logs", "sessions", args.session_log_retention_days, args, child
            )
            self.session_log_group_arn = session_logs.arn
            self.session_log_group_name = session_logs.name
            aws.ssm.Document(
                f"{name}-session-prefs",
                name=SESSION_PREFERENCES_DOCUMENT,
                document_type="Session",
                document_format="JSON",
                region=args.region,
                content=pulumi.Output.all(session_logs.name, args.kms_key_arn).apply(
                    lambda values: session_preferences(values[0], values[1])
                ),
                tags={**args.tags, **args.singleton_tags},
                opts=child,
            )
        self.trail_arn = self._trail(name, args) if args.trail else None
        self.register_outputs(
            {
                "agent_log_group_arn": self.agent_log_group_arn,
                "session_log_group_arn": self.session_log_group_arn,
                "trail_arn": self.trail_arn,
            }
        )

    def _trail(self, name: str, args: FleetAuditArgs) -> pulumi.Output[str]:
        child = pulumi.ResourceOptions(parent=self)
        trail_name = f"{args.fleet}-trail"
        trail_arn = pulumi.Output.concat(
            "arn:", args.partition, ":cloudtrail:", args.region, ":", args.account_id, ":trail/", trail_name
        )
        bucket = aws.s3.Bucket(
            f"{name}-trail-bucket",
            region=args.region,
            tags=dict(args.tags) | {"purpose": "audit"},
            opts=child,
        )
        hardened = harden_bucket(
            f"{name}-trail-bucket", bucket, kms_key_arn=args.kms_key_arn, region=args.region, parent=self
        )
        keep_forever = args.log_retention_days == 0
        aws.s3.BucketLifecycleConfiguration(
            f"{name}-trail-bucket-lifecycle",
            bucket=bucket.id,
            region=args.region,
            rules=[
                # In a versioned bucket, expiring a log after the retention period only makes it a
                # noncurrent version behind a delete marker: the noncurrent version goes a day later
                # (not another retention period later, which kept logs about twice as long as
                # designed), and the delete marker left with no version behind it goes next.
                aws.s3.BucketLifecycleConfigurationRuleArgs(
                    id="audit-retention",
                    status="Enabled",
                    filter=aws.s3.BucketLifecycleConfigurationRuleFilterArgs(prefix=""),
                    expiration=None
                    if keep_forever
                    else aws.s3.BucketLifecycleConfigurationRuleExpirationArgs(days=args.log_retention_days),
                    noncurrent_version_expiration=None
                    if keep_forever
                    else aws.s3.BucketLifecycleConfigurationRuleNoncurrentVersionExpirationArgs(
                        noncurrent_days=NONCURRENT_LOG_DAYS
                    ),
                    abort_incomplete_multipart_upload=aws.s3.BucketLifecycleConfigurationRuleAbortIncompleteMultipartUploadArgs(
                        days_after_initiation=7
                    ),
                ),
                # S3 takes an expired-delete-marker cleanup only in a rule without an expiration age.
                aws.s3.BucketLifecycleConfigurationRuleArgs(
                    id="expired-delete-markers",
                    status="Enabled",
                    filter=aws.s3.BucketLifecycleConfigurationRuleFilterArgs(prefix=""),
                    expiration=aws.s3.BucketLifecycleConfigurationRuleExpirationArgs(
                        expired_object_delete_marker=True
                    ),
                ),
            ],
            # S3 rejects noncurrent-version rules on a bucket whose versioning is not yet on.
            opts=pulumi.ResourceOptions(parent=self, depends_on=[hardened.versioning]),
        )
        public_access = hardened.public_access
        from_this_trail = {"aws:SourceArn": trail_arn}
        statements = [
            *tls_only_statements(bucket.arn),
            # SSE-KMS only (no SSE-S3 upload), but no key-id condition: CloudTrail sends the key of
            # its trail in a form of its own choosing, and a mismatch would stop log delivery.
            *sse_kms_only_statements(bucket.arn, None),
            Statement(
                sid="CloudTrailAclCheck",
                principals={"Service": ["cloudtrail.amazonaws.com"]},
                actions=("s3:GetBucketAcl",),
                resources=[bucket.arn],
                conditions={"StringEquals": from_this_trail},
            ),
            Statement(
                sid="CloudTrailWrite",
                principals={"Service": ["cloudtrail.amazonaws.com"]},
                actions=("s3:PutObject",),
                resources=[pulumi.Output.concat(bucket.arn, "/AWSLogs/", args.account_id, "/*")],
                conditions={"StringEquals": {"s3:x-amz-acl": "bucket-owner-full-control", **from_this_trail}},
            ),
        ]
        policy = aws.s3.BucketPolicy(
            f"{name}-trail-bucket-policy",
            bucket=bucket.id,
            policy=document(statements),
            region=args.region,
            opts=pulumi.ResourceOptions(parent=self, depends_on=[public_access]),
        )
        trail = aws.cloudtrail.Trail(
            f"{name}-trail",
            name=trail_name,
            s3_bucket_name=bucket.bucket,
            kms_key_id=args.kms_key_arn,
            is_multi_region_trail=True,
            include_global_service_events=True,
            enable_log_file_validation=True,
            enable_logging=True,
            region=args.region,
            tags=dict(args.tags),
            opts=pulumi.ResourceOptions(parent=self, depends_on=[policy]),
        )
        return trail.arn

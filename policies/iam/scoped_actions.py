"""Write and permissions-management actions that accept resource-level scoping, per cloud.

A curated subset for the services a GPU fleet touches (object storage, keys, identity, instances,
logs, Systems Manager). Every action listed accepts a resource ARN/ACS/QCS name in its `Resource`
element, so granting it on `*` is never necessary. Sources:

- AWS: Service Authorization Reference, "Actions defined by" pages for Amazon S3, AWS KMS, IAM,
  Amazon EC2, CloudWatch Logs and Systems Manager (access levels Write / Permissions management,
  with a resource type). Actions without a resource type (`ssmmessages:*`, `kms:CreateKey`) and
  `ssm:UpdateInstanceInformation` (granted on `*` by AWS's own AmazonSSMManagedInstanceCore) are
  left out on purpose.
- Alibaba Cloud: RAM "Services that work with RAM" authorization tables for OSS, ECS, KMS and RAM.
- Tencent Cloud: CAM "Services that support CAM" resource-level tables for COS, CVM, KMS and CAM.

Matching is case-insensitive (`gpufleet.policies.documents.action_matches`).
"""

from __future__ import annotations

_AWS = {
    "s3": (
        "PutObject DeleteObject DeleteObjectVersion PutObjectAcl PutObjectTagging RestoreObject "
        "AbortMultipartUpload CreateBucket DeleteBucket PutBucketPolicy DeleteBucketPolicy PutBucketAcl "
        "PutEncryptionConfiguration PutLifecycleConfiguration PutBucketVersioning PutBucketPublicAccessBlock "
        "PutReplicationConfiguration PutBucketLogging"
    ),
    "kms": (
        "Encrypt Decrypt GenerateDataKey GenerateDataKeyWithoutPlaintext ReEncryptFrom ReEncryptTo "
        "PutKeyPolicy ScheduleKeyDeletion DisableKey DisableKeyRotation CreateGrant RevokeGrant "
        "ImportKeyMaterial DeleteImportedKeyMaterial"
    ),
    "iam": (
        "PassRole CreateRole DeleteRole AttachRolePolicy DetachRolePolicy PutRolePolicy DeleteRolePolicy "
        "UpdateAssumeRolePolicy CreatePolicy CreatePolicyVersion SetDefaultPolicyVersion DeletePolicy "
        "CreateUser DeleteUser AttachUserPolicy PutUserPolicy CreateAccessKey UpdateAccessKey "
        "CreateLoginProfile UpdateLoginProfile AddUserToGroup AttachGroupPolicy PutGroupPolicy "
        "CreateInstanceProfile AddRoleToInstanceProfile"
    ),
    "ec2": (
        "RunInstances TerminateInstances StopInstances StartInstances RebootInstances "
        "ModifyInstanceAttribute ModifyInstanceMetadataOptions AttachVolume DetachVolume DeleteVolume "
        "DeleteSnapshot AuthorizeSecurityGroupIngress RevokeSecurityGroupIngress DeleteSecurityGroup"
    ),
    "logs": (
        "CreateLogGroup CreateLogStream PutLogEvents DeleteLogGroup DeleteLogStream PutRetentionPolicy "
        "DeleteRetentionPolicy AssociateKmsKey DisassociateKmsKey PutSubscriptionFilter"
    ),
    "ssm": (
        "SendCommand StartSession TerminateSession ResumeSession PutParameter DeleteParameter "
        "DeleteParameters CreateDocument UpdateDocument DeleteDocument"
    ),
}
_ALICLOUD = {
    "oss": (
        "PutObject DeleteObject PutObjectAcl PutBucketAcl PutBucketPolicy DeleteBucket PutBucketLifecycle "
        "PutBucketEncryption PutBucketVersioning"
    ),
    "ecs": "DeleteInstance StopInstance StartInstance RebootInstance ModifyInstanceAttribute RunInstances",
    "kms": "Encrypt Decrypt GenerateDataKey ScheduleKeyDeletion DisableKey",
    "ram": (
        "AttachPolicyToRole AttachPolicyToUser AttachPolicyToGroup CreatePolicyVersion PassRole "
        "CreateAccessKey UpdateRole DeleteRole"
    ),
}
_TENCENTCLOUD = {
    "cos": "PutObject DeleteObject PutBucketACL PutBucketPolicy DeleteBucket PutBucketLifecycle",
    "cvm": (
        "TerminateInstances StopInstances StartInstances RebootInstances ResetInstance "
        "ModifyInstancesAttribute"
    ),
    "kms": "Encrypt Decrypt GenerateDataKey ScheduleKeyDeletion DisableKey",
    "cam": "AttachRolePolicy AttachUserPolicy CreatePolicyVersion PassRole UpdateAssumeRolePolicy",
}


def _expand(table: dict[str, str]) -> tuple[str, ...]:
    return tuple(f"{service}:{name}" for service, names in table.items() for name in names.split())


SCOPED_WRITE_ACTIONS: dict[str, tuple[str, ...]] = {
    "aws": _expand(_AWS),
    "alicloud": _expand(_ALICLOUD),
    "tencentcloud": _expand(_TENCENTCLOUD),
}

"""Tencent Cloud CAM facts of the iam rules: the resources that carry identity and trust documents,
access keys and preset-policy attachments by name, the write actions that accept resource-level
scoping and the resources they act on (`qcs:<project>:<service>:<region>:<account>:<resource>`), and
the Tencent words of each rule's remediation."""

from __future__ import annotations

from typing import Any

from gpufleet.policies.iam._probes import KEY, names
from gpufleet.policies.props import get

# --- where documents live (gpufleet.policies.iam.sources) ---
POLICY = "tencentcloud:Cam/policy:Policy"
POLICY_BY_NAME = "tencentcloud:Cam/policyByName:PolicyByName"
POLICY_VERSION = "tencentcloud:Cam/policyVersion:PolicyVersion"
ROLE = "tencentcloud:Cam/role:Role"
ROLE_BY_NAME = "tencentcloud:Cam/roleByName:RoleByName"

LABELS = {
    POLICY: "CAM policy",
    POLICY_BY_NAME: "CAM policy",
    POLICY_VERSION: "CAM policy version",
    ROLE: "CAM role",
    ROLE_BY_NAME: "CAM role",
}
IDENTITY = {POLICY: ("document",), POLICY_BY_NAME: ("document",), POLICY_VERSION: ("policyDocument",)}
TRUST = {ROLE: ("document",), ROLE_BY_NAME: ("document",)}

# --- GF-IAM-005 access keys: token -> (label, prop naming the owner) ---
ACCESS_KEYS = {"tencentcloud:Cam/accessKey:AccessKey": ("CAM access key", "targetUin")}
ACCESS_KEY_SDK = "tencentcloud.cam.AccessKey"
WORKLOAD_ROLE = "Tencent CAM role on the CVM"

# --- GF-IAM-003 managed policies: the by-name attachment only (the id-based ones name preset
# policies by numeric id, which cannot be resolved offline) ---
ATTACHMENTS = {
    "tencentcloud:Cam/rolePolicyAttachmentByName:RolePolicyAttachmentByName": "CAM role policy attachment"
}
BROAD_POLICY_EXAMPLES = ("Qcloud*FullAccess",)
DENIED_POLICIES = ("Qcloud*FullAccess",)
ATTACH_INSTEAD = "Tencent tencentcloud.cam.RolePolicyAttachmentByName with a custom CAM policy"


def attached_policies(resource_type: str, props: Any) -> list[tuple[str, str]]:
    """("", name) of the attached policy (the attachment does not say whether it is a preset)."""
    name = get(props, "policyName")
    return [("", name)] if isinstance(name, str) else []


# How GF-IAM-006's not-applicable note names this cloud's documents.
DOCUMENTS = "Tencent CAM"

# --- GF-IAM-001, GF-IAM-002, GF-IAM-004: remediation words ---
POLICY_FIELDS = "Tencent tencentcloud.cam.Policy `document`"
RESOURCE_EXAMPLE = "`qcs::cos:...` on Tencent"
TRUST_PRINCIPALS = "Tencent CAM Role `document` principal qcs/service"
GITHUB_SUBJECT_KEY = "oidc:sub"
GITHUB_SUBJECT_NOTE = "Tencent CAM string_like"
SUBJECT_OPERATORS = "string_equal or string_like"

# --- write and permissions-management actions that accept resource-level scoping, by service
# (CAM "Services that support CAM"; gpufleet.policies.iam.scoped_actions) ---
SCOPED_WRITES = {
    "cos": "PutObject DeleteObject PutBucketACL PutBucketPolicy DeleteBucket PutBucketLifecycle",
    "cvm": (
        "TerminateInstances StopInstances StartInstances RebootInstances ResetInstance "
        "ModifyInstancesAttribute"
    ),
    "kms": "Encrypt Decrypt GenerateDataKey ScheduleKeyDeletion DisableKey",
    "cam": "AttachRolePolicy AttachUserPolicy CreatePolicyVersion PassRole UpdateAssumeRolePolicy",
}

# --- the resources each action acts on (gpufleet.policies.iam.resource_scope) ---
# (resource name prefix, number of fields, index of the service field)
SHAPE = ("qcs", 6, 2)

PROBES: dict[str, tuple[str, ...]] = {
    **names("cos:PutObject cos:DeleteObject", ("zq9bucket-1250000000/zq9key",)),
    **names(
        "cos:PutBucketACL cos:PutBucketPolicy cos:DeleteBucket cos:PutBucketLifecycle",
        ("zq9bucket-1250000000/*",),
    ),
    **names(
        "cvm:TerminateInstances cvm:StopInstances cvm:StartInstances cvm:RebootInstances "
        "cvm:ResetInstance cvm:ModifyInstancesAttribute",
        ("instance/ins-zq9probe",),
    ),
    **names("cam:AttachRolePolicy cam:PassRole cam:UpdateAssumeRolePolicy", ("roleName/zq9probe",)),
    **names("kms:Encrypt kms:Decrypt kms:GenerateDataKey kms:ScheduleKeyDeletion kms:DisableKey", KEY),
    "cam:attachuserpolicy": ("uin/100000000001",),
    "cam:createpolicyversion": ("policy/zq9probe",),
}


def probe_fields(service: str, resource: str) -> list[str]:
    """The fields of a probe resource name in the default project, a placeholder region and account."""
    return ["qcs", "", service, "zz-probe-1", "uin/100000000001", resource]

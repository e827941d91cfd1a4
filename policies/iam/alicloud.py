"""Alibaba Cloud RAM facts of the iam rules: the resources that carry identity and trust documents
(with the deprecated `statements` and `ramUsers`/`services` forms the provider still accepts), access
keys and System-policy attachments, the write actions that accept resource-level scoping and the
resources they act on (`acs:<service>:<region>:<account>:<resource>`), and the Alibaba words of each
rule's remediation."""

from __future__ import annotations

from typing import Any

from gpufleet.policies.iam._probes import BUCKET, KEY, OBJECT, names
from gpufleet.policies.props import get, get_objects, get_ref

# --- where documents live (gpufleet.policies.iam.sources) ---
POLICY = "alicloud:ram/policy:Policy"
ROLE = "alicloud:ram/role:Role"
RM_ROLE = "alicloud:resourcemanager/role:Role"

LABELS = {POLICY: "RAM policy", ROLE: "RAM role", RM_ROLE: "Resource Manager role"}
IDENTITY = {POLICY: ("policyDocument", "document")}
TRUST = {ROLE: ("assumeRolePolicyDocument", "document"), RM_ROLE: ("assumeRolePolicyDocument",)}


def _statements(props: Any) -> tuple[str, Any] | None:
    """The deprecated `statements` list of a RAM policy, as the document the provider builds from it."""
    items = get_objects(props, "statements")
    if not items:
        return None
    statements = [
        {
            "Effect": get(item, "effect"),
            "Action": get(item, "actions"),
            "Resource": get_ref(item, "resources"),
        }
        for item in items
    ]
    return "statements", {"Version": "1", "Statement": statements}


def _trust_lists(props: Any) -> tuple[str, Any] | None:
    """The deprecated `ramUsers`/`services` lists of a RAM role, as the trust document they stand for."""
    principal = {
        kind: value
        for kind, path in (("RAM", "ramUsers"), ("Service", "services"))
        if (value := get_ref(props, path)) not in (None, [], "")
    }
    if not principal:
        return None
    statement = {"Effect": "Allow", "Action": "sts:AssumeRole", "Principal": principal}
    return "ramUsers/services", {"Version": "1", "Statement": [statement]}


# token -> (path, document) read when none of the token's document props is given
IDENTITY_FALLBACK = {POLICY: _statements}
TRUST_FALLBACK = {ROLE: _trust_lists}

# --- GF-IAM-005 access keys: token -> (label, prop naming the owner) ---
ACCESS_KEYS = {"alicloud:ram/accessKey:AccessKey": ("RAM access key", "userName")}
ACCESS_KEY_SDK = "alicloud.ram.AccessKey"
WORKLOAD_ROLE = "Alibaba RAM role on the instance"

# --- GF-IAM-003 managed policies: System policies attached by name ---
ATTACHMENTS = {
    "alicloud:ram/rolePolicyAttachment:RolePolicyAttachment": "RAM role policy attachment",
    "alicloud:ram/userPolicyAttachment:UserPolicyAttachment": "RAM user policy attachment",
    "alicloud:ram/groupPolicyAttachment:GroupPolicyAttachment": "RAM group policy attachment",
}
BROAD_POLICY_EXAMPLES = ("Aliyun*FullAccess",)
DENIED_POLICIES = ("Aliyun*FullAccess",)
ATTACH_INSTEAD = "Alibaba alicloud.ram.RolePolicyAttachment with a Custom policy"


def attached_policies(resource_type: str, props: Any) -> list[tuple[str, str]]:
    """("", name) of the attached policy when it is a System policy (`policyType` System)."""
    system = str(get(props, "policyType") or "").lower() == "system"
    name = get(props, "policyName") if system else None
    return [("", name)] if isinstance(name, str) else []


# How GF-IAM-006's not-applicable note names this cloud's documents.
DOCUMENTS = "Alibaba RAM"

# --- GF-IAM-001, GF-IAM-002, GF-IAM-004: remediation words ---
POLICY_FIELDS = "Alibaba alicloud.ram.Policy `policyDocument`"
RESOURCE_EXAMPLE = "`acs:oss:*:*:bucket/*` on Alibaba"
BROAD_PATTERNS = ("`acs:ecs:*:*:instance/*`",)
TRUST_PRINCIPALS = "Alibaba RAM Role `assumeRolePolicyDocument` Principal RAM/Service"
GITHUB_SUBJECT_KEY = "oidc:sub"
GITHUB_SUBJECT_NOTE = "Alibaba RAM StringLike"
SUBJECT_OPERATORS = "StringEquals or StringLike"

# --- write and permissions-management actions that accept resource-level scoping, by service
# (RAM "Services that work with RAM"; gpufleet.policies.iam.scoped_actions) ---
SCOPED_WRITES = {
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

# --- the resources each action acts on (gpufleet.policies.iam.resource_scope) ---
# (resource name prefix, number of fields, index of the service field)
SHAPE = ("acs", 5, 1)

PROBES: dict[str, tuple[str, ...]] = {
    **names("oss:PutObject oss:DeleteObject oss:PutObjectAcl", OBJECT),
    **names(
        "oss:PutBucketAcl oss:PutBucketPolicy oss:DeleteBucket oss:PutBucketLifecycle "
        "oss:PutBucketEncryption oss:PutBucketVersioning",
        BUCKET,
    ),
    **names(
        "ecs:DeleteInstance ecs:StopInstance ecs:StartInstance ecs:RebootInstance "
        "ecs:ModifyInstanceAttribute",
        ("instance/i-zq9probe",),
    ),
    # Launching needs these; naming one image, security group or vSwitch scopes it.
    "ecs:runinstances": (
        "instance/i-zq9probe",
        "image/m-zq9probe",
        "securitygroup/sg-zq9probe",
        "vpc|vswitch/vsw-zq9probe",
    ),
    **names("kms:Encrypt kms:Decrypt kms:GenerateDataKey kms:ScheduleKeyDeletion kms:DisableKey", KEY),
    **names("ram:AttachPolicyToRole ram:PassRole ram:UpdateRole ram:DeleteRole", ("role/zq9probe",)),
    **names("ram:AttachPolicyToUser ram:CreateAccessKey", ("user/zq9probe",)),
    "ram:attachpolicytogroup": ("group/zq9probe",),
    "ram:createpolicyversion": ("policy/zq9probe",),
}


def probe_fields(service: str, resource: str) -> list[str]:
    """The fields of a probe resource name in a placeholder region and account."""
    return ["acs", service, "zz-probe-1", "1000000000000000", resource]

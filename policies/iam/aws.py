"""AWS IAM facts of the iam rules: the resources that carry identity and trust documents, access
keys and managed-policy attachments, the write actions that accept resource-level scoping and the
resources they act on, the privilege-escalation actions (GF-IAM-006 is AWS-only), and the AWS words
of each rule's remediation."""

from __future__ import annotations

import re
from typing import Any

from pulumi_policy.proxy import UnknownValueError

from gpufleet.policies.documents import PolicyDocument, parse_document
from gpufleet.policies.iam._probes import BUCKET, KEY, OBJECT, names
from gpufleet.policies.props import get_objects, get_ref, get_text, is_unknown, plain

# --- where documents live (gpufleet.policies.iam.sources) ---
POLICY = "aws:iam/policy:Policy"
ROLE_POLICY = "aws:iam/rolePolicy:RolePolicy"
USER_POLICY = "aws:iam/userPolicy:UserPolicy"
GROUP_POLICY = "aws:iam/groupPolicy:GroupPolicy"
ROLE = "aws:iam/role:Role"

LABELS = {
    POLICY: "IAM policy",
    ROLE_POLICY: "IAM role policy",
    USER_POLICY: "IAM user policy",
    GROUP_POLICY: "IAM group policy",
    ROLE: "IAM role",
}
IDENTITY = {
    POLICY: ("policy",),
    ROLE_POLICY: ("policy",),
    USER_POLICY: ("policy",),
    GROUP_POLICY: ("policy",),
}
TRUST = {ROLE: ("assumeRolePolicy",)}
# Types whose identity documents are a list of inline policies, read by `inline_documents`.
INLINE_IDENTITY = (ROLE,)


def inline_documents(resource_type: str, props: Any) -> list[tuple[str, PolicyDocument]]:
    """(where, document) of each of a role's `inlinePolicies`."""
    found: list[tuple[str, PolicyDocument]] = []
    for index, inline in enumerate(get_objects(props, "inlinePolicies")):
        if is_unknown(inline):
            raise UnknownValueError(inline, [f"inlinePolicies.{index}"])
        name = get_text(inline, "name")
        path = f"inlinePolicies.{index}.policy"
        document = parse_document(get_ref(inline, "policy"), path, "aws")
        if document is not None:
            found.append((f"inline policy '{name}'" if name else "inline policy", document))
    return found


# --- GF-IAM-005 access keys: token -> (label, prop naming the owner) ---
ACCESS_KEYS = {"aws:iam/accessKey:AccessKey": ("IAM access key", "user")}
ACCESS_KEY_SDK = "aws.iam.AccessKey"
WORKLOAD_ROLE = "EC2 instance profile, EKS IRSA/Pod Identity"

# --- GF-IAM-003 managed policies ---
ROLE_ATTACHMENT = "aws:iam/rolePolicyAttachment:RolePolicyAttachment"
USER_ATTACHMENT = "aws:iam/userPolicyAttachment:UserPolicyAttachment"
GROUP_ATTACHMENT = "aws:iam/groupPolicyAttachment:GroupPolicyAttachment"
POLICY_ATTACHMENT = "aws:iam/policyAttachment:PolicyAttachment"
ROLE_EXCLUSIVE = "aws:iam/rolePolicyAttachmentsExclusive:RolePolicyAttachmentsExclusive"
USER_EXCLUSIVE = "aws:iam/userPolicyAttachmentsExclusive:UserPolicyAttachmentsExclusive"
GROUP_EXCLUSIVE = "aws:iam/groupPolicyAttachmentsExclusive:GroupPolicyAttachmentsExclusive"

# token -> (label, arn props (single), arn list props)
_ATTACHMENT_PROPS: dict[str, tuple[str, str | None, str | None]] = {
    ROLE: ("IAM role", None, "managedPolicyArns"),
    ROLE_ATTACHMENT: ("IAM role policy attachment", "policyArn", None),
    USER_ATTACHMENT: ("IAM user policy attachment", "policyArn", None),
    GROUP_ATTACHMENT: ("IAM group policy attachment", "policyArn", None),
    POLICY_ATTACHMENT: ("IAM policy attachment", "policyArn", None),
    ROLE_EXCLUSIVE: ("IAM role policy attachments", None, "policyArns"),
    USER_EXCLUSIVE: ("IAM user policy attachments", None, "policyArns"),
    GROUP_EXCLUSIVE: ("IAM group policy attachments", None, "policyArns"),
}
ATTACHMENTS = {token: label for token, (label, _, _) in _ATTACHMENT_PROPS.items()}
BROAD_POLICY_EXAMPLES = ("AdministratorAccess", "PowerUserAccess")
# AWS-managed `*FullAccess` policies (AmazonS3FullAccess, AWSLambda_FullAccess, CloudWatchFullAccessV2,
# AmazonDynamoDBFullAccesswithDataPipeline) count; so do the administrator variants
# (AdministratorAccess-Amplify) and the administrator job functions (`DENIED_PATHS`).
DENIED_POLICIES = ("AdministratorAccess*", "PowerUserAccess", "IAMFullAccess", "*FullAccess*")
DENIED_PATHS = (
    "job-function/SystemAdministrator",
    "job-function/NetworkAdministrator",
    "job-function/DatabaseAdministrator",
)
ATTACH_INSTEAD = "AWS aws.iam.RolePolicyAttachment `policyArn` / Role `managedPolicyArns`"
_MANAGED = re.compile(r"^arn:[a-z-]+:iam::aws:policy/(?P<path>(?:.*/)?)(?P<name>[^/]+)$")


def attached_policies(resource_type: str, props: Any) -> list[tuple[str, str]]:
    """(path, name) of every AWS-managed policy ARN given (`job-function/`, `SystemAdministrator`).
    Only AWS-managed ARNs count: a customer policy is judged by its document."""
    _, single, many = _ATTACHMENT_PROPS[resource_type]
    arns: list[object] = []
    if single:
        arns.append(get_ref(props, single))
    if many:
        value = plain(get_ref(props, many))
        arns.extend(value if isinstance(value, list) else [])
    found = []
    for arn in arns:
        if not isinstance(arn, str) or is_unknown(arn):
            continue  # an unknown ARN is a customer policy created in the program, not an AWS one
        match = _MANAGED.match(arn)
        if match:
            found.append((match.group("path"), match.group("name")))
    return found


# --- GF-IAM-006 privilege escalation (Rhino Security Labs' list) ---
ESCALATION_ACTIONS = (
    "iam:CreatePolicyVersion",
    "iam:SetDefaultPolicyVersion",
    "iam:AttachUserPolicy",
    "iam:AttachGroupPolicy",
    "iam:AttachRolePolicy",
    "iam:PutUserPolicy",
    "iam:PutGroupPolicy",
    "iam:PutRolePolicy",
    "iam:CreateAccessKey",
    "iam:CreateLoginProfile",
    "iam:UpdateLoginProfile",
    "iam:AddUserToGroup",
    "iam:UpdateAssumeRolePolicy",
    "iam:DeleteRolePermissionsBoundary",
    "iam:DeleteUserPermissionsBoundary",
    "iam:PutRolePermissionsBoundary",
    "iam:PutUserPermissionsBoundary",
)
ESCALATION_ON_ANY_RESOURCE = ("iam:PassRole", "sts:AssumeRole")
ESCALATION_REMEDIATION = (
    "Remove iam:CreatePolicyVersion, iam:SetDefaultPolicyVersion, iam:Attach*Policy, iam:Put*Policy, "
    "iam:CreateAccessKey, login-profile, group-membership, trust-policy and permissions-boundary "
    "actions from workload policies (aws.iam.Policy/RolePolicy `policy`, Role `inlinePolicies`), and "
    "scope iam:PassRole and sts:AssumeRole to the role ARNs the workload really passes or assumes."
)
# How GF-IAM-006's not-applicable note names this cloud's documents.
DOCUMENTS = "AWS IAM"

# --- GF-IAM-001 wildcard actions ---
POLICY_FIELDS = "AWS aws.iam.Policy/RolePolicy `policy` and Role `inlinePolicies`"
# The actions by which a grant on IAM becomes administration of the account: pass or create a role,
# create a user or a key, attach or write a policy, rewrite a trust. A glob covering all of them
# (`iam:*e*` does) is as broad as `iam:*`, even if it misses the group actions or some read action.
AWS_IAM_ADMIN = (
    "iam:PassRole",
    "iam:CreateRole",
    "iam:CreateUser",
    "iam:CreateAccessKey",
    "iam:CreateLoginProfile",
    "iam:AttachRolePolicy",
    "iam:AttachUserPolicy",
    "iam:PutRolePolicy",
    "iam:PutUserPolicy",
    "iam:CreatePolicyVersion",
    "iam:UpdateAssumeRolePolicy",
)
ADMIN_CORE = {"iam": AWS_IAM_ADMIN}

# --- GF-IAM-002 unscoped writes: remediation words ---
RESOURCE_NAMES = "bucket and object ARNs, key ARNs, role ARNs, log group ARNs"
BROAD_PATTERNS = ("`arn:aws:s3:::*/*`", "`arn:aws:iam::<account>:role/*`")

# --- GF-IAM-004 trust ---
TRUST_PRINCIPALS = "AWS Role `assumeRolePolicy` Principal"
PIN_CONDITIONS = "StringEquals aws:PrincipalOrgID, aws:PrincipalAccount, aws:SourceAccount"
GITHUB_SUBJECT_KEY = "token.actions.githubusercontent.com:sub"
GITHUB_SUBJECT_NOTE = "AWS"
SUBJECT_OPERATORS = "StringEquals or StringLike"

URLS = {
    "GF-IAM-001": "https://docs.aws.amazon.com/IAM/latest/UserGuide/best-practices.html#grant-least-privilege",
    "GF-IAM-002": (
        "https://docs.aws.amazon.com/service-authorization/latest/reference/"
        "reference_policies_actions-resources-contextkeys.html"
    ),
    "GF-IAM-003": "https://docs.aws.amazon.com/IAM/latest/UserGuide/access_policies_job-functions.html",
    "GF-IAM-004": "https://docs.aws.amazon.com/IAM/latest/UserGuide/reference_policies_elements_principal.html",
    "GF-IAM-005": "https://docs.aws.amazon.com/IAM/latest/UserGuide/best-practices.html#bp-workloads-use-roles",
    "GF-IAM-006": "https://rhinosecuritylabs.com/aws/aws-privilege-escalation-methods-mitigation/",
}
CHECKOV = {
    "GF-IAM-001": ("CKV_AWS_1", "CKV_AWS_62", "CKV_AWS_63"),
    "GF-IAM-002": ("CKV_AWS_355", "CKV_AWS_290", "CKV_AWS_289"),
    "GF-IAM-003": ("CKV_AWS_274",),
    "GF-IAM-004": ("CKV_AWS_60",),
    "GF-IAM-006": ("CKV_AWS_286", "CKV_AWS_287"),
}

# --- write and permissions-management actions that accept resource-level scoping, by service
# (Service Authorization Reference; gpufleet.policies.iam.scoped_actions) ---
SCOPED_WRITES = {
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

# --- the resources each action acts on (gpufleet.policies.iam.resource_scope) ---
# (ARN prefix, number of fields, index of the service field)
SHAPE = ("arn", 6, 2)
_GLOBAL = frozenset({"iam", "s3", "sts"})
_ROLE = ("iam|role/zq9probe", "iam|role/zq9path/zq9probe")
_USER = ("user/zq9probe", "user/zq9path/zq9probe")
_GROUP = ("group/zq9probe", "group/zq9path/zq9probe")
_POLICY = ("policy/zq9probe", "policy/zq9path/zq9probe")
_PROFILE = ("instance-profile/zq9probe", "instance-profile/zq9path/zq9probe")
_INSTANCE = ("ec2|instance/i-0zq9probe",)
_LOG_GROUP = ("log-group:zq9probe:*", "log-group:/zq9path/zq9probe:*")
_LOG_STREAM = ("log-group:/zq9path/zq9probe:log-stream:zq9probe",)
_PARAMETER = ("parameter/zq9probe", "parameter/zq9path/zq9probe")
_DOCUMENT = ("ssm|document/zq9probe",)


PROBES: dict[str, tuple[str, ...]] = {
    **names(
        "s3:PutObject s3:DeleteObject s3:DeleteObjectVersion s3:PutObjectAcl s3:PutObjectTagging "
        "s3:RestoreObject s3:AbortMultipartUpload",
        OBJECT,
    ),
    **names(
        "s3:CreateBucket s3:DeleteBucket s3:PutBucketPolicy s3:DeleteBucketPolicy s3:PutBucketAcl "
        "s3:PutEncryptionConfiguration s3:PutLifecycleConfiguration s3:PutBucketVersioning "
        "s3:PutBucketPublicAccessBlock s3:PutReplicationConfiguration s3:PutBucketLogging",
        BUCKET,
    ),
    **names(
        "iam:PassRole iam:CreateRole iam:DeleteRole iam:AttachRolePolicy iam:DetachRolePolicy "
        "iam:PutRolePolicy iam:DeleteRolePolicy iam:UpdateAssumeRolePolicy sts:AssumeRole "
        "iam:PutRolePermissionsBoundary iam:DeleteRolePermissionsBoundary",
        _ROLE,
    ),
    **names("iam:CreatePolicy iam:CreatePolicyVersion iam:SetDefaultPolicyVersion iam:DeletePolicy", _POLICY),
    **names(
        "iam:CreateUser iam:DeleteUser iam:AttachUserPolicy iam:PutUserPolicy iam:CreateAccessKey "
        "iam:UpdateAccessKey iam:CreateLoginProfile iam:UpdateLoginProfile iam:PutUserPermissionsBoundary "
        "iam:DeleteUserPermissionsBoundary",
        _USER,
    ),
    **names("iam:AddUserToGroup iam:AttachGroupPolicy iam:PutGroupPolicy", _GROUP),
    **names("iam:CreateInstanceProfile iam:AddRoleToInstanceProfile", _PROFILE),
    **names(
        "ec2:TerminateInstances ec2:StopInstances ec2:StartInstances ec2:RebootInstances "
        "ec2:ModifyInstanceAttribute ec2:ModifyInstanceMetadataOptions",
        _INSTANCE,
    ),
    # Launching needs every one of these; naming one image, subnet or security group scopes it.
    "ec2:runinstances": (
        *_INSTANCE,
        "volume/vol-0zq9probe",
        "network-interface/eni-0zq9probe",
        "subnet/subnet-0zq9probe",
        "security-group/sg-0zq9probe",
        "image/ami-0zq9probe",
    ),
    **names("ec2:AttachVolume ec2:DetachVolume", (*_INSTANCE, "volume/vol-0zq9probe")),
    "ec2:deletevolume": ("volume/vol-0zq9probe",),
    "ec2:deletesnapshot": ("snapshot/snap-0zq9probe",),
    **names(
        "ec2:AuthorizeSecurityGroupIngress ec2:RevokeSecurityGroupIngress ec2:DeleteSecurityGroup",
        ("security-group/sg-0zq9probe",),
    ),
    **names(
        "logs:CreateLogGroup logs:DeleteLogGroup logs:PutRetentionPolicy logs:DeleteRetentionPolicy "
        "logs:AssociateKmsKey logs:DisassociateKmsKey logs:PutSubscriptionFilter",
        _LOG_GROUP,
    ),
    **names("logs:CreateLogStream logs:PutLogEvents logs:DeleteLogStream", _LOG_STREAM),
    **names(
        "kms:Encrypt kms:Decrypt kms:GenerateDataKey kms:GenerateDataKeyWithoutPlaintext kms:ReEncryptFrom "
        "kms:ReEncryptTo kms:PutKeyPolicy kms:ScheduleKeyDeletion kms:DisableKey kms:DisableKeyRotation "
        "kms:CreateGrant kms:RevokeGrant kms:ImportKeyMaterial kms:DeleteImportedKeyMaterial",
        KEY,
    ),
    **names("ssm:SendCommand ssm:StartSession", (*_INSTANCE, *_DOCUMENT)),
    **names("ssm:TerminateSession ssm:ResumeSession", ("session/zq9probe-0zq9",)),
    **names("ssm:PutParameter ssm:DeleteParameter ssm:DeleteParameters", _PARAMETER),
    **names("ssm:CreateDocument ssm:UpdateDocument ssm:DeleteDocument", _DOCUMENT),
}


def probe_fields(service: str, resource: str) -> list[str]:
    """The fields of a probe ARN in a placeholder partition, region and account (no region for a
    global service, no account for S3)."""
    region = "" if service in _GLOBAL else "zz-probe-1"
    return ["arn", "aws", service, region, "" if service == "s3" else "000000000000", resource]

"""Whether a statement's resources reach every resource an action acts on, judged by pattern.

A resource pattern is not "scoped" because it is spelt as an ARN: `arn:aws:s3:::*/*` (every object
of every bucket), `arn:aws:logs:*:*:*`, `arn:aws:iam::123456789012:*`, `arn:*:iam::*:role/*`,
`arn:aws:iam::1:role*` and `arn:aws:iam::1:role/?*` reach every resource of their service or type
just as `*` does. The test is made with probes: for each kind of resource an action acts on, a
resource that nobody would name (`role/zq9probe`, `zq9bucket/zq9key`) is written out as an ARN in
the pattern's own partition, region and account (those prefix fields are not a scope: a policy
lives in one account), and the pattern must match it. A statement reaches every resource of an
action when each of the action's probes is matched by one of its resources: `ec2:RunInstances`
needs an image, a subnet and a security group as well as the instance, so naming one subnet scopes
it; `iam:PassRole` needs only a role, so `role/*` in any account does not.

Alibaba Cloud (`acs:<service>:<region>:<account>:<resource>`) and Tencent Cloud
(`qcs:<project>:<service>:<region>:<account>:<resource>`) resources are judged the same way.
"""

from __future__ import annotations

from gpufleet.policies.documents import Statement, resource_matches

# cloud -> (ARN prefix, number of fields, index of the service field)
_SHAPES = {"aws": ("arn", 6, 2), "alicloud": ("acs", 5, 1), "tencentcloud": ("qcs", 6, 2)}
_GLOBAL_AWS = frozenset({"iam", "s3", "sts"})

# Probes: (service, resource part); the service is the action's own unless written `service|...`.
_ROLE = ("iam|role/zq9probe", "iam|role/zq9path/zq9probe")
_USER = ("user/zq9probe", "user/zq9path/zq9probe")
_GROUP = ("group/zq9probe", "group/zq9path/zq9probe")
_POLICY = ("policy/zq9probe", "policy/zq9path/zq9probe")
_PROFILE = ("instance-profile/zq9probe", "instance-profile/zq9path/zq9probe")
_OBJECT = ("zq9bucket/zq9key", "zq9bucket/zq9dir/zq9key")
_BUCKET = ("zq9bucket",)
_INSTANCE = ("ec2|instance/i-0zq9probe",)
_LOG_GROUP = ("log-group:zq9probe:*", "log-group:/zq9path/zq9probe:*")
_LOG_STREAM = ("log-group:/zq9path/zq9probe:log-stream:zq9probe",)
_PARAMETER = ("parameter/zq9probe", "parameter/zq9path/zq9probe")
_DOCUMENT = ("ssm|document/zq9probe",)
_KEY = ("key/0zq9probe-0000",)


def _names(names: str, probes: tuple[str, ...]) -> dict[str, tuple[str, ...]]:
    return {name.lower(): probes for name in names.split()}


_AWS: dict[str, tuple[str, ...]] = {
    **_names(
        "s3:PutObject s3:DeleteObject s3:DeleteObjectVersion s3:PutObjectAcl s3:PutObjectTagging "
        "s3:RestoreObject s3:AbortMultipartUpload",
        _OBJECT,
    ),
    **_names(
        "s3:CreateBucket s3:DeleteBucket s3:PutBucketPolicy s3:DeleteBucketPolicy s3:PutBucketAcl "
        "s3:PutEncryptionConfiguration s3:PutLifecycleConfiguration s3:PutBucketVersioning "
        "s3:PutBucketPublicAccessBlock s3:PutReplicationConfiguration s3:PutBucketLogging",
        _BUCKET,
    ),
    **_names(
        "iam:PassRole iam:CreateRole iam:DeleteRole iam:AttachRolePolicy iam:DetachRolePolicy "
        "iam:PutRolePolicy iam:DeleteRolePolicy iam:UpdateAssumeRolePolicy sts:AssumeRole "
        "iam:PutRolePermissionsBoundary iam:DeleteRolePermissionsBoundary",
        _ROLE,
    ),
    **_names(
        "iam:CreatePolicy iam:CreatePolicyVersion iam:SetDefaultPolicyVersion iam:DeletePolicy", _POLICY
    ),
    **_names(
        "iam:CreateUser iam:DeleteUser iam:AttachUserPolicy iam:PutUserPolicy iam:CreateAccessKey "
        "iam:UpdateAccessKey iam:CreateLoginProfile iam:UpdateLoginProfile iam:PutUserPermissionsBoundary "
        "iam:DeleteUserPermissionsBoundary",
        _USER,
    ),
    **_names("iam:AddUserToGroup iam:AttachGroupPolicy iam:PutGroupPolicy", _GROUP),
    **_names("iam:CreateInstanceProfile iam:AddRoleToInstanceProfile", _PROFILE),
    **_names(
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
    **_names("ec2:AttachVolume ec2:DetachVolume", (*_INSTANCE, "volume/vol-0zq9probe")),
    "ec2:deletevolume": ("volume/vol-0zq9probe",),
    "ec2:deletesnapshot": ("snapshot/snap-0zq9probe",),
    **_names(
        "ec2:AuthorizeSecurityGroupIngress ec2:RevokeSecurityGroupIngress ec2:DeleteSecurityGroup",
        ("security-group/sg-0zq9probe",),
    ),
    **_names(
        "logs:CreateLogGroup logs:DeleteLogGroup logs:PutRetentionPolicy logs:DeleteRetentionPolicy "
        "logs:AssociateKmsKey logs:DisassociateKmsKey logs:PutSubscriptionFilter",
        _LOG_GROUP,
    ),
    **_names("logs:CreateLogStream logs:PutLogEvents logs:DeleteLogStream", _LOG_STREAM),
    **_names(
        "kms:Encrypt kms:Decrypt kms:GenerateDataKey kms:GenerateDataKeyWithoutPlaintext kms:ReEncryptFrom "
        "kms:ReEncryptTo kms:PutKeyPolicy kms:ScheduleKeyDeletion kms:DisableKey kms:DisableKeyRotation "
        "kms:CreateGrant kms:RevokeGrant kms:ImportKeyMaterial kms:DeleteImportedKeyMaterial",
        _KEY,
    ),
    **_names("ssm:SendCommand ssm:StartSession", (*_INSTANCE, *_DOCUMENT)),
    **_names("ssm:TerminateSession ssm:ResumeSession", ("session/zq9probe-0zq9",)),
    **_names("ssm:PutParameter ssm:DeleteParameter ssm:DeleteParameters", _PARAMETER),
    **_names("ssm:CreateDocument ssm:UpdateDocument ssm:DeleteDocument", _DOCUMENT),
}
_ALICLOUD: dict[str, tuple[str, ...]] = {
    **_names("oss:PutObject oss:DeleteObject oss:PutObjectAcl", _OBJECT),
    **_names(
        "oss:PutBucketAcl oss:PutBucketPolicy oss:DeleteBucket oss:PutBucketLifecycle "
        "oss:PutBucketEncryption oss:PutBucketVersioning",
        _BUCKET,
    ),
    **_names(
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
    **_names("kms:Encrypt kms:Decrypt kms:GenerateDataKey kms:ScheduleKeyDeletion kms:DisableKey", _KEY),
    **_names("ram:AttachPolicyToRole ram:PassRole ram:UpdateRole ram:DeleteRole", ("role/zq9probe",)),
    **_names("ram:AttachPolicyToUser ram:CreateAccessKey", ("user/zq9probe",)),
    "ram:attachpolicytogroup": ("group/zq9probe",),
    "ram:createpolicyversion": ("policy/zq9probe",),
}
_TENCENTCLOUD: dict[str, tuple[str, ...]] = {
    **_names("cos:PutObject cos:DeleteObject", ("zq9bucket-1250000000/zq9key",)),
    **_names(
        "cos:PutBucketACL cos:PutBucketPolicy cos:DeleteBucket cos:PutBucketLifecycle",
        ("zq9bucket-1250000000/*",),
    ),
    **_names(
        "cvm:TerminateInstances cvm:StopInstances cvm:StartInstances cvm:RebootInstances "
        "cvm:ResetInstance cvm:ModifyInstancesAttribute",
        ("instance/ins-zq9probe",),
    ),
    **_names("cam:AttachRolePolicy cam:PassRole cam:UpdateAssumeRolePolicy", ("roleName/zq9probe",)),
    **_names("kms:Encrypt kms:Decrypt kms:GenerateDataKey kms:ScheduleKeyDeletion kms:DisableKey", _KEY),
    "cam:attachuserpolicy": ("uin/100000000001",),
    "cam:createpolicyversion": ("policy/zq9probe",),
}
_PROBES = {"aws": _AWS, "alicloud": _ALICLOUD, "tencentcloud": _TENCENTCLOUD}
_ANY = ("zq9type/zq9probe",)
"""An action without a table row is reached only by a pattern that covers its whole service."""


def _probe_arn(pattern: str, cloud: str, service: str, resource: str) -> str:
    """The probe resource as an ARN in the pattern's own partition, region and account."""
    prefix, size, service_at = _SHAPES[cloud]
    if cloud == "aws":
        region = "" if service in _GLOBAL_AWS else "zz-probe-1"
        fields = [prefix, "aws", service, region, "" if service == "s3" else "000000000000", resource]
    elif cloud == "alicloud":
        fields = [prefix, service, "zz-probe-1", "1000000000000000", resource]
    else:
        fields = [prefix, "", service, "zz-probe-1", "uin/100000000001", resource]
    given = pattern.split(":", size - 1)
    complete = len(given) == size
    for index in range(1, size - 1):
        if index >= len(given):
            break
        if "*" in given[index] or "?" in given[index]:
            if not complete:  # a wildcard that may span fields: the later ones are not where they seem
                break
            continue
        if index != service_at:
            fields[index] = given[index]
    return ":".join(fields)


def probes(cloud: str, action: str) -> tuple[tuple[str, str], ...]:
    """(service, resource part) for every kind of resource `action` (a table action) acts on."""
    own = action.split(":", 1)[0].lower()
    out = []
    for probe in _PROBES[cloud].get(action.lower(), _ANY):
        service, sep, resource = probe.partition("|")
        out.append((service, resource) if sep else (own, probe))
    return tuple(out)


def reaching(statement: Statement, cloud: str, action: str) -> tuple[str, ...]:
    """The statement's resource patterns that together reach every resource `action` acts on, or
    `()` when some kind of resource is scoped (or the statement names none). `NotResource` is not
    judged here: it reaches everything but what it lists."""
    used: list[str] = []
    for service, resource in probes(cloud, action):
        hits = [
            pattern
            for pattern in statement.resources
            if resource_matches(pattern, _probe_arn(pattern, cloud, service, resource))
        ]
        if not hits:
            return ()
        used.extend(hit for hit in hits if hit not in used)
    return tuple(used)


def covers_all(pattern: str, cloud: str, action: str) -> bool:
    """True when the one resource pattern reaches every resource `action` acts on."""
    statement = Statement(effect="allow", actions=(action,), resources=(pattern,))
    return bool(reaching(statement, cloud, action))

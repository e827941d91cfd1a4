"""AWS KMS: the key and alias type tokens, and what the key rules say of AWS keys.

Read by the neutral key code through `cloud_parts("gpufleet.policies.kms")`: `KEY_TYPES`,
`ALIAS_TARGET` and `EXTERNAL_TYPES` for the key index (`_keys`); `ROTATION_*` for GF-KMS-001;
`KEY_POLICY_*` for GF-KMS-002, which only AWS models (a key policy document on the key).
"""

from __future__ import annotations

from pulumi_policy import ReportViolation, ResourceValidationArgs

from gpufleet.policies.dialects.aws import aws_account
from gpufleet.policies.props import get, is_set, truthy

AWS_KEY = "aws:kms/key:Key"
AWS_EXTERNAL_KEY = "aws:kms/externalKey:ExternalKey"
AWS_REPLICA_KEY = "aws:kms/replicaKey:ReplicaKey"
AWS_REPLICA_EXTERNAL_KEY = "aws:kms/replicaExternalKey:ReplicaExternalKey"
AWS_KEY_POLICY = "aws:kms/keyPolicy:KeyPolicy"
AWS_ALIAS = "aws:kms/alias:Alias"

KEY_TYPES = frozenset({AWS_KEY, AWS_EXTERNAL_KEY, AWS_REPLICA_KEY, AWS_REPLICA_EXTERNAL_KEY})
# Alias type: (input naming the alias, input naming its key).
ALIAS_TARGET = {AWS_ALIAS: ("name", "targetKeyId")}
# Key types whose material is always imported (origin EXTERNAL).
EXTERNAL_TYPES = frozenset({AWS_EXTERNAL_KEY, AWS_REPLICA_EXTERNAL_KEY})

# GF-KMS-001.
ROTATION_REMEDIATION = "set enableKeyRotation = true on aws.kms.Key (optionally rotationPeriodInDays)."
ROTATION_URL = "https://docs.aws.amazon.com/kms/latest/developerguide/rotate-keys.html"
ROTATION_CHECKOV = ("CKV_AWS_7",)
# Keys holding imported material, which do not rotate: type -> how findings name it.
ROTATION_IMPORTED = {
    AWS_EXTERNAL_KEY: "AWS KMS external key",
    AWS_REPLICA_EXTERNAL_KEY: "AWS KMS replica external key",
}
# Keys that rotate with another key: type -> why rotation does not apply ({name} is the key's).
ROTATION_FOLLOWS = {AWS_REPLICA_KEY: "AWS KMS replica key '{name}' rotates with its primary key"}


def judge_rotation(args: ResourceValidationArgs, report: ReportViolation) -> None:
    """`enableKeyRotation` on a symmetric key outside a custom key store."""
    props, name = args.props, args.name
    spec = get(props, "customerMasterKeySpec")
    if spec is not None and str(spec) != "SYMMETRIC_DEFAULT":
        args.not_applicable(f"AWS KMS key '{name}' has spec {spec}, which AWS does not rotate automatically")
    if is_set(props, "customKeyStoreId") or is_set(props, "xksKeyId"):
        args.not_applicable(f"AWS KMS key '{name}' is in a custom key store, which AWS does not rotate")
    if not truthy(get(props, "enableKeyRotation")):
        report(f"AWS KMS key '{name}' does not rotate (enableKeyRotation is not true); enable rotation", None)


ROTATION_JUDGES = {AWS_KEY: judge_rotation}

# GF-KMS-002: the resources carrying a key policy document, by how findings name them.
KEY_POLICY_KINDS = {
    AWS_KEY: "AWS KMS key",
    AWS_EXTERNAL_KEY: "AWS KMS external key",
    AWS_REPLICA_KEY: "AWS KMS replica key",
    AWS_REPLICA_EXTERNAL_KEY: "AWS KMS replica external key",
    AWS_KEY_POLICY: "AWS KMS key policy",
}
# KMS's own caller key, beside the account and organisation keys every rule shares.
KEY_POLICY_PINNING_KEYS = {"kms:calleraccount": aws_account}
KEY_POLICY_RESTRICT = "aws:PrincipalAccount or kms:CallerAccount"
KEY_POLICY_REMEDIATION = (
    "In the key policy (aws.kms.Key policy or aws.kms.KeyPolicy), name the principals "
    "(arn:aws:iam::<account>:root or specific roles) instead of '*', or restrict a '*' principal with a "
    "condition on aws:PrincipalAccount / kms:CallerAccount, and grant only the kms actions needed."
)
KEY_POLICY_URL = "https://docs.aws.amazon.com/kms/latest/developerguide/key-policy-overview.html"
KEY_POLICY_CHECKOV = ("CKV_AWS_33",)

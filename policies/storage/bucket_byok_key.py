"""GF-STOR-002: buckets classified restricted use a BYOK key (imported key material, origin EXTERNAL).

The bucket's key reference (`kmsMasterKeyId` on S3 and OSS, `kmsId` on COS) is resolved to a key
in the stack: `aws:kms/externalKey:ExternalKey` (and its replica) on AWS (pulumi-aws `kms.Key` has no
origin input: it always holds AWS-generated material), `alicloud:kms/key:Key` with `origin`
`EXTERNAL` on Alibaba Cloud, `tencentcloud:Kms/externalKey:ExternalKey` on Tencent Cloud. Aliases
(`aws:kms/alias:Alias`, `alicloud:kms/alias:Alias`) are followed to their key. A key that is not
managed in the stack (a literal ARN or id) cannot be judged, and the violation says so.
"""

from __future__ import annotations

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs

from gpufleet.policies.kms._keys import KeyIndex, is_external, origin_label
from gpufleet.policies.memo import per_stack
from gpufleet.policies.props import is_unknown
from gpufleet.policies.rule import GfStackPolicy, Rule, judge, judges
from gpufleet.policies.rule_facts import by_cloud_name, clouds_with, sole
from gpufleet.policies.storage._buckets import (
    BUCKET_CLOUDS,
    PARTS,
    Bucket,
    BucketIndex,
    encryptions,
    has_tag,
    is_kms,
)

RULE = Rule(
    id="GF-STOR-002",
    name="restricted-bucket-byok-key",
    description=(
        "Buckets classified `data-classification: restricted` use a BYOK key (imported key material: "
        "origin EXTERNAL)."
    ),
    clouds=clouds_with(PARTS, "BYOK_REMEDIATION"),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation="Create a key with imported material and encrypt the bucket with it. "
    + by_cloud_name(PARTS, "BYOK_REMEDIATION"),
    url=sole(PARTS, "BYOK_URL"),
    config={
        "classification_tag": {"type": "string", "default": "data-classification"},
        "byok_values": {"type": "array", "items": {"type": "string"}, "default": ["restricted"]},
    },
)


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    settings = RULE.settings(args)
    tag = str(settings["classification_tag"])
    values = [str(v) for v in settings["byok_values"]]
    buckets = per_stack(BucketIndex, args.resources)
    restricted = [b for b in buckets.buckets if has_tag(b.tags(), tag, values)]
    if not restricted:
        args.not_applicable(f"no bucket is tagged {tag} = {' or '.join(values)}")
    keys = KeyIndex(args.resources)
    for bucket in restricted:

        def check(bucket: Bucket = bucket) -> None:
            classification = bucket.tags()[tag]
            kms = [e for e in encryptions(bucket) if is_kms(bucket.cloud, e.algorithm) and e.key is not None]
            if not kms:
                report(
                    f"{bucket.label} is classified {tag}={classification} but is not encrypted with a "
                    "customer-managed KMS key; encrypt it with a key whose material is imported (origin "
                    "EXTERNAL)",
                    bucket.urn,
                )
                return
            for encryption in kms:
                key = keys.resolve(encryption.key, encryption.source, encryption.key_prop)
                if key is None:
                    shown = "an unknown reference" if is_unknown(encryption.key) else f"'{encryption.key}'"
                    report(
                        f"{bucket.label} is classified {tag}={classification} and uses key {shown}, which is "
                        "not "
                        "managed in this stack, so its origin could not be judged; manage the key in the "
                        "stack "
                        "as a key with imported material (origin EXTERNAL)",
                        bucket.urn,
                    )
                elif not is_external(key):
                    report(
                        f"{bucket.label} is classified {tag}={classification} but its key '{key.name}' "
                        f"({key.resource_type}) has {origin_label(key)}; use a key whose material is "
                        "imported "
                        "(origin EXTERNAL)",
                        bucket.urn,
                    )

        judge(bucket.urn, check)


POLICY = GfStackPolicy(RULE, validate, judges(BUCKET_CLOUDS))

"""GF-STOR-004: buckets refuse requests without TLS, and below a minimum TLS version.

- AWS: a bucket policy (inline `policy` or `s3.BucketPolicy`) with a Deny of `s3:*` (or `*`) to every
  principal under `Bool`/`BoolIfExists` `aws:SecureTransport` = false. S3 endpoints refuse TLS
  below 1.2 for every request since 2024, so a `NumericLessThan` `s3:TlsVersion` deny is required only
  when `min_tls` is above 1.2 (and must then name at least `min_tls`).
- Alibaba OSS: a bucket policy Deny of `oss:*` (or `*`) to `*` under `Bool` `acs:SecureTransport` =
  false, and an `oss.BucketHttpsConfig` with `enable` true whose `tlsVersions` are all at least
  `min_tls` (without one, OSS also accepts TLS 1.0 and 1.1).
- Tencent COS: a `Cos.BucketPolicy` Deny to anyone under `bool_equal` `cos:secure-transport` = false.
  COS has no per-bucket TLS-version setting, so the minimum version is not judged there.

The plain-HTTP deny must cover the bucket and its objects: requests on the bucket itself (listing,
policy and ACL calls) and on every key. Its `Resource` patterns (or what its `NotResource` leaves) are
matched against the bucket (`arn:aws:s3:::b`, `acs:oss:*:*:b`, `qcs::cos:<region>:uid/<appid>:b/`) and
against objects at any key (`b/<key>`), across all the matching deny statements together: a deny of
`b/*` alone, of `b` alone, or of one prefix (`b/checkpoints/*`) leaves requests without TLS open. (On
COS a `b/*` pattern also names the bucket itself.)
"""

from __future__ import annotations

import fnmatch
import re
from typing import Any

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs
from pulumi_policy.proxy import UnknownValueError

from gpufleet.policies.memo import per_stack
from gpufleet.policies.props import as_list, get, get_ref, is_unknown, truthy
from gpufleet.policies.rule import GfStackPolicy, Rule, judges
from gpufleet.policies.storage._buckets import BUCKET_CLOUDS, Bucket, BucketIndex, judge_buckets
from gpufleet.policies.storage._documents import (
    actions,
    condition,
    effect,
    is_wildcard_principal,
    resources,
    statements,
)

RULE = Rule(
    id="GF-STOR-004",
    name="bucket-tls-only",
    description="Buckets refuse requests without TLS, and below a minimum TLS version.",
    clouds=("aws", "alicloud", "tencentcloud"),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation=(
        "AWS: attach an aws.s3.BucketPolicy that denies s3:* to Principal '*' when "
        "{'Bool': {'aws:SecureTransport': 'false'}}. Alibaba Cloud: an oss.BucketPolicy that denies "
        "oss:* to '*' when {'Bool': {'acs:SecureTransport': 'false'}}, and an oss.BucketHttpsConfig "
        "with enable = true and tlsVersions = ['TLSv1.2', 'TLSv1.3']. Tencent Cloud: a cos.BucketPolicy "
        "that denies to qcs::cam::anyone when {'bool_equal': {'cos:secure-transport': 'false'}}."
    ),
    url="https://docs.aws.amazon.com/AmazonS3/latest/userguide/security-best-practices.html",
    config={"min_tls": {"type": "string", "default": "1.2"}},
    checkov=("CKV_AWS_379",),
)

S3_TLS_FLOOR = 1.2
_TRANSPORT_KEY = {
    "aws": "aws:securetransport",
    "alicloud": "acs:securetransport",
    "tencentcloud": "cos:secure-transport",
}
_SERVICE = {"aws": "s3", "alicloud": "oss", "tencentcloud": "name/cos"}
_POLICY_EXAMPLE = {
    "aws": "deny s3:* to Principal '*' when aws:SecureTransport is false",
    "alicloud": "deny oss:* to '*' when acs:SecureTransport is false",
    "tencentcloud": "deny to anyone when cos:secure-transport is false",
}


_RESOURCE_EXAMPLE = {
    "aws": "both the bucket ARN (arn:aws:s3:::<bucket>) and its objects (arn:aws:s3:::<bucket>/*)",
    "alicloud": "both the bucket (acs:oss:*:*:<bucket>) and its objects (acs:oss:*:*:<bucket>/*)",
    "tencentcloud": "the bucket with all its objects (qcs::cos:<region>:uid/<appid>:<bucket>/*)",
}


def tls_number(value: Any) -> float | None:
    match = re.search(r"(\d+(?:\.\d+)?)", str(value))
    return float(match.group(1)) if match else None


def _documents(bucket: Bucket) -> list[tuple[object, str]]:
    docs = [(get(r.props, "policy"), "policy") for r in bucket.of("policy")]
    if bucket.cloud != "tencentcloud":
        docs.insert(0, (get(bucket.props, "policy"), "policy"))
    return docs


def _covers_all_actions(cloud: str, statement: dict[str, Any]) -> bool:
    found = [a.lower() for a in actions(statement)]
    if cloud == "tencentcloud":
        # COS deny statements often omit Action or use name/cos:*.
        return not found or any(a in ("*", "name/cos:*") for a in found)
    return any(a in ("*", f"{_SERVICE[cloud]}:*") for a in found)


def _denies(bucket: Bucket, matches: Any) -> bool:
    for document, path in _documents(bucket):
        for statement in statements(document, path):
            if effect(statement) != "deny" or not is_wildcard_principal(statement):
                continue
            if _covers_all_actions(bucket.cloud, statement) and matches(condition(statement)):
                return True
    return False


# Where the bucket-and-key part of a resource pattern starts: after `arn:aws:s3:::`, after the region and
# account fields of `acs:oss:<region>:<account>:` and of `qcs::cos:<region>:uid/<appid>:`. A bucket
# policy can only name its own bucket's region and account, so those fields are not compared.
_PREFIX = {"aws": ("arn:", 5), "alicloud": ("acs:oss:", 4), "tencentcloud": ("qcs::cos:", 5)}
# The bucket itself as the bucket-and-key part: COS writes it with a trailing slash.
_BUCKET_FORM = {"aws": "{}", "alicloud": "{}", "tencentcloud": "{}/"}
_SAMPLE_KEYS = ("model.pt", "checkpoints/step-100/shard-0.pt")


def _path_part(cloud: str, pattern: str) -> str:
    """The bucket-and-key part of a resource pattern (`ckpt/*`); a bare pattern is taken as it is."""
    if pattern == "*":
        return "*"
    prefix, fields = _PREFIX[cloud]
    if not pattern.startswith(prefix):
        return pattern
    parts = pattern.split(":", fields)
    return parts[fields] if len(parts) > fields else ""


def _bucket_name(bucket: Bucket, paths: list[str]) -> str:
    """The bucket's name; when the program leaves it to the cloud, the name the patterns use."""
    for key in ("bucket", "id"):
        value = get_ref(bucket.props, key)
        if isinstance(value, str) and value and not is_unknown(value):
            return value
    for path in paths:
        segment = path.split("/", 1)[0]
        if segment and segment != "*":
            return segment.replace("*", "x").replace("?", "x")
    return "bucket"


def _scope(bucket: Bucket, statement: dict[str, Any]) -> tuple[bool, bool]:
    """(covers the bucket itself, covers objects at every key) for one statement."""
    listed, excluded = resources(statement), resources(statement, "NotResource")
    if not listed and not excluded:
        return True, True  # a document without resources is read as the bucket's own
    if any(is_unknown(p) for p in listed):
        # A pattern built from an id unknown at preview (the bucket's ARN, the account's appid) is read
        # as naming this bucket and its objects, as the program usually writes it.
        return True, True
    listed_paths = [_path_part(bucket.cloud, p) for p in listed if not is_unknown(p)]
    excluded_paths = [_path_part(bucket.cloud, p) for p in excluded if not is_unknown(p)]
    name = _bucket_name(bucket, listed_paths + excluded_paths)

    def hit(target: str) -> bool:
        inside = any(fnmatch.fnmatchcase(target, p) for p in listed_paths)
        outside = any(fnmatch.fnmatchcase(target, p) for p in excluded_paths)
        return (inside or not listed) and not outside

    on_bucket = hit(_BUCKET_FORM[bucket.cloud].format(name))
    on_objects = all(hit(f"{name}/{key}") for key in _SAMPLE_KEYS)
    return on_bucket, on_objects


def _plain_http_scope(bucket: Bucket) -> tuple[bool, bool, bool]:
    """(some deny of plain HTTP exists, the denies cover the bucket, they cover every object)."""
    key = _TRANSPORT_KEY[bucket.cloud]
    found = on_bucket = on_objects = False
    for document, path in _documents(bucket):
        for statement in statements(document, path):
            if effect(statement) != "deny" or not is_wildcard_principal(statement):
                continue
            if not _covers_all_actions(bucket.cloud, statement):
                continue
            cond = condition(statement)
            if any(op.startswith("bool") and "false" in clauses.get(key, []) for op, clauses in cond.items()):
                found = True
                covers_bucket, covers_objects = _scope(bucket, statement)
                on_bucket = on_bucket or covers_bucket
                on_objects = on_objects or covers_objects
    return found, on_bucket, on_objects


def _s3_tls_floor(bucket: Bucket) -> float | None:
    floors: list[float] = []

    def matches(cond: dict[str, dict[str, Any]]) -> bool:
        for op, clauses in cond.items():
            if op.startswith("numericlessthan") and "s3:tlsversion" in clauses:
                floors.extend(n for n in (tls_number(v) for v in clauses["s3:tlsversion"]) if n is not None)
        return False

    _denies(bucket, matches)
    return max(floors) if floors else None


def _policy_problems(bucket: Bucket, min_tls: float) -> list[str]:
    problems = []
    found, on_bucket, on_objects = _plain_http_scope(bucket)
    if not found:
        problems.append(
            f"{bucket.label} accepts requests without TLS (no bucket policy statement that would "
            f"{_POLICY_EXAMPLE[bucket.cloud]}); add one"
        )
    elif not (on_bucket and on_objects):
        missing = [
            what
            for what, covered in (("the bucket itself", on_bucket), ("every object", on_objects))
            if not covered
        ]
        problems.append(
            f"{bucket.label} accepts requests without TLS on {' and '.join(missing)}: its deny of plain HTTP "
            f"does not cover them; list {_RESOURCE_EXAMPLE[bucket.cloud]} in the statement's Resource"
        )
    if bucket.cloud == "aws" and min_tls > S3_TLS_FLOOR:
        floor = _s3_tls_floor(bucket)
        if floor is None or floor < min_tls:
            problems.append(
                f"{bucket.label} accepts TLS below {min_tls:g} (no Deny with NumericLessThan s3:TlsVersion "
                f"{min_tls:g}); add one"
            )
    return problems


def bucket_problems(bucket: Bucket, min_tls: float) -> list[str]:
    https = _https_problems(bucket, min_tls)
    try:
        return _policy_problems(bucket, min_tls) + https
    except UnknownValueError:
        # The bucket policy is usually built with `apply` from the bucket's or a key's id, unknown at
        # preview: a known weak OSS HTTPS setting still fails the bucket, otherwise it is unjudged.
        if https:
            return https
        raise


def _https_problems(bucket: Bucket, min_tls: float) -> list[str]:
    problems: list[str] = []
    if bucket.cloud == "alicloud":
        configs = [r.props for r in bucket.of("https") if truthy(get(r.props, "enable"))]
        if not configs:
            problems.append(
                f"{bucket.label} has no enabled BucketHttpsConfig, so it also accepts TLS 1.0 and 1.1; "
                f"allow only TLS {min_tls:g} or later in tlsVersions"
            )
        for props in configs:
            versions = [str(v) for v in as_list(get(props, "tlsVersions"))]
            weak = [v for v in versions if (tls_number(v) or 0.0) < min_tls]
            if weak or not versions:
                shown = ", ".join(weak) if weak else "no tlsVersions"
                problems.append(
                    f"{bucket.label} allows {shown} in its BucketHttpsConfig; allow only TLS {min_tls:g} or "
                    "later"
                )
    return problems


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    min_tls = tls_number(RULE.settings(args)["min_tls"]) or S3_TLS_FLOOR
    index = per_stack(BucketIndex, args.resources)
    if not index.buckets:
        args.not_applicable("the stack has no S3, OSS or COS bucket")
    judge_buckets(report, index.buckets, lambda bucket: bucket_problems(bucket, min_tls))


POLICY = GfStackPolicy(RULE, validate, judges(BUCKET_CLOUDS))

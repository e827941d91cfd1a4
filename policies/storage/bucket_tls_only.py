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
from typing import Any

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs
from pulumi_policy.proxy import UnknownValueError

from gpufleet.policies.memo import per_stack
from gpufleet.policies.props import get, get_ref, is_unknown
from gpufleet.policies.rule import GfStackPolicy, Rule, judges
from gpufleet.policies.rule_facts import by_cloud_name, chained, clouds_with, sole
from gpufleet.policies.storage._buckets import BUCKET_CLOUDS, PARTS, Bucket, BucketIndex, judge_buckets, part
from gpufleet.policies.storage._documents import (
    actions,
    condition,
    effect,
    is_wildcard_principal,
    resources,
    statements,
)
from gpufleet.policies.storage._shared import tls_number

RULE = Rule(
    id="GF-STOR-004",
    name="bucket-tls-only",
    description="Buckets refuse requests without TLS, and below a minimum TLS version.",
    clouds=clouds_with(PARTS, "TLS_REMEDIATION"),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation=by_cloud_name(PARTS, "TLS_REMEDIATION"),
    url=sole(PARTS, "TLS_URL"),
    config={"min_tls": {"type": "string", "default": "1.2"}},
    checkov=chained(PARTS, "TLS_CHECKOV"),
)

# The minimum TLS version when the setting names none.
S3_TLS_FLOOR = 1.2
_SAMPLE_KEYS = ("model.pt", "checkpoints/step-100/shard-0.pt")


def _documents(bucket: Bucket) -> list[tuple[object, str]]:
    docs = [(get(r.props, "policy"), "policy") for r in bucket.of("policy")]
    if part(bucket.cloud).TLS_INLINE_POLICY:
        docs.insert(0, (get(bucket.props, "policy"), "policy"))
    return docs


def _covers_all_actions(cloud: str, statement: dict[str, Any]) -> bool:
    found = [a.lower() for a in actions(statement)]
    facts = part(cloud)
    if not found and getattr(facts, "TLS_NO_ACTION_IS_ALL", False):
        return True
    return any(a in facts.TLS_ALL_ACTIONS for a in found)


def _denies(bucket: Bucket, matches: Any) -> bool:
    for document, path in _documents(bucket):
        for statement in statements(document, path):
            if effect(statement) != "deny" or not is_wildcard_principal(statement):
                continue
            if _covers_all_actions(bucket.cloud, statement) and matches(condition(statement)):
                return True
    return False


def _path_part(cloud: str, pattern: str) -> str:
    """The bucket-and-key part of a resource pattern (`ckpt/*`); a bare pattern is taken as it is."""
    if pattern == "*":
        return "*"
    # Where the bucket-and-key part starts: after the cloud's prefix and the fields after it (region and
    # account fields, which a bucket policy can only set to its own bucket's, so they are not compared).
    prefix, fields = part(cloud).TLS_RESOURCE_PREFIX
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

    on_bucket = hit(part(bucket.cloud).TLS_BUCKET_FORM.format(name))
    on_objects = all(hit(f"{name}/{key}") for key in _SAMPLE_KEYS)
    return on_bucket, on_objects


def _plain_http_scope(bucket: Bucket) -> tuple[bool, bool, bool]:
    """(some deny of plain HTTP exists, the denies cover the bucket, they cover every object)."""
    key = part(bucket.cloud).TLS_TRANSPORT_KEY
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


def _tls_floor(bucket: Bucket, version_key: str) -> float | None:
    floors: list[float] = []
    key = version_key.lower()

    def matches(cond: dict[str, dict[str, Any]]) -> bool:
        for op, clauses in cond.items():
            if op.startswith("numericlessthan") and key in clauses:
                floors.extend(n for n in (tls_number(v) for v in clauses[key]) if n is not None)
        return False

    _denies(bucket, matches)
    return max(floors) if floors else None


def _policy_problems(bucket: Bucket, min_tls: float) -> list[str]:
    facts = part(bucket.cloud)
    problems = []
    found, on_bucket, on_objects = _plain_http_scope(bucket)
    if not found:
        problems.append(
            f"{bucket.label} accepts requests without TLS (no bucket policy statement that would "
            f"{facts.TLS_POLICY_EXAMPLE}); add one"
        )
    elif not (on_bucket and on_objects):
        missing = [
            what
            for what, covered in (("the bucket itself", on_bucket), ("every object", on_objects))
            if not covered
        ]
        problems.append(
            f"{bucket.label} accepts requests without TLS on {' and '.join(missing)}: its deny of plain HTTP "
            f"does not cover them; list {facts.TLS_RESOURCE_EXAMPLE} in the statement's Resource"
        )
    # A cloud whose policies can name the TLS version (`TLS_VERSION_KEY`) needs a deny below `min_tls`
    # when that is above what its endpoints refuse anyway (`TLS_VERSION_FLOOR`).
    version_key = getattr(facts, "TLS_VERSION_KEY", None)
    if version_key is not None and min_tls > facts.TLS_VERSION_FLOOR:
        floor = _tls_floor(bucket, version_key)
        if floor is None or floor < min_tls:
            problems.append(
                f"{bucket.label} accepts TLS below {min_tls:g} (no Deny with NumericLessThan {version_key} "
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
    """Problems of the cloud's own TLS-version setting (`tls_https_problems`), where it has one."""
    judge_https = getattr(part(bucket.cloud), "tls_https_problems", None)
    found: list[str] = judge_https(bucket, min_tls) if judge_https is not None else []
    return found


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    min_tls = tls_number(RULE.settings(args)["min_tls"]) or S3_TLS_FLOOR
    index = per_stack(BucketIndex, args.resources)
    if not index.buckets:
        args.not_applicable("the stack has no S3, OSS or COS bucket")
    judge_buckets(report, index.buckets, lambda bucket: bucket_problems(bucket, min_tls))


POLICY = GfStackPolicy(RULE, validate, judges(BUCKET_CLOUDS))

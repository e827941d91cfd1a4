"""GF-DEPLOY-003: what the clouds refuse that no provider schema states (bucket names, past schedules).

The provider schemas leave some of the clouds' rules to the cloud's API, so even a real `pulumi preview`
passes them and `pulumi up` fails. The rule holds the maintained list in `policies/deploy/cloud_rules.json`,
each with its source:

- bucket names: S3 (3-63 characters of lowercase letters, digits, `.` and `-`, starting and ending with a
  letter or digit, no `..`, not shaped like an IP address, no `xn--`, `sthree-` or `amzn-s3-demo-` prefix,
  no `-s3alias`, `--ol-s3`, `.mrap`, `--x-s3` or `--table-s3` suffix); OSS (3-63 characters of lowercase
  letters, digits and `-`, starting and ending with a letter or digit); COS (`<name>-<APPID>`, APPID
  digits, the name lowercase letters, digits and `-` with no `-` at either end, and the request domain
  `<bucket>.cos.<region>.myqcloud.com` at most 60 characters where the provider's region is known);
- scheduled actions whose first run is before today (AWS `aws:autoscaling/schedule:Schedule` `startTime`,
  Alibaba Cloud ESS scheduled task `launchTime`, Tencent Cloud AS schedule `startTime`); today is the
  date the waivers use (`$GPUFLEET_TODAY` or the system date);
- S3 lifecycle transitions to STANDARD_IA or ONEZONE_IA sooner than 30 days (current or noncurrent);
- `desiredCapacity` on an Alibaba Cloud scheduled task for a scaling group of the stack created without
  one; and an AWS scheduled action whose `desiredCapacity` lies outside its own `minSize`..`maxSize`.

Each refusal is its own finding naming the resource, the field, the value and what is allowed. Unknown
values are skipped (a scaling group id the stack does not resolve is not judged); secret values are
judged and shown as `[secret]`. Not waivable.
"""

from __future__ import annotations

import ipaddress
import json
import re
from collections.abc import Iterator, Mapping
from datetime import UTC, date, datetime
from functools import cache
from pathlib import Path
from typing import Any

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs

from gpufleet.components.clouds import cloud_parts, part_merged, part_of, part_union
from gpufleet.policies import waivers
from gpufleet.policies.deploy._values import locate, number, plain, show
from gpufleet.policies.props import is_unknown
from gpufleet.policies.rule import GfStackPolicy, Judges, Rule, judge
from gpufleet.policies.rule_facts import sole

# Each cloud's facts and checks (`aws.py`, `alicloud.py`, ...): the field of a scheduled action's first
# run, the scaling groups scheduled tasks name, the desired-capacity check, the rule's reference.
PARTS = cloud_parts("gpufleet.policies.deploy")
URL = str(sole(PARTS, "CLOUD_RULES_URL"))
START_FIELDS: Mapping[str, str] = part_merged(PARTS, "START_FIELDS")
SCALING_GROUPS = part_union(PARTS, "SCALING_GROUP")

RULE = Rule(
    id="GF-DEPLOY-003",
    name="cloud-rules-valid",
    description=(
        "Values pass the clouds' own rules that no provider schema holds: bucket names (S3, OSS, COS), "
        "scheduled actions not in the past, S3 IA transitions after 30 days, scheduled desired capacity."
    ),
    clouds=tuple(PARTS),
    enforcement=EnforcementLevel.MANDATORY,
    severity=Severity.HIGH,
    remediation=(
        "Change the value the finding names to what it says the cloud allows; the source after the message "
        "is the cloud's documentation of the rule."
    ),
    url=URL,
    waivable=False,
)

RULES_FILE = Path(__file__).resolve().parent / "cloud_rules.json"

S3_NAME = re.compile(r"[a-z0-9][a-z0-9.-]*[a-z0-9]")
OSS_NAME = re.compile(r"[a-z0-9][a-z0-9-]*[a-z0-9]")
COS_NAME = re.compile(r"([a-z0-9]([a-z0-9-]*[a-z0-9])?)-(\d+)")
S3_PREFIXES = ("xn--", "sthree-", "amzn-s3-demo-")
S3_SUFFIXES = ("-s3alias", "--ol-s3", ".mrap", "--x-s3", "--table-s3")
IA_CLASSES = ("STANDARD_IA", "ONEZONE_IA")


@cache
def rules() -> Mapping[str, Mapping[str, Any]]:
    data = json.loads(RULES_FILE.read_text(encoding="utf-8"))
    return {rule["id"]: rule for rule in data["rules"]}


def _types() -> frozenset[str]:
    return frozenset(t for rule in rules().values() for t in rule["types"])


def s3_name_problem(name: str) -> str | None:
    if not 3 <= len(name) <= 63:
        return f"{len(name)} characters"
    if not S3_NAME.fullmatch(name):
        return (
            "a character other than lowercase letters, digits, '.' and '-', or not a "
            "letter or digit at an end"
        )
    if ".." in name:
        return "two adjacent periods"
    try:
        ipaddress.IPv4Address(name)
        return "the form of an IP address"
    except ValueError:
        pass
    for prefix in S3_PREFIXES:
        if name.startswith(prefix):
            return f"the reserved prefix {prefix!r}"
    for suffix in S3_SUFFIXES:
        if name.endswith(suffix):
            return f"the reserved suffix {suffix!r}"
    return None


def oss_name_problem(name: str) -> str | None:
    if not 3 <= len(name) <= 63:
        return f"{len(name)} characters"
    if not OSS_NAME.fullmatch(name):
        return "a character other than lowercase letters, digits and '-', or not a letter or digit at an end"
    return None


def cos_name_problem(name: str, region: str | None) -> str | None:
    if not COS_NAME.fullmatch(name):
        return (
            "not the form <name>-<APPID> (APPID digits; the name lowercase letters, "
            "digits and '-', no '-' at an end)"
        )
    if region:
        domain = f"{name}.cos.{region}.myqcloud.com"
        if len(domain) > 60:
            return f"a request domain {domain} of {len(domain)} characters"
    return None


def parse_time(text: str) -> datetime | None:
    """An ISO 8601 time as the clouds take it (`2026-01-01T00:00:00+08:00`, `2026-12-06T12:00Z`)."""
    value = text.strip().replace("Z", "+00:00")
    for form in (value, value.replace(" ", "T")):
        try:
            parsed = datetime.fromisoformat(form)
        except ValueError:
            continue
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    return None


def _source(rule_id: str, resource_type: str) -> str:
    rule = rules()[rule_id]
    by_cloud = rule.get("sources") or {}
    return str(by_cloud.get(resource_type.split(":", maxsplit=1)[0]) or rule["source"])


def _label(resource: Any) -> str:
    return f"{resource.resource_type} '{resource.name}'"


def _region(resource: Any) -> str | None:
    provider = getattr(resource, "provider", None)
    props = getattr(provider, "props", None) if provider is not None else None
    if props is None:
        return None
    value, _ = plain(props.get("region") if isinstance(props, Mapping) else None)
    return value if isinstance(value, str) and not is_unknown(value) else None


def bucket_problems(resource: Any) -> Iterator[tuple[str, str]]:
    token = resource.resource_type
    for found in locate(resource.props, "bucket"):
        if not isinstance(found.value, str):
            continue
        if token in rules()["s3-bucket-name"]["types"]:
            rule_id, problem = "s3-bucket-name", s3_name_problem(found.value)
        elif token in rules()["oss-bucket-name"]["types"]:
            rule_id, problem = "oss-bucket-name", oss_name_problem(found.value)
        elif token in rules()["cos-bucket-name"]["types"]:
            rule_id, problem = "cos-bucket-name", cos_name_problem(found.value, _region(resource))
        else:
            return
        if problem:
            yield rule_id, f"{found.path} is {found.quoted()} ({problem}); allowed: {_allowed_name(rule_id)}"


def _allowed_name(rule_id: str) -> str:
    return {
        "s3-bucket-name": "3-63 lowercase letters, digits, '.' and '-', a letter or digit at "
        "each end, no '..', "
        "not an IP address, no reserved prefix or suffix",
        "oss-bucket-name": "3-63 lowercase letters, digits and '-', a letter or digit at each end",
        "cos-bucket-name": "<name>-<APPID>, the request domain at most 60 characters",
    }[rule_id]


def past_start(resource: Any, today: date) -> Iterator[str]:
    field = START_FIELDS.get(resource.resource_type)
    if field is None:
        return
    for found in locate(resource.props, field):
        if not isinstance(found.value, str):
            continue
        when = parse_time(found.value)
        if when is not None and when.astimezone(UTC).date() < today:
            yield (
                f"{found.path} is {found.quoted()}, before today ({today.isoformat()}); "
                "allowed: a time from today on"
            )


TRANSITION_PATHS = (
    ("rules[].transitions[]", "days"),
    ("rules[].noncurrentVersionTransitions[]", "noncurrentDays"),
    ("lifecycleRules[].transitions[]", "days"),
    ("lifecycleRules[].noncurrentVersionTransitions[]", "days"),
)


def ia_transitions(resource: Any) -> Iterator[str]:
    if resource.resource_type not in rules()["s3-ia-transition-minimum"]["types"]:
        return
    for path, days_field in TRANSITION_PATHS:
        for found in locate(resource.props, path):
            if not isinstance(found.value, Mapping):
                continue
            storage, _ = plain(found.value.get("storageClass"))
            days, secret = plain(found.value.get(days_field))
            if storage in IA_CLASSES and not is_unknown(days):
                count = number(days)
                if count is not None and count < 30:
                    shown = "[secret]" if secret or found.secret else show(days)
                    yield (
                        f"{found.path}.{days_field} is {shown} with storageClass "
                        f"{show(storage)}; allowed: at "
                        "least 30 days before a transition to STANDARD_IA or ONEZONE_IA"
                    )


def desired_capacity(resource: Any, groups: Mapping[str, Any]) -> Iterator[tuple[str, str]]:
    """(rule id, problem) of the desired capacity of a scheduled action, by its cloud's check."""
    part = part_of(PARTS, resource.resource_type)
    if part is None or not hasattr(part, "desired_capacity"):
        return
    for problem in part.desired_capacity(resource, groups):
        yield part.DESIRED_RULE, problem


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    types = _types()
    today = waivers.today()
    groups = {}
    for resource in args.resources:
        if resource.resource_type in SCALING_GROUPS:
            ident, _ = plain(resource.props.get("id"))
            if isinstance(ident, str) and not is_unknown(ident):
                groups[ident] = resource
    for resource in args.resources:
        if resource.resource_type not in types:
            continue

        def check(resource: Any = resource) -> None:
            found: list[tuple[str, str]] = list(bucket_problems(resource))
            found += [("schedule-in-the-past", p) for p in past_start(resource, today)]
            found += [("s3-ia-transition-minimum", p) for p in ia_transitions(resource)]
            found += desired_capacity(resource, groups)
            for which, problem in found:
                report(
                    f"{_label(resource)}: {problem} [{_source(which, resource.resource_type)}]", resource.urn
                )

        judge(resource.urn, check)


POLICY = GfStackPolicy(
    RULE,
    validate,
    Judges(
        predicate=lambda token: token in _types(),
        description="the bucket, scheduled-action and lifecycle types of `cloud_rules.json`",
    ),
)

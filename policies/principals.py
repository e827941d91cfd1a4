"""Who a policy statement lets in: wildcard principals, and the conditions that pin the caller.

Shared by GF-IAM-004 (role trust policies) and GF-KMS-002 (key policies), so that both rules agree on
what "anyone" is and on which condition restricts it. A principal is a wildcard when its value holds
`*` (`"*"`, `{"AWS": "*"}`, `arn:aws:iam::*:root`) or is Tencent CAM's "anyone"
(`qcs::cam::anyone:anyone`); a service principal never is.

A condition pins the caller when its key names the caller's account or organisation (`PINNING_KEYS`,
or a rule's own extra keys), or is a web-identity `aud`/`sub` key, under a positive operator
(`StringEquals`, `StringLike`, `ArnEquals`, `ArnLike`, their `ForAnyValue:` forms and Tencent's
`string_equal`/`string_like`), and every value is concrete. These restrict nothing: `sts:ExternalId`,
any other key, `Null`, negated operators, `...IfExists` and `ForAllValues:` forms (both pass when the
key is absent), empty value lists and wildcard values. A GitHub Actions subject
(`token.actions.githubusercontent.com[/<enterprise>]:sub`, or `oidc:sub` of an Alibaba RAM or Tencent
CAM trust whose issuer is GitHub) must name the repository owner whole.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

from gpufleet.components.clouds import cloud_parts, part_merged, part_union, part_values
from gpufleet.policies.dialects import ValueCheck, literal_start
from gpufleet.policies.documents import UNKNOWN, Principal, Statement

# Each cloud's dialect facts (`gpufleet.policies.dialects`), by cloud key.
DIALECTS = cloud_parts("gpufleet.policies.dialects")

GITHUB = "token.actions.githubusercontent.com"
# `repo:OWNER/...`, `repo:OWNER:...` or a customised claim such as `repository_owner:OWNER`: the owner is
# written out whole, so a wildcard may not end it early (`repo:ac*` matches every owner starting "ac").
_GITHUB_SUBJECT = re.compile(r"[a-z_]+:[^*?:/]+(?:[/:]|$)", re.IGNORECASE)
# The subject key of an Alibaba RAM or Tencent CAM OIDC trust (the issuer is in `oidc:iss`).
OIDC_SUB = "oidc:sub"
# GitHub Enterprise Cloud issuers add the enterprise slug: token.actions.githubusercontent.com/<slug>.
_GITHUB_SUB_KEY = re.compile(re.escape(GITHUB) + r"(?:/[^:/]+)?:sub", re.IGNORECASE)
# Every dialect's positive operators, and its spellings of `ForAnyValue:` (stripped in cloud order).
_POSITIVE = part_union(DIALECTS, "POSITIVE_OPERATORS")
_ANY_VALUE_PREFIXES: tuple[str, ...] = tuple(part_values(DIALECTS, "ANY_VALUE_PREFIX").values())
_FEDERATED_SUFFIXES = (":aud", ":sub", ":oaud")

# Principal values that mean "anyone" without a `*` (Tencent CAM's `qcs::cam::anyone:anyone`).
ANYONE = part_union(DIALECTS, "ANYONE")

# condition key (lower-case) -> whether one value of it names a caller concretely, every dialect's
PINNING_KEYS: dict[str, ValueCheck] = part_merged(DIALECTS, "PINNING_KEYS")


def is_anyone(principal: Principal) -> bool:
    """A wildcard principal: a value with `*` in it, or Tencent CAM's anyone; never a service."""
    if principal.kind == "Service":
        return False
    return "*" in principal.value or principal.value.strip().lower() in ANYONE


def is_github_subject(key: str) -> bool:
    return _GITHUB_SUB_KEY.fullmatch(key) is not None


def _github_subject(key: str, github: bool) -> bool:
    return is_github_subject(key) or (github and key.lower() == OIDC_SUB)


def _value_check(key: str, github: bool, extra: Mapping[str, ValueCheck]) -> ValueCheck | None:
    lower = key.lower()
    if _github_subject(key, github):
        return lambda v: _GITHUB_SUBJECT.match(v) is not None
    if lower in extra:
        return extra[lower]
    if lower in PINNING_KEYS:
        return PINNING_KEYS[lower]
    if lower.endswith(_FEDERATED_SUFFIXES):
        return literal_start
    return None


def why_not(
    operator: str,
    key: str,
    values: tuple[str, ...],
    github: bool = False,
    extra: Mapping[str, ValueCheck] | None = None,
) -> str | None:
    """None when this condition pins the caller, else why it does not (one clause)."""
    lower = operator.lower()
    if key.lower() == "sts:externalid":
        return f"{operator} {key} is not a secret and pins no caller"
    check = _value_check(key, github, extra or {})
    if check is None:
        return f"{operator} {key} names no account or organisation"
    if lower.startswith("forallvalues:") or "ifexist" in lower:
        return f"{operator} {key} also passes when the key is absent"
    base = lower
    for prefix in _ANY_VALUE_PREFIXES:
        base = base.removeprefix(prefix)
    if base not in _POSITIVE:
        return f"{operator} {key} is not a positive match"
    if not values:
        return f"{operator} {key} lists no value"
    loose = [v for v in values if v != UNKNOWN and not check(v)]
    if loose:
        shown = ", ".join(repr(v) for v in loose)
        if _github_subject(key, github):
            return f"{operator} {key} {shown} names no repository owner"
        return f"{operator} {key} {shown} names no one account or organisation"
    return None


def pinning(
    statement: Statement,
    keys: Callable[[str], bool] = lambda key: True,
    github: bool = False,
    extra: Mapping[str, ValueCheck] | None = None,
) -> tuple[bool, list[str]]:
    """(whether a condition on a key selected by `keys` pins the caller, why the others do not).
    `extra` adds a rule's own pinning keys (lower-case) to `PINNING_KEYS`."""
    reasons: list[str] = []
    for operator, body in statement.conditions.items():
        for key, values in body.items():
            if not keys(key):
                continue
            why = why_not(operator, key, values, github, extra)
            if why is None:
                return True, []
            reasons.append(why)
    return False, reasons


__all__ = [
    "ANYONE",
    "GITHUB",
    "OIDC_SUB",
    "PINNING_KEYS",
    "ValueCheck",
    "is_anyone",
    "is_github_subject",
    "pinning",
    "why_not",
]

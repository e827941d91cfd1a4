"""The AWS IAM JSON dialect: capitalised keys, any `Version` (`2012-10-17`), `arn:<partition>:...`
resource names, principals `"*"`, a bare ARN or `{"AWS"|"Service"|"Federated"|"CanonicalUser": ...}`,
and the `aws:` global condition keys that pin a caller to an account or organisation."""

from __future__ import annotations

import re

from gpufleet.policies.dialects import ValueCheck, literal_start

PRINCIPAL_KINDS = {"aws": "AWS", "canonicaluser": "CanonicalUser"}
# A bare principal string that is not "*" (`"Principal": "arn:aws:iam::1:root"`) is an AWS principal.
BARE_PRINCIPAL_KIND = "AWS"

LOWER_CASE_KEYS = False
VERSION: str | None = None

RESOURCE_PREFIX = "arn"
RESOURCE_NAME_FROM = 2

ACCOUNT = re.compile(r"\d{12}")
_ORG = re.compile(r"o-[a-z0-9]+", re.IGNORECASE)
_ORG_PATH = re.compile(r"o-[a-z0-9]+/.*", re.IGNORECASE)


def _arn_fields(value: str) -> list[str] | None:
    fields = value.split(":", 5)
    return fields if len(fields) == 6 and fields[0].lower() == "arn" else None


def _principal_arn(value: str) -> bool:
    fields = _arn_fields(value)
    return fields is not None and ACCOUNT.fullmatch(fields[4]) is not None


def _source_arn(value: str) -> bool:
    fields = _arn_fields(value)
    if fields is None:
        return False
    return ACCOUNT.fullmatch(fields[4]) is not None or (fields[4] == "" and literal_start(fields[5]))


def aws_account(value: str) -> bool:
    """A 12-digit AWS account id."""
    return ACCOUNT.fullmatch(value) is not None


PINNING_KEYS: dict[str, ValueCheck] = {
    "aws:principalaccount": aws_account,
    "aws:sourceaccount": aws_account,
    "aws:principalorgid": lambda v: _ORG.fullmatch(v) is not None,
    "aws:sourceorgid": lambda v: _ORG.fullmatch(v) is not None,
    "aws:principalorgpaths": lambda v: _ORG_PATH.fullmatch(v) is not None,
    "aws:sourceorgpaths": lambda v: _ORG_PATH.fullmatch(v) is not None,
    "aws:principalarn": _principal_arn,
    "aws:sourcearn": _source_arn,
    "aws:userid": literal_start,
}
POSITIVE_OPERATORS = frozenset(
    {"stringequals", "stringequalsignorecase", "stringlike", "arnequals", "arnlike"}
)
ANY_VALUE_PREFIX = "foranyvalue:"

"""The policy-document dialects of the clouds, one module per cloud beside this neutral one.

`gpufleet.policies.documents` and `gpufleet.policies.principals` read every dialect through
`cloud_parts("gpufleet.policies.dialects")`: a new cloud's policy language is a new module here, not
an edit to the parser. A dialect module holds plain facts:

- `PRINCIPAL_KINDS`: the principal keys the dialect writes (lower-case) and the kind they are read as;
  `BARE_PRINCIPAL_KIND`, for the one dialect whose bare principal string (`"arn:..."`) names a kind.
- `LOWER_CASE_KEYS` and `VERSION`: how a document that names no cloud is recognised as the
  dialect's (its keys' case, and the `Version` it writes, None when the version does not tell).
- `RESOURCE_PREFIX` and `RESOURCE_NAME_FROM`: the first field of the dialect's resource names (`arn`)
  and the index of the first field after the partition or project (read by `is_any_resource`).
- `PINNING_KEYS`: condition keys (lower-case) that name the caller's account or organisation, each
  with the check a concrete value passes; `POSITIVE_OPERATORS` (lower-case) and `ANY_VALUE_PREFIX`:
  the condition operators that restrict, and the dialect's spelling of `ForAnyValue:`.
- `ANYONE`: principal values (lower-case) that mean "anyone" without a `*` in them.

This module imports no dialect, so the dialect modules may import its helpers.
"""

from __future__ import annotations

from collections.abc import Callable

ValueCheck = Callable[[str], bool]
"""Whether one value of a condition key names a caller concretely."""


def literal_start(value: str) -> bool:
    """A value that begins with a literal character, not a wildcard (and is not empty)."""
    return value[:1] not in ("", "*", "?")


__all__ = ["ValueCheck", "literal_start"]

"""Policy documents (S3, OSS, COS bucket policies and KMS key policies) read uniformly.

Documents arrive as JSON strings or as objects; keys are case-insensitive across clouds (`Statement`
on AWS and OSS, `statement` in some COS documents), and single values stand for one-element lists.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from policies.props import as_list, json_value, plain


def _field(obj: Mapping[str, Any], name: str) -> Any:
    for key in obj:
        if isinstance(key, str) and key.lower() == name.lower():
            return obj[key]
    return None


def statements(document: Any, path: str = "policy") -> list[dict[str, Any]]:
    doc = json_value(document, path)
    if not isinstance(doc, Mapping):
        return []
    return [plain(s) for s in as_list(_field(doc, "Statement")) if isinstance(s, Mapping)]


def effect(statement: Mapping[str, Any]) -> str:
    return str(_field(statement, "Effect") or "").lower()


def strings(value: Any) -> list[str]:
    """Every string inside a value (principal maps, lists, single strings)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [s for v in value.values() for s in strings(v)]
    return [s for v in as_list(value) for s in strings(v)]


def principals(statement: Mapping[str, Any]) -> list[str]:
    return strings(_field(statement, "Principal"))


def actions(statement: Mapping[str, Any]) -> list[str]:
    return strings(_field(statement, "Action"))


def resources(statement: Mapping[str, Any], key: str = "Resource") -> list[str]:
    """The statement's `Resource` (or, with ``key="NotResource"``, `NotResource`) patterns."""
    return strings(_field(statement, key))


def condition(statement: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Condition operators -> {key (lower-case) -> values as a list of lower-case strings}."""
    found: dict[str, dict[str, Any]] = {}
    raw = _field(statement, "Condition")
    if not isinstance(raw, Mapping):
        return found
    for operator, clauses in raw.items():
        if not isinstance(clauses, Mapping):
            continue
        found[str(operator).lower()] = {
            str(k).lower(): [str(v).lower() for v in as_list(val)] for k, val in clauses.items()
        }
    return found


WILDCARD_PRINCIPALS = frozenset({"*", "qcs::cam::anyone:anyone", "qcs::cam::anyone"})


def is_wildcard_principal(statement: Mapping[str, Any]) -> bool:
    return any(p.strip() in WILDCARD_PRINCIPALS for p in principals(statement))

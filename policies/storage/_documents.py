"""Policy documents (S3, OSS, COS bucket policies and KMS key policies) read uniformly.

Documents arrive as JSON strings or as objects; keys are case-insensitive across clouds (`Statement`
on AWS and OSS, `statement` in some COS documents), and single values stand for one-element lists.
Principals and actions are strings in every cloud's grammar: anything else (`{"AWS": 123456789012}`,
`"Action": true`) is `Malformed`, as is a document that is not JSON or nests too deeply to read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from gpufleet.policies.props import Malformed, as_list, excerpt, json_kind, json_value, plain


def _field(obj: Mapping[str, Any], name: str) -> Any:
    for key in obj:
        if isinstance(key, str) and key.lower() == name.lower():
            return obj[key]
    return None


def statements(document: Any, path: str = "policy") -> list[dict[str, Any]]:
    doc = json_value(document, path)
    if doc is None:
        return []
    if not isinstance(doc, Mapping):
        raise Malformed(f"the document at .{path} is {json_kind(doc)}, not a JSON object", doc)
    found = []
    for index, statement in enumerate(as_list(_field(doc, "Statement"))):
        where = f".{path} statement {index}"
        if not isinstance(statement, Mapping):
            raise Malformed(f"{where} is {json_kind(statement)}, not an object", statement)
        # The fields rules read are checked here, where the place can be named.
        for name in ("Principal", "NotPrincipal", "Action", "NotAction"):
            strings(_field(statement, name), f"{where} {name}")
        _effect(_field(statement, "Effect"), f"{where} Effect")
        found.append(plain(statement))
    return found


def effect(statement: Mapping[str, Any]) -> str:
    return _effect(_field(statement, "Effect"), "Effect")


def _effect(value: Any, what: str) -> str:
    if value is not None and not isinstance(value, str):
        raise Malformed(f"{what} is {json_kind(value)}, not a string", value)
    return (value or "").lower()


def strings(value: Any, what: str = "value") -> list[str]:
    """Every string of a principal map (`{"AWS": [...]}`), a list of strings or a single string.

    A principal map holds strings or lists of strings; anything else is `Malformed`."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, Mapping):
        return [s for key, v in value.items() for s in _flat(v, f"{what}.{key}")]
    return _flat(value, what)


def _flat(value: Any, what: str) -> list[str]:
    out: list[str] = []
    for item in as_list(value):
        if isinstance(item, str):
            out.append(item)
        elif item is not None:
            raise Malformed(f"{what} holds {json_kind(item)}, not a string", item)
    return out


def principals(statement: Mapping[str, Any]) -> list[str]:
    return strings(_field(statement, "Principal"), "Principal")


def actions(statement: Mapping[str, Any]) -> list[str]:
    return strings(_field(statement, "Action"), "Action")


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
            str(k).lower(): [(v if isinstance(v, str) else excerpt(v)).lower() for v in as_list(val)]
            for k, val in clauses.items()
        }
    return found


WILDCARD_PRINCIPALS = frozenset({"*", "qcs::cam::anyone:anyone", "qcs::cam::anyone"})


def is_wildcard_principal(statement: Mapping[str, Any]) -> bool:
    return any(p.strip() in WILDCARD_PRINCIPALS for p in principals(statement))

"""Policy documents from any cloud, normalised into typed statements.

Three dialects reach the pack, as JSON strings or as objects (proxied by the engine or not):

- AWS IAM: `Version`, `Statement` (one object or a list), `Effect`, `Action`/`NotAction`,
  `Resource`/`NotResource`, `Principal`/`NotPrincipal` (`"*"` or `{"AWS"|"Service"|"Federated"|
  "CanonicalUser": str | [str]}`), `Condition` (`{operator: {key: value | [values]}}`).
- Alibaba Cloud RAM: the same capitalised keys, `Version: "1"`, actions such as `oss:*`, principals
  `{"Service": [...]}` / `{"RAM": [...]}` / `{"Federated": [...]}`.
- Tencent Cloud CAM: lower-case keys (`version: "2.0"`, `statement`, `effect`, `action`, `resource`,
  `principal` with `{"qcs": [...]}` / `{"service": [...]}`, `condition`).

Keys are matched case-insensitively, so mixed spellings parse the same way. Actions, resources and
principals are strings (or lists of strings) in every dialect: a number, a boolean or a nested object
there is a `DocumentError` (a `policies.props.Malformed`), as is JSON that does not parse or nests too
deeply to read, or that names one key twice (`"Effect"` twice, or `"Effect"` and `"effect"`: never
last-wins); condition values may also be numbers and booleans (read as their JSON text). A
document whose value is unknown at preview raises `UnknownValueError` (through `policies.props`); so
does an unknown action list, because actions decide every rule that reads a document. Unknown
resources and principals are references to other resources (an ARN, a role) and are kept as `UNKNOWN`
markers: they are never a wildcard.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pulumi_policy.proxy import UnknownValueError

from gpufleet.components.clouds import Cloud, cloud_parts, part_merged
from gpufleet.policies.props import Malformed, excerpt, is_unknown, json_kind, json_value
from gpufleet.policies.rule_facts import sole

UNKNOWN = "<unknown at preview>"
"""Stands for a resource or principal whose value is an unknown reference at preview."""

# Each cloud's dialect facts (`gpufleet.policies.dialects`), by cloud key.
DIALECTS = cloud_parts("gpufleet.policies.dialects")

# Principal keys (lower-case) -> the kind they are read as: every dialect's, and the shared ones.
_PRINCIPAL_KINDS = {
    "service": "Service",
    "federated": "Federated",
    "*": "*",
    **part_merged(DIALECTS, "PRINCIPAL_KINDS"),
}


# The kind of a bare principal string, which exactly one dialect writes.
_BARE_KIND = str(sole(DIALECTS, "BARE_PRINCIPAL_KIND"))
# The first field of each dialect's resource names -> where the fields after the partition start.
_NAME_FROM: dict[str, int] = {part.RESOURCE_PREFIX: part.RESOURCE_NAME_FROM for part in DIALECTS.values()}


def _recognised() -> tuple[dict[tuple[bool, str], Cloud], dict[bool, Cloud]]:
    """How a document that names no cloud is given a dialect: (keys' case, `Version`) -> the dialect that
    writes that version, and keys' case -> the one dialect of that case whose version does not tell.
    ValueError, naming the modules, when two dialects claim one place or a case has no dialect, so the
    choice is never made by the order of the clouds."""
    by_version: dict[tuple[bool, str], Cloud] = {}
    by_case: dict[bool, Cloud] = {}
    for key, part in DIALECTS.items():
        case, version = bool(part.LOWER_CASE_KEYS), part.VERSION
        table: dict[Any, Cloud] = by_case if version is None else by_version
        place = case if version is None else (case, version)
        if place in table:
            raise ValueError(
                f"{DIALECTS[table[place]].__name__} and {part.__name__} both give LOWER_CASE_KEYS = {case} "
                f"and VERSION = {version!r}; a document that names no cloud could be either's: change "
                "one's VERSION"
            )
        table[place] = key
    for case in (False, True):
        if case not in by_case:
            modules = ", ".join(part.__name__ for part in DIALECTS.values())
            raise ValueError(
                f"none of {modules} gives LOWER_CASE_KEYS = {case} with VERSION = None; a document of "
                "that case that names no cloud would have no dialect"
            )
    return by_version, by_case


# A document that names no cloud: a dialect told by its keys' case and its version, else the one
# dialect of that case whose version does not tell.
_BY_VERSION, _BY_CASE = _recognised()


class DocumentError(Malformed):
    """A document that is present but is not a policy document (bad JSON, no statements, a number
    where an action belongs)."""


@dataclass(frozen=True)
class Principal:
    """One principal: `kind` is AWS, Service, Federated, CanonicalUser, RAM, qcs, acs or `*`."""

    kind: str
    value: str

    @property
    def is_wildcard(self) -> bool:
        """Anyone: `"*"`, `{"AWS": "*"}`, `{"qcs": ["*"]}` and the like (not a service name)."""
        return self.value == "*" and self.kind != "Service"


@dataclass(frozen=True)
class Statement:
    effect: str  # "allow" | "deny"
    actions: tuple[str, ...] = ()
    not_actions: tuple[str, ...] = ()
    resources: tuple[str, ...] = ()
    not_resources: tuple[str, ...] = ()
    principals: tuple[Principal, ...] = ()
    not_principals: tuple[Principal, ...] = ()
    conditions: Mapping[str, Mapping[str, tuple[str, ...]]] = field(default_factory=dict)
    sid: str | None = None

    @property
    def is_allow(self) -> bool:
        return self.effect == "allow"

    def grants(self, action: str) -> bool:
        """True when this statement's action set covers `action` (ignores effect and resources)."""
        if self.not_actions:
            return not any(action_matches(pattern, action) for pattern in self.not_actions)
        return any(action_matches(pattern, action) for pattern in self.actions)

    @property
    def on_any_resource(self) -> bool:
        """Resource `*` (or an all-wildcard ARN), or a NotResource (everything but a few)."""
        if self.not_resources:
            return True
        return any(is_any_resource(resource) for resource in self.resources)

    def condition_keys(self) -> set[str]:
        """Condition keys, lower-cased (`aws:principalorgid`, `sts:externalid`, `qcs:ip`)."""
        return {key.lower() for keys in self.conditions.values() for key in keys}


@dataclass(frozen=True)
class PolicyDocument:
    dialect: str  # "aws" | "alicloud" | "tencentcloud"
    version: str | None
    statements: tuple[Statement, ...]

    def allows(self) -> list[Statement]:
        return [statement for statement in self.statements if statement.is_allow]


def action_matches(pattern: str, action: str) -> bool:
    """IAM-style wildcard match, case-insensitive: `s3:Put*` covers `s3:PutObject`, `*` covers all.

    Tencent CAM writes actions as `name/cvm:RunInstances` as often as `cvm:RunInstances`: both forms
    grant the same action, so the `name/` prefix is ignored on either side.
    """
    if pattern == UNKNOWN:
        return False
    if isinstance(pattern, str) and isinstance(action, str):
        return _action_matches(pattern, action)
    return glob_match(_without_name_prefix(pattern), _without_name_prefix(action))


@functools.lru_cache(maxsize=65_536)
def _action_matches(pattern: str, action: str) -> bool:
    """The match of two strings, remembered: a stack's documents repeat the same patterns against the
    same catalogue of actions (GF-IAM-001/002/006 each ask), and a glob match is not free."""
    return glob_match(_without_name_prefix(pattern), _without_name_prefix(action))


def _without_name_prefix(action: str) -> str:
    size = len(_CAM_NAME_PREFIX)
    return action[size:] if action[:size].lower() == _CAM_NAME_PREFIX else action


_CAM_NAME_PREFIX = "name/"


def glob_match(pattern: str, text: str, *, case_sensitive: bool = False) -> bool:
    """IAM wildcard match, case-insensitive (actions) unless `case_sensitive` (condition values under
    StringLike): `*` is any run of characters (across `:` and `/`), `?` one character. Linear-time
    backtracking over the last `*`, so a pattern of many wildcards (`*?*?*?...x`) cannot stall the pack
    as a regular expression would."""
    if not case_sensitive:
        pattern, text = pattern.lower(), text.lower()
    p = t = 0
    star = -1
    resume = 0
    while t < len(text):
        if p < len(pattern) and pattern[p] in ("?", text[t]):
            p += 1
            t += 1
        elif p < len(pattern) and pattern[p] == "*":
            star, resume = p, t
            p += 1
        elif star >= 0:
            p = star + 1
            resume += 1
            t = resume
        else:
            return False
    while p < len(pattern) and pattern[p] == "*":
        p += 1
    return p == len(pattern)


def is_wildcard_action(action: str) -> bool:
    """`*` or `service:*` (also `*:*`): a whole service or everything."""
    if action == "*":
        return True
    _, sep, name = action.partition(":")
    return bool(sep) and name == "*"


def is_any_resource(resource: str) -> bool:
    """`*`, or an ARN whose every part after the partition is a wildcard (`acs:*:*:*:*`)."""
    if resource == "*":
        return True
    parts = resource.split(":")
    start = _NAME_FROM.get(parts[0])
    if start is None or len(parts) < 4:
        return False
    rest = parts[start:]
    return all(part in ("*", "") for part in rest) and "*" in rest


def resource_matches(pattern: str, resource: str) -> bool:
    """IAM-style wildcard match of a resource pattern against a concrete ARN, case-insensitive (`*`
    spans `:` and `/`, `?` is one character). An `UNKNOWN` pattern (a reference) matches nothing."""
    if pattern == UNKNOWN:
        return False
    return glob_match(pattern, resource)


def _lower_keys(obj: Mapping[str, Any], path: str) -> dict[str, Any]:
    """The object's entries under lower-case keys. Two spellings of one key (`Effect` and `effect`)
    would leave the pack to pick one where the cloud may read the other: a `DocumentError`."""
    out: dict[str, Any] = {}
    for key in obj:
        lower = str(key).lower()
        if lower in out:
            raise DocumentError(f'{path} has duplicate key "{key}"', obj)
        out[lower] = _entry(obj, key)
    return out


def _strings(value: Any, path: str, *, decisive: bool, scalars: bool = False) -> tuple[str, ...]:
    """A single string or a list of strings; unknown entries raise (decisive) or become UNKNOWN.

    Anything but a string is a `DocumentError`, except that `scalars` (condition values) also reads
    numbers and booleans as their JSON text."""
    if value is None:
        return ()
    if is_unknown(value):
        if decisive:
            raise UnknownValueError(value, [path])
        return (UNKNOWN,)
    items = value if isinstance(value, Sequence) and not isinstance(value, str | bytes) else [value]
    out: list[str] = []
    for index in range(len(items)):
        item = _entry(items, index)
        if is_unknown(item):
            if decisive:
                raise UnknownValueError(item, [f"{path}.{index}"])
            out.append(UNKNOWN)
        elif isinstance(item, str):
            out.append(item)
        elif scalars and isinstance(item, bool | int | float):
            out.append(excerpt(item))
        elif item is not None:
            where = path if items is not value else f"{path}.{index}"
            raise DocumentError(f"{where} is {json_kind(item)}, not a string", item)
    return tuple(out)


def _principals(value: Any, path: str) -> tuple[Principal, ...]:
    if value is None:
        return ()
    if is_unknown(value):
        return (Principal("unknown", UNKNOWN),)
    if isinstance(value, str):
        return (Principal("*", "*"),) if value == "*" else (Principal(_BARE_KIND, value),)
    if isinstance(value, Mapping):
        out: list[Principal] = []
        for key in value:
            kind = _PRINCIPAL_KINDS.get(str(key).lower(), str(key))
            for item in _strings(_entry(value, key), f"{path}.{key}", decisive=False):
                out.append(Principal(kind, item))
        return tuple(out)
    out_list: list[Principal] = []
    for item in _strings(value, path, decisive=False):
        out_list.append(Principal("*", "*") if item == "*" else Principal(_BARE_KIND, item))
    return tuple(out_list)


def _entry(obj: Any, key: Any) -> Any:
    """`obj[key]`, an unknown entry returned as its sentinel rather than raised."""
    try:
        return obj[key]
    except UnknownValueError as error:
        return error.unknown_type_sentinel


def _conditions(value: Any, path: str) -> dict[str, dict[str, tuple[str, ...]]]:
    if value is None or is_unknown(value):
        return {}
    if not isinstance(value, Mapping):
        raise DocumentError(f"{path} is {json_kind(value)}, not an object", value)
    out: dict[str, dict[str, tuple[str, ...]]] = {}
    for operator in value:
        body = _entry(value, operator)
        if body is None or is_unknown(body):
            continue
        if not isinstance(body, Mapping):
            raise DocumentError(f"{path}.{operator} is {json_kind(body)}, not an object", body)
        out[str(operator)] = {
            str(key): _strings(_entry(body, key), f"{path}.{operator}.{key}", decisive=False, scalars=True)
            for key in body
        }
    return out


def _statement(raw: Any, path: str) -> Statement:
    if is_unknown(raw):
        raise UnknownValueError(raw, [path])
    if not isinstance(raw, Mapping):
        raise DocumentError(f"{path} is {json_kind(raw)}, not an object", raw)
    fields = _lower_keys(raw, path)
    effect_value = fields.get("effect")
    if is_unknown(effect_value):
        raise UnknownValueError(str(effect_value), [f"{path}.Effect"])
    if effect_value is not None and not isinstance(effect_value, str):
        raise DocumentError(f"{path}.Effect is {json_kind(effect_value)}, not a string", effect_value)
    # A statement without an effect is rejected by every cloud; reading it as an allow never
    # hides a grant.
    effect = "deny" if str(effect_value or "allow").strip().lower() == "deny" else "allow"
    sid = fields.get("sid")
    return Statement(
        effect=effect,
        actions=_strings(fields.get("action"), f"{path}.Action", decisive=True),
        not_actions=_strings(fields.get("notaction"), f"{path}.NotAction", decisive=True),
        resources=_strings(fields.get("resource"), f"{path}.Resource", decisive=False),
        not_resources=_strings(fields.get("notresource"), f"{path}.NotResource", decisive=False),
        principals=_principals(fields.get("principal"), f"{path}.Principal"),
        not_principals=_principals(fields.get("notprincipal"), f"{path}.NotPrincipal"),
        conditions=_conditions(fields.get("condition"), f"{path}.Condition"),
        sid=sid if isinstance(sid, str) else None,
    )


def _dialect(raw: Mapping[str, Any], fields: Mapping[str, Any], cloud: str | None) -> str:
    if cloud:
        return cloud
    lower_case = "statement" in raw and "Statement" not in raw
    version = fields.get("version")
    told = _BY_VERSION.get((lower_case, version)) if isinstance(version, str) else None
    return told or _BY_CASE[lower_case]


def parse_document(value: Any, path: str = "policy", cloud: str | None = None) -> PolicyDocument | None:
    """The document at `value` (a JSON string or an object), or None when no document is given.

    Raises `UnknownValueError` when the document or an action in it is unknown at preview, and
    `DocumentError` when a value is given but is not a policy document.
    """
    if value is None or value == "":
        return None
    try:
        document = json_value(value, path)
    except DocumentError:
        raise
    except Malformed as error:
        raise DocumentError(error.what, value) from None
    if not isinstance(document, Mapping):
        raise DocumentError(f"the document at .{path} is {json_kind(document)}, not a JSON object", value)
    fields = _lower_keys(document, f"the document at .{path}")
    statements_value = fields.get("statement")
    if is_unknown(statements_value):
        raise UnknownValueError(str(statements_value), [path, "Statement"])
    if statements_value is None:
        raise DocumentError(f"the document at .{path} has no Statement", value)
    items = (
        list(statements_value)
        if isinstance(statements_value, Sequence) and not isinstance(statements_value, str | bytes)
        else [statements_value]
    )
    statements = tuple(_statement(item, f"{path}.Statement.{i}") for i, item in enumerate(items))
    version = fields.get("version")
    return PolicyDocument(
        dialect=_dialect(document, fields, cloud),
        version=str(version) if version is not None and not is_unknown(version) else None,
        statements=statements,
    )


def covered_actions(statement: Statement, actions: Iterable[str]) -> list[str]:
    """Which of `actions` an allow `statement` grants (in the given order)."""
    return [action for action in actions if statement.grants(action)]


__all__ = [
    "UNKNOWN",
    "DocumentError",
    "PolicyDocument",
    "Principal",
    "Statement",
    "action_matches",
    "covered_actions",
    "glob_match",
    "is_any_resource",
    "is_wildcard_action",
    "parse_document",
    "resource_matches",
]

"""The command line's changes to the policy config: `--enforce POLICY=LEVEL` and
`--set POLICY.KEY=VALUE`, checked like the file (`gpufleet.policy_config`)."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from gpufleet.config_schema import describe, schema_problems
from gpufleet.policies import waivers
from gpufleet.policies.rule import GfPolicy
from gpufleet.policy_config import (
    ALL_KEY,
    ENFORCEMENT_KEY,
    ENGINE_POLICY,
    ENGINE_RULE_ID,
    PolicyConfig,
    PolicyConfigError,
    _Index,
    _is_engine,
    _level,
    _level_problem,
)
from gpufleet.safe_json import JsonLimitError, loads_limited


def _parse_value(text: str) -> Any:
    """`365` -> 365, `true` -> True, `["a"]` -> list; anything that is not JSON stays a string.

    Raises JsonLimitError for NaN, Infinity, numbers beyond a double and integers beyond ±2**53."""
    try:
        return loads_limited(text)
    except json.JSONDecodeError:
        return text


def apply_overrides(
    config: Mapping[str, Any],
    policies: Iterable[GfPolicy],
    *,
    enforce: Sequence[str] = (),
    set_values: Sequence[str] = (),
) -> PolicyConfig:
    """Apply `--enforce GF-COST-007=advisory`, `--enforce all=advisory` and `--set GF-AUD-002.min_days=365`.

    Rule ids or policy names are accepted; nested config keys use dots
    (`--set GF-COST-003.allowed.dev=[...]`).
    `--enforce all=LEVEL` overrides every policy, including levels given per policy in the file.
    """
    index = _Index(list(policies))
    result: PolicyConfig = copy.deepcopy(dict(config))
    problems: list[str] = []
    for item in enforce:
        problem = _apply_enforce(item, index, result)
        if problem:
            problems.append(problem)
    for item in set_values:
        problems.extend(_apply_set(item, index, result))
    if problems:
        raise PolicyConfigError(problems)
    return result


def _apply_enforce(item: str, index: _Index, result: PolicyConfig) -> str | None:
    """One `--enforce TARGET=LEVEL` applied to `result`, or the problem with it."""
    target, sep, level = item.partition("=")
    target, level = target.strip(), level.strip()
    where = f"--enforce {item}"
    if not sep or not target:
        return f"{where}: expected POLICY=LEVEL (a rule id, a policy name or `all`)"
    problem = _level_problem(level, where)
    if problem:
        return problem
    if target == ALL_KEY:
        _enforce_all(level, result)
        return None
    if _is_engine(target):
        for key in [k for k in result if isinstance(k, str) and _is_engine(k)]:
            del result[key]
        result[ENGINE_POLICY] = _level(level).value
        return None
    policy = index.find(target)
    if policy is None:
        return f"{where}: no such policy or rule id {target}; {index.close_to(target)}"
    entry = result.get(policy.name)
    if isinstance(entry, Mapping):
        result[policy.name] = {**entry, ENFORCEMENT_KEY: level}
    else:
        result[policy.name] = level
    return None


def _enforce_all(level: str, result: PolicyConfig) -> None:
    """`--enforce all=LEVEL`: a command-line `all` beats per-policy levels from the file."""
    result[ALL_KEY] = level
    for name, entry in list(result.items()):
        if isinstance(entry, Mapping):
            result[name] = {k: v for k, v in entry.items() if k != ENFORCEMENT_KEY}
        elif name not in (ALL_KEY, ENGINE_POLICY):
            del result[name]


def _apply_set(item: str, index: _Index, result: PolicyConfig) -> list[str]:
    """One `--set POLICY.KEY=VALUE` applied to `result`, or the problems with it."""
    where = f"--set {item}"
    found = _set_target(item, where, index)
    if isinstance(found, str):
        return [found]
    policy, keys, schema = found
    try:
        value = _parse_value(item.partition("=")[2].strip())
    except JsonLimitError as exc:
        expected = describe(schema[keys[0]]) if len(keys) == 1 else "a finite JSON value"
        return [f"{where[:200]}: {exc}; expected {expected}"]
    merged = _merged(result.get(policy.name), keys, value, schema[keys[0]])
    problems = schema_problems(merged[keys[0]], schema[keys[0]], f"{where}: {policy.name}.{keys[0]}")
    if not problems:
        result[policy.name] = merged
    return problems


def _set_target(item: str, where: str, index: _Index) -> str | tuple[GfPolicy, list[str], dict[str, Any]]:
    """The policy, key path and settable config schema a `--set` names, or the problem with it."""
    path, sep, _text = item.partition("=")
    target, dot, key_path = path.strip().partition(".")
    if not sep or not dot or not key_path:
        return f"{where}: expected POLICY.KEY=VALUE (e.g. GF-AUD-002.min_days=365)"
    if _is_engine(target):
        return f"{where}: {ENGINE_RULE_ID} takes no config, only a level (--enforce)"
    policy = index.find(target)
    if policy is None:
        return f"{where}: no such policy or rule id {target}; {index.close_to(target)}"
    keys = key_path.split(".")
    if keys[0] in (waivers.WAIVERS_KEY, waivers.WAIVABLE_KEY):
        return (
            f"{where}: {keys[0]} is set in the policy config file, where the change is reviewed, "
            "not on the command line (docs/waivers.md)"
        )
    schema = {
        k: v
        for k, v in (policy.config_schema.properties if policy.config_schema else {}).items()
        if k not in (waivers.WAIVERS_KEY, waivers.WAIVABLE_KEY)
    }
    if keys[0] not in schema:
        allowed = ", ".join(sorted(schema)) or "none (this policy takes no config)"
        return f"{where}: {policy.name} has no config key {keys[0]}; allowed: {allowed}"
    return policy, keys, schema


def _merged(entry: Any, keys: list[str], value: Any, key_schema: Mapping[str, Any]) -> dict[str, Any]:
    """The policy's entry with `value` set at the key path `keys` (nested dicts made as needed, starting
    from the key's default)."""
    merged: dict[str, Any] = (
        dict(entry) if isinstance(entry, Mapping) else ({ENFORCEMENT_KEY: entry} if entry else {})
    )
    if len(keys) == 1:
        merged[keys[0]] = value
        return merged
    current = copy.deepcopy(merged.get(keys[0], key_schema.get("default")))
    if not isinstance(current, dict):
        current = {}
    cursor = current
    for part in keys[1:-1]:
        nxt = cursor.get(part)
        if not isinstance(nxt, dict):
            nxt = {}
            cursor[part] = nxt
        cursor = nxt
    cursor[keys[-1]] = value
    merged[keys[0]] = current
    return merged


# --- reconciliation --------------------------------------------------------------------------------

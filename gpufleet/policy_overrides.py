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
    policy_list = list(policies)
    index = _Index(policy_list)
    result: PolicyConfig = copy.deepcopy(dict(config))
    problems: list[str] = []

    for item in enforce:
        target, sep, level = item.partition("=")
        target, level = target.strip(), level.strip()
        where = f"--enforce {item}"
        if not sep or not target:
            problems.append(f"{where}: expected POLICY=LEVEL (a rule id, a policy name or `all`)")
            continue
        problem = _level_problem(level, where)
        if problem:
            problems.append(problem)
            continue
        if target == ALL_KEY:
            result[ALL_KEY] = level
            # A command-line `all` beats per-policy levels from the file.
            for name, entry in list(result.items()):
                if isinstance(entry, Mapping):
                    result[name] = {k: v for k, v in entry.items() if k != ENFORCEMENT_KEY}
                elif name not in (ALL_KEY, ENGINE_POLICY):
                    del result[name]
            continue
        if _is_engine(target):
            for key in [k for k in result if isinstance(k, str) and _is_engine(k)]:
                del result[key]
            result[ENGINE_POLICY] = _level(level).value
            continue
        policy = index.find(target)
        if policy is None:
            problems.append(f"{where}: no such policy or rule id {target}; {index.close_to(target)}")
            continue
        entry = result.get(policy.name)
        if isinstance(entry, Mapping):
            result[policy.name] = {**entry, ENFORCEMENT_KEY: level}
        else:
            result[policy.name] = level

    for item in set_values:
        path, sep, text = item.partition("=")
        where = f"--set {item}"
        target, dot, key_path = path.strip().partition(".")
        if not sep or not dot or not key_path:
            problems.append(f"{where}: expected POLICY.KEY=VALUE (e.g. GF-AUD-002.min_days=365)")
            continue
        if _is_engine(target):
            problems.append(f"{where}: {ENGINE_RULE_ID} takes no config, only a level (--enforce)")
            continue
        policy = index.find(target)
        if policy is None:
            problems.append(f"{where}: no such policy or rule id {target}; {index.close_to(target)}")
            continue
        keys = key_path.split(".")
        if keys[0] in (waivers.WAIVERS_KEY, waivers.WAIVABLE_KEY):
            problems.append(
                f"{where}: {keys[0]} is set in the policy config file, where the change is reviewed, "
                "not on the command line (docs/waivers.md)"
            )
            continue
        schema = {
            k: v
            for k, v in (policy.config_schema.properties if policy.config_schema else {}).items()
            if k not in (waivers.WAIVERS_KEY, waivers.WAIVABLE_KEY)
        }
        if keys[0] not in schema:
            allowed = ", ".join(sorted(schema)) or "none (this policy takes no config)"
            problems.append(f"{where}: {policy.name} has no config key {keys[0]}; allowed: {allowed}")
            continue
        try:
            value = _parse_value(text.strip())
        except JsonLimitError as exc:
            expected = describe(schema[keys[0]]) if len(keys) == 1 else "a finite JSON value"
            problems.append(f"{where[:200]}: {exc}; expected {expected}")
            continue
        entry = result.get(policy.name)
        merged: dict[str, Any] = (
            dict(entry) if isinstance(entry, Mapping) else ({ENFORCEMENT_KEY: entry} if entry else {})
        )
        if len(keys) == 1:
            merged[keys[0]] = value
        else:
            current = copy.deepcopy(merged.get(keys[0], schema[keys[0]].get("default")))
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
        found = schema_problems(merged[keys[0]], schema[keys[0]], f"{where}: {policy.name}.{keys[0]}")
        if found:
            problems.extend(found)
            continue
        result[policy.name] = merged

    if problems:
        raise PolicyConfigError(problems)
    return result


# --- reconciliation --------------------------------------------------------------------------------

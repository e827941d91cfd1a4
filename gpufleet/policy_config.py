"""The policy pack's configuration: Pulumi's `--policy-pack-config` shape, validated and reconciled.

The file format is the one `pulumi preview --policy-pack policies --policy-pack-config FILE` reads:

    {"all": "mandatory",
     "bucket-lifecycle": {"enforcementLevel": "advisory", "transition_days": 7},
     "GF-AUD-002": {"min_days": 365}}

Keys are policy names, `all`, or (a gpufleet convenience, rewritten to names on load) rule ids. A value
is an enforcement level or an object with an optional `enforcementLevel` and the policy's config keys.

Beside `all`, the top-level key `waivers` holds the platform's waiver settings
(`gpufleet.policies.waivers.Settings`: `allow_tags`, `max_days`, `owners`); it is not a policy.

With a platform config (`gpufleet check --platform-config FILE`, the platform team's file, e.g. the base
branch's), `platform_policy_config` takes waivers, waiver settings, `waivable`, rule config and enforcement
from that file alone; the repository's own file may only make enforcement stricter.

Reconciliation follows the Pulumi CLI (`ReconcilePolicyPackConfig`): each policy starts from its own
enforcement level and its schema defaults; then every layer (the pack's initial config, then the user's
file, then command-line overrides) applies its `all` level first and its per-policy entries after.

The config schemas are checked in `gpufleet.config_schema`; `--enforce` and `--set` are applied in
`gpufleet.policy_overrides`.
"""

from __future__ import annotations

import copy
import difflib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from pulumi_policy import EnforcementLevel, Severity

from gpufleet import safe_yaml
from gpufleet.config_schema import schema_problems
from gpufleet.policies import waivers
from gpufleet.policies.rule import GfPolicy
from gpufleet.policies.waivers import Settings, Waiver, parse_config_waivers, parse_settings
from gpufleet.safe_json import JsonLimitError, loads_limited

ENFORCEMENT_LEVELS = tuple(level.value for level in EnforcementLevel)
ALL_KEY = "all"
ENFORCEMENT_KEY = "enforcementLevel"
CHECKOV_KEY = "checkov"
DEFAULT_FILE_NAMES = ("policy-config.json", "policy-config.yaml", "policy-config.yml")

# The engine's own finding (a component it could not look inside), not a policy of the pack: it takes an
# enforcement level by its id or name (`--enforce GF-ENGINE-001=mandatory`, or
# `component-not-inspected: {enforcementLevel: mandatory}` in the file), and no config. `all` leaves it
# alone: `all` speaks for the pack's policies, as under `pulumi preview --policy-pack`.
ENGINE_RULE_ID = "GF-ENGINE-001"
ENGINE_POLICY = "component-not-inspected"
ENGINE_DEFAULT = EnforcementLevel.ADVISORY
SETTINGS_KEY = waivers.SETTINGS_KEY
PLATFORM_ENV = "GPUFLEET_PLATFORM_CONFIG"
# How strict each level is: a repository file under a platform config may only raise it.
_STRICTNESS = {"disabled": 0, "advisory": 1, "mandatory": 2, "remediate": 2}

PolicyConfig = dict[str, Any]
"""Pulumi's shape: policy name (or `all`) -> enforcement level string or {enforcementLevel?, key: value}."""


class PolicyConfigError(ValueError):
    """Bad policy configuration: one line per problem naming the source, the key path and what is allowed."""

    def __init__(self, problems: Sequence[str]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(self.problems))


@dataclass(frozen=True)
class ResolvedPolicyConfig:
    """What one policy runs with after reconciliation."""

    enforcement: EnforcementLevel
    properties: dict[str, Any] = field(default_factory=dict)


# --- names ---------------------------------------------------------------------------------------


class _Index:
    """Policy lookup by name or rule id."""

    def __init__(self, policies: Iterable[GfPolicy]) -> None:
        self.by_name: dict[str, GfPolicy] = {}
        self.by_id: dict[str, GfPolicy] = {}
        for policy in policies:
            self.by_name[policy.name] = policy
            rule = getattr(policy, "rule", None)
            if rule is not None:
                self.by_id[rule.id] = policy

    def find(self, key: str) -> GfPolicy | None:
        return self.by_name.get(key) or self.by_id.get(key) or self.by_id.get(key.upper())

    def close_to(self, key: str) -> str:
        candidates = [*self.by_name, *self.by_id]
        close = difflib.get_close_matches(key, candidates, n=3, cutoff=0.6)
        if not close:
            close = difflib.get_close_matches(key.lower(), candidates, n=3, cutoff=0.4)
        return f"did you mean {', '.join(close)}?" if close else "run `gpufleet rules` for the list"


def _level_problem(value: Any, where: str) -> str | None:
    if isinstance(value, EnforcementLevel):
        return None
    if isinstance(value, str) and value in ENFORCEMENT_LEVELS:
        return None
    allowed = ", ".join(ENFORCEMENT_LEVELS)
    return f"{where}: {json.dumps(value, default=str)} is not an enforcement level; allowed: {allowed}"


def _level(value: Any) -> EnforcementLevel:
    return value if isinstance(value, EnforcementLevel) else EnforcementLevel(value)


# --- loading and validation ------------------------------------------------------------------------


def find_policy_config(project_dir: Path) -> Path | None:
    """The project's policy config beside Pulumi.yaml, if it has one."""
    for name in DEFAULT_FILE_NAMES:
        candidate = project_dir / name
        if candidate.is_file():
            return candidate
    return None


def read_policy_config_file(
    path: Path, *, kind: str = "policy config", shape: str = "an object of policy name -> config"
) -> dict[str, Any]:
    """Parse a policy config file (JSON, or YAML by extension) into a plain mapping. ``kind`` and
    ``shape`` name the file and what it should hold in errors (the checkov config shares this reader)."""
    try:
        text = safe_yaml.read_text(path)
    except OSError as error:
        raise PolicyConfigError([f"{path}: cannot read the {kind} ({error.strerror})"]) from None
    except safe_yaml.YamlLimitError as error:
        raise PolicyConfigError([f"{error}; expected a {kind} (JSON, or YAML by extension)"]) from None
    if not text.strip():
        return {}
    try:
        is_yaml = path.suffix.lower() in (".yaml", ".yml")
        data = safe_yaml.load(path, text) if is_yaml else loads_limited(text, unique_keys=True)
    except json.JSONDecodeError as error:
        expected = f"expected {shape}"
        raise PolicyConfigError([f"{path}:{error.lineno}: invalid JSON ({error.msg}); {expected}"]) from None
    except JsonLimitError as error:
        raise PolicyConfigError([f"{path}: {error}; expected {shape}"]) from None
    except safe_yaml.YamlLimitError as error:
        raise PolicyConfigError([f"{error}; expected {shape.replace('an object', 'a mapping', 1)}"]) from None
    except yaml.YAMLError as error:
        expected = f"expected {shape.replace('an object', 'a mapping', 1)}"
        raise PolicyConfigError([f"{path}: invalid YAML ({error}); {expected}"]) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise PolicyConfigError([f"{path}: the top level is a {type(data).__name__}; expected {shape}"])
    return data


def normalize_policy_config(
    raw: Mapping[str, Any],
    policies: Iterable[GfPolicy],
    *,
    source: str = "policy config",
    strict_names: bool = True,
) -> PolicyConfig:
    """Validate `raw` against the policies and rewrite rule-id keys to policy names.

    Every problem is collected and raised together as one PolicyConfigError. With `strict_names` off, keys
    naming no known policy are dropped silently (as the Pulumi engine does) instead of reported.
    """
    index = _Index(policies)
    problems: list[str] = []
    result: PolicyConfig = {}
    for key, value in raw.items():
        if not isinstance(key, str):
            problems.append(f"{source}: key {key!r} is not a string; expected a policy name or rule id")
            continue
        if key in (ALL_KEY, SETTINGS_KEY, CHECKOV_KEY):
            _normalize_reserved(key, value, source, problems, result)
            continue
        if _is_engine(key):
            _normalize_engine(key, value, source, problems, result)
            continue
        policy = index.find(key)
        if policy is None:
            if strict_names:
                problems.append(f"{source}: {key}: no such policy or rule id; {index.close_to(key)}")
            continue
        name = policy.name
        entry = _normalize_entry(value, policy, f"{source}: {key}", problems)
        if entry is None:
            continue
        if name in result:
            problems.append(f"{source}: {key}: configures policy {name} twice (by name and by rule id)")
            continue
        result[name] = entry
    if problems:
        raise PolicyConfigError(problems)
    return result


def _normalize_reserved(key: str, value: Any, source: str, problems: list[str], result: PolicyConfig) -> None:
    """The pack-wide keys (`all`, `settings`) into `result`, and the misplaced `checkov` key as a problem."""
    if key == ALL_KEY:
        level = value.get(ENFORCEMENT_KEY) if isinstance(value, Mapping) else value
        problem = _level_problem(level, f"{source}: {key}")
        if problem:
            problems.append(problem)
            return
        extra = sorted(set(value) - {ENFORCEMENT_KEY}) if isinstance(value, Mapping) else []
        if extra:
            problems.append(f"{source}: all.{extra[0]}: unknown key; `all` takes a level only")
            return
        result[ALL_KEY] = _level(level).value
        return
    if key == SETTINGS_KEY:
        _, found = parse_settings(value, f"{source}: {key}")
        if found:
            problems.extend(found)
            return
        result[SETTINGS_KEY] = dict(value) if isinstance(value, Mapping) else value
        return
    # The Pulumi CLI sends every top-level key to the pack as a policy: checkov's skips live in
    # checkov-config.json (gpufleet.checkov.config).
    problems.append(
        f"{source}: {key}: checkov's skip list is not a policy; move it to checkov-config.json "
        f'beside Pulumi.yaml ({{"skip": {{"CKV_...": "reason"}}}}, docs/checkov.md)'
    )


def _normalize_engine(key: str, value: Any, source: str, problems: list[str], result: PolicyConfig) -> None:
    """The engine's own policy, by name or rule id, into `result`."""
    level = _engine_level(value, f"{source}: {key}", problems)
    if level is None:
        return
    if ENGINE_POLICY in result:
        problems.append(f"{source}: {key}: configures {ENGINE_POLICY} twice (by name and by rule id)")
        return
    result[ENGINE_POLICY] = level


def _is_engine(key: str) -> bool:
    return key.upper() == ENGINE_RULE_ID or key == ENGINE_POLICY


def _engine_level(value: Any, where: str, problems: list[str]) -> str | None:
    """The engine rule's level from a file entry: a level, or an object with `enforcementLevel` only."""
    if isinstance(value, Mapping):
        extra = sorted(str(k) for k in value if k != ENFORCEMENT_KEY)
        if extra:
            problems.append(f"{where}.{extra[0]}: unknown key; {ENGINE_RULE_ID} takes {ENFORCEMENT_KEY} only")
            return None
        if ENFORCEMENT_KEY not in value:
            return ENGINE_DEFAULT.value
        value, where = value[ENFORCEMENT_KEY], f"{where}.{ENFORCEMENT_KEY}"
    problem = _level_problem(value, where)
    if problem:
        problems.append(problem)
        return None
    return _level(value).value


def engine_enforcement(*layers: Mapping[str, Any] | None) -> EnforcementLevel:
    """GF-ENGINE-001's level after every layer (file, then command line): advisory unless one names it.
    `remediate` means mandatory, as for the pack's policies."""
    level = ENGINE_DEFAULT
    for layer in layers:
        for key, value in (layer or {}).items():
            if isinstance(key, str) and _is_engine(key):
                problems: list[str] = []
                found = _engine_level(value, key, problems)
                if problems:
                    raise PolicyConfigError(problems)
                if found is not None:
                    level = _level(found)
    return EnforcementLevel.MANDATORY if level == EnforcementLevel.REMEDIATE else level


def _normalize_entry(value: Any, policy: GfPolicy, where: str, problems: list[str]) -> Any:
    if not isinstance(value, Mapping):
        problem = _level_problem(value, where)
        if problem:
            problems.append(problem)
            return None
        return _level(value).value
    schema = policy.config_schema.properties if policy.config_schema else {}
    entry: dict[str, Any] = {}
    ok = True
    for key, item in value.items():
        if key == ENFORCEMENT_KEY:
            problem = _level_problem(item, f"{where}.{key}")
            if problem:
                problems.append(problem)
                ok = False
            else:
                entry[key] = _level(item).value
            continue
        if key not in schema:
            allowed = ", ".join([ENFORCEMENT_KEY, *sorted(schema)])
            problems.append(f"{where}.{key}: unknown config key; allowed: {allowed}")
            ok = False
            continue
        found = schema_problems(item, schema[key], f"{where}.{key}")
        if not found and key == waivers.WAIVERS_KEY:
            found = parse_config_waivers(policy.rule.id, item, f"{where}.{key}")[1]
        if found:
            problems.extend(found)
            ok = False
            continue
        entry[key] = item
    critical = policy.rule.severity == Severity.CRITICAL
    if ok and entry.get(waivers.WAIVERS_KEY) and not waivers.waivable(policy.rule.id, entry, critical):
        how = (
            ""
            if waivers.WAIVABLE_KEY in entry
            else (" by default" + (" for a critical rule" if critical else ""))
        )
        problems.append(
            f"{where}.{waivers.WAIVERS_KEY}: {policy.rule.id} is not waivable (its `{waivers.WAIVABLE_KEY}` "
            f"is false{how}); fix the resource, or set `{waivers.WAIVABLE_KEY}: true` for the rule in this "
            "file if its owners agree"
        )
        ok = False
    return entry if ok else None


def load_policy_config(
    path: Path | None,
    policies: Iterable[GfPolicy],
    *,
    project_dir: Path | None = None,
) -> PolicyConfig:
    """The policy config from `path`, or the project's default file, or {} when there is none."""
    if path is None and project_dir is not None:
        path = find_policy_config(project_dir)
    if path is None:
        return {}
    return normalize_policy_config(read_policy_config_file(path), policies, source=str(path))


def waiver_settings(config: Mapping[str, Any] | None, file: str = "policy-config.json") -> Settings:
    """The waiver settings of a (validated) policy config; the defaults when it has none."""
    found, problems = parse_settings((config or {}).get(SETTINGS_KEY), SETTINGS_KEY, file)
    if problems:
        raise PolicyConfigError([f"{file}: {problem}" for problem in problems])
    return found


def config_waivers(config: Mapping[str, Any] | None, policies: Iterable[GfPolicy]) -> list[Waiver]:
    """Every config waiver of a (validated) policy config."""
    found: list[Waiver] = []
    for policy in policies:
        entry = (config or {}).get(policy.name)
        if isinstance(entry, Mapping):
            found += parse_config_waivers(policy.rule.id, entry.get(waivers.WAIVERS_KEY), "")[0]
    return found


def _strictness(value: Any) -> int | None:
    level = value.get(ENFORCEMENT_KEY) if isinstance(value, Mapping) else value
    if isinstance(level, EnforcementLevel):
        level = level.value
    return _STRICTNESS.get(level) if isinstance(level, str) else None


def platform_policy_config(
    platform: Mapping[str, Any], repository: Mapping[str, Any], policies: Iterable[GfPolicy]
) -> PolicyConfig:
    """The policy config a check runs with under a platform config: the platform's file (validated), with
    only the enforcement levels of the repository's file that are stricter than the platform's. The
    repository's waivers, waiver settings, `waivable` and rule config are not read."""
    policy_list = list(policies)
    result: PolicyConfig = copy.deepcopy(dict(platform))
    levels = resolve_policy_config(policy_list, platform)
    repository_all = _strictness(repository.get(ALL_KEY))
    for policy in policy_list:
        entry = repository.get(policy.name)
        wanted = _strictness(entry)
        level_value = entry.get(ENFORCEMENT_KEY) if isinstance(entry, Mapping) else entry
        if wanted is None and repository_all is not None:
            wanted, level_value = repository_all, repository[ALL_KEY]
        current = _STRICTNESS[levels[policy.name].enforcement.value]
        if wanted is None or wanted <= current:
            continue
        level_text = level_value.value if isinstance(level_value, EnforcementLevel) else str(level_value)
        given = result.get(policy.name)
        if isinstance(given, Mapping):
            result[policy.name] = {**given, ENFORCEMENT_KEY: level_text}
        else:
            result[policy.name] = level_text
    engine = engine_enforcement(repository)
    if (
        ENGINE_POLICY in repository
        and _STRICTNESS[engine.value] > _STRICTNESS[engine_enforcement(platform).value]
    ):
        result[ENGINE_POLICY] = engine.value
    return result


def resolve_policy_config(
    policies: Iterable[GfPolicy],
    *layers: Mapping[str, Any] | None,
    pack_enforcement: EnforcementLevel = EnforcementLevel.ADVISORY,
) -> dict[str, ResolvedPolicyConfig]:
    """Each policy's enforcement level and config, as the Pulumi CLI reconciles them before `Configure`.

    Keys naming no policy of `policies` are ignored (a file written for the whole pack may be applied to a
    selection). Enforcement levels and config types are validated; problems raise PolicyConfigError.
    """
    policy_list = list(policies)
    index = _Index(policy_list)
    resolved: dict[str, tuple[EnforcementLevel, dict[str, Any]]] = {}
    for policy in policy_list:
        schema = policy.config_schema.properties if policy.config_schema else {}
        defaults = {k: copy.deepcopy(v["default"]) for k, v in schema.items() if "default" in v}
        resolved[policy.name] = (policy.enforcement_level or pack_enforcement, defaults)

    problems: list[str] = []
    for layer in layers:
        if not layer:
            continue
        normalized = normalize_policy_config(layer, policy_list, strict_names=False)
        if ALL_KEY in normalized:
            level = _level(normalized[ALL_KEY])
            resolved = {name: (level, props) for name, (_, props) in resolved.items()}
        for name, entry in normalized.items():
            if name not in (ALL_KEY, ENGINE_POLICY, SETTINGS_KEY):
                resolved[name] = _apply_entry(resolved[name], entry)

    for name, (_, props) in resolved.items():
        policy = index.by_name[name]
        schema = policy.config_schema.properties if policy.config_schema else {}
        for key, value in props.items():
            if key in schema:
                problems.extend(schema_problems(value, schema[key], f"{name}.{key}"))
    if problems:
        raise PolicyConfigError(problems)
    return {name: ResolvedPolicyConfig(level, props) for name, (level, props) in resolved.items()}


def _apply_entry(
    current: tuple[EnforcementLevel, dict[str, Any]], entry: Any
) -> tuple[EnforcementLevel, dict[str, Any]]:
    """A policy's level and config after one layer's entry (a level, or a mapping of config and level)."""
    level, props = current
    if isinstance(entry, Mapping):
        if ENFORCEMENT_KEY in entry:
            level = _level(entry[ENFORCEMENT_KEY])
        props = {**props, **{k: v for k, v in entry.items() if k != ENFORCEMENT_KEY}}
    else:
        level = _level(entry)
    return level, props


def to_initial_config(config: Mapping[str, Any]) -> dict[str, EnforcementLevel | dict[str, Any]]:
    """The shape `PolicyPack(initial_config=...)` takes: enforcement levels as EnforcementLevel members."""
    result: dict[str, EnforcementLevel | dict[str, Any]] = {}
    for name, entry in config.items():
        if isinstance(entry, Mapping):
            converted = dict(entry)
            if ENFORCEMENT_KEY in converted:
                converted[ENFORCEMENT_KEY] = _level(converted[ENFORCEMENT_KEY])
            result[name] = converted
        else:
            result[name] = _level(entry)
    return result

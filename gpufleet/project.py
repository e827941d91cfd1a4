"""Pulumi project and stack files, read the way the Pulumi CLI reads them.

`Pulumi.yaml` gives the project name, the runtime, where the program lives (`main:`), where the stack
files live (`stackConfigDir:`) and project-level config defaults. `Pulumi.<stack>.yaml` gives the
stack's config. The program sees config the way the CLI hands it over: every value a string, keys
without a namespace belonging to the project, objects and lists JSON-encoded.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from gpufleet import safe_yaml

# `secure:` values are encrypted with the stack's secrets provider; without it (and without the
# Pulumi CLI) they cannot be read, so the program gets this marked stand-in instead.
SECRET_PLACEHOLDER = "[secret: not decrypted offline]"

_STACK_NAME_RE = re.compile(r"[A-Za-z0-9_.-]{1,100}")
_PROJECT_NAME_RE = re.compile(r"[A-Za-z0-9_.-]{1,100}")
_MAX_PATH_CHARS = 1024
_SCHEMA_KEYS = frozenset({"type", "description", "default", "value", "secret", "items"})


class ProjectError(Exception):
    """A project or stack file that cannot be used; the message names the file and the cause."""


@dataclass(frozen=True)
class Project:
    name: str
    root: Path
    runtime: str
    runtime_options: dict[str, Any]
    main: Path
    """The program: a directory holding `__main__.py`, or a single Python file."""
    stack_config_dir: Path
    config_defaults: dict[str, Any]
    """Project-level config defaults, keys fully qualified (`<project>:key`, `<cloud>:region`)."""

    @property
    def program_dir(self) -> Path:
        """The working directory the Python language host runs the program in."""
        return self.main if self.main.is_dir() else self.main.parent

    @property
    def program_file(self) -> Path:
        return self.main / "__main__.py" if self.main.is_dir() else self.main

    def stack_file(self, stack: str) -> Path:
        return self.stack_config_dir / f"Pulumi.{stack}.yaml"

    def stacks(self) -> list[str]:
        """Stack names that have a stack file, sorted."""
        if not self.stack_config_dir.is_dir():
            return []
        found = []
        for path in self.stack_config_dir.glob("Pulumi.*.yaml"):
            name = path.name[len("Pulumi.") : -len(".yaml")]
            if name:
                found.append(name)
        return sorted(found)


@dataclass
class StackConfig:
    """One stack's config, structured (for reports) and encoded (for the program)."""

    values: dict[str, Any] = field(default_factory=dict)
    """Fully qualified key -> the YAML value (objects stay objects); secrets replaced by the stand-in."""
    secret_keys: set[str] = field(default_factory=set)
    undecrypted: list[str] = field(default_factory=list)
    """Keys holding at least one `secure:` value that could not be decrypted offline."""
    environments: list[str] = field(default_factory=list)
    stack_file: Path | None = None
    """The stack file read, or None for a stack without one (project defaults only)."""

    def encoded(self) -> dict[str, str]:
        """The config as the Pulumi CLI passes it to a Python program."""
        return {key: encode_config_value(value) for key, value in self.values.items()}


def _read_yaml(path: Path) -> Any:
    try:
        return safe_yaml.load(path, safe_yaml.read_text(path))
    except OSError as exc:
        raise ProjectError(f"cannot read {path}: {exc.strerror or exc}") from None
    except safe_yaml.YamlLimitError as exc:
        raise ProjectError(str(exc)) from None
    except yaml.YAMLError as exc:
        where = ""
        mark = getattr(exc, "problem_mark", None)
        if mark is not None:
            where = f" at line {mark.line + 1}, column {mark.column + 1}"
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ProjectError(f"{path} is not valid YAML{where}: {safe_yaml.clip(str(problem))}") from None


def _project_file(project_dir: Path, root: Path) -> Path:
    """`Pulumi.yaml` (or `Pulumi.yml`) of the project directory `root`; ProjectError when there is none."""
    if root.exists() and not root.is_dir():
        raise ProjectError(
            f"project directory {project_dir} is a file; pass the directory of a Pulumi project "
            "(the one holding Pulumi.yaml)"
        )
    if not root.is_dir():
        raise ProjectError(f"project directory {project_dir} does not exist")
    path = root / "Pulumi.yaml"
    if not path.is_file() and (root / "Pulumi.yml").is_file():
        path = root / "Pulumi.yml"
    if not path.is_file():
        raise ProjectError(
            f"no Pulumi.yaml in {root}: pass the directory of a Pulumi project (the one holding Pulumi.yaml)"
        )
    return path


def _runtime_options(path: Path, runtime_raw: Any) -> tuple[str, dict[str, Any]]:
    """The runtime (`python`) and its `runtime.options`; ProjectError for another runtime or bad options."""
    runtime_options: dict[str, Any] = {}
    if isinstance(runtime_raw, dict):
        runtime = runtime_raw.get("name")
        options = runtime_raw.get("options")
        if options is not None and not isinstance(options, dict):
            raise ProjectError(
                f"{path}: `runtime.options` must be a mapping, got {safe_yaml.quote(options, 60)}"
            )
        runtime_options = dict(options or {})
    else:
        runtime = runtime_raw
    if runtime != "python":
        raise ProjectError(
            f"{path}: runtime is {safe_yaml.quote(runtime, 60)}; the offline engine runs Python programs "
            "only (runtime: python)"
        )
    return runtime, runtime_options


def _main_path(path: Path, root: Path, main_raw: Any) -> Path:
    """The program's directory or file: `main`, relative to the project, or the project itself."""
    if main_raw is None:
        return root
    if not isinstance(main_raw, str) or not _is_relative_path(main_raw):
        raise ProjectError(
            f"{path}: `main` must be a path relative to the project, got {safe_yaml.quote(main_raw, 100)}"
        )
    main = (root / main_raw).resolve()
    if not main.exists():
        raise ProjectError(f"{path}: `main` points to {main}, which does not exist")
    return main


def load_project(project_dir: Path) -> Project:
    """Read `<project_dir>/Pulumi.yaml` (or `Pulumi.yml`)."""
    root = project_dir.resolve()
    path = _project_file(project_dir, root)
    data = _read_yaml(path)
    if not isinstance(data, dict):
        raise ProjectError(f"{path} must be a mapping with at least `name` and `runtime`")
    name = data.get("name")
    if not isinstance(name, str) or not _PROJECT_NAME_RE.fullmatch(name):
        raise ProjectError(
            f"{path}: `name` must be a project name (letters, digits, '-', '_' and '.', at most 100 "
            f"characters), got {safe_yaml.quote(name, 60)}"
        )

    runtime, runtime_options = _runtime_options(path, data.get("runtime"))
    main = _main_path(path, root, data.get("main"))
    program_file = main / "__main__.py" if main.is_dir() else main
    if not program_file.is_file():
        raise ProjectError(f"{path}: the program {program_file} does not exist")

    config_dir_raw = data.get("stackConfigDir")
    if config_dir_raw is not None and not (
        isinstance(config_dir_raw, str) and _is_relative_path(config_dir_raw)
    ):
        raise ProjectError(
            f"{path}: `stackConfigDir` must be a relative path, got {safe_yaml.quote(config_dir_raw, 100)}"
        )
    stack_config_dir = (root / config_dir_raw).resolve() if config_dir_raw else root

    defaults = _project_config_defaults(path, name, data.get("config"))
    return Project(
        name=name,
        root=root,
        runtime=runtime,
        runtime_options=runtime_options,
        main=main,
        stack_config_dir=stack_config_dir,
        config_defaults=defaults,
    )


def _is_relative_path(text: str) -> bool:
    """A path a project file may name: relative, without NUL bytes, of a length the OS accepts."""
    return bool(text) and "\0" not in text and len(text) <= _MAX_PATH_CHARS and not Path(text).is_absolute()


def key_text(key: Any) -> str:
    """A YAML mapping key as the Pulumi CLI spells it (Go's `%v`): `on:` and `true:` are "true"."""
    if isinstance(key, bool):
        return "true" if key else "false"
    return str(key)


def qualify_key(key: str, project: str) -> str:
    """`fleet` -> `<project>:fleet`; `aws:region` stays."""
    return key if ":" in key else f"{project}:{key}"


def _project_config_defaults(path: Path, project: str, config: Any) -> dict[str, Any]:
    if config is None:
        return {}
    if not isinstance(config, dict):
        raise ProjectError(f"{path}: `config` must be a mapping of keys to values or declarations")
    defaults: dict[str, Any] = {}
    for key, declared in config.items():
        full = qualify_key(key_text(key), project)
        # A declaration (`{type, default, value, ...}`) or a shorthand value; a mapping made only of
        # declaration keys is a declaration, anything else is a structured value.
        if isinstance(declared, dict) and declared and set(declared) <= _SCHEMA_KEYS:
            if "value" in declared:
                defaults[full] = declared["value"]
            elif "default" in declared:
                defaults[full] = declared["default"]
        elif declared is not None:
            defaults[full] = declared
    return defaults


def check_stack_name(stack: str) -> None:
    """Stack names as the Pulumi CLI allows them: letters, digits, `-`, `_` and `.`, at most 100."""
    if not _STACK_NAME_RE.fullmatch(stack) or stack in (".", ".."):
        raise ProjectError(
            f"stack name {safe_yaml.quote(stack, 60)} is not valid: use letters, digits, '-', '_' and '.' "
            "(at most 100 characters), the name alone (dev, not org/project/dev)"
        )


def load_stack_config(
    project: Project, stack: str, overrides: Mapping[str, Any] | None = None
) -> StackConfig:
    """Project defaults, then the stack file, then `overrides` (keys may omit the project namespace).

    A stack without a stack file has the project's defaults only, as with the Pulumi CLI (most example
    projects ship none); `StackConfig.stack_file` is then None."""
    check_stack_name(stack)
    path = project.stack_file(stack)
    if not path.is_file() and (path.exists() or path.is_symlink()):
        raise ProjectError(f"{path} is not a regular file; a stack file is a YAML file")
    result = StackConfig(stack_file=path if path.is_file() else None)
    data = _read_yaml(path) if result.stack_file is not None else None
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ProjectError(f"{path} must be a mapping with a `config:` section")
    stack_values = data.get("config") or {}
    if not isinstance(stack_values, dict):
        raise ProjectError(f"{path}: `config` must be a mapping of keys to values")

    env = data.get("environment")
    imports = env.get("imports") if isinstance(env, dict) else env
    if isinstance(imports, list):
        result.environments = [safe_yaml.clip(str(e), 100) for e in imports]
    elif imports is not None:
        raise ProjectError(
            f"{path}: `environment` must be a list of Pulumi ESC environments (or imports: [...]), got "
            f"{safe_yaml.quote(imports, 60)}"
        )

    merged: dict[str, Any] = dict(project.config_defaults)
    for key, value in stack_values.items():
        merged[qualify_key(key_text(key), project.name)] = value
    for key, value in (overrides or {}).items():
        merged[qualify_key(key_text(key), project.name)] = value

    for key, value in merged.items():
        plain, had_secret = _strip_secure(value)
        result.values[key] = plain
        if had_secret:
            result.secret_keys.add(key)
            result.undecrypted.append(key)
    return result


def _strip_secure(value: Any) -> tuple[Any, bool]:
    if isinstance(value, dict):
        if set(value) == {"secure"}:
            return SECRET_PLACEHOLDER, True
        found = False
        out: dict[str, Any] = {}
        for k, v in value.items():
            out[key_text(k)], inner = _strip_secure(v)
            found = found or inner
        return out, found
    if isinstance(value, list):
        items = [_strip_secure(v) for v in value]
        return [v for v, _ in items], any(s for _, s in items)
    return value, False


def encode_config_value(value: Any) -> str:
    """Encode one config value as the CLI does: strings as is, scalars as YAML spells them, rest JSON."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return ""
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return str(int(value)) if math.isfinite(value) and value.is_integer() else repr(value)
    # Non-finite numbers are refused when the file is read; allow_nan=False keeps them out regardless.
    return json.dumps(value, separators=(",", ":"), default=str, allow_nan=False)

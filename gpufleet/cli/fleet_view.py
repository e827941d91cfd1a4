"""The fleet spec of a stack file, validated, and its effective values as `gpufleet plan` shows them."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel
from rich.console import Console
from rich.markup import escape
from rich.tree import Tree

from gpufleet.cli.common import BadInput, _stack_file
from gpufleet.cli.plan_settings import _fmt
from gpufleet.project import ProjectError, load_project, load_stack_config

if TYPE_CHECKING:
    from gpufleet.components.spec import FleetSpec


@dataclass(frozen=True)
class FleetView:
    """A stack's parsed fleet spec beside the mapping written in its stack file."""

    source: str
    spec: FleetSpec
    given: Any


def load_fleet(project_dir: Path, stack: str) -> FleetView | None:
    """The stack's `gpufleet:fleet`, validated; None when the stack has no such key (any other program).

    Raises BadInput listing every problem of the spec, one per line."""
    from gpufleet.components.spec import CONFIG_KEY, SpecError, load_fleet_from_config

    try:
        project = load_project(project_dir)
        config = load_stack_config(project, stack)
    except ProjectError as exc:
        raise BadInput(str(exc)) from None
    if CONFIG_KEY not in config.values:
        return None
    source = _stack_file(project, stack)
    try:
        spec = load_fleet_from_config(config.values, source)
    except SpecError as exc:
        count = len(exc.errors)
        raise BadInput(
            f"{source}: invalid {CONFIG_KEY} ({count} problem{'' if count == 1 else 's'}):",
            exc.format().splitlines(),
        ) from None
    given = config.values[CONFIG_KEY]
    if isinstance(given, str):
        try:
            given = json.loads(given)
        except json.JSONDecodeError:
            given = {}
    return FleetView(source=source, spec=spec, given=given)


# Marks a field the stack file leaves out (None is a value a file may write).
_ABSENT: Any = object()


def _field_description(model: BaseModel, name: str) -> str:
    info = type(model).model_fields.get(name)
    return (info.description or "") if info is not None else ""


def _spec_value(value: Any) -> str:
    if value is None:
        return "none"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, list):
        return "[" + ", ".join(_spec_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_spec_value(v)}" for k, v in value.items()) + "}"
    return _fmt(value)


_DEFAULT_MARK = "  [yellow](default)[/]"


def _spec_leaf(name: str, shown: str, given: bool, description: str) -> str:
    about = f"  [dim]{escape(description)}[/]" if description else ""
    return f"{escape(name)}: [bold]{escape(shown)}[/]{'' if given else _DEFAULT_MARK}{about}"


def _add_spec_node(branch: Tree, name: str, value: Any, *, dumped: Any, given: Any, description: str) -> None:
    """One field: a branch for models and mappings, a leaf for everything else. `given` is the same
    field in the stack file, or a sentinel when the file leaves it out."""
    written = given is not _ABSENT
    if isinstance(value, BaseModel):
        node = branch.add(escape(name) + ("" if written else _DEFAULT_MARK))
        _add_spec_fields(node, value, dumped, given if isinstance(given, Mapping) else {})
    elif isinstance(value, Mapping) and value:
        node = branch.add(escape(name))
        for key, item in value.items():
            sub_given = given.get(key, _ABSENT) if isinstance(given, Mapping) else _ABSENT
            _add_spec_node(node, str(key), item, dumped=dumped[key], given=sub_given, description="")
    else:
        branch.add(_spec_leaf(name, _spec_value(dumped), written, description))


def _add_spec_fields(
    branch: Tree, model: BaseModel, dumped: Mapping[str, Any], given: Mapping[str, Any]
) -> None:
    for name in type(model).model_fields:
        value = getattr(model, name)
        description = _field_description(model, name)
        if type(model).model_fields[name].annotation is type(None):
            # Reserved for later (on-prem baseline, private links): no value can be set yet.
            continue
        _add_spec_node(
            branch, name, value, dumped=dumped[name], given=given.get(name, _ABSENT), description=description
        )


def render_fleet(fleet: FleetView, console: Console) -> None:
    """The effective fleet spec: every value, marked as written in the stack file or taken by default."""
    from gpufleet.components.spec import CONFIG_KEY

    tree = Tree(
        f"[bold]effective {CONFIG_KEY}[/] of {escape(fleet.source)}: values marked (default) are not in "
        "the stack file"
    )
    given = fleet.given if isinstance(fleet.given, Mapping) else {}
    _add_spec_fields(tree, fleet.spec, fleet.spec.defaults_view(), given)
    console.print(tree)

"""`gpufleet check --list-stacks`: the project's stacks and the clouds each one uses.

The pull-request workflow builds its job matrix from this list, so a stack file added under the
project's stack directory is checked, priced and previewed without editing the workflow. The list is
read from the files alone (no program runs, nothing is validated), so one stack with a broken fleet
spec still gets its own check job, which then reports the problem.

A stack's clouds are the providers it configures (`aws:region`, `alicloud:region`,
`tencentcloud:region`, `kubernetes:context` and any other key in those namespaces), the clouds its
fleet spec names (`pools.<name>.cloud`, default aws; the `cloud:region` keys of `links`;
`onprem` runs on Kubernetes) and aws for an account baseline (`gpufleet:account`). The workflow uses
them to decide which short-lived credentials a preview of the stack needs.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpufleet.components import clouds
from gpufleet.project import Project, ProjectError, load_project, load_stack_config

CLOUDS = (*clouds.CLOUDS, clouds.KUBERNETES)
FORMATS = ("json", "text")
FLEET_KEY = "gpufleet:fleet"
ACCOUNT_KEY = "gpufleet:account"


class StackListError(Exception):
    """A project or stack file that cannot be listed; the message names the file and what to fix."""


@dataclass(frozen=True)
class StackEntry:
    name: str
    stack_file: str
    clouds: tuple[str, ...]

    def as_json(self) -> dict[str, Any]:
        return {"name": self.name, "stack_file": self.stack_file, "clouds": list(self.clouds)}


def _mapping(value: Any) -> Mapping[str, Any]:
    """A spec value as a mapping: objects may reach the config JSON-encoded."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            return {}
    return value if isinstance(value, Mapping) else {}


def spec_clouds(fleet: Any) -> set[str]:
    """The clouds a `gpufleet:fleet` mapping names, read leniently (validation is `check`'s job)."""
    spec = _mapping(fleet)
    found: set[str] = set()
    for pool in _mapping(spec.get("pools")).values():
        cloud = _mapping(pool).get("cloud", clouds.DEFAULT_CLOUD)
        if cloud in CLOUDS:
            found.add(cloud)
    for site in _mapping(spec.get("links")):
        cloud = str(site).split(":", 1)[0]
        if cloud in CLOUDS:
            found.add(cloud)
    if spec.get("onprem") is not None:
        found.add("kubernetes")
    return found


def stack_clouds(values: Mapping[str, Any]) -> tuple[str, ...]:
    """The clouds of one stack's merged config (fully qualified keys), in `CLOUDS` order."""
    found = {key.split(":", 1)[0] for key in values if ":" in key} & set(CLOUDS)
    if FLEET_KEY in values:
        found |= spec_clouds(values[FLEET_KEY])
    if ACCOUNT_KEY in values:
        found.add(clouds.ACCOUNT_CLOUD)
    return tuple(cloud for cloud in CLOUDS if cloud in found)


def _relative(project: Project, path: Path) -> str:
    try:
        return path.relative_to(project.root).as_posix()
    except ValueError:
        return path.as_posix()


def list_stacks(project_dir: Path) -> list[StackEntry]:
    """Every stack with a stack file, sorted by name. Raises StackListError when there is none."""
    try:
        project = load_project(project_dir)
        names = project.stacks()
        if not names:
            raise StackListError(
                f"no stack files (Pulumi.<stack>.yaml) in {project.stack_config_dir}: the workflow's "
                "matrix would be empty; add a stack file there"
            )
        return [
            StackEntry(
                name=name,
                stack_file=_relative(project, project.stack_file(name)),
                clouds=stack_clouds(load_stack_config(project, name).values),
            )
            for name in names
        ]
    except ProjectError as exc:
        raise StackListError(str(exc)) from None


def render(entries: list[StackEntry], fmt: str) -> str:
    """json: one line, a list of {name, stack_file, clouds} (a `fromJSON` matrix); text: a table."""
    if fmt == "json":
        return json.dumps([entry.as_json() for entry in entries], separators=(",", ":")) + "\n"
    if fmt == "text":
        width = max(len(entry.name) for entry in entries)
        return "".join(
            f"{entry.name:<{width}}  {','.join(entry.clouds) or '-'}  {entry.stack_file}\n"
            for entry in entries
        )
    raise StackListError(f"--format {fmt!r} is not allowed with --list-stacks; allowed: {', '.join(FORMATS)}")

"""`gpufleet new`: a new stack file from a golden template, and in a directory without a Pulumi project,
the whole project around it (gpufleet.templates.project).

A template is a commented stack file with `{{ name }}` placeholders for what the team must decide (cost
tags, budget, region). Rendering fills them from command-line options only, never prompts, so CI can run
it; the result is validated as a fleet spec and priced against the catalogue before anything is written,
and written atomically, so a failed `new` leaves the stack directory as it was. A fleet's budget must
hold the fleet's monthly estimate (the one GF-COST-002 holds it against), else nothing is written and the
error names the estimate: a stack `new` writes is one `gpufleet check` passes.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from gpufleet.components.clouds import CLOUDS, DEFAULT_CLOUD, PROFILES, Cloud, cloud_parts
from gpufleet.components.naming import fleet_name
from gpufleet.project import ProjectError, load_project

__all__ = [
    "OPTION_NAMES",
    "CreatedStack",
    "NewStackError",
    "Template",
    "create_stack",
    "default_timezone",
    "get_template",
    "list_templates",
    "render",
]

# Pulumi's own rule for a stack name (the last part of org/project/stack), which also names the file.
_STACK_NAME_RE = re.compile(r"^[A-Za-z0-9_.-]{1,100}$")
_PLACEHOLDER_RE = re.compile(r"\{\{\s*([a-z_]+)\s*\}\}")
_DESCRIPTION_PREFIX = "# template:"
# Each cloud's region-name pattern and hint (REGION_RE, REGION_HINT in gpufleet/<cloud>.py).
_PARTS = cloud_parts("gpufleet")
# The provider config key naming a stack's home region, by cloud (gpufleet.components.sites.base).
_REGION_KEYS = tuple(p.region_key for p in PROFILES.values())
# AWS tag values: letters, digits, spaces and `_ . : / = + - @`, at most 256 characters.
_TAG_VALUE_RE = re.compile(r"^[\w .:/=+\-@]{1,256}$")
_TAG_PARAMETERS = ("project", "team", "cost_center")

OPTION_NAMES: Mapping[str, str] = {
    "project": "--project",
    "team": "--team",
    "cost_center": "--cost-center",
    "budget": "--budget",
    "region": "--region",
    "replica_region": "--replica-region",
    "timezone": "--timezone",
}
"""Template parameter -> the `gpufleet new` option that gives it."""
_PARAMETER_OF = {option: name for name, option in OPTION_NAMES.items()}

# Filled by `create_stack` itself, never by an option.
_DERIVED = frozenset({"stack_file", "stack_name", "fleet_name", "schema_url"})

# Off-hours windows are local working hours; a region's usual zone is a better guess than UTC.
_REGION_TIMEZONES: Mapping[str, str] = {
    "us-east-1": "America/New_York",
    "us-east-2": "America/New_York",
    "us-west-1": "America/Los_Angeles",
    "us-west-2": "America/Los_Angeles",
    "ca-central-1": "America/Toronto",
    "eu-west-1": "Europe/Dublin",
    "eu-west-2": "Europe/London",
    "eu-central-1": "Europe/Berlin",
    "ap-northeast-1": "Asia/Tokyo",
    "ap-northeast-2": "Asia/Seoul",
    "ap-southeast-1": "Asia/Singapore",
    "ap-southeast-2": "Australia/Sydney",
    "ap-south-1": "Asia/Kolkata",
    # Alibaba Cloud's mainland regions keep China Standard Time.
    "cn-hangzhou": "Asia/Shanghai",
    "cn-shanghai": "Asia/Shanghai",
    "cn-beijing": "Asia/Shanghai",
    "cn-shenzhen": "Asia/Shanghai",
    "cn-hongkong": "Asia/Hong_Kong",
    "ap-guangzhou": "Asia/Shanghai",
    "ap-shanghai": "Asia/Shanghai",
    "ap-beijing": "Asia/Shanghai",
    "ap-chengdu": "Asia/Shanghai",
    "ap-nanjing": "Asia/Shanghai",
    "ap-hongkong": "Asia/Hong_Kong",
    "ap-singapore": "Asia/Singapore",
}


class NewStackError(Exception):
    """A stack that cannot be created; nothing was written. `details` holds one line per problem."""

    def __init__(self, message: str, details: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.details = list(details)


@dataclass(frozen=True)
class Template:
    name: str
    description: str
    text: str

    @property
    def parameters(self) -> tuple[str, ...]:
        """The placeholders the template uses, in order of first use."""
        return tuple(dict.fromkeys(_PLACEHOLDER_RE.findall(self.text)))

    @property
    def required_options(self) -> tuple[str, ...]:
        """The options a team must pass; the time zone has a default derived from the region."""
        used = set(self.parameters)
        return tuple(option for name, option in OPTION_NAMES.items() if name in used and name != "timezone")


@dataclass(frozen=True)
class CreatedStack:
    path: Path
    relative: str
    """The stack file relative to the project directory, POSIX form (`stacks/Pulumi.dev.yaml`)."""
    project_files: tuple[str, ...] = ()
    """The other files written, relative and POSIX, when the directory held no project: Pulumi.yaml,
    the program, the policy pack shim, policy-config.json, the CI workflow (empty in a project)."""
    monthly_estimate: float | None = None
    """The fleet's monthly cost estimate in its budget's currency (None for the account baseline)."""
    currency: str = ""


def list_templates() -> list[Template]:
    """Every shipped template, sorted by name."""
    found = []
    for entry in resources.files("gpufleet.templates").iterdir():
        if not entry.name.endswith(".yaml"):
            continue
        text = entry.read_text(encoding="utf-8")
        first = text.splitlines()[0] if text else ""
        if not first.startswith(_DESCRIPTION_PREFIX):
            raise AssertionError(
                f"template {entry.name} must start with '{_DESCRIPTION_PREFIX} <description>'"
            )
        found.append(
            Template(
                name=entry.name.removesuffix(".yaml"),
                description=first.removeprefix(_DESCRIPTION_PREFIX).strip(),
                text=text,
            )
        )
    return sorted(found, key=lambda t: t.name)


def get_template(name: str) -> Template:
    templates = list_templates()
    for template in templates:
        if template.name == name:
            return template
    known = ", ".join(t.name for t in templates)
    raise NewStackError(f"unknown template {name!r}; known templates: {known}")


def default_timezone(region: str) -> str:
    return _REGION_TIMEZONES.get(region, "UTC")


def _yaml_scalar(value: str | float) -> str:
    """`value` as a YAML scalar that reads back as the same value (quoted only where YAML needs it)."""
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else repr(value)
    # Values are at most 256 characters (tag rules), so this width never folds one over two lines.
    dumped = yaml.safe_dump(value, default_flow_style=True, width=1000)
    return str(dumped).removesuffix("\n").removesuffix("\n...").strip()


def render(template: Template, values: Mapping[str, str | float]) -> str:
    """The template with every placeholder replaced; KeyError names a placeholder without a value.
    ``fleet_name`` follows from ``stack_name`` (components/naming.py) unless given, ``schema_url`` is the
    schema of the running gpufleet release (gpufleet.schema.SCHEMA_URL)."""
    from gpufleet.schema import SCHEMA_URL

    if "stack_name" in values and "fleet_name" not in values:
        values = {**values, "fleet_name": fleet_name(str(values["stack_name"]))}

    def replace(match: re.Match[str]) -> str:
        # The editor's schema comment names this release's schema, as a bare URL.
        if match.group(1) == "schema_url":
            return str(values.get("schema_url", SCHEMA_URL))
        return _yaml_scalar(values[match.group(1)])

    # The description line is for `--list`; the stack file starts with its own header.
    body = template.text.split("\n", 1)[1] if "\n" in template.text else ""
    return _PLACEHOLDER_RE.sub(replace, body)


def _region_problems(template: Template, values: Mapping[str, str | float | None]) -> list[str]:
    """--region and --replica-region, each a region name of the cloud whose provider region the template
    leaves open (a hybrid template fixes the others')."""
    part = _PARTS[_open_region_cloud(template)]
    problems = []
    for name in ("region", "replica_region"):
        value = values.get(name)
        if name not in template.parameters:
            continue
        if not part.REGION_RE.fullmatch(str(value)):
            problems.append(f"{OPTION_NAMES[name]} {value!r}: {part.REGION_HINT}")
    return problems


def _open_region_cloud(template: Template) -> Cloud:
    """The cloud whose `<cloud>:region: {{ region }}` the template leaves open, the first in registry order
    besides the default cloud, whose region is the one asked for when no other is open."""
    for key in CLOUDS:
        if key != DEFAULT_CLOUD and f"{PROFILES[key].region_key}: {{{{ region }}}}" in template.text:
            return key
    return DEFAULT_CLOUD


def _check_values(template: Template, values: Mapping[str, str | float | None]) -> dict[str, str | float]:
    """The template's parameters from `values`, or NewStackError listing every missing or bad one."""
    missing = [
        option for option in template.required_options if values.get(_PARAMETER_OF[option]) in (None, "")
    ]
    if missing:
        raise NewStackError(f"template {template.name!r} needs {', '.join(missing)}: pass each as an option")
    problems = []
    for name in _TAG_PARAMETERS:
        value = values.get(name)
        if name in template.parameters and not _TAG_VALUE_RE.fullmatch(str(value)):
            problems.append(
                f"{OPTION_NAMES[name]} {value!r}: a tag value holds 1-256 letters, digits, spaces "
                "and _ . : / = + - @"
            )
    problems += _region_problems(template, values)
    if "replica_region" in template.parameters and values.get("replica_region") == values.get("region"):
        problems.append(
            f"--replica-region {values.get('replica_region')!r}: must differ from --region, "
            "the replica is the copy that survives the loss of the first region"
        )
    if problems:
        raise NewStackError(f"cannot render template {template.name!r}:", problems)
    chosen: dict[str, str | float] = {}
    for name in template.parameters:
        value = values.get(name)
        if name == "timezone" and value in (None, ""):
            value = default_timezone(str(values.get("region", "")))
        if value is not None:
            chosen[name] = value
    return chosen


def _price_problems(spec_pools: Mapping[str, Any], regions: Mapping[str, str]) -> list[str]:
    """Pool instance types the catalogue has no price for in the pool's region (its own, else its
    cloud's provider region in ``regions``): `check` and `cost` could not price the stack, so the
    template does not fit that region."""
    from gpufleet.components.catalog import load_catalog

    catalog = load_catalog()
    problems = []
    for name, pool in spec_pools.items():
        pool_region = pool.region or regions.get(pool.cloud, "")
        for instance_type in pool.instance_types:
            found = catalog.find(pool.cloud, instance_type)
            if found is not None and pool_region not in found.on_demand:
                priced = ", ".join(sorted(found.on_demand))
                problems.append(
                    f"pools.{name}: {instance_type} is not offered in {pool_region} "
                    f"(the catalogue prices it in {priced})"
                )
    return problems


def _write_atomically(path: Path, text: str) -> None:
    """Readers see no stack file or the whole new one; a failure leaves no temporary file behind."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise NewStackError(f"cannot write {path}: {exc.strerror or exc}") from None


def _has_project(project_dir: Path) -> bool:
    return (project_dir / "Pulumi.yaml").is_file() or (project_dir / "Pulumi.yml").is_file()


_PROJECT_NAME_RE = re.compile(r"^[A-Za-z0-9_.-]{1,100}$")


def _project_name(tag: str | float | None, root: Path) -> str:
    """The new project's Pulumi name: the `project` cost tag where it is a valid project name, else the
    directory's name with what Pulumi refuses replaced by '-'."""
    if isinstance(tag, str) and _PROJECT_NAME_RE.fullmatch(tag):
        return tag
    name = re.sub(r"[^A-Za-z0-9_.-]+", "-", root.name).strip("-.")[:100]
    return name or "gpufleet"


def _version() -> str:
    """The release of the gpufleet running now."""
    from importlib import metadata

    try:
        return metadata.version("gpufleet")
    except metadata.PackageNotFoundError:
        return "0.1.0"


def _requirement() -> str:
    """The requirement that installs the gpufleet running now."""
    return f"gpufleet @ git+https://github.com/gpufleet/gpufleet@v{_version()}"


def _validated(
    template: Template, stack: str, relative: str, values: Mapping[str, str | float | None]
) -> str:
    """The rendered stack file, checked as a fleet spec (or account baseline) and against the catalogue's
    regions; NewStackError lists every problem."""
    from gpufleet.components.spec import (
        ACCOUNT_CONFIG_KEY,
        SpecError,
        load_fleet_from_config,
        parse_account_baseline,
    )

    chosen = _check_values(template, values)
    text = render(template, {**chosen, "stack_file": relative, "stack_name": stack})
    config = yaml.safe_load(text)["config"]
    if ACCOUNT_CONFIG_KEY in config:
        # The account baseline: no pools to price, its own spec.
        try:
            parse_account_baseline(config[ACCOUNT_CONFIG_KEY], source=relative)
        except SpecError as exc:
            raise NewStackError(
                f"template {template.name!r} with these options is not a valid account baseline; "
                "nothing written:",
                exc.format().splitlines(),
            ) from None
        return text
    try:
        spec = load_fleet_from_config(config, source=relative)
    except SpecError as exc:
        count = len(exc.errors)
        raise NewStackError(
            f"template {template.name!r} with these options is not a valid fleet "
            f"({count} problem{'' if count == 1 else 's'}); nothing written:",
            exc.format().splitlines(),
        ) from None
    region = next(str(config[key]) for key in _REGION_KEYS if key in config)
    regions = {key.split(":")[0]: str(config[key]) for key in _REGION_KEYS if key in config}
    problems = _price_problems(spec.pools, regions)
    if problems:
        raise NewStackError(
            f"template {template.name!r} does not fit region {region}; nothing written:",
            problems,
        )
    return text


def _estimate(template: Template, stack: str, relative: str, text: str) -> tuple[float, str] | None:
    """The fleet's monthly estimate in its budget's currency, priced as `gpufleet check` prices it: the
    fleet program run offline on the stack (in a scratch project, so an existing project's own program
    and files are not involved); NewStackError when the budget does not hold it. None without a budget."""
    from gpufleet.cost import CostError, estimate_stack
    from gpufleet.engine import EngineError, run_program
    from gpufleet.templates.project import project_files

    with tempfile.TemporaryDirectory(prefix="gpufleet-new-") as scratch:
        root = Path(scratch)
        files = project_files("gpufleet-new", _requirement(), _version())
        for name in ("Pulumi.yaml", "infra/__main__.py"):
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(files[name], encoding="utf-8")
        (root / "stacks").mkdir()
        (root / "stacks" / f"Pulumi.{stack}.yaml").write_text(text, encoding="utf-8")
        try:
            graph = run_program(root, stack)
            report = estimate_stack(graph, source=relative)
        except (EngineError, CostError) as exc:
            raise NewStackError(
                f"template {template.name!r} with these options cannot be priced; nothing written:",
                str(exc).splitlines(),
            ) from None
    if report.budget is None:
        return None
    estimate = report.monthly_estimate
    if math.isfinite(estimate) and estimate > report.budget.monthly:
        enough = int(math.ceil(estimate / 100.0) * 100)
        raise NewStackError(
            f"--budget {_yaml_scalar(report.budget.monthly)} {report.budget.currency} is below the monthly "
            f"estimate of template {template.name!r}, {estimate:,.2f} {report.currency} (as `gpufleet cost` "
            "prices it: usage profile and schedules), and GF-COST-002 would fail the stack; "
            f"nothing written. Pass --budget {enough} or more",
        )
    return estimate, report.currency


def _write_project(root: Path, files: Mapping[str, str]) -> None:
    """Every file or none: a failure removes what this call wrote (and the folders it made)."""
    made_dirs: list[Path] = []
    written: list[Path] = []
    try:
        for relative, text in files.items():
            path = root / relative
            missing = [p for p in (path.parent, *path.parent.parents) if not p.exists()]
            made_dirs.extend(reversed(missing))
            _write_atomically(path, text)
            written.append(path)
    except NewStackError:
        for path in written:
            path.unlink(missing_ok=True)
        for folder in reversed(made_dirs):
            with contextlib.suppress(OSError):  # not empty: something else wrote there meanwhile
                folder.rmdir()
        raise


def create_stack(
    project_dir: Path,
    stack: str,
    template_name: str,
    values: Mapping[str, str | float | None],
    *,
    force: bool = False,
) -> CreatedStack:
    """Render `template_name` into the project's `Pulumi.<stack>.yaml`, or raise NewStackError with
    nothing written. A directory without Pulumi.yaml (or one that does not exist yet) gets the whole
    project around the stack (gpufleet.templates.project); no file already there is overwritten."""
    from gpufleet.templates.project import project_files

    if not _STACK_NAME_RE.fullmatch(stack):
        raise NewStackError(
            f"invalid stack name {stack!r}: use 1-100 letters, digits, '-', '_' or '.' "
            "(the stack file is named Pulumi.<stack>.yaml)"
        )
    template = get_template(template_name)
    others: dict[str, str] = {}
    if project_dir.exists() and not project_dir.is_dir():
        raise NewStackError(
            f"project directory {project_dir} is a file; pass a directory: a Pulumi project, or an empty "
            "or new one to make a project in"
        )
    if _has_project(project_dir):
        try:
            project = load_project(project_dir)
        except ProjectError as exc:
            raise NewStackError(str(exc)) from None
        path = project.stack_file(stack)
        try:
            relative = path.relative_to(project.root).as_posix()
        except ValueError:
            relative = path.as_posix()
        if path.exists() and not force:
            raise NewStackError(f"{relative} already exists; pass --force to overwrite it")
    else:
        root = project_dir.resolve()
        relative = f"stacks/Pulumi.{stack}.yaml"
        path = root / relative
        others = project_files(_project_name(values.get("project"), root), _requirement(), _version())
        there = [name for name in (*others, relative) if (root / name).exists()]
        if there:
            raise NewStackError(
                f"{project_dir} holds no Pulumi.yaml, so `new` makes a project there, but it already has "
                f"{', '.join(there)}; nothing written. Move them away, or add a Pulumi.yaml to make it a "
                "project `new` adds a stack to"
            )

    text = _validated(template, stack, relative, values)
    estimate = _estimate(template, stack, relative, text)
    if others:
        _write_project(path.parents[1], {**others, relative: text})
    else:
        _write_atomically(path, text)
    return CreatedStack(
        path=path,
        relative=relative,
        project_files=tuple(others),
        monthly_estimate=estimate[0] if estimate else None,
        currency=estimate[1] if estimate else "",
    )

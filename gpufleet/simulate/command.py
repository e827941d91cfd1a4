"""`gpufleet simulate`: read the stack (and the base's, with --compare or --base-ref), the trace, replay,
render; every bad input a SimulateError naming the file and field."""

from __future__ import annotations

import datetime as dt
import re
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gpufleet.plotfiles import plot_path_problem, write_plot
from gpufleet.simulate.model import DEFAULT_BOOT_MINUTES, Result, SimPool, Trace, simulate
from gpufleet.simulate.pools import SimulateError, sim_pool
from gpufleet.simulate.scenarios import SCENARIOS, scenario_trace

FORMATS = ("text", "json", "markdown")
DEFAULT_START = "2026-01-05T00:00:00+00:00"  # a Monday: an index trace starts the week
MAX_BOOT_MINUTES = 120
_BOOT_RE = re.compile(r"^(\d{1,5})\s*([sm])$")
_GIT_TIMEOUT_S = 30


class SimulateInputError(SimulateError):
    """A SimulateError with one line per problem below its first paragraph."""

    def __init__(self, message: str, details: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.details = list(details)


@dataclass
class Output:
    text: str
    files: dict[Path, bytes] = field(default_factory=dict)


def parse_format(value: str) -> str:
    fmt = {"md": "markdown"}.get(value.strip().lower(), value.strip().lower())
    if fmt not in FORMATS:
        raise SimulateError(f"--format {value!r} is not allowed here; allowed: {', '.join(FORMATS)}")
    return fmt


def parse_boot(value: str) -> int:
    match = _BOOT_RE.match(value.strip())
    seconds = None
    if match:
        seconds = int(match.group(1)) * (60 if match.group(2) == "m" else 1)
    if seconds is None or seconds % 60 or seconds > MAX_BOOT_MINUTES * 60:
        raise SimulateError(
            f"--boot {value!r}: give the minutes a new instance takes to boot and take work, a whole number "
            f"of minutes like 4m or 240s, at most {MAX_BOOT_MINUTES}m"
        )
    return seconds // 60


def parse_start(value: str | None) -> dt.datetime:
    text = value if value is not None else DEFAULT_START
    try:
        moment = dt.datetime.fromisoformat(text.strip())
    except ValueError:
        moment = None
    from gpufleet.simulate.traces import in_range

    if moment is None or moment.tzinfo is None or moment.second or moment.microsecond or not in_range(moment):
        raise SimulateError(
            f"--start {text!r}: give the first minute of an index trace as an ISO 8601 time at a whole "
            "minute with a UTC offset between the years 1970 and 2199, like 2026-01-05T00:00Z or "
            "2026-01-05T08:00+08:00"
        )
    return moment


def check_plots(plots: Sequence[Path]) -> None:
    """Each --plot path names .png or .svg in a directory that exists: checked before the replay."""
    for path in plots:
        problem = plot_path_problem(path)
        if problem:
            raise SimulateError(problem)


# ----------------------------------------------------------------------------------------- the specs


def _spec(config: Mapping[str, Any], source: str) -> Any:
    from gpufleet.components.spec import CONFIG_KEY, SpecError, load_fleet_from_config

    try:
        return load_fleet_from_config(config, source)
    except SpecError as exc:
        count = len(exc.errors)
        raise SimulateInputError(
            f"{source}: invalid {CONFIG_KEY} ({count} problem{'' if count == 1 else 's'}):",
            exc.format().splitlines(),
        ) from None


def _config_of(data: Any, source: str, project_name: str) -> dict[str, Any]:
    """A stack file's `config:` mapping, keys qualified with the project's name as Pulumi does."""
    from gpufleet.project import key_text, qualify_key

    if not isinstance(data, dict) or not isinstance(data.get("config"), dict):
        raise SimulateError(f"{source}: not a stack file: it needs a `config:` mapping")
    return {qualify_key(key_text(k), project_name): v for k, v in data["config"].items()}


def _read_stack_text(text: str, source: str, project_name: str) -> dict[str, Any]:
    import yaml

    from gpufleet import safe_yaml

    try:
        data = safe_yaml.load(Path(source), text)
    except safe_yaml.YamlLimitError as exc:
        raise SimulateError(str(exc)) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise SimulateError(f"{source} is not valid YAML{where}: {safe_yaml.clip(str(problem))}") from None
    return _config_of(data, source, project_name)


def _base_from_file(path: Path, project_name: str) -> tuple[dict[str, Any], str]:
    from gpufleet import safe_yaml

    try:
        text = safe_yaml.read_text(path)
    except IsADirectoryError:
        raise SimulateError(f"--compare {path} is a directory; give the base branch's stack file") from None
    except OSError as exc:
        raise SimulateError(f"cannot read --compare {path}: {exc.strerror or exc}") from None
    except safe_yaml.YamlLimitError as exc:
        raise SimulateError(f"--compare {exc}") from None
    return _read_stack_text(text, str(path), project_name), str(path)


def _base_from_ref(ref: str, stack_file: Path, project_name: str) -> tuple[dict[str, Any], str]:
    if not ref or ref.startswith("-") or any(c.isspace() for c in ref):
        raise SimulateError(f"--base-ref {ref!r}: give a git branch, tag or commit like origin/main")
    directory = stack_file.parent
    try:
        top = subprocess.run(
            ["git", "-C", str(directory), "rev-parse", "--show-toplevel"],
            capture_output=True,
            text=True,
            timeout=_GIT_TIMEOUT_S,
            check=False,
        )
        if top.returncode != 0:
            raise SimulateError(f"--base-ref {ref}: {directory} is not in a git work tree")
        relative = stack_file.resolve().relative_to(Path(top.stdout.strip()).resolve()).as_posix()
        shown = subprocess.run(
            ["git", "-C", str(directory), "show", f"{ref}:{relative}"],
            capture_output=True,
            text=True,
            timeout=_GIT_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired, ValueError) as exc:
        raise SimulateError(f"--base-ref {ref}: git could not be run ({exc})") from None
    if shown.returncode != 0:
        problem = shown.stderr.strip().splitlines()[-1] if shown.stderr.strip() else "git show failed"
        raise SimulateError(f"--base-ref {ref}: cannot read {relative} there: {problem}")
    source = f"{ref}:{relative}"
    return _read_stack_text(shown.stdout, source, project_name), source


# -------------------------------------------------------------------------------------------- the run


def _trace(value: str, pool: SimPool, start: dt.datetime) -> Trace:
    from gpufleet.simulate.traces import read_trace

    if value.startswith("scenario:"):
        name = value.removeprefix("scenario:")
        if name not in SCENARIOS:
            known = ", ".join(f"scenario:{n}" for n in SCENARIOS)
            raise SimulateError(f"--trace {value!r}: no such scenario; built in: {known}")
        return scenario_trace(name, pool.off_hours.timezone if pool.off_hours else "UTC")
    return read_trace(Path(value), start)


def _project(project_dir: Path, stack: str) -> tuple[Any, Any, Path, str]:
    """The project, the stack's config, its file and how the report names it."""
    from gpufleet.project import ProjectError, load_project, load_stack_config

    try:
        project = load_project(project_dir)
        config = load_stack_config(project, stack)
    except ProjectError as exc:
        raise SimulateError(str(exc)) from None
    stack_file = project.stack_file(stack)
    try:
        source = stack_file.relative_to(project.root).as_posix()
    except ValueError:
        source = stack_file.as_posix()
    return project, config, stack_file, source


def _catalog_and_currency(currency: str | None) -> tuple[Any, str | None]:
    from gpufleet.components.catalog import CatalogError, load_catalog

    try:
        catalog = load_catalog()
    except CatalogError as exc:
        raise SimulateError(f"the GPU catalogue cannot be read: {exc}") from None
    if currency is not None and currency.strip().upper() not in catalog.per_usd:
        known = ", ".join(sorted(catalog.per_usd))
        raise SimulateError(f"--currency {currency!r}: the catalogue's rates know {known}")
    return catalog, currency.strip().upper() if currency else None


def _render(selected: str, head: Result, stack: str, notes: list[str]) -> str:
    from gpufleet.simulate import report

    if selected == "json":
        from gpufleet import finite

        return finite.dumps(report.to_json(head, stack, notes))
    if selected == "markdown":
        return report.render_markdown(head, stack, notes)
    return report.render_text(head, stack, notes)


def _render_compare(selected: str, base: Result, head: Result, stack: str, label: str) -> str:
    from gpufleet.simulate import report

    if selected == "json":
        from gpufleet import finite

        return finite.dumps(report.compare_json(base, head, stack, label))
    if selected == "markdown":
        return report.render_compare_markdown(base, head, stack, label)
    return report.render_compare_text(base, head, stack, label)


def run(
    project_dir: Path,
    stack: str,
    pool_name: str,
    trace_value: str,
    *,
    fmt: str = "text",
    compare: Path | None = None,
    base_ref: str | None = None,
    plots: Sequence[Path] = (),
    boot: str = f"{DEFAULT_BOOT_MINUTES}m",
    start: str | None = None,
    currency: str | None = None,
) -> Output:
    """The report for ``gpufleet simulate`` and the plot files to write; SimulateError for bad input."""
    from gpufleet.simulate.traces import TraceError

    selected = parse_format(fmt)
    boot_minutes = parse_boot(boot)
    first_minute = parse_start(start)
    check_plots(plots)
    if compare is not None and base_ref is not None:
        raise SimulateError("give --compare FILE or --base-ref REF, not both")
    project, config, stack_file, source = _project(project_dir, stack)
    catalog, code = _catalog_and_currency(currency)
    spec = _spec(config.values, source)
    head, notes = sim_pool(
        spec, pool_name, config.values, catalog, source=source, currency=code, boot_minutes=boot_minutes
    )
    base_values: dict[str, Any] | None = None
    base_label = ""
    if compare is not None:
        base_values, base_label = _base_from_file(compare, project.name)
    elif base_ref is not None:
        base_values, base_label = _base_from_ref(base_ref, stack_file, project.name)
    try:
        trace = _trace(trace_value, head, first_minute)
    except TraceError as exc:
        raise SimulateError(str(exc)) from None
    head_result = simulate(head, trace)
    results: list[tuple[str, Result]] = [("", head_result)]
    if base_values is not None:
        base, _ = sim_pool(
            _spec(base_values, base_label),
            pool_name,
            base_values,
            catalog,
            source=base_label,
            currency=head.currency,
            boot_minutes=boot_minutes,
        )
        base_result = simulate(base, trace)
        results = [("base", base_result), ("head", head_result)]
        text = _render_compare(selected, base_result, head_result, stack, base_label)
    else:
        text = _render(selected, head_result, stack, notes)
    output = Output(text)
    if plots:
        from gpufleet.simulate.plot import render

        for path in plots:
            output.files[path] = render(results, path.suffix.lower())
    return output


def write_files(files: Mapping[Path, bytes]) -> None:
    """Each file whole or not at all (staged beside it, then renamed)."""
    for target, data in files.items():
        try:
            write_plot(target, data)
        except OSError as exc:
            raise SimulateError(f"cannot write --plot {target}: {exc.strerror or exc}") from None

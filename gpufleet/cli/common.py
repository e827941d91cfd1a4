"""What every command shares: the typer app and its consoles, exit statuses and the clean exit 2 on bad
input, the options several commands take, running a stack offline and writing files.

The consoles and the engine's entry point are looked up on the package (`cli.out`, `cli.err`,
`cli.run_program`) when a command runs, so setting `gpufleet.cli.out` to another rich Console (a wider
one, a recording one) or `gpufleet.cli.run_program` to a cached run takes effect in every command."""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.markup import escape

from gpufleet import __version__, cli
from gpufleet.atomic import write_files_atomically
from gpufleet.engine import DEFAULT_TIMEOUT, EngineError
from gpufleet.graph import ResourceGraph
from gpufleet.project import Project, ProjectError, load_project

EXIT_OK, EXIT_VIOLATION, EXIT_BAD_INPUT = 0, 1, 2

app = typer.Typer(
    name="gpufleet",
    help="Hybrid GPU fleets on Pulumi: see what a stack builds, check it against the guardrails and "
    "price it, offline (no Pulumi CLI, no cloud credentials).",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode="rich",
    pretty_exceptions_enable=False,
)


out = Console(highlight=False)
err = Console(stderr=True, highlight=False)


class BadInput(Exception):
    """Input the user can fix, exit status 2: one paragraph, or a heading and one line per problem."""

    def __init__(self, message: str, details: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.details = list(details)


def fail(problem: BadInput | str) -> typer.Exit:
    """Print `error: ...` on stderr (never a traceback) and return the exit for status 2."""
    message = str(problem)
    details = problem.details if isinstance(problem, BadInput) else []
    text = " ".join(line.strip() for line in message.strip().splitlines() if line.strip())
    cli.err.print(f"[bold red]error:[/] {escape(text)}", soft_wrap=True)
    for line in details:
        cli.err.print(f"  {escape(line)}", soft_wrap=True)
    return typer.Exit(EXIT_BAD_INPUT)


def _version(value: bool) -> None:
    if value:
        cli.out.print(f"gpufleet {__version__}")
        raise typer.Exit(EXIT_OK)


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version and exit.")
    ] = False,
) -> None:
    """Hybrid GPU fleets on Pulumi, with guardrails and cost before deploy."""


ProjectDir = Annotated[
    Path,
    typer.Argument(help="Directory of the Pulumi project (the one holding Pulumi.yaml).", show_default=True),
]


def _run(
    project_dir: Path,
    stack: str,
    stack_references: Mapping[str, Mapping[str, Any]] | None = None,
    timeout: float = DEFAULT_TIMEOUT,
) -> ResourceGraph:
    if not 0 < timeout < math.inf:
        raise BadInput(f"--timeout {timeout:g}: give the seconds a program may run, a positive number (300)")
    try:
        return cli.run_program(project_dir, stack, stack_references=stack_references, timeout=timeout)
    except EngineError as exc:
        from gpufleet.suggest import stack_hint

        raise BadInput(str(exc) + stack_hint(project_dir, stack)) from None


def write_stdout(text: str) -> None:
    """A report exactly as rendered (rich would expand tabs and turn `:name:` into emoji)."""
    sys.stdout.write(text)
    sys.stdout.flush()


def _stack_file(project: Project, stack: str) -> str:
    """The stack file relative to the project directory, in POSIX form (`stacks/Pulumi.dev.yaml`)."""
    path = project.stack_file(stack)
    try:
        return path.relative_to(project.root).as_posix()
    except ValueError:
        return path.as_posix()


def read_stack_references(path: Path | None) -> dict[str, dict[str, Any]] | None:
    """`--stack-refs FILE`: JSON `{"org/project/stack": {"output": value}}` for `pulumi.StackReference`."""
    if path is None:
        return None
    example = 'e.g. {"acme/network/prod": {"vpc_id": "vpc-0abc"}}'
    from gpufleet.safe_json import MAX_DEPTH, JsonLimitError, loads_limited

    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise BadInput(f"cannot read --stack-refs {path}: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise BadInput(
            f"--stack-refs {path}: byte {exc.start} is not UTF-8; write the file as UTF-8 JSON, {example}"
        ) from None
    try:
        data = loads_limited(text)
    except json.JSONDecodeError as exc:
        raise BadInput(
            f"--stack-refs {path}:{exc.lineno}: invalid JSON ({exc.msg}); expected an object of "
            f"stack name -> outputs, {example}"
        ) from None
    except JsonLimitError as exc:
        raise BadInput(
            f"--stack-refs {path}: {exc}; expected an object of stack name -> outputs (finite numbers, "
            f"at most {MAX_DEPTH} levels deep), {example}"
        ) from None
    if not isinstance(data, dict):
        raise BadInput(
            f"--stack-refs {path}: the top level is a {type(data).__name__}; expected an object of "
            f"stack name -> outputs, {example}"
        )
    for name, outputs in data.items():
        if not isinstance(outputs, dict):
            raise BadInput(
                f"--stack-refs {path}: {name}: expected an object of output name -> value, "
                f"got {type(outputs).__name__}"
            )
    return data


StackRefs = Annotated[
    Path | None,
    typer.Option(
        "--stack-refs",
        help='JSON file of stack reference outputs: {"org/project/stack": {"output": value}}.',
    ),
]
Timeout = Annotated[
    float,
    typer.Option(
        "--timeout",
        metavar="SECONDS",
        help="Stop the program after this many seconds (exit 2): it runs in a child process.",
    ),
]


_FORMAT_ALIASES = {"md": "markdown", "txt": "text", "xml": "junit"}


def _stacks(project_dir: Path, stack: str | None, all_stacks: bool) -> tuple[Project, list[str]]:
    if bool(stack) == all_stacks:
        raise BadInput("pass exactly one of --stack/-s STACK or --all-stacks")
    try:
        project = load_project(project_dir)
    except ProjectError as exc:
        raise BadInput(str(exc)) from None
    if stack:
        return project, [stack]
    found = project.stacks()
    if not found:
        raise BadInput(f"no stack files (Pulumi.<stack>.yaml) in {project.stack_config_dir}")
    return project, found


def write_atomically(path: Path, text: str) -> None:
    """Readers of `path` see the old file or the whole new one, never a half-written report."""
    try:
        write_files_atomically({path: text})
    except OSError as exc:
        raise BadInput(f"cannot write {path}: {exc.strerror or exc}") from None


def _emit(text: str, output: Path | None) -> None:
    if output is None:
        write_stdout(text)
        return
    write_atomically(output, text)
    cli.out.print(f"wrote {escape(str(output))}", soft_wrap=True)

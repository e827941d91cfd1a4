"""The offline engine: run any Pulumi Python program in-process and record what it registers.

The program runs as the Python language host runs it (working directory and `sys.path` at the
program's directory, `__name__ == "__main__"`, config from the stack file), but against a recording
resource monitor instead of the Pulumi engine. Every registration is captured from the full request
the SDK sends (parent, dependencies, provider, component or custom) with its inputs in the engine's
wire form: camelCase names, unknown and secret sentinels. Outputs come from `gpufleet.mocks` and are
synthetic.

Each run happens in a child process (`gpufleet.sandbox`) under a time limit: whatever the program
does (loop, sleep, fork, `os._exit`, leave threads running, close stdout, crash the interpreter), the
caller gets a graph or a one-paragraph `EngineError`, and its own process state is untouched. Inside
the child the run also has its own `contextvars` context, event loop and working directory, with
`sys.path`, `sys.argv` and the program's own modules restored afterwards.

The recording monitor is `gpufleet.engine_monitor`; what the child sends back is checked in
`gpufleet.engine_received`, and a failed program's message is written in `gpufleet.engine_errors`.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import io
import logging
import os
import runpy
import sys
import threading
import warnings
from collections.abc import Awaitable, Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pulumi
import pulumi.resource as pulumi_resource
import pulumi.runtime
from pulumi.runtime import settings as pulumi_settings
from pulumi.runtime.stack import run_pulumi_func, wait_for_rpcs

from gpufleet import sandbox
from gpufleet.childrun import (
    child_problem,
    import_sdk_modules,
    left_behind,
    quick_registrations,
    remember_sdk_modules,
    sdk_modules,
)
from gpufleet.engine_errors import EngineError, program_error
from gpufleet.engine_monitor import RecordingMonitor
from gpufleet.engine_received import received
from gpufleet.graph import ResourceGraph
from gpufleet.invokes import looked_up_images
from gpufleet.mocks import FleetMocks
from gpufleet.project import SECRET_PLACEHOLDER, Project, ProjectError, load_project, load_stack_config

# `pulumi.resource` functions every resource constructor calls, in program order.
_CONSTRUCTION_HOOKS = ("register_resource", "read_resource")

_PRINTED_LINES_KEPT = 20

DEFAULT_TIMEOUT = 300.0
"""Seconds a program may run before it is stopped (`--timeout`)."""

# The run mutates process-wide state (cwd, sys.path, sys.modules): one run at a time.
_RUN_LOCK = threading.Lock()


class _NoteHandler(logging.Handler):
    """Collects the program's warnings and errors (pulumi.log) as graph notes."""

    def __init__(self, notes: list[str]) -> None:
        super().__init__(level=logging.WARNING)
        self.notes = notes

    def emit(self, record: logging.LogRecord) -> None:
        message = " ".join(record.getMessage().split())
        text = f"program {record.levelname.lower()}: {message}"
        if text not in self.notes:
            self.notes.append(text)


# -- running a program -----------------------------------------------------------------------------


def run_program(
    project_dir: Path,
    stack: str,
    *,
    config_overrides: Mapping[str, Any] | None = None,
    stack_references: Mapping[str, Mapping[str, Any]] | None = None,
    timeout: float | None = DEFAULT_TIMEOUT,
) -> ResourceGraph:
    """Run the Pulumi Python project in `project_dir` for `stack` and return what it registered.

    `stack_references` gives outputs for `pulumi.StackReference(name)` by name; without it they
    read as empty (and a note says so). The program runs in a child process and is stopped after
    `timeout` seconds (None: no limit).
    """
    try:
        project = load_project(Path(project_dir))
        stack_config = load_stack_config(project, stack, config_overrides)
    except ProjectError as exc:
        raise EngineError(str(exc)) from None

    graph = ResourceGraph(project=project.name, stack=stack, config=dict(stack_config.values))
    for key in stack_config.undecrypted:
        graph.notes.append(
            f"config {key} is a secret (secure:) that cannot be decrypted offline; "
            f"the program read the placeholder {SECRET_PLACEHOLDER!r}"
        )
    if stack_config.environments:
        graph.notes.append(
            "the stack file imports Pulumi ESC environments "
            f"({', '.join(stack_config.environments)}); their values are not available offline"
        )
    job = _Job(
        project=project,
        stack=stack,
        config=stack_config.encoded(),
        secret_keys=sorted(stack_config.secret_keys),
        stack_references={k: dict(v) for k, v in (stack_references or {}).items()}
        if stack_references is not None
        else None,
    )
    import_sdk_modules()
    try:
        sent = sandbox.call(_record, job, timeout=timeout)
    except sandbox.ChildProblem as exc:
        raise EngineError(child_problem(exc, project)) from None
    recorded = received(sent, project)
    if isinstance(recorded, str):
        raise EngineError(recorded)
    remember_sdk_modules(recorded.sdk_modules)
    isolation = sandbox.isolation()
    if not isolation.namespaces:
        graph.notes.append(f"{UNISOLATED_NOTE}: {isolation.reason}")

    for resource in recorded.resources:
        graph.add(resource)
    graph.outputs = recorded.outputs
    graph.notes.extend(n for n in recorded.notes if n not in graph.notes)
    graph.image_arches.update(recorded.image_arches)
    return graph


@dataclass(frozen=True)
class _Job:
    """What the child process needs to run the program: all of it pickles."""

    project: Project
    stack: str
    config: dict[str, str]
    secret_keys: list[str]
    stack_references: dict[str, dict[str, Any]] | None


UNISOLATED_NOTE = "the program ran without isolation"
"""Start of the graph note when namespaces were not available (`check --strict` refuses such a run)."""


def _record(job: _Job) -> dict[str, Any] | str:
    """Run the program (in the child process): the registrations, or the error message for the user."""
    project = job.project
    mocks = FleetMocks(job.config, job.stack_references)
    monitor = RecordingMonitor(mocks)
    log_notes: list[str] = []
    threads_before = set(threading.enumerate())
    modules_before = set(sys.modules)
    run = _Run(project, job.stack, job.config, job.secret_keys, mocks, monitor, log_notes)
    try:
        with _RUN_LOCK, quick_registrations():
            contextvars.copy_context().run(_run_isolated, run)
    except EngineError as exc:
        return str(exc)
    except KeyboardInterrupt as exc:
        # The child leads its own process group: a Ctrl-C at the terminal never reaches it, so this
        # was raised by the program.
        return str(program_error(exc, project, project.stack_file(job.stack)))
    problem = left_behind(project, threads_before)
    if problem:
        return problem

    # Registrations reach the monitor in an order that depends on thread timing; the graph lists
    # them in the order the program constructed them, so two runs give the same graph.
    position = {urn: index for index, urn in enumerate(run.program_order)}
    records = list(monitor.records.values())
    records.sort(key=lambda r: position.get(r.urn, len(position)))
    outputs: dict[str, Any] = {}
    if monitor.stack_urn and monitor.stack_urn in monitor.records:
        outputs = dict(monitor.records[monitor.stack_urn].outputs)
    return {
        "resources": [record.to_json() for record in records],
        "outputs": outputs,
        "notes": [*mocks.notes, *log_notes],
        "image_arches": looked_up_images(mocks),
        "sdk_modules": sdk_modules(n for n in list(sys.modules) if n not in modules_before),
    }


@dataclass(frozen=True)
class _Run:
    project: Project
    stack: str
    config: dict[str, str]
    secret_keys: list[str]
    mocks: FleetMocks
    monitor: RecordingMonitor
    notes: list[str]
    program_order: list[str] = field(default_factory=list)
    """URNs in the order the program constructed them."""


def _current_loop() -> asyncio.AbstractEventLoop | None:
    """The caller's event loop, if it has one, to put back after the run."""
    with warnings.catch_warnings():
        # Asking for the current loop when there is none is deprecated from Python 3.12 on.
        warnings.simplefilter("ignore", DeprecationWarning)
        with contextlib.suppress(RuntimeError):
            return asyncio.get_event_loop_policy().get_event_loop()
    return None


def _new_loop() -> asyncio.AbstractEventLoop:
    """The run's own event loop, made current."""
    loop = asyncio.new_event_loop()
    # Futures the SDK leaves failed after a program error would be logged when collected, long after
    # the run; the error itself is reported once, as an EngineError.
    loop.set_exception_handler(_ignore_unretrieved)
    # The mock calls are short and hold the GIL: one worker thread is as fast as many.
    loop.set_default_executor(ThreadPoolExecutor(max_workers=1, thread_name_prefix="gpufleet-monitor"))
    asyncio.set_event_loop(loop)
    return loop


def _install_hooks(run: _Run, created: list[pulumi.Resource]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Record each resource as the program constructs it (in `created`) and answer stack references
    from the mocks; returns what `_remove_hooks` puts back."""
    originals = {name: getattr(pulumi_resource, name) for name in _CONSTRUCTION_HOOKS}

    def in_order(original: Callable[..., Any]) -> Callable[..., Any]:
        def hook(res: pulumi.Resource, *args: Any, **kwargs: Any) -> Any:
            created.append(res)
            return original(res, *args, **kwargs)

        return hook

    for name, original in originals.items():
        setattr(pulumi_resource, name, in_order(original))
    reference_originals = {
        name: getattr(pulumi.StackReference, name) for name in ("get_output", "require_output")
    }
    for name, lookup in _stack_reference_lookups(run.mocks).items():
        setattr(pulumi.StackReference, name, lookup)
    return originals, reference_originals


def _remove_hooks(originals: dict[str, Any], reference_originals: dict[str, Any]) -> None:
    for name, original in originals.items():
        setattr(pulumi_resource, name, original)
    for name, original_lookup in reference_originals.items():
        setattr(pulumi.StackReference, name, original_lookup)


def _keep_printed(run: _Run, printed: _Printed) -> None:
    """What the program printed, as notes (the first lines, then how many more)."""
    lines = [line.rstrip() for line in printed.text().splitlines() if line.strip()]
    run.notes.extend(f"program printed: {line}" for line in lines[:_PRINTED_LINES_KEPT])
    if len(lines) > _PRINTED_LINES_KEPT:
        run.notes.append(f"program printed {len(lines) - _PRINTED_LINES_KEPT} more lines")


def _run_with_mocks(
    run: _Run,
    loop: asyncio.AbstractEventLoop,
    *,
    program: Callable[[], Awaitable[None]],
    program_logger: logging.Logger,
    printed: _Printed,
    created: list[pulumi.Resource],
) -> None:
    """Run `program` against the mocks on `loop`, its output kept in `printed`, and note the order in
    which it constructed its resources."""
    pulumi.runtime.set_mocks(
        run.mocks,
        project=run.project.name,
        stack=run.stack,
        preview=True,
        logger=program_logger,
        monitor=run.monitor,
    )
    # What the program prints must not mix into reports on stdout (`check --format json`).
    with contextlib.redirect_stdout(printed):
        loop.run_until_complete(run_pulumi_func(program))
        loop.run_until_complete(wait_for_rpcs())
    urns = loop.run_until_complete(
        asyncio.gather(*(res.urn.future() for res in created), return_exceptions=True)
    )
    run.program_order.extend(urn for urn in urns if isinstance(urn, str))


def _run_isolated(run: _Run) -> None:
    """Run the program; called inside a fresh copy of the caller's contextvars context."""
    project, stack = run.project, run.stack
    program_dir = project.program_dir
    target = str(program_dir) if project.main.is_dir() else str(project.program_file)

    saved_cwd = Path.cwd()
    saved_path = list(sys.path)
    saved_argv = list(sys.argv)
    saved_modules = set(sys.modules)
    asyncio_logger = logging.getLogger("asyncio")
    saved_asyncio_level = asyncio_logger.level
    saved_loop = _current_loop()

    program_logger = logging.Logger(f"gpufleet.program.{project.name}.{stack}")
    program_logger.addHandler(_NoteHandler(run.notes))

    loop = _new_loop()
    try:
        os.chdir(program_dir)
        # As the language host: a directory program runs via runpy with the directory on sys.path;
        # a single-file program gets its directory on sys.path too, so sibling modules import.
        if not project.main.is_dir():
            sys.path.insert(0, str(program_dir))
        sys.argv = [target]
        asyncio_logger.setLevel(logging.CRITICAL)

        pulumi_settings.reset_options(project=project.name, stack=stack, preview=True)
        pulumi.runtime.set_all_config(run.config, run.secret_keys)

        def program() -> Awaitable[None]:
            runpy.run_path(target, run_name="__main__")
            return _finish_stack()

        printed = _Printed()
        created: list[pulumi.Resource] = []
        originals, reference_originals = _install_hooks(run, created)
        try:
            _run_with_mocks(
                run, loop, program=program, program_logger=program_logger, printed=printed, created=created
            )
        except BaseException as exc:
            if isinstance(exc, KeyboardInterrupt):
                raise
            raise program_error(exc, project, project.stack_file(stack)) from None
        finally:
            _remove_hooks(originals, reference_originals)
            _keep_printed(run, printed)
    finally:
        _close_loop(loop)
        asyncio.set_event_loop(saved_loop)
        asyncio_logger.setLevel(saved_asyncio_level)
        os.chdir(saved_cwd)
        sys.path[:] = saved_path
        sys.argv[:] = saved_argv
        _forget_program_modules(saved_modules, program_dir)


class _Printed(io.StringIO):
    """What the program prints. Closed by the program, it refuses writes as a closed stdout does (the
    error is the program's, raised where it writes), and still gives what was printed before."""

    _kept: str | None = None

    def close(self) -> None:
        if self._kept is None and not self.closed:
            self._kept = self.getvalue()
        super().close()

    def text(self) -> str:
        return self._kept if self._kept is not None else self.getvalue()


def _stack_reference_lookups(mocks: FleetMocks) -> dict[str, Callable[..., Any]]:
    """`get_output` and `require_output` that answer from the given stack outputs, else placeholders.

    A stack the engine was given outputs for behaves as with the CLI (a missing output is None, or an
    error naming it); for any other stack every output read is a plausible placeholder and a note.
    """

    def lookup(self: pulumi.StackReference, name: pulumi.Input[str], required: bool) -> pulumi.Output[Any]:
        def pick(args: list[Any]) -> Any:
            output, outputs, stack = args
            outputs = outputs or {}
            if output in outputs:
                return outputs[output]
            if not mocks.has_stack_reference(stack):
                return mocks.stack_output_placeholder(stack, output)
            if required:
                known = ", ".join(sorted(outputs)) or "none"
                raise pulumi.RunError(
                    f"stack reference {stack!r} has no output {output!r} in the stack references given "
                    f"(outputs given: {known}); add it there"
                )
            return None

        return pulumi.Output.all(pulumi.Output.from_input(name), self.outputs, self.name).apply(pick)

    def get_output(self: pulumi.StackReference, name: pulumi.Input[str]) -> pulumi.Output[Any]:
        return lookup(self, name, required=False)

    def require_output(self: pulumi.StackReference, name: pulumi.Input[str]) -> pulumi.Output[Any]:
        return lookup(self, name, required=True)

    return {"get_output": get_output, "require_output": require_output}


def _ignore_unretrieved(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
    if "never retrieved" not in str(context.get("message", "")):
        loop.default_exception_handler(context)


async def _finish_stack() -> None:
    """Run a `pulumi.run` entry point if any, then register the stack outputs, as `run_in_stack` does.

    `set_mocks` creates the root stack and registers its (then empty) outputs at once, before the
    program has exported anything; here they are registered again with the program's exports.
    """
    root: Any = pulumi_settings.get_root_resource()
    take = getattr(root, "_take_async_program", None)
    entry: Callable[[], Awaitable[Mapping[str, Any] | None]] | None = take() if callable(take) else None
    if entry is not None:
        for name, value in (await entry() or {}).items():
            pulumi.export(name, value)
    if root is not None and hasattr(root, "_outputs_registered"):
        root._outputs_registered = False
        root._finish()


def _close_loop(loop: asyncio.AbstractEventLoop) -> None:
    pending = [t for t in asyncio.all_tasks(loop) if not t.done()]
    for task in pending:
        task.cancel()
    if pending:
        loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
    loop.run_until_complete(loop.shutdown_default_executor())
    loop.close()


def _forget_program_modules(before: set[str], program_dir: Path) -> None:
    """Drop modules the program imported from its own directory, so the next run imports them afresh."""
    prefix = str(program_dir.resolve()) + os.sep
    for name in [n for n in sys.modules if n not in before]:
        module_file = getattr(sys.modules.get(name), "__file__", None)
        if module_file and str(Path(module_file).resolve()).startswith(prefix):
            del sys.modules[name]


__all__ = ["EngineError", "RecordingMonitor", "run_program"]

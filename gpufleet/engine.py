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
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import io
import logging
import math
import os
import re
import runpy
import sys
import threading
import traceback
import warnings
from collections.abc import Awaitable, Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import pulumi
import pulumi.resource as pulumi_resource
import pulumi.runtime
from google.protobuf import struct_pb2
from pulumi.runtime import settings as pulumi_settings
from pulumi.runtime.mocks import MockMonitor
from pulumi.runtime.stack import run_pulumi_func, wait_for_rpcs

from gpufleet import sandbox
from gpufleet.childrun import (
    RESOURCE_SIG,
    child_problem,
    import_sdk_modules,
    left_behind,
    quick_registrations,
    remember_sdk_modules,
    sdk_modules,
    without_resource_refs,
)
from gpufleet.graph import SECRET_SIG_KEY, UNKNOWN_STRING, Resource, ResourceGraph
from gpufleet.mocks import FleetMocks, encode_documents, recorded_outputs
from gpufleet.project import SECRET_PLACEHOLDER, Project, ProjectError, load_project, load_stack_config

STACK_TYPE = "pulumi:pulumi:Stack"
_GPUFLEET_DIR = Path(__file__).resolve().parent

# `pulumi.resource` functions every resource constructor calls, in program order.
_CONSTRUCTION_HOOKS = ("register_resource", "read_resource")

_PRINTED_LINES_KEPT = 20

DEFAULT_TIMEOUT = 300.0
"""Seconds a program may run before it is stopped (`--timeout`)."""

# The run mutates process-wide state (cwd, sys.path, sys.modules): one run at a time.
_RUN_LOCK = threading.Lock()


class EngineError(Exception):
    """The program could not be run or failed; the message is one paragraph for the user."""


# -- wire form -------------------------------------------------------------------------------------


def _from_struct(value: Any) -> Any:
    """A protobuf Struct value as JSON-like data, the way CrossGuard receives it."""
    if isinstance(value, struct_pb2.Struct):
        out = {k: _from_struct(v) for k, v in value.items()}
        if out.get(SECRET_SIG_KEY) == RESOURCE_SIG:
            # A resource passed as an input: what a policy sees is its id (custom) or URN.
            return out.get("id") or out.get("urn")
        return out
    if isinstance(value, struct_pb2.ListValue):
        return [_from_struct(v) for v in value]
    if isinstance(value, float):
        if value.is_integer():
            return int(value)
        if not math.isfinite(value):
            return _non_finite(value)
    return value


class NonFinite(str):
    """A NaN or infinite number from the program, kept as protobuf's JSON text for it (`"NaN"`,
    `"Infinity"`, `"-Infinity"`): JSON cannot carry it, nor can an int. The run names each in a note."""

    __slots__ = ()


_seen = threading.local()


def _non_finite(value: float) -> NonFinite:
    _seen.flag = True
    return NonFinite("NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity"))


def _marker_paths(value: Any, path: str) -> list[str]:
    """Where `NonFinite` markers sit in `value`, as `ingress[0].fromPort`."""
    if isinstance(value, NonFinite):
        return [path]
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in _marker_paths(v, f"{path}.{k}" if path else str(k))]
    if isinstance(value, list):
        return [p for i, v in enumerate(value) for p in _marker_paths(v, f"{path}[{i}]")]
    return []


def _from_python(value: Any) -> Any:
    """A value produced by the mocks as JSON-like data."""
    if isinstance(value, dict):
        return {str(k): _from_python(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_from_python(v) for v in value]
    if isinstance(value, bool) or value is None or isinstance(value, str | int):
        return value
    if isinstance(value, float):
        if value.is_integer():
            return int(value)
        return value if math.isfinite(value) else _non_finite(value)
    if isinstance(value, pulumi.Resource):
        return getattr(value, "_name", None) or repr(value)
    if type(value).__name__ == "Unknown":
        return UNKNOWN_STRING
    return str(value)


def _provider_urn(reference: str) -> str | None:
    """`<urn>::<id>` -> `<urn>`."""
    if not reference:
        return None
    return reference.rsplit("::", 1)[0]


# -- recording monitor -----------------------------------------------------------------------------


@dataclass
class _Record:
    urn: str
    type: str
    name: str
    custom: bool
    inputs: dict[str, Any]
    outputs: dict[str, Any] = field(default_factory=dict)
    parent: str | None = None
    dependencies: tuple[str, ...] = ()
    property_dependencies: dict[str, tuple[str, ...]] = field(default_factory=dict)
    provider: str | None = None
    id: str | None = None
    protect: bool = False
    remote: bool = False

    def freeze(self) -> Resource:
        return Resource(
            urn=self.urn,
            type=self.type,
            name=self.name,
            custom=self.custom,
            inputs=self.inputs,
            outputs=self.outputs,
            parent=self.parent,
            dependencies=self.dependencies,
            property_dependencies=self.property_dependencies,
            provider=self.provider,
            id=self.id,
            protect=self.protect,
            remote=self.remote,
        )


class RecordingMonitor(MockMonitor):
    """A mock resource monitor that keeps the whole registration request, not only type/name/inputs."""

    def __init__(self, mocks: FleetMocks) -> None:
        super().__init__(mocks)
        self.records: dict[str, _Record] = {}
        self.stack_urn: str | None = None
        self._lock = threading.Lock()

    def make_urn(self, parent: str, type_: str, name: str) -> str:
        """URNs as the Pulumi engine makes them: the parent's full type chain, without the root stack."""
        if parent:
            qualified = parent.split("::")[2]
            if qualified != STACK_TYPE:
                type_ = f"{qualified}${type_}"
        stack, project = pulumi.get_stack(), pulumi.get_project()
        return f"urn:pulumi:{stack}::{project}::{type_}::{name}"

    def _keep(self, record: _Record) -> None:
        with self._lock:
            # A URN registered twice is a program error the real engine rejects; keep the first.
            self.records.setdefault(record.urn, record)

    def RegisterResource(self, request: Any) -> Any:
        response = super().RegisterResource(without_resource_refs(request, "object"))  # type: ignore[no-untyped-call]
        urn = response.urn
        _seen.flag = False
        inputs = _from_struct(request.object)
        if request.type == STACK_TYPE:
            self.stack_urn = urn
            self._keep(_Record(urn=urn, type=STACK_TYPE, name=request.name, custom=False, inputs={}))
            return response
        registration = self.resources.get(urn)
        state = _from_python(recorded_outputs(registration.state)) if registration is not None else {}
        if _seen.flag:
            self._note_non_finite(request.type, request.name, {"inputs": inputs, "outputs": state})
        self._keep(
            _Record(
                urn=urn,
                type=request.type,
                name=request.name,
                custom=bool(request.custom),
                remote=bool(getattr(request, "remote", False)),
                inputs=inputs,
                outputs={**encode_documents(inputs), **state},
                parent=request.parent or None,
                dependencies=tuple(dict.fromkeys(request.dependencies)),
                property_dependencies={
                    key: tuple(deps.urns) for key, deps in request.propertyDependencies.items() if deps.urns
                },
                provider=_provider_urn(request.provider),
                id=(response.id or None) if request.custom else None,
                protect=bool(getattr(request, "protect", False)),
            )
        )
        return response

    def ReadResource(self, request: Any) -> Any:
        response = super().ReadResource(without_resource_refs(request, "properties"))  # type: ignore[no-untyped-call]
        registration = self.resources.get(response.urn)
        if not response.id:
            # In a preview the SDK takes an empty id from a read as unknown; the engine returns it.
            response.id = (registration.id if registration is not None else None) or request.id
        state = _from_python(recorded_outputs(registration.state)) if registration is not None else {}
        self._keep(
            _Record(
                urn=response.urn,
                type=request.type,
                name=request.name,
                custom=True,
                inputs=_from_struct(request.properties),
                outputs=state,
                parent=request.parent or None,
                dependencies=tuple(dict.fromkeys(request.dependencies)),
                provider=_provider_urn(request.provider),
                id=request.id or None,
            )
        )
        return response

    def Invoke(self, request: Any) -> Any:
        return super().Invoke(without_resource_refs(request, "args"))  # type: ignore[no-untyped-call]

    def _note_non_finite(self, type_: str, name: str, values: dict[str, Any]) -> None:
        paths = _marker_paths(values, "")
        if not paths:
            return
        shown = ", ".join(paths[:5]) + (f" and {len(paths) - 5} more" if len(paths) > 5 else "")
        note = (
            f"{type_} {name!r}: {shown} {'is' if len(paths) == 1 else 'are'} not a finite number (NaN or "
            'infinity), which JSON and the Pulumi engine cannot carry; kept as the string "NaN" or '
            '"Infinity", so policies judge it as malformed: fix the program'
        )
        with self._lock:
            notes: list[str] = self.mocks.notes  # type: ignore[attr-defined]
            if note not in notes:
                notes.append(note)

    def RegisterResourceOutputs(self, request: Any) -> Any:
        _seen.flag = False
        outputs = _from_struct(request.outputs)
        if _seen.flag:
            record = self.records.get(request.urn)
            self._note_non_finite(
                record.type if record else "component", request.urn.rsplit("::", 1)[-1], {"outputs": outputs}
            )
        with self._lock:
            record = self.records.get(request.urn)
            if record is not None:
                record.outputs = outputs
        return super().RegisterResourceOutputs(request)  # type: ignore[no-untyped-call]


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
    recorded = _received(sent, project)
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
    return graph


@dataclass(frozen=True)
class _Job:
    """What the child process needs to run the program: all of it pickles."""

    project: Project
    stack: str
    config: dict[str, str]
    secret_keys: list[str]
    stack_references: dict[str, dict[str, Any]] | None


@dataclass(frozen=True)
class _Recorded:
    """What the child process sends back."""

    resources: list[Resource]
    outputs: dict[str, Any]
    notes: list[str]
    sdk_modules: list[str]


UNISOLATED_NOTE = "the program ran without isolation"
"""Start of the graph note when namespaces were not available (`check --strict` refuses such a run)."""

_SDK_MODULE = re.compile(r"(pulumi_[a-z0-9_]+|tencentcloud_iac_pulumi)(\.[a-z_][a-z0-9_]*)?")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\x9b]")


def _received(sent: Any, project: Project) -> _Recorded | str:
    """What the child sent, checked field by field before anything is built from it: the child runs the
    judged program, so its answer is data to validate, never code or objects to trust."""
    if isinstance(sent, str):
        return _CONTROL.sub("", sent)
    program = os.path.relpath(project.program_file, project.root)
    try:
        if not isinstance(sent, dict):
            raise TypeError("not an object")
        resources = [_resource(item) for item in _typed(sent.get("resources"), list, "resources")]
        outputs = _typed(sent.get("outputs"), dict, "outputs")
        notes = [_CONTROL.sub("", _typed(n, str, "note")) for n in _typed(sent.get("notes"), list, "notes")]
        modules = [
            name
            for name in _typed(sent.get("sdk_modules"), list, "sdk_modules")
            if isinstance(name, str) and _SDK_MODULE.fullmatch(name)
        ]
    except (TypeError, ValueError, KeyError) as exc:
        return (
            f"the run of the program {program} sent back a result the engine cannot read ({exc}); the "
            f"program may have written to the engine's result channel itself, so nothing is reported"
        )
    return _Recorded(resources=resources, outputs=outputs, notes=notes, sdk_modules=modules)


_T = TypeVar("_T")


def _typed(value: Any, kind: type[_T], what: str) -> _T:
    if not isinstance(value, kind):
        raise TypeError(f"{what} is not a {kind.__name__}")
    return value


def _optional_str(value: Any, what: str) -> str | None:
    return None if value is None else _typed(value, str, what)


def _strings(value: Any, what: str) -> tuple[str, ...]:
    return tuple(_typed(item, str, what) for item in _typed(value, list, what))


def _resource(data: Any) -> Resource:
    data = _typed(data, dict, "resource")
    urn = _typed(data["urn"], str, "urn")
    if not urn.startswith("urn:pulumi:"):
        raise ValueError(f"{urn[:80]!r} is not a URN")
    return Resource(
        urn=urn,
        type=_typed(data["type"], str, "type"),
        name=_typed(data["name"], str, "name"),
        custom=_typed(data["custom"], bool, "custom"),
        inputs=_typed(data["inputs"], dict, "inputs"),
        outputs=_typed(data["outputs"], dict, "outputs"),
        parent=_optional_str(data.get("parent"), "parent"),
        dependencies=_strings(data.get("dependencies", []), "dependencies"),
        property_dependencies={
            _typed(key, str, "property"): _strings(value, "property_dependencies")
            for key, value in _typed(
                data.get("property_dependencies", {}), dict, "property_dependencies"
            ).items()
        },
        provider=_optional_str(data.get("provider"), "provider"),
        id=_optional_str(data.get("id"), "id"),
        protect=_typed(data.get("protect", False), bool, "protect"),
        remote=_typed(data.get("remote", False), bool, "remote"),
    )


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
        return str(_program_error(exc, project, project.stack_file(job.stack)))
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
        "resources": [record.freeze().to_json() for record in records],
        "outputs": outputs,
        "notes": [*mocks.notes, *log_notes],
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
    saved_loop: asyncio.AbstractEventLoop | None = None
    with warnings.catch_warnings():
        # Asking for the current loop when there is none is deprecated from Python 3.12 on.
        warnings.simplefilter("ignore", DeprecationWarning)
        with contextlib.suppress(RuntimeError):
            saved_loop = asyncio.get_event_loop_policy().get_event_loop()

    program_logger = logging.Logger(f"gpufleet.program.{project.name}.{stack}")
    program_logger.addHandler(_NoteHandler(run.notes))

    loop = asyncio.new_event_loop()
    # Futures the SDK leaves failed after a program error would be logged when collected, long after
    # the run; the error itself is reported once, as an EngineError.
    loop.set_exception_handler(_ignore_unretrieved)
    # The mock calls are short and hold the GIL: one worker thread is as fast as many.
    loop.set_default_executor(ThreadPoolExecutor(max_workers=1, thread_name_prefix="gpufleet-monitor"))
    asyncio.set_event_loop(loop)
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
        try:
            pulumi.runtime.set_mocks(
                run.mocks,
                project=project.name,
                stack=stack,
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
        except BaseException as exc:
            if isinstance(exc, KeyboardInterrupt):
                raise
            raise _program_error(exc, project, project.stack_file(stack)) from None
        finally:
            for name, original in originals.items():
                setattr(pulumi_resource, name, original)
            for name, original_lookup in reference_originals.items():
                setattr(pulumi.StackReference, name, original_lookup)
            lines = [line.rstrip() for line in printed.text().splitlines() if line.strip()]
            run.notes.extend(f"program printed: {line}" for line in lines[:_PRINTED_LINES_KEPT])
            if len(lines) > _PRINTED_LINES_KEPT:
                run.notes.append(f"program printed {len(lines) - _PRINTED_LINES_KEPT} more lines")
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


def _program_frame(exc: BaseException, project: Project) -> str:
    """`file:line` of the innermost frame in the project's own code, outside any virtualenv."""
    root = str(project.root) + os.sep
    found = ""
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename.startswith("<"):
            # `<frozen importlib._bootstrap>`, `<string>`: no file, and relative to the program's cwd.
            continue
        filename = str(Path(frame.filename).resolve())
        if filename.startswith(root) and "site-packages" not in filename:
            found = f"{os.path.relpath(filename, project.root)}:{frame.lineno}"
    return found


def one_paragraph(text: str) -> str:
    """Multi-line messages (a spec's list of problems) as one paragraph: `head: a; b; c`."""
    lines = [" ".join(line.split()) for line in text.strip().splitlines() if line.strip()]
    if len(lines) <= 1:
        return lines[0] if lines else ""
    return f"{lines[0]} {'; '.join(lines[1:])}"


_SHOWN_CHARACTERS = 400
"""A program's error message is quoted up to this long: enough for any real one, not a flood in CI."""


def _text(value: object) -> str:
    """`str(value)`, or a description when the program's own `__str__` fails."""
    try:
        return str(value)
    except Exception as exc:  # the program's code, which may raise anything
        return f"(its message cannot be shown: str() raised {type(exc).__name__})"


def _clipped(text: str) -> str:
    if len(text) <= _SHOWN_CHARACTERS:
        return text
    return f"{text[:_SHOWN_CHARACTERS]}... ({len(text) - _SHOWN_CHARACTERS:,} more characters)"


def _shown(value: object) -> str:
    """A program's value or error message as one paragraph, of reasonable length."""
    return _clipped(one_paragraph(_text(value)))


def _program_error(exc: BaseException, project: Project, stack_file: Path) -> BaseException:
    program = os.path.relpath(project.program_file, project.root)
    where = _program_frame(exc, project)
    at = f" (at {where})" if where else ""
    if isinstance(exc, SystemExit):
        code = exc.code
        if code is None or code == 0:
            detail = "exited early (sys.exit) before finishing"
        elif isinstance(code, int):
            detail = f"exited (sys.exit) with status {code}"
        else:
            detail = f"exited (sys.exit): {_shown(code)}"
        return EngineError(f"the program {program} {detail}{at}; nothing was recorded past that point")
    if isinstance(exc, pulumi.ConfigMissingError):
        if not stack_file.is_file():
            stack = stack_file.name.removeprefix("Pulumi.").removesuffix(".yaml")
            return EngineError(
                f"the program {program} requires config {exc.key!r}{at}, and stack {stack!r} has no stack "
                f"file ({stack_file} does not exist); create it with `gpufleet new {stack} --from TEMPLATE` "
                f"(`gpufleet new --list` shows the templates), or write it with {exc.key!r} under `config:`"
            )
        return EngineError(
            f"the program {program} requires config {exc.key!r}{at}, which {stack_file} does not set; "
            f"add it under `config:` in that file"
        )
    if isinstance(exc, pulumi.RunError):
        return EngineError(f"the program {program} stopped with an error{at}: {_shown(exc)}")
    if isinstance(exc, SyntaxError) and exc.filename and not exc.filename.startswith("<"):
        source = Path(exc.filename).resolve()
        shown = os.path.relpath(source, project.root) if source.is_relative_to(project.root) else str(source)
        line = f":{exc.lineno}" if exc.lineno else ""
        kind = "an indentation error" if isinstance(exc, IndentationError) else "a syntax error"
        return EngineError(f"the program {program} has {kind} at {shown}{line}: {exc.msg}")
    if isinstance(exc, ModuleNotFoundError) and exc.name:
        top = exc.name.split(".")[0]
        local = (project.program_dir / top).exists() or (project.program_dir / f"{top}.py").exists()
        if not local:
            return EngineError(
                f"the program {program} imports {exc.name!r}{at}, which is not installed; install it in "
                f"this environment ({sys.executable}) and run again"
            )
    if not isinstance(exc, Exception):
        # KeyboardInterrupt, GeneratorExit, a program's own BaseException subclass.
        message = _shown(exc)
        detail = f": {message}" if message else ""
        return EngineError(
            f"the program {program} raised {type(exc).__name__}{at}{detail}; nothing was recorded past "
            f"that point"
        )
    if _raised_in_gpufleet(exc):
        # A fault of the engine itself, not of the program: keep the traceback for the bug report.
        return exc
    text = _text(exc)
    registering = _REGISTERING.findall(text)
    if registering:
        # The SDK wraps a bad input once per resource on the way down; the innermost names the cause.
        name, token = registering[-1]
        innermost = text.strip().splitlines()[-1]
        cause = _clipped(_RISEN.sub("", innermost).strip())
        return EngineError(f"the program {program} failed{at} while registering {token} {name!r}: {cause}")
    message = _shown(exc) or "(no message)"
    return EngineError(f"the program {program} failed{at}: {type(exc).__name__}: {message}")


_REGISTERING = re.compile(r"While processing resource: '([^']*)', type: '([^']*)'")
_RISEN = re.compile(r"^\w+ has risen: ")


def _raised_in_gpufleet(exc: BaseException) -> bool:
    frames = traceback.extract_tb(exc.__traceback__)
    if not frames:
        return False
    if Path(frames[-1].filename).resolve().is_relative_to(_GPUFLEET_DIR):
        return True
    mocks_file = _GPUFLEET_DIR / "mocks.py"
    return any(Path(f.filename).resolve() == mocks_file for f in frames)


__all__ = ["EngineError", "RecordingMonitor", "run_program"]

"""What happens around a program in the engine's child process (`gpufleet.sandbox`).

- Resource references reach the SDK's mock monitor as plain ids, never rebuilt on its thread.
- Work per registration that nothing offline reads is skipped for the run.
- Provider modules a program used are loaded before the next child starts, so it inherits them.
- What the program left behind (a fork, threads) and how a child ended without a result become
  one-paragraph messages.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
import threading
import time
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pulumi
import pulumi.log
import pulumi.runtime.resource as pulumi_runtime_resource
from google.protobuf import struct_pb2
from pulumi.runtime.proto import source_pb2

from gpufleet import sandbox, sandbox_child, sandbox_protocol
from gpufleet.components.clouds import by_sdk_package
from gpufleet.graph import SECRET_SIG_KEY, UNKNOWN_STRING
from gpufleet.project import Project

RESOURCE_SIG = "5cf8f73096256a8f31e491e813e4eb8e"
"""The signature of a resource reference in the engine's wire form."""

THREAD_GRACE = 2.0
"""Seconds non-daemon threads still running after the program finished get to end by themselves."""


# -- resource references ---------------------------------------------------------------------------

_RESOURCE_SIG_BYTES = RESOURCE_SIG.encode()


def without_resource_refs(request: Any, field_name: str) -> Any:
    """`request` with every resource reference in its `field_name` Struct replaced by the resource's
    id (custom) or URN (component), as the engine sends them to a provider without reference support.

    `MockMonitor` deserializes what it is given on the executor thread; a resource reference there
    is turned back into a resource object (`get_resource`), whose URN and id futures and whose
    lookup task belong to an event loop `_ensure_event_loop` creates for that thread. The program's
    loop later awaits that task through `wait_for_rpcs`: if it is still pending then, the run fails
    with "attached to a different loop", at random. With plain ids nothing is rebuilt off the
    program's loop. The recorded inputs keep the original request, where `engine_monitor._from_struct`
    makes the same replacement.
    """
    struct = getattr(request, field_name)
    if _RESOURCE_SIG_BYTES not in struct.SerializeToString():
        return request
    copy = type(request)()
    copy.CopyFrom(request)
    _replace_resource_refs(getattr(copy, field_name))
    return copy


def _replace_resource_refs(struct: struct_pb2.Struct) -> None:
    for value in struct.fields.values():
        _replace_in_value(value)


def _replace_in_value(value: struct_pb2.Value) -> None:
    kind = value.WhichOneof("kind")
    if kind == "struct_value":
        fields = value.struct_value.fields
        if SECRET_SIG_KEY in fields and fields[SECRET_SIG_KEY].string_value == RESOURCE_SIG:
            if "id" in fields:
                value.string_value = fields["id"].string_value or UNKNOWN_STRING
            else:
                value.string_value = fields["urn"].string_value
            return
        _replace_resource_refs(value.struct_value)
    elif kind == "list_value":
        for item in value.list_value.values:
            _replace_in_value(item)


# -- the run -----------------------------------------------------------------------------------------

# Provider SDK modules a program used (`pulumi_aws`, `pulumi_aws.s3`): each run loads those it knows
# of before its child starts, so later children inherit them instead of importing them again (half a
# second for pulumi_aws alone).
_SDK_MODULES: dict[str, None] = {}


def sdk_modules(names: Iterable[str]) -> list[str]:
    """Provider packages and those of their direct submodules that were loaded, not only registered
    for lazy loading, in import order (`config` modules excluded: they must load as the program
    loads them)."""
    found = []
    for name in names:
        parts = name.split(".")
        top = parts[0]
        if not (top.startswith("pulumi_") or by_sdk_package(top) is not None):
            continue
        lazy = type(sys.modules.get(name)).__name__ == "_LazyModule"
        if len(parts) <= 2 and parts[-1] != "config" and not lazy:
            found.append(name)
    return found


def remember_sdk_modules(names: Iterable[str]) -> None:
    _SDK_MODULES.update(dict.fromkeys(names))


def import_sdk_modules() -> None:
    for name in list(_SDK_MODULES):
        top, _, sub = name.partition(".")
        try:
            # As a program does (`aws.s3.Bucket`): reading an attribute loads a lazy module (reading
            # `__dict__` or `__name__` does not).
            module = importlib.import_module(top)
            if sub:
                getattr(getattr(module, sub), "__all__", None)
        except Exception:
            # Only a head start: the child imports what it needs itself.
            del _SDK_MODULES[name]


@contextlib.contextmanager
def quick_registrations() -> Iterator[None]:
    """Work per registration that nothing offline reads, skipped for the run and restored after: the
    stack trace the SDK captures for the real engine's source positions, and its debug log messages
    (the run keeps warnings and errors only)."""
    trace, debug = pulumi_runtime_resource._get_stack_trace, pulumi.log.debug
    pulumi_runtime_resource._get_stack_trace = source_pb2.StackTrace
    pulumi.log.debug = _no_debug
    try:
        yield
    finally:
        pulumi_runtime_resource._get_stack_trace = trace
        pulumi.log.debug = debug


def _no_debug(*_args: Any, **_kwargs: Any) -> None:
    return None


# -- what a child leaves -----------------------------------------------------------------------------


def left_behind(project: Project, threads_before: set[threading.Thread]) -> str | None:
    """A fork or non-daemon threads the program left: the language host would not finish either."""
    program = os.path.relpath(project.program_file, project.root)
    forks = sandbox_child.forks()
    if forks:
        at = where(forks[0], project)
        return (
            f"the program {program} forked the process (os.fork){at}; a program checked offline must "
            f"not fork: the forked copy was stopped at once and the run is not trusted"
        )
    deadline = time.monotonic() + THREAD_GRACE
    running = []
    for thread in threading.enumerate():
        if thread in threads_before or thread.daemon or not thread.is_alive() or _pool_worker(thread):
            continue
        thread.join(max(0.0, deadline - time.monotonic()))
        if thread.is_alive():
            running.append(thread.name)
    if not running:
        return None
    names = ", ".join(repr(name) for name in running[:5]) + (" ..." if len(running) > 5 else "")
    return (
        f"the program {program} left {len(running)} non-daemon thread{'s' if len(running) > 1 else ''} "
        f"running after it finished ({names}); the Pulumi language host waits for them and would not "
        f"finish: join them, or start them with daemon=True"
    )


def _pool_worker(thread: threading.Thread) -> bool:
    """An executor's worker: Python ends those itself at exit, so the language host finishes."""
    target = getattr(thread, "_target", None)
    return getattr(target, "__module__", None) == "concurrent.futures.thread"


def where(frames: sandbox_protocol.Frames, project: Project) -> str:
    """` (at file:line)` of the innermost frame in the project's own code, or nothing."""
    root = str(project.root) + os.sep
    found = ""
    for filename, lineno in frames:
        if filename.startswith("<"):
            continue
        resolved = str(Path(filename).resolve())
        if resolved.startswith(root) and "site-packages" not in resolved:
            found = f"{os.path.relpath(resolved, project.root)}:{lineno}"
    return f" (at {found})" if found else ""


def child_problem(problem: sandbox.ChildProblem, project: Project) -> str:
    program = os.path.relpath(project.program_file, project.root)
    if isinstance(problem, sandbox.TimedOut):
        return (
            f"the program {program} did not finish within the time limit of {problem.seconds:g} "
            f"second{'' if problem.seconds == 1 else 's'} "
            f"and was stopped (with every process it started); it may loop or wait forever. If it is "
            f"only slow, raise the limit with --timeout SECONDS"
        )
    if isinstance(problem, sandbox.ExitCalled):
        return (
            f"the program {program} called os._exit({problem.status}){where(problem.frames, project)} "
            f"before it finished; nothing it registered can be trusted, so nothing is reported"
        )
    if isinstance(problem, sandbox.ChildRaised):
        return (
            f"the offline engine failed while running the program {program}: {problem}; nothing is "
            f"reported (set GPUFLEET_DEBUG=1 to see where)"
            + (f"\n{problem.trace}" if os.environ.get("GPUFLEET_DEBUG") and problem.trace else "")
        )
    if isinstance(problem, sandbox.BadResult):
        return (
            f"the run of the program {program} sent back a result the engine cannot read ({problem}); "
            f"the program may have written to the engine's result channel itself, so nothing is reported"
        )
    if isinstance(problem, sandbox.Stopped):
        return (
            f"gpufleet was {problem} while the program {program} ran; the program and every process it "
            f"started were killed and nothing was judged"
        )
    if isinstance(problem, sandbox.Died) and problem.signal is not None:
        return (
            f"the program {program} crashed the process running it (signal "
            f"{sandbox_protocol.signal_name(problem.signal)}: a fault in a native extension, "
            f"memory exhausted, a recursion too deep for the interpreter, or a kill from outside); "
            f"nothing is reported"
        )
    status = problem.status if isinstance(problem, sandbox.Died) else None
    return (
        f"the program {program} ended the process running it (exit status {status}) before it "
        f"finished; nothing is reported"
    )

"""Run one function in a child process that cannot reach the caller, and bring back its result as data.

The offline engine runs programs it did not write, and `gpufleet check` is a gate: the program it runs
is written by the person whose change it judges. Whatever such a program does (loop forever, call
`os._exit`, fork, close every descriptor, start a daemon in a session of its own, signal the process
that judges it, rewrite files the judge imports later), the caller gets the function's result as JSON
data, a `ChildRaised` describing the exception it raised, or one of the other `ChildProblem`s below;
never a hang, never code of the program running in the caller, never a process outliving the call.

Two processes stand between the caller and the program:

    caller --fork--> warden --unshare(user, pid, mount); fork--> runner (pid 1 of its namespace)

- The *runner* runs the function. It is the first process of a new PID namespace, so no process
  outside it (the warden, the caller, CI) has a number it can signal, and every process it starts dies
  with it. It mounts its own /proc (the caller's processes are not listed) and remounts every
  filesystem read-only, with a private writable tmpfs as TMPDIR: it cannot rewrite a module, a policy
  config or a report that the caller reads after it. It leaves its result as JSON on a pipe.
- The *warden* only waits for the runner and tells the caller how it ended (exit status or signal), on
  a second pipe. It dies with the caller (PR_SET_PDEATHSIG) and the runner dies with it.

The caller never unpickles, imports or executes anything the child sends: it parses JSON with a size
and depth of its own choosing and the engine validates the shape before it builds a graph.

Where namespaces are not available (not Linux, or user namespaces disabled), the runner is an ordinary
child in a process group of its own and the caller becomes a child subreaper, so processes the program
started in a new session are still found and killed after the call; `isolation()` then says why, and
`gpufleet check --strict` refuses to judge (a same-user program could signal or rewrite the judge).

The warden and runner are forks of the caller where `os.fork` exists and the caller runs a single
thread (the SDKs the caller has imported are shared, so a run starts in milliseconds), else the warden
is a fresh interpreter (`spawn`) given a job the caller pickled itself; `GPUFLEET_START_METHOD=spawn` or
`=fork` decides instead.

This module is the caller's side; `gpufleet.sandbox_child` holds the warden, the init and the runner
(namespaces, the read-only filesystem, dropped credentials), and `gpufleet.sandbox_protocol` what
travels on the pipes and how it is parsed.
"""

from __future__ import annotations

import contextlib
import gc
import math
import os
import pickle
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpufleet.sandbox_child import (
    _PR_SET_CHILD_SUBREAPER,
    _PR_SET_DUMPABLE,
    _children,
    _Job,
    _kill_orphans,
    _libc,
    _warden,
)
from gpufleet.sandbox_protocol import (
    BadResult,
    ChildProblem,
    ChildRaised,
    Died,
    ExitCalled,
    Stopped,
    TimedOut,
    outcome,
    parse_status,
)

START_METHOD_ENV = "GPUFLEET_START_METHOD"
_SLICE = 3600.0  # longest single wait: poll() refuses huge time-outs
_READ = 1 << 16
MAX_RESULT_BYTES = 4 << 30
"""A result larger than this is not read (a program that floods the pipe is stopped)."""


@dataclass(frozen=True)
class Isolation:
    """How the last child was kept from the caller."""

    namespaces: bool
    reason: str = ""
    """Why not, when `namespaces` is false."""


_last_isolation = Isolation(False, "no program has run yet")


def isolation() -> Isolation:
    """How the most recent `call` ran its child."""
    return _last_isolation


def start_method() -> str:
    """`fork` where the platform has it and the caller runs one thread, else `spawn`;
    GPUFLEET_START_METHOD=spawn or =fork decides instead.

    A fork copies only the calling thread: whatever another thread held at that moment (a gRPC
    channel's threads, say) stays held in the child, which then hangs or crashes."""
    wanted = os.environ.get(START_METHOD_ENV, "").strip().lower()
    if not hasattr(os, "fork") or wanted == "spawn":
        return "spawn"
    return "fork" if wanted == "fork" or _single_threaded() else "spawn"


def _single_threaded() -> bool:
    """No other thread in this process, Python's or native (Linux lists both in /proc)."""
    try:
        return sum(1 for _ in Path("/proc/self/task").iterdir()) == 1
    except OSError:
        return threading.active_count() == 1


# -- in the caller ---------------------------------------------------------------------------------


def call(func: Callable[..., Any], *args: Any, timeout: float | None) -> Any:
    """`func(*args)` in an isolated child process; its return value as parsed JSON (tuples come back as
    lists), or `ChildRaised` for the exception it raised.

    `func` must return JSON-serialisable data; `func` and `args` must pickle when the warden is spawned
    (`func` importable by name). Raises `TimedOut` after `timeout` seconds (None: no limit),
    `ExitCalled`, `Died`, `ChildRaised`, `BadResult`, or `Stopped` when this process is asked to stop
    by SIGTERM or SIGHUP while it waits.
    """
    global _last_isolation  # noqa: PLW0603 - what the last run reported, read by the engine
    if timeout is not None and not 0 < timeout < math.inf:
        raise ValueError(f"timeout must be a positive number of seconds, not {timeout!r}")
    _guard_caller()
    workdir = Path(tempfile.mkdtemp(prefix="gpufleet-run-"))
    result_r, result_w = os.pipe()
    status_r, status_w = os.pipe()
    warden: int | subprocess.Popen[bytes] | None = None
    children_before = _children()
    try:
        with _stop_requests() as stop:
            if start_method() == "fork":
                warden = _fork_warden(func, args, workdir, result_w, status_w)
            else:
                warden = _spawn_warden(func, args, workdir, result_w, status_w)
            os.close(result_w)
            os.close(status_w)
            result_w = status_w = -1
            result, status, finished = _collect(result_r, status_r, timeout, stop)
    finally:
        for fd in (result_r, status_r, result_w, status_w):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        if warden is not None:
            _end_warden(warden)
        _kill_orphans(children_before)
        shutil.rmtree(workdir, ignore_errors=True)
    if stop.signal is not None:
        raise Stopped(stop.signal)
    report = parse_status(status)
    _last_isolation = Isolation(bool(report.get("namespaces")), str(report.get("reason", "")))
    if not finished:
        raise TimedOut(timeout or 0.0)
    return outcome(result, report)


class _StopRequest:
    signal: int | None = None


@contextlib.contextmanager
def _stop_requests() -> Iterator[_StopRequest]:
    """SIGTERM and SIGHUP (a cancelled CI job, a closed terminal) end the wait instead of the process:
    the child is killed and the caller says what happened. Only in the main thread, where Python lets a
    handler be set."""
    request = _StopRequest()
    if threading.current_thread() is not threading.main_thread():
        yield request
        return
    saved: dict[int, Any] = {}

    def handler(number: int, _frame: Any) -> None:
        request.signal = number

    for number in (signal.SIGTERM, getattr(signal, "SIGHUP", None)):
        if number is None:
            continue
        with contextlib.suppress(ValueError, OSError):
            saved[number] = signal.signal(number, handler)
    try:
        yield request
    finally:
        for number, previous in saved.items():
            with contextlib.suppress(ValueError, OSError):
                signal.signal(number, previous)


def _guard_caller() -> None:
    """This process cannot be read or written through /proc by a same-user process (not dumpable), and
    adopts every orphan its children leave (a child subreaper), so `_kill_orphans` finds them."""
    if not sys.platform.startswith("linux"):
        return
    with contextlib.suppress(Exception):
        libc = _libc()
        libc.prctl(_PR_SET_DUMPABLE, 0, 0, 0, 0)
        libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def _collect(
    result_r: int, status_r: int, timeout: float | None, stop: _StopRequest
) -> tuple[bytes, bytes, bool]:
    """Read both pipes to their end, or until the time runs out or a stop is requested: (result,
    status, whether both ended in time)."""
    deadline = None if timeout is None else time.monotonic() + timeout
    chunks: dict[int, list[bytes]] = {result_r: [], status_r: []}
    sizes = {result_r: 0, status_r: 0}
    poller = select.poll()
    open_fds = {result_r, status_r}
    for fd in open_fds:
        poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
    while open_fds:
        if stop.signal is not None:
            return b"", b"", False
        left = _SLICE if deadline is None else min(_SLICE, max(0.0, deadline - time.monotonic()))
        try:
            events = poller.poll(min(left, 0.5) * 1000)
        except InterruptedError:  # pragma: no cover - Python retries poll() itself
            continue
        for fd, _event in events:
            data = os.read(fd, _READ)
            if not data:
                poller.unregister(fd)
                open_fds.discard(fd)
                continue
            sizes[fd] += len(data)
            if sizes[fd] > (MAX_RESULT_BYTES if fd == result_r else _READ):
                raise BadResult(f"the child sent more than {MAX_RESULT_BYTES} bytes")
            chunks[fd].append(data)
        if open_fds and deadline is not None and time.monotonic() >= deadline:
            return b"", b"".join(chunks[status_r]), False
    return b"".join(chunks[result_r]), b"".join(chunks[status_r]), True


def _fork_warden(
    func: Callable[..., Any], args: tuple[Any, ...], workdir: Path, result_w: int, status_w: int
) -> int:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the warden never returns into the caller
        _warden(_Job(func, args, str(workdir), result_w, status_w), parent)
    with contextlib.suppress(OSError):
        os.setpgid(pid, pid)
    return pid


_SPAWNED = (
    "import pickle, sys; w = sys.argv[1]; sys.path[:] = pickle.load(open(w + '/path.pickle', 'rb')); "
    "from gpufleet.sandbox_child import _spawned; _spawned(w, int(sys.argv[2]), int(sys.argv[3]))"
)


def _spawn_warden(
    func: Callable[..., Any], args: tuple[Any, ...], workdir: Path, result_w: int, status_w: int
) -> subprocess.Popen[bytes]:
    """A fresh interpreter as the warden (where `os.fork` does not exist or the caller has threads). The
    job file is written here, by the caller, and read there: nothing travels the other way pickled."""
    (workdir / "path.pickle").write_bytes(pickle.dumps(list(sys.path)))
    job = (func, args, os.getpid())
    (workdir / "job.pickle").write_bytes(pickle.dumps(job, protocol=pickle.HIGHEST_PROTOCOL))
    return subprocess.Popen(
        [sys.executable, "-c", _SPAWNED, str(workdir), str(result_w), str(status_w)],
        stdin=subprocess.DEVNULL,
        start_new_session=True,
        pass_fds=(result_w, status_w),
    )


def _end_warden(warden: int | subprocess.Popen[bytes]) -> None:
    """Kill the warden's process group (the runner dies with the warden) and reap it."""
    pid = warden if isinstance(warden, int) else warden.pid
    with contextlib.suppress(OSError):
        os.killpg(pid, signal.SIGKILL)
    with contextlib.suppress(OSError):
        os.kill(pid, signal.SIGKILL)
    if isinstance(warden, int):
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)
    else:
        warden.wait()


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off for a burst of allocation that leaves little garbage (the
    objects alive before it moved out of its reach), restored after."""
    was_enabled = gc.isenabled()
    gc.freeze()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
        gc.unfreeze()


__all__ = [
    "BadResult",
    "ChildProblem",
    "ChildRaised",
    "Died",
    "ExitCalled",
    "Isolation",
    "Stopped",
    "TimedOut",
    "call",
    "collector_paused",
    "isolation",
]

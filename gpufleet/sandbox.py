"""Run one function in a child process with a time limit, and bring back its result.

The offline engine runs programs it did not write. Whatever such a program does (loop forever, call
`os._exit`, fork, close stdout, crash the interpreter), the caller gets either the function's result,
the exception it raised, or one of the `ChildProblem`s below; never a hang, never a half-written
result, never a second copy of the caller returning from a fork.

The child is a fork of the caller where `os.fork` exists and the caller runs a single thread (the
SDKs the caller has imported are shared, so a run starts in milliseconds), else a fresh interpreter
(`spawn`); `GPUFLEET_START_METHOD=spawn` or `=fork` decides instead. The child leads its own process
group, so a time-out ends everything the program started. Its result travels back pickled through a
file in a private temporary directory, renamed into place once complete.
"""

from __future__ import annotations

import contextlib
import faulthandler
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
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NoReturn

START_METHOD_ENV = "GPUFLEET_START_METHOD"
_RESULT = "result.pickle"
_FORKED_CHILD_STATUS = 70
_ORPHANED_STATUS = 71
_PR_SET_PDEATHSIG = 1
_POLL_FIRST, _POLL_MAX = 0.001, 0.05
_SLICE = 3600.0  # longest single wait: select() refuses huge time-outs

Frames = tuple[tuple[str, int], ...]
"""(file name, line number) of each frame, outermost first."""


class ChildProblem(Exception):
    """The child ended without a result: a time-out, an `os._exit` or a crash."""


class TimedOut(ChildProblem):
    def __init__(self, seconds: float) -> None:
        super().__init__(f"no result within {seconds:g} s")
        self.seconds = seconds


class ExitCalled(ChildProblem):
    """The function's code called `os._exit(status)`."""

    def __init__(self, status: int, frames: Frames) -> None:
        super().__init__(f"os._exit({status})")
        self.status = status
        self.frames = frames


class Died(ChildProblem):
    """The child ended by itself without a result, by a signal or with an exit status."""

    def __init__(self, signal_number: int | None, status: int | None) -> None:
        if signal_number is not None:
            super().__init__(f"killed by signal {signal_name(signal_number)}")
        else:
            super().__init__(f"ended with status {status}")
        self.signal = signal_number
        self.status = status


def signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


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


def call(func: Callable[..., Any], *args: Any, timeout: float | None) -> Any:
    """`func(*args)` in a child process; its return value, or the exception it raised, re-raised here.

    `func`, `args` and the result must pickle (for `spawn`, `func` must be importable by name). Raises
    `TimedOut` after `timeout` seconds (None: no limit), `ExitCalled` or `Died`.
    """
    if timeout is not None and not 0 < timeout < math.inf:
        raise ValueError(f"timeout must be a positive number of seconds, not {timeout!r}")
    workdir = Path(tempfile.mkdtemp(prefix="gpufleet-run-"))
    try:
        if start_method() == "fork":
            ended = _wait(_fork(func, args, workdir), timeout)
        else:
            ended = _wait_spawned(_spawn(func, args, workdir), timeout)
        return _outcome(workdir, ended, timeout)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _fork(func: Callable[..., Any], args: tuple[Any, ...], workdir: Path) -> int:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child never returns into the caller
        _child_main(func, args, str(workdir), parent)
    # Also set here, so a time-out right after the fork still finds the group.
    with contextlib.suppress(OSError):
        os.setpgid(pid, pid)
    return pid


_SPAWNED = (
    "import pickle, sys; w = sys.argv[1]; sys.path[:] = pickle.load(open(w + '/path.pickle', 'rb')); "
    "from gpufleet.sandbox import _spawned; _spawned(w)"
)


def _spawn(func: Callable[..., Any], args: tuple[Any, ...], workdir: Path) -> subprocess.Popen[bytes]:
    """A fresh interpreter that imports `func` by name (where `os.fork` does not exist)."""
    (workdir / "path.pickle").write_bytes(pickle.dumps(list(sys.path)))
    job = (func, args, os.getpid())
    (workdir / "job.pickle").write_bytes(pickle.dumps(job, protocol=pickle.HIGHEST_PROTOCOL))
    return subprocess.Popen(
        [sys.executable, "-c", _SPAWNED, str(workdir)], stdin=subprocess.DEVNULL, start_new_session=True
    )


Ended = tuple[int | None, int | None]
"""How the child ended: (signal, None) or (None, exit status); None when the time ran out."""


def _wait_spawned(process: subprocess.Popen[bytes], timeout: float | None) -> Ended | None:
    try:
        code = process.wait(timeout)
    except subprocess.TimeoutExpired:
        return None
    finally:
        _kill_group(process.pid)
        with contextlib.suppress(OSError):
            process.kill()
        process.wait()
    return (-code, None) if code < 0 else (None, code)


def _wait(pid: int, timeout: float | None) -> Ended | None:
    """How the forked child ended, or None when the time ran out."""
    reaped: list[int] = []
    try:
        finished = _wait_exit(pid, timeout, reaped)
    finally:
        # A time-out, whatever the program left behind (a process it started) or the caller being
        # interrupted: nothing of the child's group outlives the call. The child is reaped after that
        # where the platform allows, so its process id (the group's id) cannot have been reused.
        _kill_group(pid)
        status = reaped[0] if reaped else os.waitpid(pid, 0)[1]
    if not finished:
        return None
    if os.WIFSIGNALED(status):
        return os.WTERMSIG(status), None
    return None, os.waitstatus_to_exitcode(status)


def _wait_exit(pid: int, timeout: float | None, reaped: list[int]) -> bool:
    """Block until `pid` exits (True) or `timeout` passes (False); its wait status goes to `reaped` if
    it had to be reaped to be seen."""
    deadline = None if timeout is None else time.monotonic() + timeout
    fd = _pidfd(pid)
    if fd is not None:
        try:
            poller = select.poll()
            poller.register(fd, select.POLLIN)
            while True:
                left = _SLICE if deadline is None else min(_SLICE, max(0.0, deadline - time.monotonic()))
                if poller.poll(left * 1000):
                    return True
                if deadline is not None and time.monotonic() >= deadline:
                    return False
        finally:
            os.close(fd)
    pause = _POLL_FIRST
    while not _exited(pid, reaped):
        if deadline is not None and time.monotonic() >= deadline:
            return False
        time.sleep(pause)
        pause = min(pause * 2, _POLL_MAX)
    return True


def _pidfd(pid: int) -> int | None:
    """A descriptor that becomes readable when `pid` exits (Linux 5.3 and later)."""
    pidfd_open = getattr(os, "pidfd_open", None)
    if pidfd_open is None or not hasattr(select, "poll"):
        return None
    try:
        fd: int = pidfd_open(pid)
    except OSError:
        return None
    return fd


def _exited(pid: int, reaped: list[int]) -> bool:
    """Whether `pid` has exited: left to be reaped where `waitid` exists, else reaped into `reaped`."""
    waitid = getattr(os, "waitid", None)
    if waitid is not None:
        return waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
        reaped.append(status)
    return bool(done)


def _kill_group(pid: int) -> None:
    killpg = getattr(os, "killpg", None)
    if killpg is not None:
        with contextlib.suppress(OSError):
            killpg(pid, signal.SIGKILL)


def _outcome(workdir: Path, ended: Ended | None, timeout: float | None) -> Any:
    if ended is None:
        raise TimedOut(timeout or 0.0)
    result = workdir / _RESULT
    if result.exists():
        payload = pickle.loads(result.read_bytes())
        kind = payload[0]
        if kind == "ok":
            return payload[1]
        if kind == "raised":
            raise payload[1]
        if kind == "exit":
            raise ExitCalled(payload[1], payload[2])
    raise Died(*ended)


# -- in the child ----------------------------------------------------------------------------------

_real_exit = os._exit
_forks: list[Frames] = []


def forks() -> list[Frames]:
    """Where the code run in this child called `os.fork` (each such fork's child was stopped at once)."""
    return list(_forks)


def _stack() -> Frames:
    return tuple((frame.filename, frame.lineno or 0) for frame in traceback.extract_stack()[:-2])


def _child_main(func: Callable[..., Any], args: tuple[Any, ...], workdir: str, parent: int) -> NoReturn:
    """The child's whole life: run `func`, leave its result, exit without returning or cleaning up."""
    me = os.getpid()
    try:
        _die_with(parent)
        setpgid = getattr(os, "setpgid", None)
        if setpgid is not None:
            with contextlib.suppress(OSError):
                setpgid(0, 0)
        # The child lives for one run and leaves by os._exit: the cyclic collector, which spends half
        # of a large program's run walking live objects, is off for its whole life. Objects inherited
        # from the caller are frozen first, so nothing of the child touches their pages.
        gc.freeze()
        gc.disable()
        # A crash is reported by the caller in one paragraph, not as a dump of every thread's stack.
        faulthandler.disable()
        _detach_stdio()
        if hasattr(os, "register_at_fork"):
            os.register_at_fork(after_in_child=_stop_forked_child, after_in_parent=_note_fork)
        os._exit = _exit_called(me, workdir)  # type: ignore[assignment]
        try:
            payload: tuple[Any, ...] = ("ok", func(*args))
        except BaseException as exc:
            payload = ("raised", _portable(exc))
        _leave(workdir, payload)
    finally:
        for stream in (sys.stdout, sys.stderr, sys.__stderr__):
            with contextlib.suppress(Exception):
                if stream is not None:
                    stream.flush()
        _real_exit(0)


def _spawned(workdir: str) -> NoReturn:  # pragma: no cover - runs in a spawned interpreter
    func, args, parent = pickle.loads((Path(workdir) / "job.pickle").read_bytes())
    _child_main(func, args, workdir, parent)


def _die_with(parent: int) -> None:
    """On Linux the kernel kills the child when the caller dies (a CI job cancelled with SIGTERM): the
    time limit is the caller's to enforce, so no child may outlive it."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(Exception):
            import ctypes

            ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the caller died before that took effect
        _real_exit(_ORPHANED_STATUS)


def _detach_stdio() -> None:
    """stdin reads as empty and nothing written to fd 1 reaches the caller's stdout (reports go there)."""
    with contextlib.suppress(OSError):
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
    with contextlib.suppress(OSError):
        os.dup2(2, 1)


def _stop_forked_child() -> None:  # pragma: no cover - runs in a grandchild that exits at once
    _real_exit(_FORKED_CHILD_STATUS)


def _note_fork() -> None:
    _forks.append(_stack())


def _exit_called(me: int, workdir: str) -> Callable[[int], NoReturn]:
    def exit_(status: int) -> NoReturn:
        if os.getpid() == me:
            with contextlib.suppress(Exception):
                _leave(workdir, ("exit", int(status), _stack()))
        _real_exit(status)

    return exit_


def _portable(exc: BaseException) -> BaseException:
    """`exc` with the child's traceback as a note (the caller re-raises it far from where it happened),
    or a RuntimeError with its type, message and traceback when it does not pickle."""
    with contextlib.suppress(Exception):
        exc.add_note("".join(traceback.format_exception(exc)).rstrip())
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:
        replacement = RuntimeError(f"{type(exc).__name__}: {exc}")
        for note in getattr(exc, "__notes__", ()):
            replacement.add_note(note)
        return replacement
    return exc


def _leave(workdir: str, payload: tuple[Any, ...]) -> None:
    """Write the result whole, or not at all: the caller reads only a complete file."""
    try:
        data = pickle.dumps(payload, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as exc:
        data = pickle.dumps(("raised", RuntimeError(f"the result cannot be sent back: {exc}")))
    partial = Path(workdir) / (_RESULT + ".part")
    partial.write_bytes(data)
    partial.replace(Path(workdir) / _RESULT)


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
    "ChildProblem",
    "Died",
    "ExitCalled",
    "TimedOut",
    "call",
    "collector_paused",
    "forks",
    "signal_name",
]

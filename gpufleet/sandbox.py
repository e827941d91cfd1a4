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
"""

from __future__ import annotations

import contextlib
import faulthandler
import gc
import json
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
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

START_METHOD_ENV = "GPUFLEET_START_METHOD"
ISOLATION_ENV = "GPUFLEET_ISOLATION"
"""`off` runs programs without namespaces (a debugging aid; `check --strict` then refuses)."""
_FORKED_CHILD_STATUS = 70
_ORPHANED_STATUS = 71
_PR_SET_PDEATHSIG = 1
_PR_SET_DUMPABLE = 4
_PR_SET_CHILD_SUBREAPER = 36
_SLICE = 3600.0  # longest single wait: poll() refuses huge time-outs
_READ = 1 << 16
MAX_RESULT_BYTES = 4 << 30
"""A result larger than this is not read (a program that floods the pipe is stopped)."""
MAX_DEPTH = 200
"""Deepest nesting of a result the caller parses (Python's own JSON parser recurses)."""

# Linux clone flags and mount flags (linux/sched.h, linux/mount.h).
_CLONE_NEWNS = 0x00020000
_CLONE_NEWUSER = 0x10000000
_CLONE_NEWPID = 0x20000000
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC = 1, 2, 4, 8
_MS_REMOUNT, _MS_BIND, _MS_REC, _MS_PRIVATE = 32, 4096, 16384, 1 << 18
_MS_NOATIME, _MS_NODIRATIME, _MS_RELATIME, _MS_STRICTATIME = 1024, 2048, 1 << 21, 1 << 24
_MOUNT_OPTION_FLAGS = {
    "nosuid": _MS_NOSUID,
    "nodev": _MS_NODEV,
    "noexec": _MS_NOEXEC,
    "noatime": _MS_NOATIME,
    "nodiratime": _MS_NODIRATIME,
    "relatime": _MS_RELATIME,
    "strictatime": _MS_STRICTATIME,
}
# Pseudo filesystems left as they are: the runner's own /proc, and device nodes (writing /dev/null
# must work; a device is not a file the caller reads).
_LEFT_WRITABLE = ("/proc", "/dev", "/sys")

Frames = tuple[tuple[str, int], ...]
"""(file name, line number) of each frame, outermost first."""


class ChildProblem(Exception):
    """The child ended without a result: a time-out, an `os._exit`, a crash or an exception."""


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


class ChildRaised(ChildProblem):
    """The function raised: its type's name, message and traceback, as text (never the object)."""

    def __init__(self, type_name: str, message: str, trace: str) -> None:
        super().__init__(f"{type_name}: {message}" if message else type_name)
        self.type_name = type_name
        self.message = message
        self.trace = trace


class BadResult(ChildProblem):
    """The child sent something that is not a result: not JSON, too large, too deep, or of no known form."""


class Stopped(ChildProblem):
    """The caller was asked to stop (SIGTERM, SIGHUP) while the child ran."""

    def __init__(self, signal_number: int) -> None:
        super().__init__(f"stopped by {signal_name(signal_number)}")
        self.signal = signal_number


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
    report = _parse_status(status)
    _last_isolation = Isolation(bool(report.get("namespaces")), str(report.get("reason", "")))
    if not finished:
        raise TimedOut(timeout or 0.0)
    return _outcome(result, report)


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


def _libc() -> Any:
    import ctypes

    return ctypes.CDLL(None, use_errno=True)


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
    "from gpufleet.sandbox import _spawned; _spawned(w, int(sys.argv[2]), int(sys.argv[3]))"
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


def _children() -> set[int]:
    """Process ids whose parent is this process (Linux), else nothing."""
    me = str(os.getpid())
    found: set[int] = set()
    try:
        entries = list(Path("/proc").iterdir())
    except OSError:
        return found
    for entry in entries:
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_bytes().decode("ascii", "replace")
        except OSError:
            continue
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) > 1 and fields[1] == me:
            found.add(int(entry.name))
    return found


def _kill_orphans(before: set[int]) -> None:
    """Kill and reap every child of this process that the call left (a process the program started
    in a session of its own, adopted here because this process is a child subreaper)."""
    for _ in range(50):
        left = _children() - before
        if not left:
            return
        for pid in left:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        for pid in left:
            with contextlib.suppress(ChildProcessError, OSError):
                os.waitpid(pid, 0)


def _parse_status(data: bytes) -> dict[str, Any]:
    """The lines of the status pipe (the init's, then the warden's) merged; anything else ignored."""
    merged: dict[str, Any] = {}
    for line in data.splitlines():
        try:
            report = json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            continue
        if isinstance(report, dict):
            merged.update(report)
    return merged


def parse_json(data: bytes) -> Any:
    """Strict parsing of what a child sent: UTF-8 JSON no deeper than MAX_DEPTH (NaN and Infinity are
    read as JSON numbers Python writes them)."""
    if _too_deep(data):
        raise BadResult(f"the result is nested deeper than {MAX_DEPTH} levels")
    try:
        return json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise BadResult(f"the result is not JSON: {exc}") from None


def _too_deep(data: bytes) -> bool:
    """Whether brackets outside strings nest deeper than MAX_DEPTH (checked before parsing: it recurses)."""
    depth = 0
    in_string = escaped = False
    for byte in data:
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # backslash
                escaped = True
            elif byte == 0x22:
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in (0x5B, 0x7B):
            depth += 1
            if depth > MAX_DEPTH:
                return True
        elif byte in (0x5D, 0x7D):
            depth -= 1
    return False


def _outcome(result: bytes, report: dict[str, Any]) -> Any:
    if result:
        payload = parse_json(result)
        if isinstance(payload, dict):
            kind = payload.get("kind")
            if kind == "ok" and "value" in payload:
                return payload["value"]
            if kind == "raised":
                return _raise(payload)
            if kind == "exit" and isinstance(payload.get("status"), int):
                raise ExitCalled(payload["status"], _frames(payload.get("frames")))
        raise BadResult("the child's result is not of a known form")
    sig, status = report.get("signal"), report.get("status")
    raise Died(sig if isinstance(sig, int) else None, status if isinstance(status, int) else None)


def _raise(payload: dict[str, Any]) -> NoReturn:
    def text(key: str) -> str:
        value = payload.get(key)
        return value if isinstance(value, str) else ""

    raise ChildRaised(text("type") or "Exception", text("message"), text("traceback"))


def _frames(value: Any) -> Frames:
    frames = []
    for item in value if isinstance(value, list) else ():
        if (
            isinstance(item, list)
            and len(item) == 2
            and isinstance(item[0], str)
            and isinstance(item[1], int)
        ):
            frames.append((item[0], item[1]))
    return tuple(frames)


# -- the warden ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Job:
    """What the warden, the namespace's init and the runner share."""

    func: Callable[..., Any]
    args: tuple[Any, ...]
    workdir: str
    result_w: int
    status_w: int


def _spawned(workdir: str, result_w: int, status_w: int) -> NoReturn:  # pragma: no cover - spawned
    func, args, parent = pickle.loads((Path(workdir) / "job.pickle").read_bytes())
    _warden(_Job(func, args, workdir, result_w, status_w), parent)


def _warden(job: _Job, parent: int) -> NoReturn:
    """Outside the namespaces: enter them for the next child where the platform allows, start the
    namespace's init, wait for it, and say on the status pipe whether namespaces were used."""
    report: dict[str, Any] = {}
    try:
        _die_with(parent)
        with contextlib.suppress(OSError):
            os.setpgid(0, 0)
        reason = _enter_namespaces()
        report["namespaces"] = reason is None
        if reason is not None:
            report["reason"] = reason
            with contextlib.suppress(Exception):
                _libc().prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
        me = os.getpid()
        pid = os.fork()
        if pid == 0:
            _init(job, me, isolated=reason is None)
        os.close(job.result_w)
        os.waitpid(pid, 0)
        if reason is not None:
            _kill_orphans(set())
    finally:
        _report(job.status_w, report)


def _init(job: _Job, warden: int, *, isolated: bool) -> NoReturn:
    """Process 1 of the new PID namespace (signals sent from inside it cannot reach it): lock the
    filesystem, start the runner, reap whatever ends, and say on the status pipe how the runner ended.
    When it exits, the kernel kills every process left in the namespace."""
    report: dict[str, Any] = {}
    try:
        _die_with(0 if isolated else warden)
        if isolated:
            _lock_filesystem(job.workdir)
        else:
            with contextlib.suppress(Exception):
                _libc().prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
        me = os.getpid()
        pid = os.fork()
        if pid == 0:
            os.close(job.status_w)
            _runner(job, me)
        os.close(job.result_w)
        while True:
            try:
                done, wait_status = os.waitpid(-1, 0)
            except ChildProcessError:
                break
            if done == pid:
                if os.WIFSIGNALED(wait_status):
                    report["signal"] = os.WTERMSIG(wait_status)
                else:
                    report["status"] = os.waitstatus_to_exitcode(wait_status)
                break
        if not isolated:
            _kill_orphans(set())
    finally:
        _report(job.status_w, report)


def _report(status_w: int, report: dict[str, Any]) -> NoReturn:
    with contextlib.suppress(Exception):
        os.write(status_w, json.dumps(report).encode() + b"\n")
    _real_exit(0)


def _enter_namespaces() -> str | None:
    """New user, PID and mount namespaces for the next child (this process stays where it is); None
    when done, else why not."""
    if os.environ.get(ISOLATION_ENV, "").strip().lower() == "off":
        return f"{ISOLATION_ENV}=off"
    if not sys.platform.startswith("linux"):
        return f"{sys.platform} has no PID or mount namespaces"
    try:
        libc = _libc()
        # A non-dumpable process cannot write its own uid_map (the caller made itself non-dumpable).
        libc.prctl(_PR_SET_DUMPABLE, 1, 0, 0, 0)
        uid, gid = os.getuid(), os.getgid()
        if libc.unshare(_CLONE_NEWUSER | _CLONE_NEWPID | _CLONE_NEWNS) != 0:
            return f"unshare(user, pid, mount) failed: {os.strerror(_errno())}"
        Path("/proc/self/setgroups").write_text("deny")
        Path("/proc/self/uid_map").write_text(f"{uid} {uid} 1")
        Path("/proc/self/gid_map").write_text(f"{gid} {gid} 1")
    except OSError as exc:
        return f"user namespaces are not available here: {exc.strerror or exc}"
    except Exception as exc:  # ctypes missing or libc without unshare
        return f"namespaces cannot be entered: {exc}"
    return None


def _errno() -> int:
    import ctypes

    return ctypes.get_errno()


# -- the runner ------------------------------------------------------------------------------------

_real_exit = os._exit
_forks: list[Frames] = []


def forks() -> list[Frames]:
    """Where the code run in this child called `os.fork` (each such fork's child was stopped at once)."""
    return list(_forks)


def _stack() -> Frames:
    return tuple((frame.filename, frame.lineno or 0) for frame in traceback.extract_stack()[:-2])


def _runner(job: _Job, init: int) -> NoReturn:
    """The runner's whole life: run `func`, leave its result, exit without cleaning up."""
    me = os.getpid()
    try:
        _die_with(init)
        with contextlib.suppress(OSError):
            os.setpgid(0, 0)
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
        os._exit = _exit_called(me, job.result_w)  # type: ignore[assignment]
        try:
            payload: dict[str, Any] = {"kind": "ok", "value": job.func(*job.args)}
        except BaseException as exc:
            payload = _raised(exc)
        _leave(job.result_w, payload)
    finally:
        for stream in (sys.stdout, sys.stderr, sys.__stderr__):
            with contextlib.suppress(Exception):
                if stream is not None:
                    stream.flush()
        _real_exit(0)


def _lock_filesystem(workdir: str) -> None:
    """A fresh /proc for the new PID namespace, every other mount read-only, and a private tmpfs on
    `workdir` as TMPDIR. A step the kernel refuses leaves that part as it was (the caller is still out
    of reach by PID)."""
    libc = _libc()
    libc.mount(b"none", b"/", None, _MS_REC | _MS_PRIVATE, None)
    libc.mount(b"proc", b"/proc", b"proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC, None)
    for point, flags in _mounts():
        if point == workdir or any(point == p or point.startswith(p + "/") for p in _LEFT_WRITABLE):
            continue
        libc.mount(None, point.encode(), None, _MS_REMOUNT | _MS_BIND | _MS_RDONLY | flags, None)
    if libc.mount(b"tmpfs", workdir.encode(), b"tmpfs", _MS_NOSUID | _MS_NODEV, b"mode=0700") == 0:
        os.environ["TMPDIR"] = workdir
        tempfile.tempdir = None


def _mounts() -> list[tuple[str, int]]:
    """(mount point, flags a remount must keep) of every mount this process sees."""
    found = []
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/mountinfo").read_text().splitlines():
            fields = line.split()
            if len(fields) < 6:
                continue
            point = fields[4].encode().decode("unicode_escape")
            flags = 0
            for option in fields[5].split(","):
                flags |= _MOUNT_OPTION_FLAGS.get(option, 0)
            found.append((point, flags))
    return found


def _die_with(parent: int) -> None:
    """On Linux the kernel kills this process when its parent dies (a CI job cancelled, the caller
    killed): no child may outlive the call. `parent` 0: the parent is outside this PID namespace."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(Exception):
            _libc().prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if parent and os.getppid() != parent:  # the parent died before that took effect
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


def _exit_called(me: int, result_w: int) -> Callable[[int], NoReturn]:
    def exit_(status: int) -> NoReturn:
        if os.getpid() == me:
            with contextlib.suppress(Exception):
                _leave(
                    result_w, {"kind": "exit", "status": int(status), "frames": [list(f) for f in _stack()]}
                )
        _real_exit(status)

    return exit_


def _raised(exc: BaseException) -> dict[str, Any]:
    """An exception as data: its type's name, its message and its traceback."""
    try:
        message = str(exc)
    except Exception:
        message = "(its message cannot be read)"
    try:
        trace = "".join(traceback.format_exception(exc)).rstrip()
    except Exception:
        trace = ""
    return {"kind": "raised", "type": type(exc).__name__, "message": message, "traceback": trace}


def _leave(result_w: int, payload: dict[str, Any]) -> None:
    """Write the result whole, once: later writes (an `os._exit` after a result) are dropped."""
    try:
        data = json.dumps(payload, separators=(",", ":")).encode("utf-8")
    except Exception as exc:
        data = json.dumps(
            {"kind": "raised", "type": "TypeError", "message": f"the result cannot be sent back: {exc}"}
        ).encode()
    view = memoryview(data)
    while view:
        written = os.write(result_w, view)
        view = view[written:]
    os.close(result_w)


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
    "forks",
    "isolation",
    "parse_json",
    "signal_name",
]

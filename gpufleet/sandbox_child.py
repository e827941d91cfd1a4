"""The processes behind the sandbox's pipes (`gpufleet.sandbox`): the warden, the namespace's init and
the runner, and the Linux primitives they use.

    caller --fork--> warden --unshare(user, pid, mount, net); fork--> init (pid 1) --fork--> runner

- `_warden` enters new user, PID, mount and network namespaces for its next child
  (`_enter_namespaces`), starts the init, and reports on the status pipe whether namespaces were used.
- `_init` is process 1 of the new PID namespace: it remounts every filesystem read-only with a private
  tmpfs as TMPDIR (`_lock_filesystem`), drops credentials from the environment (`_drop_credentials`),
  starts the runner and reports how it ended; when it exits the kernel kills the whole namespace.
- `_runner` runs the function and leaves its result on the result pipe (`sandbox_protocol.leave`).

Each dies with its parent (`_die_with`, PR_SET_PDEATHSIG). Where namespaces are not available, the
warden and init are child subreapers and kill every orphan (`_kill_orphans`) before they report.
"""

from __future__ import annotations

import contextlib
import faulthandler
import gc
import json
import os
import pickle
import re
import signal
import sys
import tempfile
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

from gpufleet.sandbox_protocol import Frames, leave, raised

ISOLATION_ENV = "GPUFLEET_ISOLATION"
"""`off` runs programs without namespaces (a debugging aid; `check --strict` then refuses)."""
_FORKED_CHILD_STATUS = 70
_ORPHANED_STATUS = 71
_PR_SET_PDEATHSIG = 1
_PR_SET_DUMPABLE = 4
_PR_SET_CHILD_SUBREAPER = 36

# Linux clone flags and mount flags (linux/sched.h, linux/mount.h).
_CLONE_NEWNS = 0x00020000
_CLONE_NEWUSER = 0x10000000
_CLONE_NEWPID = 0x20000000
_CLONE_NEWNET = 0x40000000
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


def _libc() -> Any:
    import ctypes

    return ctypes.CDLL(None, use_errno=True)


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
            _drop_credentials()
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
        if libc.unshare(_CLONE_NEWUSER | _CLONE_NEWPID | _CLONE_NEWNS | _CLONE_NEWNET) != 0:
            return f"unshare(user, pid, mount, network) failed: {os.strerror(_errno())}"
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
            payload = raised(exc)
        leave(job.result_w, payload)
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


_CREDENTIAL = re.compile(r"SECRET|TOKEN|PASSWORD|PASSPHRASE|ACCESS_KEY|PRIVATE_KEY|CREDENTIAL")


def _drop_credentials() -> None:
    """No credential of the judge's environment reaches the program (it has no network either: a new
    network namespace holds only a loopback device that is down). Offline, a program reads its
    configuration from the stack file, never from these."""
    for name in list(os.environ):
        if _CREDENTIAL.search(name.upper()):
            del os.environ[name]


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
                leave(
                    result_w, {"kind": "exit", "status": int(status), "frames": [list(f) for f in _stack()]}
                )
        _real_exit(status)

    return exit_

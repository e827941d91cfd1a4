"""`gpufleet.sandbox.call`: a function in a child process, its result or its failure brought back."""

from __future__ import annotations

import gc
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import NoReturn

import pytest

from gpufleet import sandbox, sandbox_child
from gpufleet.engine import run_program
from tests.engine.projects import write_project


def add(a: int, b: int) -> tuple[int, int, bool]:
    return a + b, os.getpid(), gc.isenabled()


def fail_with(message: str) -> NoReturn:
    raise ValueError(message)


class Unpicklable(Exception):
    def __init__(self, first: str, second: str) -> None:
        super().__init__(f"{first} {second}")


def fail_unpicklable() -> NoReturn:
    raise Unpicklable("no", "pickle")


def sleep_forever() -> None:
    time.sleep(3600)


def exit_with(status: int) -> NoReturn:
    os._exit(status)


def kill_self() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def fork_and_wait() -> tuple[int, int]:
    pid = os.fork()
    if pid == 0:  # pragma: no cover - stopped by the sandbox before this line runs
        return -1, -1
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status), len(sandbox_child.forks())


def test_returns_the_result_from_another_process() -> None:
    total, pid, collecting = sandbox.call(add, 2, 3, timeout=30)
    assert total == 5
    assert pid != os.getpid()
    assert collecting is False
    assert gc.isenabled()


def test_an_exception_comes_back_as_data_with_its_traceback() -> None:
    with pytest.raises(sandbox.ChildRaised) as info:
        sandbox.call(fail_with, "no pools", timeout=30)
    assert str(info.value) == "ValueError: no pools"
    assert (info.value.type_name, info.value.message) == ("ValueError", "no pools")
    assert info.value.trace.startswith("Traceback (most recent call last):")
    assert "in fail_with" in info.value.trace


def test_an_exception_of_any_class_comes_back_by_name_only() -> None:
    """The caller never rebuilds the child's exception object (unpickling it could run the child's code)."""
    with pytest.raises(sandbox.ChildRaised) as info:
        sandbox.call(fail_unpicklable, timeout=30)
    assert str(info.value) == "Unpicklable: no pickle"
    assert "in fail_unpicklable" in info.value.trace


def returns_an_object() -> object:
    return object()


def test_a_result_that_is_not_json_is_an_error_not_an_object() -> None:
    with pytest.raises(sandbox.ChildRaised, match="the result cannot be sent back"):
        sandbox.call(returns_an_object, timeout=30)


def test_time_limit() -> None:
    start = time.monotonic()
    with pytest.raises(sandbox.TimedOut) as info:
        sandbox.call(sleep_forever, timeout=0.5)
    assert info.value.seconds == 0.5
    assert 0.5 <= time.monotonic() - start < 3


def test_os_exit_is_reported_with_its_status_and_caller() -> None:
    with pytest.raises(sandbox.ExitCalled) as info:
        sandbox.call(exit_with, 4, timeout=30)
    assert info.value.status == 4
    filename, _ = info.value.frames[-1]
    assert filename == __file__


def test_a_killed_child_is_reported_with_its_signal() -> None:
    with pytest.raises(sandbox.Died) as info:
        sandbox.call(kill_self, timeout=30)
    assert info.value.signal == signal.SIGKILL
    assert str(info.value) == "killed by signal SIGKILL"


def test_a_fork_inside_the_child_is_stopped_at_once_and_recorded() -> None:
    status, forks = sandbox.call(fork_and_wait, timeout=30)
    assert status == sandbox_child._FORKED_CHILD_STATUS
    assert forks == 1


@pytest.mark.parametrize("timeout", [0, -1, float("nan"), float("inf")])
def test_timeout_must_be_positive_and_finite(timeout: float) -> None:
    with pytest.raises(ValueError, match="timeout must be a positive number of seconds"):
        sandbox.call(add, 1, 1, timeout=timeout)


def test_spawn_where_fork_is_not_wanted(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(sandbox.START_METHOD_ENV, "spawn")
    assert sandbox.start_method() == "spawn"
    total, pid, _ = sandbox.call(add, 20, 22, timeout=60)
    assert (total, pid != os.getpid()) == (42, True)

    root = write_project(
        tmp_path / "p",
        "import pulumi_aws as aws\nb = aws.s3.Bucket('b')\naws.s3.BucketVersioning('v', bucket=b.id, "
        "versioning_configuration={'status': 'Enabled'})\n",
        stacks={"dev": "config:\n  aws:region: us-east-1\n"},
    )
    spawned = run_program(root, "dev", timeout=60)
    monkeypatch.setenv(sandbox.START_METHOD_ENV, "fork")
    forked = run_program(root, "dev", timeout=60)
    assert json.dumps(spawned.to_json(), sort_keys=True) == json.dumps(forked.to_json(), sort_keys=True)
    assert [r.type for r in forked.custom_resources()] == [
        "aws:s3/bucket:Bucket",
        "aws:s3/bucketVersioning:BucketVersioning",
    ]


CALLER = """\
import subprocess, sys, time
from gpufleet import sandbox

def sleep_beside_a_marked_process(marker):
    subprocess.Popen(["sh", "-c", "sleep 600; : " + marker])
    time.sleep(600)

sandbox.call(sleep_beside_a_marked_process, sys.argv[1], timeout=None)
"""


def _marked(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                command = (entry / "cmdline").read_bytes().decode(errors="replace")
            except OSError:
                continue
            if marker in command and _running(int(entry.name)):
                found.append(int(entry.name))
    return found


@pytest.mark.parametrize("ending", ["kill", "terminate"])
def test_the_child_dies_with_its_caller(ending: str) -> None:
    marker = f"gpufleet-child-{os.getpid()}-{time.monotonic_ns()}"
    caller = subprocess.Popen(
        [sys.executable, "-c", CALLER, marker],
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while not _marked(marker) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert _marked(marker)
    finally:
        getattr(caller, ending)()
        caller.wait()
    deadline = time.monotonic() + 5
    while _marked(marker) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not _marked(marker), "the child outlived its caller"


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def test_spawn_while_another_thread_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """A fork copies only the calling thread; what another one held (a gRPC channel) would stay held."""
    monkeypatch.delenv(sandbox.START_METHOD_ENV, raising=False)
    before = sandbox.start_method()
    release = threading.Event()
    other = threading.Thread(target=release.wait)
    other.start()
    try:
        assert sandbox.start_method() == "spawn"
        total, _, _ = sandbox.call(add, 1, 2, timeout=60)
        assert total == 3
    finally:
        release.set()
        other.join()
    # The spawned child's helper threads (multiprocessing's pipe feeders) end a moment after it returns.
    deadline = time.monotonic() + 10
    while sandbox.start_method() != before and time.monotonic() < deadline:
        time.sleep(0.05)
    assert sandbox.start_method() == before

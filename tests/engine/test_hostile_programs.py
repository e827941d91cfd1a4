"""Programs that loop, sleep, fork, exit, interrupt or crash: every one ends `gpufleet check` with exit 2,
one paragraph on stderr, nothing on stdout and no traceback, within the time limit and a few seconds."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from gpufleet import childrun
from tests.cli.helpers import invoke
from tests.engine.projects import write_project

LIMIT = 2
"""--timeout for the programs that never finish."""
SLACK = 5.0
"""Seconds a command may take beyond its limit (a run, the policies and the report)."""

TIMED_OUT = (
    "the program __main__.py did not finish within the time limit of 2 seconds and was stopped (with "
    "every process it started); it may loop or wait forever. If it is only slow, raise the limit with "
    "--timeout SECONDS"
)

BUCKET = "import pulumi_aws as aws\naws.s3.Bucket('b')\n"

# name -> (program, the whole error message, or its start when it ends with "...")
CASES: dict[str, tuple[str, str]] = {
    "loop": (BUCKET + "while True:\n    pass\n", TIMED_OUT),
    "sleep": (BUCKET + "import time\ntime.sleep(3600)\n", TIMED_OUT),
    "fork": (
        "import os\nimport pulumi_aws as aws\npid = os.fork()\nos.waitpid(pid, 0)\naws.s3.Bucket('b')\n",
        "the program __main__.py forked the process (os.fork) (at __main__.py:3); a program checked "
        "offline must not fork: the forked copy was stopped at once and the run is not trusted",
    ),
    "thread": (
        "import threading\nimport time\nimport pulumi_aws as aws\n"
        "threading.Thread(target=time.sleep, args=(3600,), name='poller').start()\n"
        "aws.s3.Bucket('b')\n",
        "the program __main__.py left 1 non-daemon thread running after it finished ('poller'); the "
        "Pulumi language host waits for them and would not finish: join them, or start them with "
        "daemon=True",
    ),
    "os_exit_0": (
        BUCKET + "import os\nos._exit(0)\n",
        "the program __main__.py called os._exit(0) (at __main__.py:4) before it finished; nothing it "
        "registered can be trusted, so nothing is reported",
    ),
    "os_exit_3": (
        BUCKET + "import os\nos._exit(3)\n",
        "the program __main__.py called os._exit(3) (at __main__.py:4) before it finished; nothing it "
        "registered can be trusted, so nothing is reported",
    ),
    "keyboard_interrupt": (
        BUCKET + "raise KeyboardInterrupt\n",
        "the program __main__.py raised KeyboardInterrupt (at __main__.py:3); nothing was recorded past "
        "that point",
    ),
    "base_exception": (
        "class Halt(BaseException):\n    pass\n\n\nraise Halt('stop here')\n",
        "the program __main__.py raised Halt (at __main__.py:5): stop here; nothing was recorded past "
        "that point",
    ),
    "recursion": (
        "def down(n):\n    return down(n + 1)\n\n\ndown(0)\n",
        "the program __main__.py failed (at __main__.py:2): RecursionError: maximum recursion depth "
        "exceeded...",
    ),
    "closed_stdout": (
        BUCKET + "import sys\nsys.stdout.close()\nprint('done')\n",
        "the program __main__.py failed (at __main__.py:5): ValueError: I/O operation on closed file",
    ),
    "syntax_error": (
        "import pulumi\nsizes = (1, 2\n",
        "the program __main__.py has a syntax error at __main__.py:2: '(' was never closed",
    ),
    "missing_import": (
        "import pulumi\nimport pulumi_nosuchcloud\n",
        "the program __main__.py imports 'pulumi_nosuchcloud' (at __main__.py:2), which is not "
        "installed; install it in this environment...",
    ),
    "sys_exit_0": (
        BUCKET + "import sys\nsys.exit(0)\naws.s3.Bucket('c')\n",
        "the program __main__.py exited early (sys.exit) before finishing (at __main__.py:4); nothing "
        "was recorded past that point",
    ),
    "reads_stdin": (
        BUCKET + "answer = input('region? ')\n",
        "the program __main__.py failed (at __main__.py:3): EOFError: EOF when reading a line",
    ),
    "unprintable_error": (
        "class Weird(Exception):\n    def __str__(self):\n        raise RuntimeError('no str')\n\n\n"
        "raise Weird()\n",
        "the program __main__.py failed (at __main__.py:6): Weird: (its message cannot be shown: str() "
        "raised RuntimeError)",
    ),
    "huge_error": (
        "raise ValueError('x' * 100_000)\n",
        "the program __main__.py failed (at __main__.py:1): ValueError: "
        + "x" * 400
        + "... (99,600 more characters)",
    ),
    "segfault": (
        "import ctypes\nctypes.string_at(0)\n",
        "the program __main__.py crashed the process running it (signal SIGSEGV: a fault in a native "
        "extension, memory exhausted, a recursion too deep for the interpreter, or a kill from outside); "
        "nothing is reported",
    ),
}
NEVER_END = {"loop", "sleep"}


def _project(root: Path, program: str) -> Path:
    return write_project(root, program, stacks={"dev": "config:\n  aws:region: us-east-1\n"})


@pytest.fixture
def quick_thread_grace(monkeypatch: pytest.MonkeyPatch) -> None:
    """Threads left running get 0.2 s, not 2 s, to end (the forked child inherits the value)."""
    monkeypatch.setattr(childrun, "THREAD_GRACE", 0.2)


@pytest.mark.usefixtures("quick_thread_grace")
@pytest.mark.parametrize("case", sorted(CASES))
def test_hostile_program_exits_2_with_one_paragraph(case: str, tmp_path: Path) -> None:
    program, expected = CASES[case]
    root = _project(tmp_path / case, program)
    limit = LIMIT if case in NEVER_END else 30
    threads, cwd = set(threading.enumerate()), Path.cwd()

    start = time.monotonic()
    run = invoke("check", str(root), "-s", "dev", "--timeout", str(limit))
    elapsed = time.monotonic() - start

    assert run.exit_code == 2, run.stdout + run.stderr
    assert run.stdout == ""
    lines = run.stderr.splitlines()
    assert len(lines) == 1, run.stderr
    message = lines[0].removeprefix("error: ")
    if expected.endswith("..."):
        assert message.startswith(expected[:-3]), message
    else:
        assert message == expected
    if case in NEVER_END:
        assert LIMIT <= elapsed < LIMIT + SLACK, elapsed
    else:
        assert elapsed < SLACK, elapsed
    # Nothing of the program reached this process.
    assert set(threading.enumerate()) == threads
    assert Path.cwd() == cwd


def test_a_program_that_closes_stdout_and_stderr_still_gets_its_report(tmp_path: Path) -> None:
    root = _project(
        tmp_path / "p",
        "import os\nimport sys\nimport pulumi_aws as aws\n"
        "sys.stdout.close()\nsys.stderr.close()\nos.close(1)\nos.close(2)\naws.s3.Bucket('b')\n",
    )
    run = invoke("check", str(root), "-s", "dev", "--rules", "GF-STOR-*")
    assert run.exit_code in (0, 1), run.stderr
    report = json.loads(run.stdout)
    assert [s["stack"] for s in report["stacks"]] == ["dev"]


def test_what_a_program_writes_to_descriptor_1_never_reaches_the_report(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    root = _project(tmp_path / "p", "import os\n" + BUCKET + "os.write(1, b'not json\\n')\n")
    run = invoke("check", str(root), "-s", "dev", "--rules", "GF-STOR-*")
    assert run.exit_code in (0, 1), run.stderr
    assert json.loads(run.stdout)["stacks"][0]["stack"] == "dev"
    captured = capfd.readouterr()
    assert "not json" not in captured.out
    assert "not json" in captured.err


def _fresh_cli(root: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gpufleet", "check", str(root), "-s", "dev", *extra],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[2])},
    )


def test_keyboard_interrupt_in_a_fresh_process_is_exit_2_not_130(tmp_path: Path) -> None:
    program, expected = CASES["keyboard_interrupt"]
    completed = _fresh_cli(_project(tmp_path / "p", program))
    assert completed.returncode == 2
    assert completed.stdout == ""
    assert completed.stderr.splitlines() == [f"error: {expected}"]


def test_time_limit_ends_every_process_the_program_started(tmp_path: Path) -> None:
    marker = f"gpufleet-sleeper-{os.getpid()}-{time.monotonic_ns()}"
    root = _project(
        tmp_path / "p",
        "import subprocess\nimport time\n"
        f"subprocess.Popen(['sh', '-c', 'sleep 600; : {marker}'])\n"
        f"subprocess.Popen(['sh', '-c', 'sleep 600; : {marker}'], start_new_session=True)\n"
        "time.sleep(600)\n",
    )
    start = time.monotonic()
    completed = _fresh_cli(root, "--timeout", str(LIMIT))
    elapsed = time.monotonic() - start

    assert completed.returncode == 2
    assert completed.stdout == ""
    assert completed.stderr.splitlines() == [f"error: {TIMED_OUT}"]
    assert elapsed < LIMIT + SLACK + 3  # a fresh process imports the SDKs first
    deadline = time.monotonic() + 5
    while _running_with(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _running_with(marker), "the program's own children outlived the time limit"


def test_a_daemon_in_a_session_of_its_own_does_not_outlive_a_finished_run(tmp_path: Path) -> None:
    marker = f"gpufleet-daemon-{os.getpid()}-{time.monotonic_ns()}"
    root = _project(
        tmp_path / "p",
        BUCKET + "import subprocess\n"
        f"subprocess.Popen(['sh', '-c', 'sleep 600; : {marker}'], start_new_session=True)\n",
    )
    completed = _fresh_cli(root)
    assert completed.returncode in (0, 1), completed.stderr
    deadline = time.monotonic() + 5
    while _running_with(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _running_with(marker), "a daemon the program started outlived the run"


def _running_with(marker: str) -> list[int]:
    """Running processes whose command line holds `marker` (zombies do not count)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().decode(errors="replace")
            if marker in command and _alive(int(entry.name)):
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def _alive(pid: int) -> bool:
    """Running (a zombie waiting for a reaper does not count)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf"])
def test_timeout_must_be_a_positive_number(value: str, tmp_path: Path) -> None:
    root = _project(tmp_path / "p", BUCKET)
    run = invoke("plan", str(root), "-s", "dev", "--timeout", value)
    assert run.exit_code == 2
    assert run.stderr.splitlines() == [
        f"error: --timeout {float(value):g}: give the seconds a program may run, a positive number (300)"
    ]


@pytest.mark.parametrize(
    "command", [("plan",), ("cost",), ("advise", "buy-vs-rent"), ("check", "--format", "sarif")]
)
def test_every_command_that_runs_a_program_has_it(command: tuple[str, ...], tmp_path: Path) -> None:
    root = _project(tmp_path / "p", CASES["sleep"][0])
    start = time.monotonic()
    run = invoke(*command, str(root), "-s", "dev", "--timeout", "1")
    elapsed = time.monotonic() - start
    assert run.exit_code == 2
    assert run.stdout == ""
    assert run.stderr.splitlines() == [f"error: {TIMED_OUT.replace('of 2 seconds', 'of 1 second')}"]
    assert 1 <= elapsed < 1 + SLACK

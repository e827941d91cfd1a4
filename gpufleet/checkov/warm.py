"""checkov started before it is needed: `gpufleet check` starts it while the programs run, so its
import (about a second of CPU) happens beside them, and hands it each stack's export as soon as that
stack's program has run (`submit`), so that it judges one stack while the next program runs: one
checkov process for every stack of a `check`, `--all-stacks` included. `collect` takes the answers.

The process is `driver.py` run by checkov's own Python (the interpreter named on the first line of the
`checkov` script: `.venv-checkov/bin/python`, a pipx venv's). A `checkov` that is not such a script
(a binary, a shell wrapper) runs as a command after the programs (`run.run_checkov`), and so does any
request the driver cannot answer (a checkov whose API it does not know): the findings are checkov's
either way.

No descriptor joins this process to the driver: the programs run in forked sandboxes, and a pipe to a
process outside the sandbox would let a program hand checkov arguments of its own. The driver waits
for numbered request files in a directory of its own (mode 0700, outside the sandbox's writable tmpfs;
the sandbox sees every other filesystem read-only) and leaves each answer beside its request. Where
the sandbox has no namespaces a program can reach that directory and the driver: an answer is taken
only from a driver that exited 0 and only when it repeats the very arguments sent under its number
(`_taken`); anything else runs the command, whose arguments and output no program touches."""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpufleet.checkov.run import (
    CUSTOM_CHECKS_DIR,
    DEFAULT_TIMEOUT,
    CheckovRun,
    checkov_command,
    checkov_env,
    run_checkov,
)

DRIVER = Path(__file__).with_name("driver.py")
LOG = "driver.log"
DISABLE_VAR = "GPUFLEET_CHECKOV_WARM"
"""`off`: run checkov as a command after the programs instead (for comparing the two)."""
MAX_ANSWER_BYTES = 512 * 1024 * 1024


def checkov_python(binary: Path) -> Path | None:
    """The Python that runs the `checkov` script, from its first line; None when it is not a Python
    script (a wrapper, a binary) or that Python is not there."""
    try:
        with binary.open("rb") as script:
            first = script.readline(512)
    except OSError:
        return None
    if not first.startswith(b"#!"):
        return None
    words = first[2:].decode("utf-8", "replace").split()
    if not words:
        return None
    python = Path(words[0])
    if python.name == "env" and len(words) > 1:
        found = shutil.which(words[1])
        python = Path(found) if found else Path(words[1])
    if not python.name.startswith("python") or not python.is_file() or not os.access(python, os.X_OK):
        return None
    return python


def request_name(index: int) -> str:
    """The file of request `index` in the driver's directory (driver.py reads the same names)."""
    return f"request-{index}.json"


def answer_name(index: int) -> str:
    return f"answer-{index}.json"


@dataclass(frozen=True)
class _Sent:
    """One request handed to the driver: its arguments, and the files and options to run the command
    with where the driver's answer is not taken."""

    argv: list[str]
    files: tuple[Path, ...]
    skip_checks: tuple[str, ...]
    external_checks_dir: Path | None


class WarmCheckov:
    """One checkov process, started now and given files later: a request per `submit` (each stack's
    export as soon as its program has run), the answers taken at `collect`, at most once."""

    def __init__(self, binary: Path) -> None:
        self.binary = binary
        self.process: subprocess.Popen[bytes] | None = None
        self.directory: Path | None = None
        self.owner = os.getpid()
        self.sent: list[_Sent] = []
        self.first_sent: float | None = None
        python = checkov_python(binary) if os.environ.get(DISABLE_VAR) != "off" else None
        if python is None:
            return
        self.directory = Path(tempfile.mkdtemp(prefix="gpufleet-checkov-warm-"))
        try:
            with (self.directory / LOG).open("wb") as log:
                self.process = subprocess.Popen(
                    [str(python), str(DRIVER), str(self.directory)],
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=log,
                    env=checkov_env(),
                    close_fds=True,
                    start_new_session=True,
                )
        except OSError:
            self.close()
            return
        atexit.register(self.close)

    def submit(
        self,
        files: Sequence[Path],
        *,
        skip_checks: Sequence[str] = (),
        external_checks_dir: Path | None = CUSTOM_CHECKS_DIR,
    ) -> None:
        """Hand the driver `files` now (it runs them while the next program runs); without a driver
        they are run as the command at `collect`."""
        argv = checkov_command(
            self.binary, files, skip_checks=skip_checks, external_checks_dir=external_checks_dir
        )[1:]
        index = len(self.sent)
        if self.process is not None and self.directory is not None:
            try:
                self._write(request_name(index), {"argv": argv})
            except OSError:
                # A request the driver would wait for for ever: stop it; `collect` runs the command over
                # every request instead.
                self.close()
        self.sent.append(_Sent(argv, tuple(files), tuple(skip_checks), external_checks_dir))
        if self.first_sent is None:
            self.first_sent = time.perf_counter()

    def collect(self, timeout: float = DEFAULT_TIMEOUT) -> CheckovRun:
        """Every submitted request's reports, as one run: the driver's answers where they are taken,
        the `checkov` command (once, over the rest) where they are not. Stops the driver."""
        start = self.first_sent if self.first_sent is not None else time.perf_counter()
        try:
            answers = self._answers(timeout) if self.process is not None else {}
            if isinstance(answers, CheckovRun):  # the driver did not finish in time
                return answers
            reports: list[dict[str, Any]] = []
            rest: list[_Sent] = []
            for index, sent in enumerate(self.sent):
                found = answers.get(index)
                if found is None:
                    rest.append(sent)
                else:
                    reports.extend(found)
            version = _version(reports)
            if rest:
                run = run_checkov(
                    self.binary,
                    [path for sent in rest for path in sent.files],
                    skip_checks=sorted({check for sent in rest for check in sent.skip_checks}),
                    external_checks_dir=rest[0].external_checks_dir,
                    timeout=timeout,
                )
                if run.error is not None:
                    return run
                reports.extend(run.reports)
                version = version or run.version
            return CheckovRun(reports=reports, seconds=time.perf_counter() - start, version=version)
        finally:
            self.close()

    def run(
        self,
        files: Sequence[Path],
        *,
        skip_checks: Sequence[str] = (),
        external_checks_dir: Path | None = CUSTOM_CHECKS_DIR,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> CheckovRun:
        """checkov over `files`, as `run.run_checkov` runs it; by the warm process where there is one."""
        self.submit(files, skip_checks=skip_checks, external_checks_dir=external_checks_dir)
        return self.collect(timeout)

    def _write(self, name: str, data: dict[str, Any]) -> None:
        assert self.directory is not None
        staged = self.directory / (name + ".tmp")
        staged.write_text(json.dumps(data), encoding="utf-8")
        staged.replace(self.directory / name)

    def _answers(self, timeout: float) -> dict[int, list[dict[str, Any]]] | CheckovRun:
        """Request number -> its reports, for each answer taken; a CheckovRun with the error when the
        driver did not finish in `timeout`."""
        assert self.process is not None and self.directory is not None
        start = time.perf_counter()
        self._write(request_name(len(self.sent)), {"end": True})
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return CheckovRun(
                seconds=time.perf_counter() - start, error=f"checkov did not finish in {timeout:g} s"
            )
        # Only the answers of a driver that ended by itself: one that was killed may have left an
        # answer that is not its own.
        if self.process.returncode != 0:
            return {}
        taken: dict[int, list[dict[str, Any]]] = {}
        for index, sent in enumerate(self.sent):
            reports = _taken(self.directory / answer_name(index), sent.argv)
            if reports is not None:
                taken[index] = reports
        return taken

    def close(self) -> None:
        """Stop the process (if it still runs) and remove its directory; only in the process that
        started it (a forked worker inherits this object, not the process)."""
        if os.getpid() != self.owner:
            return
        if self.process is not None and self.process.poll() is None:
            with contextlib.suppress(OSError):
                os.killpg(self.process.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=5)
        self.process = None
        if self.directory is not None:
            shutil.rmtree(self.directory, ignore_errors=True)
            self.directory = None
        with contextlib.suppress(Exception):
            atexit.unregister(self.close)


def _taken(path: Path, argv: list[str]) -> list[dict[str, Any]] | None:
    """The reports of one answer, when it answers the arguments sent under its number (a request
    written earlier by anyone else had other arguments); None otherwise."""
    try:
        if path.stat().st_size > MAX_ANSWER_BYTES:
            return None
        answer = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(answer, dict) or answer.get("argv") != argv:
        return None
    if not isinstance(answer.get("reports"), list):
        return None
    return [r for r in answer["reports"] if isinstance(r, dict) and "results" in r]


def _version(reports: Sequence[dict[str, Any]]) -> str | None:
    return next(
        (str(r["summary"]["checkov_version"]) for r in reports if isinstance(r.get("summary"), dict)),
        None,
    )


def start(binary: Path | None) -> WarmCheckov | None:
    """A warm checkov for `binary`, or None when checkov is off."""
    return WarmCheckov(binary) if binary is not None else None

"""checkov started before it is needed: `gpufleet check` starts it while the programs run, so its
import (seconds of start-up) happens beside them, and hands it every stack's export when they are
ready: one checkov process for every stack of a `check`, `--all-stacks` included.

The process is `driver.py` run by checkov's own Python (the interpreter named on the first line of the
`checkov` script: `.venv-checkov/bin/python`, a pipx venv's). A `checkov` that is not such a script
(a binary, a shell wrapper) runs as a command after the programs, as before (`run.run_checkov`), and
so does any request the driver cannot answer (a checkov whose API it does not know): the findings are
checkov's either way.

No descriptor joins this process to the driver: the programs run in forked sandboxes, and a pipe to a
process outside the sandbox would let a program hand checkov arguments of its own. The driver waits
for a request file in a directory of its own (mode 0700, outside the sandbox's writable tmpfs; the
sandbox sees every other filesystem read-only) and leaves its answer beside it. Where the sandbox has
no namespaces a program can reach that directory and the driver: an answer is taken only from a driver
that exited 0 and ran the very arguments sent (`_ask`), anything else runs the command, whose
arguments and output no program touches.
"""

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
REQUEST, ANSWER, LOG = "request.json", "answer.json", "driver.log"
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


class WarmCheckov:
    """One checkov process, started now and given its files later (`run`), at most once."""

    def __init__(self, binary: Path) -> None:
        self.binary = binary
        self.process: subprocess.Popen[bytes] | None = None
        self.directory: Path | None = None
        self.owner = os.getpid()
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

    def run(
        self,
        files: Sequence[Path],
        *,
        skip_checks: Sequence[str] = (),
        external_checks_dir: Path | None = CUSTOM_CHECKS_DIR,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> CheckovRun:
        """checkov over `files`, as `run.run_checkov` runs it; by the warm process where there is one."""
        try:
            if self.process is not None and self.directory is not None:
                argv = checkov_command(
                    self.binary, files, skip_checks=skip_checks, external_checks_dir=external_checks_dir
                )[1:]
                run = self._ask(self.directory, argv, timeout)
                if run is not None:
                    return run
            return run_checkov(
                self.binary,
                files,
                skip_checks=skip_checks,
                external_checks_dir=external_checks_dir,
                timeout=timeout,
            )
        finally:
            self.close()

    def _ask(self, directory: Path, argv: list[str], timeout: float) -> CheckovRun | None:
        """The driver's answer; None when it cannot give one (then checkov runs as a command)."""
        assert self.process is not None
        start = time.perf_counter()
        staged = directory / (REQUEST + ".tmp")
        staged.write_text(json.dumps({"argv": argv}), encoding="utf-8")
        staged.replace(directory / REQUEST)
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            return CheckovRun(
                seconds=time.perf_counter() - start, error=f"checkov did not finish in {timeout:g} s"
            )
        seconds = time.perf_counter() - start
        answer_path = directory / ANSWER
        try:
            if answer_path.stat().st_size > MAX_ANSWER_BYTES:
                return None
            answer = json.loads(answer_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        # Only the answer of a driver that ended by itself, to the arguments sent here: a request
        # written earlier by anyone else (other arguments), or an answer left beside a driver that
        # was killed, makes checkov run as a command instead.
        if self.process.returncode != 0 or not isinstance(answer, dict) or answer.get("argv") != argv:
            return None
        if not isinstance(answer.get("reports"), list):
            return None
        reports: list[dict[str, Any]] = [
            r for r in answer["reports"] if isinstance(r, dict) and "results" in r
        ]
        version = next(
            (str(r["summary"]["checkov_version"]) for r in reports if isinstance(r.get("summary"), dict)),
            None,
        )
        return CheckovRun(reports=reports, seconds=seconds, version=version)

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


def start(binary: Path | None) -> WarmCheckov | None:
    """A warm checkov for `binary`, or None when checkov is off."""
    return WarmCheckov(binary) if binary is not None else None

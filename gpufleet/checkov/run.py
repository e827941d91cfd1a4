"""Find checkov and run it as a command over stacks' exports, where the warm process of `warm.py`
cannot answer: offline, frameworks `terraform_plan` and `kubernetes`, JSON out.

checkov lives in an environment of its own (`make checkov` creates `.venv-checkov/`): every checkov from
3.1.48 on pins `packaging<24` and pulumi needs `packaging>=26`, so the two cannot share one.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ENV_VAR = "GPUFLEET_CHECKOV"
VENV_BIN = Path(".venv-checkov") / "bin" / "checkov"
INSTALL_HINT = (
    "install it with `make checkov` (a pinned, hash-checked checkov in .venv-checkov/), or point "
    f"--checkov-bin or ${ENV_VAR} at a checkov 3.3 or newer"
)
DEFAULT_TIMEOUT = 900.0
FRAMEWORKS = ("terraform_plan", "kubernetes")
CUSTOM_CHECKS_DIR = Path(__file__).with_name("checks")


class CheckovNotFound(Exception):
    """An explicitly named checkov that is not there or not runnable."""


def find_checkov(explicit: Path | None, project_root: Path) -> Path | None:
    """checkov from `--checkov-bin`, then `$GPUFLEET_CHECKOV`, then the project's (or the current
    directory's) `.venv-checkov/`, then PATH; None when there is none. A path named explicitly
    (option or variable) must be a runnable file."""
    named = (
        explicit if explicit is not None else (Path(os.environ[ENV_VAR]) if os.environ.get(ENV_VAR) else None)
    )
    if named is not None:
        where = "--checkov-bin" if explicit is not None else f"${ENV_VAR}"
        if not named.is_file() or not os.access(named, os.X_OK):
            raise CheckovNotFound(f"{where} {named}: no runnable file there; {INSTALL_HINT}")
        return named
    for root in dict.fromkeys((project_root, Path.cwd())):
        candidate = root / VENV_BIN
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    found = shutil.which("checkov")
    return Path(found) if found else None


@dataclass
class CheckovRun:
    """What one checkov run gave: its reports (one per framework that found files), or the error."""

    reports: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0
    error: str | None = None
    version: str | None = None


def checkov_command(
    binary: Path,
    files: Sequence[Path],
    *,
    skip_checks: Sequence[str] = (),
    external_checks_dir: Path | None = CUSTOM_CHECKS_DIR,
) -> list[str]:
    command = [str(binary)]
    for path in files:
        command += ["-f", str(path)]
    command += ["--framework", *FRAMEWORKS, "--skip-download", "--output", "json", "--compact"]
    if skip_checks:
        command += ["--skip-check", ",".join(skip_checks)]
    if external_checks_dir is not None and external_checks_dir.is_dir():
        command += ["--external-checks-dir", str(external_checks_dir)]
    return command


JSON_PLANS = {"CHECKOV_MAX_IAC_FILE_SIZE": "0"}
"""checkov reads a plan with pyyaml, to give each finding its line numbers, unless the file is larger
than `CHECKOV_MAX_IAC_FILE_SIZE` bytes: then it reads it with `json.loads`, every line number 0.
Nothing here reads a finding's lines (findings are mapped to resources by their address), so every
plan takes checkov's JSON path: about half of checkov's run on 1,000 to 3,000 resources, with the same
findings (docs/checkov.md, Performance). An environment that sets the variable keeps its value."""


def checkov_env() -> dict[str, str]:
    """checkov's environment: offline (no mapping download), no tips, errors only in its log, plans read
    as JSON (`JSON_PLANS`)."""
    return {
        **JSON_PLANS,
        **os.environ,
        "BC_SKIP_MAPPING": "TRUE",
        "CHECKOV_NO_OUTPUT_TIPS": "true",
        "LOG_LEVEL": "ERROR",
    }


def parse_output(stdout: str) -> list[dict[str, Any]]:
    """checkov's JSON: one report object, a list of them (one per framework), or an empty summary
    when no file held anything to scan."""
    data = json.loads(stdout)
    reports = data if isinstance(data, list) else [data]
    if not all(isinstance(r, dict) for r in reports):
        raise ValueError("expected a JSON object or a list of objects")
    return [r for r in reports if "results" in r]


def run_checkov(
    binary: Path,
    files: Sequence[Path],
    *,
    skip_checks: Sequence[str] = (),
    external_checks_dir: Path | None = CUSTOM_CHECKS_DIR,
    timeout: float = DEFAULT_TIMEOUT,
) -> CheckovRun:
    """Run checkov once over `files`. Never raises for checkov's own failures: a crash, a timeout or
    unreadable output comes back as `error`, so it cannot hide the policy pack's verdicts."""
    command = checkov_command(binary, files, skip_checks=skip_checks, external_checks_dir=external_checks_dir)
    env = checkov_env()
    start = time.perf_counter()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env, check=False)
    except subprocess.TimeoutExpired:
        return CheckovRun(
            seconds=time.perf_counter() - start, error=f"checkov did not finish in {timeout:g} s"
        )
    except OSError as exc:
        return CheckovRun(seconds=time.perf_counter() - start, error=f"checkov could not start: {exc}")
    seconds = time.perf_counter() - start
    # checkov exits 1 when a check failed; anything else but 0 is checkov failing.
    if done.returncode not in (0, 1):
        tail = " ".join((done.stderr or done.stdout).strip().splitlines()[-3:])
        return CheckovRun(
            seconds=seconds, error=f"checkov exited with status {done.returncode}: {tail[-500:]}"
        )
    try:
        reports = parse_output(done.stdout)
    except (json.JSONDecodeError, ValueError) as exc:
        return CheckovRun(seconds=seconds, error=f"checkov's output is not its JSON report ({exc})")
    version = next(
        (str(r["summary"]["checkov_version"]) for r in reports if isinstance(r.get("summary"), dict)), None
    )
    return CheckovRun(reports=reports, seconds=seconds, version=version)

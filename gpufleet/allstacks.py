"""`gpufleet check --all-stacks`: every stack that can be checked is, one broken stack becomes an error
entry instead of hiding the others, and `--jobs N` checks stacks in parallel processes.

The caller hands in `check_one(stack) -> (StackResult, graph or None)`; a stack that cannot be checked
comes back as `error_result(...)` with no graph. Worker processes are forks of the caller (the function
and its policies are inherited, never pickled); where fork does not exist stacks are checked in turn.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import TextIO

from gpufleet.evaluate import StackResult
from gpufleet.graph import ResourceGraph

Outcome = tuple[StackResult, ResourceGraph | None]
CheckOne = Callable[[str], Outcome]

MAX_JOBS = 64

# The function a forked worker runs: set just before the pool forks, so workers inherit it.
_CHECK_ONE: CheckOne | None = None


def error_result(stack: str, project: str, message: str, details: Sequence[str] = ()) -> StackResult:
    """The report entry of a stack that could not be checked: no resources, no findings, and why."""
    return StackResult(
        stack=stack,
        project=project,
        resources=0,
        cost=None,
        error={"message": message, "details": list(details)},
    )


def _in_worker(stack: str) -> Outcome:
    assert _CHECK_ONE is not None
    return _CHECK_ONE(stack)


class Progress:
    """`checked 2/5 stacks (prod)` rewritten in place on a terminal; silent on a pipe or a file."""

    def __init__(self, total: int, stream: TextIO | None = None) -> None:
        self.total, self.done = total, 0
        self.stream = stream if stream is not None else sys.stderr
        self.shown = self.stream.isatty()

    def step(self, stack: str) -> None:
        self.done += 1
        if self.shown:
            self.stream.write(f"\r\x1b[Kchecked {self.done}/{self.total} stacks ({stack})")
            self.stream.flush()

    def close(self) -> None:
        if self.shown and self.done:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


def check_stacks(
    stacks: Sequence[str],
    check_one: CheckOne,
    *,
    project: str,
    jobs: int = 1,
    progress: Progress | None = None,
    on_outcome: Callable[[Outcome], None] | None = None,
) -> list[Outcome]:
    """Every stack's outcome, in the order of `stacks`, whatever order they finish in. `on_outcome` is
    called in this process with each outcome as soon as it is there (checkov takes the stack's export
    while the next one runs)."""
    progress = progress or Progress(len(stacks))
    try:
        if jobs <= 1 or len(stacks) <= 1 or "fork" not in multiprocessing.get_all_start_methods():
            outcomes = []
            for stack in stacks:
                outcomes.append(check_one(stack))
                if on_outcome is not None:
                    on_outcome(outcomes[-1])
                progress.step(stack)
            return outcomes
        return _parallel(
            stacks,
            check_one,
            project=project,
            jobs=min(jobs, len(stacks)),
            progress=progress,
            on_outcome=on_outcome,
        )
    finally:
        progress.close()


def _parallel(
    stacks: Sequence[str],
    check_one: CheckOne,
    *,
    project: str,
    jobs: int,
    progress: Progress,
    on_outcome: Callable[[Outcome], None] | None,
) -> list[Outcome]:
    global _CHECK_ONE  # noqa: PLW0603 - inherited by the forked workers, never pickled
    _CHECK_ONE = check_one
    found: dict[str, Outcome] = {}
    try:
        with ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("fork")) as pool:
            futures: dict[Future[Outcome], str] = {pool.submit(_in_worker, stack): stack for stack in stacks}
            for future in as_completed(futures):
                stack = futures[future]
                try:
                    found[stack] = future.result()
                except Exception as exc:  # a worker that died is that stack's error entry
                    found[stack] = (
                        error_result(
                            stack,
                            project,
                            f"stack {stack}: the process checking it failed ({type(exc).__name__}: {exc}); "
                            "run `gpufleet check -s " + stack + "` alone to see why",
                        ),
                        None,
                    )
                if on_outcome is not None:
                    on_outcome(found[stack])
                progress.step(stack)
    finally:
        _CHECK_ONE = None
    return [found[stack] for stack in stacks]


CGROUP_CPU_MAX = "/sys/fs/cgroup/cpu.max"
"""cgroup v2's CPU limit of this process's group (`QUOTA PERIOD`, or `max PERIOD` for none)."""


def usable_cpus(cpu_max: str | None = None) -> int:
    """The CPUs this process may use: the ones it may run on (its affinity; the machine's where the
    platform does not say), fewer when its cgroup's CPU quota allows less (a container limited to two
    CPUs on a 64-CPU host sees 64 in `os.cpu_count()`)."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    try:
        limit = Path(cpu_max or CGROUP_CPU_MAX).read_text(encoding="ascii")
        quota, period = limit.split()[:2]
        if quota != "max" and int(period) > 0:
            cpus = min(cpus, max(1, -(-int(quota) // int(period))))
    except (OSError, ValueError):
        pass
    return max(1, cpus)


def parse_jobs(value: int) -> int:
    """`--jobs N`: 1..64, or 0 for one process per usable CPU (`usable_cpus`)."""
    if value == 0:
        return max(1, min(MAX_JOBS, usable_cpus()))
    if not 1 <= value <= MAX_JOBS:
        raise ValueError(
            f"--jobs {value}: give the number of stacks to check at once, 1 to {MAX_JOBS} (0: one per CPU)"
        )
    return value

"""The cloud-neutral worker: one job at a time from the pool's queue, never cut by scale-in.

A job's life on an instance (``docs/worker.md``):

1. receive one message (long poll) and validate its body (:func:`parse_job`);
2. protect the instance from scale-in while it holds the job;
3. run the job's command, and while it runs, extend the message's visibility every third of the
   queue's visibility timeout and look for a termination notice (a lifecycle hook holding the
   instance in its terminating wait state, a spot interruption notice, or the worker's own SIGTERM);
4. on success delete the message; on failure return it at once (visibility 0) for redelivery;
5. on a termination notice: SIGTERM to the job, a grace period for it to checkpoint, the local
   checkpoint directory (if the job wrote anything there) synced to the fleet bucket under the job's
   prefix, the message returned, and the lifecycle action completed (CONTINUE);
6. when the message's visibility is about to run out (its extensions fail, or the queue cannot
   extend one, as CMQ cannot) the job is stopped and checkpointed the same way a grace period before
   it does: once the message is visible again another worker may take it, and the job must not run
   twice at once;
7. remove the protection.

Everything the loop touches is injected (queue, instance, checkpoints, job runner, clock), so the
loop is single-threaded and deterministic: no thread is started, the supervision is a polling loop
over the clock's ``sleep``.
"""

from __future__ import annotations

import contextlib
import enum
import json
import logging
import math
import os
import re
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol

log = logging.getLogger("gpufleet.worker")

MAX_COMMAND_PARTS = 256
MAX_COMMAND_CHARS = 65_536
MAX_PREFIX_CHARS = 512
# Object keys every bucket of the three clouds takes without encoding surprises: no leading '/',
# no '..' segment, no empty segment, printable ASCII without spaces or backslashes.
PREFIX_RE = re.compile(r"^[A-Za-z0-9!_.*'()=+,@-]+(/[A-Za-z0-9!_.*'()=+,@-]+)*/?$")
JOB_KEYS = frozenset({"command", "checkpoint"})


class JobError(ValueError):
    """A message body that is not a job: it is never run."""


@dataclass(frozen=True)
class Job:
    """``command``: the argv to run (no shell); ``checkpoint``: the key prefix in the fleet bucket
    the job's local checkpoint directory is synced to on a termination notice."""

    command: tuple[str, ...]
    checkpoint: str | None = None


def parse_job(body: str) -> Job:
    """The job in a message body: ``{"command": ["python", "train.py"], "checkpoint": "runs/42/"}``."""
    try:
        data = json.loads(body)
    except json.JSONDecodeError as error:
        raise JobError(f"the body is not JSON: {error.msg} at {error.pos}") from None
    if not isinstance(data, dict):
        raise JobError("the body is not a JSON object")
    unknown = sorted(set(data) - JOB_KEYS)
    if unknown:
        raise JobError(f"unknown keys {unknown}: a job has 'command' and optionally 'checkpoint'")
    command = _command(data.get("command"))
    checkpoint = _checkpoint(data.get("checkpoint"))
    return Job(command=command, checkpoint=checkpoint)


def _command(command: object) -> tuple[str, ...]:
    if not isinstance(command, list) or not command:
        raise JobError("'command' must be a non-empty list of strings (an argv, not a shell line)")
    if len(command) > MAX_COMMAND_PARTS:
        raise JobError(f"'command' has {len(command)} parts; at most {MAX_COMMAND_PARTS}")
    if not all(isinstance(part, str) for part in command):
        raise JobError("'command' must hold strings only")
    if not command[0]:
        raise JobError("'command' starts with an empty program name")
    if any("\x00" in part for part in command):
        raise JobError("'command' contains a NUL character")
    if sum(len(part) for part in command) > MAX_COMMAND_CHARS:
        raise JobError(f"'command' is longer than {MAX_COMMAND_CHARS} characters")
    return tuple(command)


def _checkpoint(checkpoint: object) -> str | None:
    if checkpoint is None:
        return None
    if not isinstance(checkpoint, str):
        raise JobError("'checkpoint' must be a string (a key prefix in the fleet bucket)")
    if len(checkpoint) > MAX_PREFIX_CHARS or not PREFIX_RE.match(checkpoint):
        raise JobError(
            f"'checkpoint' {checkpoint[:100]!r} is not a relative key prefix like 'runs/42/' "
            "(no leading '/', no empty or '..' segment, no spaces)"
        )
    if any(segment in {".", ".."} for segment in checkpoint.split("/")):
        raise JobError(f"'checkpoint' {checkpoint[:100]!r} has a '.' or '..' segment")
    return checkpoint


@dataclass(frozen=True)
class Message:
    """A received message. ``receipt`` is what deletes or changes it; on MNS each visibility change
    hands back a new one, so :meth:`Queue.extend` returns the message to use from then on."""

    id: str
    receipt: str
    body: str


class Queue(Protocol):
    """A queue may also say `extends_visibility = False` (CMQ has no call that extends a received
    message's visibility): the worker then never calls `extend`, and stops a job that would outlive the
    visibility timeout a grace period before it ends."""

    @property
    def visibility_timeout_s(self) -> int: ...

    def receive(self, wait_s: int) -> Message | None: ...

    def extend(self, message: Message, timeout_s: int) -> Message: ...

    def delete(self, message: Message) -> None: ...

    def release(self, message: Message) -> None: ...


class Instance(Protocol):
    def protect(self) -> None: ...

    def unprotect(self) -> None: ...

    def termination_pending(self) -> bool: ...

    def lifecycle_heartbeat(self) -> None: ...

    def complete_lifecycle(self) -> None: ...


class Checkpoints(Protocol):
    def location(self, prefix: str) -> str: ...

    def upload_dir(self, local: Path, prefix: str) -> int: ...


class JobProcess(Protocol):
    def poll(self) -> int | None: ...

    def terminate(self) -> None: ...

    def kill(self) -> None: ...

    def wait(self) -> int: ...


class Runner(Protocol):
    def start(self, command: Sequence[str], env: Mapping[str, str]) -> JobProcess: ...


class Clock(Protocol):
    def now(self) -> float: ...

    def sleep(self, seconds: float) -> None: ...


class SystemClock:
    def now(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


class PopenProcess:
    """A job in its own process group, so SIGTERM reaches a shell's children too."""

    def __init__(self, popen: subprocess.Popen[bytes]) -> None:
        self._popen = popen

    def poll(self) -> int | None:
        return self._popen.poll()

    def _signal(self, signum: int) -> None:
        if self._popen.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self._popen.pid, signum)

    def terminate(self) -> None:
        self._signal(signal.SIGTERM)

    def kill(self) -> None:
        self._signal(signal.SIGKILL)

    def wait(self) -> int:
        return self._popen.wait()


class PopenRunner:
    def start(self, command: Sequence[str], env: Mapping[str, str]) -> JobProcess:
        popen = subprocess.Popen(list(command), env={**os.environ, **env}, start_new_session=True)
        return PopenProcess(popen)


class Outcome(enum.Enum):
    IDLE = "idle"  # no message
    INVALID = "invalid"  # a body that is no job: returned, never run
    SUCCEEDED = "succeeded"  # deleted
    FAILED = "failed"  # returned for redelivery
    INTERRUPTED = "interrupted"  # a termination notice: checkpointed, returned, lifecycle completed
    TERMINATING = "terminating"  # a notice while idle: lifecycle completed, no job taken
    LAPSED = "lapsed"  # the message's visibility was running out: checkpointed, stopped, returned


EXTEND_RETRY_S = 5.0
"""After a failed visibility extension, the next attempt (instead of a third of the timeout later)."""


@dataclass(frozen=True, kw_only=True)
class Settings:
    """``checkpoint_dir``: the root of the jobs' local checkpoint directories (each job gets its own,
    removed when it ends); ``wait_s``: the receive long poll; ``poll_s``: how often the job is looked
    at; ``notice_s``: how often the termination notices are read (each read of the scaling group is an
    API call); ``grace_s``: how long the job has to checkpoint after its SIGTERM (a spot notice gives
    two minutes in all, so ``notice_s + grace_s`` stays under 120 by default)."""

    checkpoint_dir: Path
    wait_s: int = 20
    poll_s: float = 1.0
    notice_s: float = 15.0
    grace_s: float = 90.0


@dataclass
class Worker:
    queue: Queue
    instance: Instance
    checkpoints: Checkpoints
    settings: Settings
    runner: Runner = field(default_factory=PopenRunner)
    clock: Clock = field(default_factory=SystemClock)
    stop_requested: Callable[[], bool] = lambda: False
    _protected: bool = field(default=False, init=False, repr=False)

    def _terminating(self) -> bool:
        if self.stop_requested():
            return True
        try:
            return self.instance.termination_pending()
        except Exception:  # a notice we cannot read is no notice; the next poll asks again
            log.exception("could not read the termination state")
            return False

    def run(self, max_jobs: int | None = None) -> Outcome:
        """Take jobs until a termination notice (or ``max_jobs`` jobs); the last outcome."""
        outcome = Outcome.IDLE
        taken = 0
        while max_jobs is None or taken < max_jobs:
            try:
                outcome = self.run_once()
            except Exception:
                # A cloud call that failed (throttled, a lost receipt): the message, if any, comes back
                # after its visibility timeout; wait a poll and go on rather than crash-loop.
                log.exception("the worker's step failed")
                self.clock.sleep(self.settings.notice_s)
                taken += 1
                continue
            if outcome in {Outcome.INTERRUPTED, Outcome.TERMINATING}:
                break
            if outcome is not Outcome.IDLE:
                taken += 1
        return outcome

    def run_once(self) -> Outcome:
        if self._terminating():
            self._leave()
            return Outcome.TERMINATING
        message = self.queue.receive(self.settings.wait_s)
        if message is None:
            return Outcome.IDLE
        # The message is invisible to other workers until then, unless its visibility is extended.
        held_until = self.clock.now() + self.queue.visibility_timeout_s
        try:
            job = parse_job(message.body)
        except JobError as error:
            # Returned, not deleted: the queue's redrive moves it to the dead-letter queue.
            log.error("message %s is not a job (%s): returned for the dead-letter queue", message.id, error)
            self.queue.release(message)
            return Outcome.INVALID
        self.instance.protect()
        self._protected = True
        try:
            return self._carry(message, job, held_until)
        finally:
            self._unprotect()

    def _unprotect(self) -> None:
        if not self._protected:
            return
        self._protected = False
        try:
            self.instance.unprotect()
        except Exception:
            log.exception("could not remove the scale-in protection")

    def _leave(self) -> None:
        try:
            self.instance.complete_lifecycle()
        except Exception:
            log.exception("could not complete the lifecycle action; the hook's timeout will")

    def _extend(self, message: Message) -> Message | None:
        """The message with its visibility extended (MNS gives it a new receipt handle), or None."""
        try:
            return self.queue.extend(message, self.queue.visibility_timeout_s)
        except Exception:
            log.exception("could not extend the visibility of message %s", message.id)
            return None

    def _carry(self, message: Message, job: Job, held_until: float) -> Outcome:
        if self._terminating():  # a notice between receive and protect: do not start
            self.queue.release(message)
            self._unprotect()
            self._leave()
            return Outcome.INTERRUPTED
        directory = job_directory(self.settings.checkpoint_dir, message.id)
        shutil.rmtree(directory, ignore_errors=True)
        directory.mkdir(parents=True)
        try:
            return self._supervise(message, job, directory, held_until)
        finally:
            shutil.rmtree(directory, ignore_errors=True)

    def _supervise(self, message: Message, job: Job, directory: Path, held_until: float) -> Outcome:
        """Run the job to its end, extending the message's visibility; stop it on a termination notice,
        or a grace period before the visibility the worker holds runs out (`held_until`, moved on by
        each extension that succeeds): after that another worker may receive the message."""
        env = {
            "GPUFLEET_JOB_ID": message.id,
            "GPUFLEET_CHECKPOINT_DIR": str(directory),
            "GPUFLEET_CHECKPOINT_PREFIX": job.checkpoint or "",
            "GPUFLEET_CHECKPOINT_URI": self.checkpoints.location(job.checkpoint) if job.checkpoint else "",
        }
        timeout = self.queue.visibility_timeout_s
        every = max(1.0, timeout / 3)
        extends = getattr(self.queue, "extends_visibility", True)
        next_extend = self.clock.now() + every if extends else math.inf
        at_risk = not extends  # the visibility held may run out: no extension, or the last one failed
        if not extends:
            log.warning(
                "message %s: the queue cannot extend its visibility: the job is stopped and checkpointed "
                "%ss before its %ss visibility timeout ends",
                message.id,
                self.settings.grace_s,
                timeout,
            )
        log.info("message %s: running %s", message.id, job.command[0])
        try:
            process = self.runner.start(job.command, env)
        except OSError as error:
            log.error("message %s: the job did not start (%s), returned for redelivery", message.id, error)
            self.queue.release(message)
            return Outcome.FAILED
        next_notice = self.clock.now() + self.settings.notice_s
        while True:
            status = process.poll()
            if status is not None:
                break
            now = self.clock.now()
            if now >= next_extend:
                renewed = self._extend(message)
                at_risk = renewed is None
                if renewed is None:
                    next_extend = now + min(every, EXTEND_RETRY_S)
                else:
                    message, held_until, next_extend = renewed, now + timeout, now + every
            if at_risk and now + self.settings.grace_s >= held_until:
                return self._lapse(message, job, process, directory)
            if self.stop_requested():
                return self._interrupt(message, job, process, directory)
            if now >= next_notice:
                if self._terminating():
                    return self._interrupt(message, job, process, directory)
                next_notice = now + self.settings.notice_s
            self.clock.sleep(self.settings.poll_s)
        if status == 0:
            self.queue.delete(message)
            log.info("message %s: done, deleted", message.id)
            return Outcome.SUCCEEDED
        log.warning("message %s: the job exited with %s, returned for redelivery", message.id, status)
        self.queue.release(message)
        return Outcome.FAILED

    def _interrupt(self, message: Message, job: Job, process: JobProcess, directory: Path) -> Outcome:
        log.warning("message %s: termination notice, SIGTERM to the job", message.id)
        with contextlib.suppress(Exception):
            self.instance.lifecycle_heartbeat()
        message = self._stop(self._extended(message), job, process, directory)
        self.queue.release(message)
        self._unprotect()
        self._leave()
        return Outcome.INTERRUPTED

    def _lapse(self, message: Message, job: Job, process: JobProcess, directory: Path) -> Outcome:
        """The visibility held is about to run out: stop the job and keep its checkpoint, so that the
        worker that receives the message next resumes it instead of running it beside this one."""
        log.warning(
            "message %s: its visibility runs out in %ss or less and cannot be extended: SIGTERM to the job",
            message.id,
            self.settings.grace_s,
        )
        message = self._stop(message, job, process, directory)
        try:
            self.queue.release(message)
        except Exception:  # a receipt handle MNS replaced in a reply that was lost: the timeout returns it
            log.exception("message %s: not returned; it comes back when its visibility ends", message.id)
        return Outcome.LAPSED

    def _extended(self, message: Message) -> Message:
        """The message with its visibility extended once more where the queue can (as it stood when it
        cannot): before the grace period, and again before the upload, so that the message does not
        come back to another worker before the job's checkpoint is in the bucket."""
        if not getattr(self.queue, "extends_visibility", True):
            return message
        return self._extend(message) or message

    def _stop(self, message: Message, job: Job, process: JobProcess, directory: Path) -> Message:
        """SIGTERM, the grace period, SIGKILL after it, and the checkpoint synced; the message to return
        (MNS gives each extension a new receipt handle)."""
        process.terminate()
        deadline = self.clock.now() + self.settings.grace_s
        while process.poll() is None and self.clock.now() < deadline:
            self.clock.sleep(min(self.settings.poll_s, max(0.0, deadline - self.clock.now())))
        if process.poll() is None:
            grace = self.settings.grace_s
            log.warning("message %s: the job outlived its %ss grace, killed", message.id, grace)
            process.kill()
        process.wait()
        if job.checkpoint is not None:
            message = self._extended(message)
        self._sync(message, job, directory)
        return message

    def _sync(self, message: Message, job: Job, directory: Path) -> None:
        if job.checkpoint is None or not directory.is_dir() or not any(directory.iterdir()):
            return
        try:
            count = self.checkpoints.upload_dir(directory, job.checkpoint)
            log.info("message %s: %d checkpoint files synced to %s", message.id, count, job.checkpoint)
        except Exception:
            log.exception("message %s: could not sync the checkpoint to %s", message.id, job.checkpoint)


def job_directory(root: Path, message_id: str) -> Path:
    """The job's own checkpoint directory under ``root``, made and removed by the worker only."""
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", message_id)[:128].lstrip(".") or "job"
    return root / safe


def checkpoint_files(local: Path) -> list[tuple[Path, str]]:
    """Every file under ``local`` with its key suffix (``/``-separated, relative), sorted."""
    return sorted((path, path.relative_to(local).as_posix()) for path in local.rglob("*") if path.is_file())


def object_key(prefix: str, relative: str) -> str:
    return f"{prefix.rstrip('/')}/{relative}"


def with_receipt(message: Message, receipt: str) -> Message:
    return replace(message, receipt=receipt)

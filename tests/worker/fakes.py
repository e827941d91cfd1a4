"""In-memory stand-ins for the worker's collaborators: a fake clock, scripted jobs, a recording
instance, a simple queue and checkpoint store."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from gpufleet.worker.core import JobProcess, Message, checkpoint_files, object_key


@dataclass
class FakeClock:
    t: float = 0.0
    slept: list[float] = field(default_factory=list)
    on_sleep: Callable[[float], None] | None = None

    def now(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.t += seconds
        if self.on_sleep is not None:
            self.on_sleep(self.t)


@dataclass
class ScriptedProcess:
    """A job that ends with ``status`` at ``ends_at`` on the clock; on SIGTERM it writes a checkpoint
    file (when ``checkpoint_on_term``) and exits after ``term_delay`` (None: ignores SIGTERM)."""

    clock: FakeClock
    ends_at: float
    status: int = 0
    env: Mapping[str, str] = field(default_factory=dict)
    term_delay: float | None = 0.0
    checkpoint_on_term: bool = True
    signals: list[str] = field(default_factory=list)
    waited: bool = False
    _exit: tuple[float, int] | None = None

    def poll(self) -> int | None:
        if self._exit is not None and self.clock.now() >= self._exit[0]:
            return self._exit[1]
        if self._exit is None and self.clock.now() >= self.ends_at:
            return self.status
        return None

    def terminate(self) -> None:
        self.signals.append("TERM")
        if self.checkpoint_on_term:
            directory = Path(self.env["GPUFLEET_CHECKPOINT_DIR"])
            (directory / "step-7").mkdir(parents=True, exist_ok=True)
            (directory / "step-7" / "model.pt").write_text("weights")
        if self.term_delay is not None:
            self._exit = (self.clock.now() + self.term_delay, 143)

    def kill(self) -> None:
        self.signals.append("KILL")
        self._exit = (self.clock.now(), -9)

    def wait(self) -> int:
        self.waited = True
        status = self.poll()
        assert status is not None, "wait() on a live scripted job would hang"
        return status


@dataclass
class ScriptedRunner:
    clock: FakeClock
    make: Callable[[FakeClock, Mapping[str, str]], ScriptedProcess]
    started: list[tuple[tuple[str, ...], dict[str, str]]] = field(default_factory=list)
    processes: list[ScriptedProcess] = field(default_factory=list)

    def start(self, command: Sequence[str], env: Mapping[str, str]) -> JobProcess:
        self.started.append((tuple(command), dict(env)))
        process = self.make(self.clock, env)
        process.env = env
        self.processes.append(process)
        return process


@dataclass
class RecordingInstance:
    events: list[str]
    terminating: Callable[[], bool] = lambda: False

    def protect(self) -> None:
        self.events.append("protect")

    def unprotect(self) -> None:
        self.events.append("unprotect")

    def termination_pending(self) -> bool:
        return self.terminating()

    def lifecycle_heartbeat(self) -> None:
        self.events.append("heartbeat")

    def complete_lifecycle(self) -> None:
        self.events.append("complete")


@dataclass
class ListQueue:
    events: list[str]
    bodies: list[str]
    visibility_timeout_s: int = 30
    extended: list[tuple[str, int]] = field(default_factory=list)
    _n: int = 0

    def receive(self, wait_s: int) -> Message | None:
        if not self.bodies:
            self.events.append("empty")
            return None
        self._n += 1
        self.events.append("receive")
        return Message(id=f"m{self._n}", receipt=f"r{self._n}", body=self.bodies.pop(0))

    def extend(self, message: Message, timeout_s: int) -> Message:
        self.extended.append((message.receipt, timeout_s))
        return message

    def delete(self, message: Message) -> None:
        self.events.append(f"delete:{message.id}")

    def release(self, message: Message) -> None:
        self.events.append(f"release:{message.id}")


@dataclass
class DictCheckpoints:
    events: list[str]
    objects: dict[str, str] = field(default_factory=dict)

    def location(self, prefix: str) -> str:
        return f"mem://bucket/{prefix}"

    def upload_dir(self, local: Path, prefix: str) -> int:
        files = checkpoint_files(local)
        for path, relative in files:
            self.objects[object_key(prefix, relative)] = path.read_text()
        self.events.append(f"upload:{prefix}")
        return len(files)

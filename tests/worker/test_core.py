"""The cloud-neutral loop on a fake clock: what it does, in which order, for each way a job ends."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gpufleet.worker.core import JobError, Message, Outcome, Settings, Worker, job_directory, parse_job
from tests.worker.fakes import (
    DictCheckpoints,
    FakeClock,
    ListQueue,
    RecordingInstance,
    ScriptedProcess,
    ScriptedRunner,
)

JOB = json.dumps({"command": ["python", "train.py", "--epochs", "3"], "checkpoint": "runs/42/"})


def make_worker(
    tmp_path: Path,
    bodies: list[str],
    *,
    ends_at: float = 100.0,
    status: int = 0,
    terminate_at: float | None = None,
    term_delay: float | None = 0.0,
    stop_at: float | None = None,
) -> tuple[Worker, list[str], FakeClock, ScriptedRunner, ListQueue, DictCheckpoints]:
    events: list[str] = []
    clock = FakeClock()
    runner = ScriptedRunner(
        clock, lambda c, env: ScriptedProcess(c, ends_at=ends_at, status=status, term_delay=term_delay)
    )
    queue = ListQueue(events, list(bodies))
    instance = RecordingInstance(
        events, terminating=lambda: terminate_at is not None and clock.now() >= terminate_at
    )
    checkpoints = DictCheckpoints(events)
    worker = Worker(
        queue=queue,
        instance=instance,
        checkpoints=checkpoints,
        settings=Settings(checkpoint_dir=tmp_path / "ckpt", poll_s=1.0, notice_s=5.0, grace_s=30.0),
        runner=runner,
        clock=clock,
        stop_requested=lambda: stop_at is not None and clock.now() >= stop_at,
    )
    return worker, events, clock, runner, queue, checkpoints


class TestParseJob:
    def test_a_command_and_a_prefix(self) -> None:
        job = parse_job(JOB)
        assert job.command == ("python", "train.py", "--epochs", "3")
        assert job.checkpoint == "runs/42/"

    def test_the_prefix_is_optional(self) -> None:
        assert parse_job('{"command": ["true"]}').checkpoint is None

    @pytest.mark.parametrize(
        ("body", "says"),
        [
            ("not json", "not JSON"),
            ("[1]", "not a JSON object"),
            ('{"command": "python train.py"}', "non-empty list"),
            ('{"command": []}', "non-empty list"),
            ('{"command": ["python", 3]}', "strings only"),
            ('{"command": [""]}', "empty program"),
            ('{"command": ["a\\u0000b"]}', "NUL"),
            ('{"command": ["true"], "checkpiont": "x/"}', "unknown keys"),
            ('{"command": ["true"], "checkpoint": "/abs/"}', "relative key prefix"),
            ('{"command": ["true"], "checkpoint": "a//b"}', "relative key prefix"),
            ('{"command": ["true"], "checkpoint": "a/../b"}', "'..' segment"),
            ('{"command": ["true"], "checkpoint": "has space/"}', "relative key prefix"),
            ('{"command": ["true"], "checkpoint": 7}', "must be a string"),
        ],
    )
    def test_refuses(self, body: str, says: str) -> None:
        with pytest.raises(JobError, match=says):
            parse_job(body)

    def test_too_many_parts(self) -> None:
        with pytest.raises(JobError, match="at most 256"):
            parse_job(json.dumps({"command": ["x"] * 257}))


class TestLoop:
    def test_success_is_protected_deleted_and_unprotected(self, tmp_path: Path) -> None:
        worker, events, _, runner, _, _ = make_worker(tmp_path, [JOB], ends_at=10)
        assert worker.run_once() is Outcome.SUCCEEDED
        assert events == ["receive", "protect", "delete:m1", "unprotect"]
        command, env = runner.started[0]
        assert command == ("python", "train.py", "--epochs", "3")
        assert env["GPUFLEET_JOB_ID"] == "m1"
        assert env["GPUFLEET_CHECKPOINT_PREFIX"] == "runs/42/"
        assert env["GPUFLEET_CHECKPOINT_URI"] == "mem://bucket/runs/42/"
        assert env["GPUFLEET_CHECKPOINT_DIR"] == str(job_directory(tmp_path / "ckpt", "m1"))
        # The job's directory is the worker's: removed when the job ends.
        assert not Path(env["GPUFLEET_CHECKPOINT_DIR"]).exists()

    def test_visibility_is_extended_every_third_of_the_timeout(self, tmp_path: Path) -> None:
        worker, _, _, _, queue, _ = make_worker(tmp_path, [JOB], ends_at=65)
        assert worker.run_once() is Outcome.SUCCEEDED
        # 30 s visibility: extended at 10, 20, ... 60 s, each time by the full 30 s.
        assert queue.extended == [("r1", 30)] * 6

    def test_a_failed_job_is_returned_for_redelivery(self, tmp_path: Path) -> None:
        worker, events, _, _, _, checkpoints = make_worker(tmp_path, [JOB], ends_at=3, status=2)
        assert worker.run_once() is Outcome.FAILED
        assert events == ["receive", "protect", "release:m1", "unprotect"]
        assert checkpoints.objects == {}

    def test_a_job_that_cannot_start_is_returned(self, tmp_path: Path) -> None:
        worker, events, _, runner, _, _ = make_worker(tmp_path, [JOB])

        def refuse(command: object, env: object) -> None:
            raise FileNotFoundError("python")

        runner.start = refuse  # type: ignore[assignment,method-assign]
        assert worker.run_once() is Outcome.FAILED
        assert events == ["receive", "protect", "release:m1", "unprotect"]

    def test_a_body_that_is_no_job_is_never_run_nor_protected(self, tmp_path: Path) -> None:
        worker, events, _, runner, _, _ = make_worker(tmp_path, ['{"command": "rm -rf /"}'])
        assert worker.run_once() is Outcome.INVALID
        assert events == ["receive", "release:m1"]
        assert runner.started == []

    def test_idle(self, tmp_path: Path) -> None:
        worker, events, *_ = make_worker(tmp_path, [])
        assert worker.run_once() is Outcome.IDLE
        assert events == ["empty"]

    def test_termination_during_the_job(self, tmp_path: Path) -> None:
        worker, events, clock, runner, _, checkpoints = make_worker(
            tmp_path, [JOB], ends_at=1000, terminate_at=42, term_delay=3
        )
        assert worker.run_once() is Outcome.INTERRUPTED
        process = runner.processes[0]
        assert process.signals == ["TERM"]
        assert process.waited
        assert events == [
            "receive",
            "protect",
            "heartbeat",
            "upload:runs/42/",
            "release:m1",
            "unprotect",
            "complete",
        ]
        assert checkpoints.objects == {"runs/42/step-7/model.pt": "weights"}
        # Notices are read every 5 s: seen at 45, the job gone 3 s later.
        assert clock.now() == pytest.approx(48)

    def test_a_job_that_ignores_sigterm_is_killed_after_the_grace(self, tmp_path: Path) -> None:
        worker, _, clock, runner, _, _ = make_worker(
            tmp_path, [JOB], ends_at=1000, terminate_at=5, term_delay=None
        )
        assert worker.run_once() is Outcome.INTERRUPTED
        assert runner.processes[0].signals == ["TERM", "KILL"]
        assert clock.now() == pytest.approx(5 + 30)

    def test_nothing_is_uploaded_without_a_prefix(self, tmp_path: Path) -> None:
        body = json.dumps({"command": ["python", "train.py"]})
        worker, events, _, _, _, checkpoints = make_worker(tmp_path, [body], ends_at=1000, terminate_at=5)
        assert worker.run_once() is Outcome.INTERRUPTED
        assert checkpoints.objects == {}
        assert not any(e.startswith("upload") for e in events)

    def test_nothing_is_uploaded_when_the_job_wrote_nothing(self, tmp_path: Path) -> None:
        worker, _, _, runner, _, checkpoints = make_worker(tmp_path, [JOB], ends_at=1000, terminate_at=5)
        runner.make = lambda c, env: ScriptedProcess(c, ends_at=1000, checkpoint_on_term=False)
        assert worker.run_once() is Outcome.INTERRUPTED
        assert checkpoints.objects == {}

    def test_the_workers_own_sigterm_is_a_notice(self, tmp_path: Path) -> None:
        worker, _events, clock, runner, _, _ = make_worker(tmp_path, [JOB], ends_at=1000, stop_at=2)
        assert worker.run_once() is Outcome.INTERRUPTED
        assert runner.processes[0].signals == ["TERM"]
        # Read at every poll, not every notice period.
        assert clock.now() == pytest.approx(2)

    def test_a_notice_while_idle_completes_the_lifecycle_and_takes_nothing(self, tmp_path: Path) -> None:
        worker, events, *_ = make_worker(tmp_path, [JOB], terminate_at=0)
        assert worker.run() is Outcome.TERMINATING
        assert events == ["complete"]

    def test_run_stops_after_max_jobs(self, tmp_path: Path) -> None:
        worker, events, *_ = make_worker(tmp_path, [JOB, JOB, JOB], ends_at=0)
        assert worker.run(max_jobs=2) is Outcome.SUCCEEDED
        assert events.count("receive") == 2

    def test_a_failing_step_does_not_end_the_loop(self, tmp_path: Path) -> None:
        worker, events, _, _, queue, _ = make_worker(tmp_path, [JOB, JOB], ends_at=0)
        calls = {"n": 0}
        real_delete = queue.delete

        def flaky(message: object) -> None:
            calls["n"] += 1
            if calls["n"] == 1:
                raise RuntimeError("throttled")
            real_delete(message)  # type: ignore[arg-type]

        queue.delete = flaky  # type: ignore[assignment,method-assign]
        assert worker.run(max_jobs=2) is Outcome.SUCCEEDED
        assert events == ["receive", "protect", "unprotect", "receive", "protect", "delete:m2", "unprotect"]


class TestVisibilityHeld:
    """The message is the job's lease: once its visibility runs out another worker may receive it, so a
    job whose visibility cannot be extended is stopped, with its checkpoint, a grace period before."""

    @staticmethod
    def failing_extends(queue: ListQueue, clock: FakeClock, *, from_s: float, until_s: float) -> list[float]:
        tried: list[float] = []
        real_extend = queue.extend

        def extend(message: Message, timeout_s: int) -> Message:
            tried.append(clock.now())
            if from_s <= clock.now() < until_s:
                raise ConnectionResetError("the reply was lost")
            return real_extend(message, timeout_s)

        queue.extend = extend  # type: ignore[method-assign]
        return tried

    def test_a_failed_extension_is_retried_soon_and_the_job_goes_on(self, tmp_path: Path) -> None:
        worker, events, clock, _, queue, _ = make_worker(tmp_path, [JOB], ends_at=250)
        queue.visibility_timeout_s = 300
        tried = self.failing_extends(queue, clock, from_s=100, until_s=105)
        assert worker.run_once() is Outcome.SUCCEEDED
        # Every 100 s; the attempt at 100 fails, the next is 5 s later (not 100 s) and succeeds, and
        # the one after that a third of the timeout after it.
        assert tried == [100, 105, 205]
        assert events[-2:] == ["delete:m1", "unprotect"]

    def test_extensions_that_keep_failing_stop_the_job_a_grace_before_the_visibility_ends(
        self, tmp_path: Path
    ) -> None:
        worker, events, clock, runner, queue, checkpoints = make_worker(tmp_path, [JOB], ends_at=10_000)
        queue.visibility_timeout_s = 300
        self.failing_extends(queue, clock, from_s=150, until_s=10_000)
        assert worker.run_once() is Outcome.LAPSED
        # Held until 100 + 300 (the last extension that succeeded); stopped at 400 - 30 (the grace).
        assert runner.processes[0].signals == ["TERM"]
        assert clock.now() == pytest.approx(370)
        assert checkpoints.objects == {"runs/42/step-7/model.pt": "weights"}
        # Returned, unprotected, and the instance stays: no lifecycle action, the loop goes on.
        assert events == ["receive", "protect", "upload:runs/42/", "release:m1", "unprotect"]

    def test_a_return_that_fails_too_is_no_crash(self, tmp_path: Path) -> None:
        worker, events, clock, _, queue, _ = make_worker(tmp_path, [JOB, JOB], ends_at=10_000)
        queue.visibility_timeout_s = 300
        self.failing_extends(queue, clock, from_s=0, until_s=10_000)

        def dead_handle(message: Message) -> None:
            raise RuntimeError("ReceiptHandleError")

        queue.release = dead_handle  # type: ignore[method-assign]
        assert worker.run(max_jobs=2) is Outcome.LAPSED
        assert events.count("receive") == 2
        assert "complete" not in events

    def test_a_queue_that_cannot_extend_is_never_asked(self, tmp_path: Path) -> None:
        worker, _, clock, runner, queue, _ = make_worker(tmp_path, [JOB], ends_at=10_000)
        queue.visibility_timeout_s = 600
        queue.extends_visibility = False  # type: ignore[attr-defined]
        assert worker.run_once() is Outcome.LAPSED
        assert queue.extended == []
        assert clock.now() == pytest.approx(600 - 30)
        assert runner.processes[0].signals == ["TERM"]

    def test_healthy_extensions_never_stop_a_long_job(self, tmp_path: Path) -> None:
        worker, _, _, runner, queue, _ = make_worker(tmp_path, [JOB], ends_at=5_000)
        assert worker.run_once() is Outcome.SUCCEEDED  # 30 s visibility, 30 s grace, 5,000 s of job
        assert runner.processes[0].signals == []
        assert len(queue.extended) == 499  # at 10, 20, ... 4,990 s


class RenewingQueue(ListQueue):
    """MNS's way: each extension hands back a new receipt handle, and only the newest one works."""

    def extend(self, message: Message, timeout_s: int) -> Message:
        self.extended.append((message.receipt, timeout_s))
        renewed = Message(id=message.id, receipt=f"{message.receipt}+", body=message.body)
        self.events.append(f"extend:{renewed.receipt}")
        return renewed

    def release(self, message: Message) -> None:
        self.events.append(f"release:{message.receipt}")


def test_a_notice_extends_before_the_grace_and_before_the_upload_and_returns_the_newest_receipt(
    tmp_path: Path,
) -> None:
    events: list[str] = []
    clock = FakeClock()
    runner = ScriptedRunner(clock, lambda c, env: ScriptedProcess(c, ends_at=1000, term_delay=3))
    queue = RenewingQueue(events, [JOB], visibility_timeout_s=300)
    worker = Worker(
        queue=queue,
        instance=RecordingInstance(events, terminating=lambda: clock.now() >= 42),
        checkpoints=DictCheckpoints(events),
        settings=Settings(checkpoint_dir=tmp_path / "ckpt", poll_s=1.0, notice_s=5.0, grace_s=30.0),
        runner=runner,
        clock=clock,
    )
    assert worker.run_once() is Outcome.INTERRUPTED
    # The upload can take long: the message is hidden again before it, so that it cannot come back to
    # another worker before the checkpoint is in the bucket, and it is returned with its newest handle.
    assert events == [
        "receive",
        "protect",
        "heartbeat",
        "extend:r1+",
        "extend:r1++",
        "upload:runs/42/",
        "release:r1++",
        "unprotect",
        "complete",
    ]

"""The replay itself: a pool's compiled scaling rules run minute by minute on a demand trace. Pure: no
I/O, no clock, no catalogue (prices come in on the pool).

What a minute of the trace means: ``jobs`` is how many jobs are in the pool's queue, waiting or
running (SQS's visible plus in-flight messages); each running job holds one instance, and its GPUs
run at ``gpu_util`` percent. The pool runs as many of them as it has booted instances, oldest first;
the rest wait and are the queue depth the queue alarm reads. The GPU metric is the average over the
booted instances (an idle one counts 0 %); with none booted there is no datapoint (missing data is
not breaching, as the alarms say).

Each minute, in this order:

1. the off-hours schedule's actions due this minute (local time of the pool's time zone): the stop
   sets min, max and desired to 0; the start restores min and max and sets desired to min;
2. instances launched ``boot_minutes`` ago are booted and take jobs; a job whose instance went away
   goes back to the front of the queue and waits again;
3. the metrics of the minute, and the cost of every launched instance (booting ones are billed);
4. the alarms as :mod:`gpufleet.components.pools.scaling` compiles them for the cloud (each period's
   statistic, ``evaluation_periods`` datapoints all breaching), and the policy each fires, re-run
   every minute while its alarm holds. What a policy then does depends on the cloud's scaling type:

   - AWS: scale-out on the queue is target tracking on the jobs per instance in service
     (:func:`gpufleet.components.pools.scaling.backlog_desired`), read every five minutes (SQS's
     period): it asks for an instance for every running job and, once more than ``queue_out`` wait
     (any, at zero instances), every waiting one, and never scales in. Scale-out on GPU is a step
     policy of +1 paced by the instance warm-up (the cooldown): the group counts instances still
     warming up as capacity already added. Scale-in is a simple policy of -1 that waits the cooldown
     after each step, fires only while the queue is empty (the GPU series reads 100 while a job waits),
     and not while an instance warms up (the group's default instance warm-up).
   - Alibaba ESS and Tencent AS (:func:`gpufleet.components.pools.scaling.compile_band_alarms`): GPU
     high adds 1, each backlog band's alarm (waiting jobs above its lower bound and at most its upper)
     adds the band's lower bound, GPU low removes 1; the group rejects alarm-triggered activities for
     the cooldown after any of them. When GPU high and a band hold in the same minute, the band runs
     (the replay takes the larger step: the clouds run whichever request reaches the group first).

   Instances the decision adds are launched at the start of the next minute.

A worker protects its instance while it runs a job (every shipped pool): a scale-in lowers the desired
capacity and removes only idle instances, newest first; a busy one goes when its job ends. The
off-hours stop ends running jobs: on every cloud the worker reads the group's maximum of 0 as a stop
notice, checkpoints, returns its job and lifts its protection.

Simplifications (the report repeats them): whole minutes (a cooldown of 90 s waits 2 minutes); the
warm-up counts from launch; metrics arrive without CloudWatch's publishing delay; AWS's target
tracking is taken to ask for exactly what its metric says, at once; spot instances are priced at the spot
price and never interrupted; a job needs one instance and never more; a
Tencent pool's spot and on-demand groups are replayed as one group taking the whole step.
"""

from __future__ import annotations

import bisect
import datetime as dt
import math
import zoneinfo
from collections import Counter, deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from gpufleet.components.clouds import DEFAULT_CLOUD, as_cloud, cloud_parts, part_values
from gpufleet.components.pools.scaling import (
    SQS_PERIOD_S,
    AlarmSpec,
    ScalingRules,
    backlog_bands,
    backlog_desired,
    compile_band_alarms,
)
from gpufleet.cost.model import split_capacity

DEFAULT_BOOT_MINUTES = 4
OSCILLATION_FLOOR_MINUTES = 5  # AWS's default cooldown: a cooldown of 0 still has a window to oscillate in
EventKind = Literal["out", "in", "stop", "start"]
# Each cloud's scaling facts (gpufleet/simulate/<cloud>.py): the clouds whose groups run simple rules
# (SIMPLE_SCALING), and how the others compile their alarms (compile_alarms).
_PARTS = cloud_parts("gpufleet.simulate")
SIMPLE_SCALING_CLOUDS: tuple[str, ...] = tuple(
    key for key, simple in part_values(_PARTS, "SIMPLE_SCALING").items() if simple
)


@dataclass(frozen=True, kw_only=True)
class OffHoursWindow:
    """The spec's ``off_hours``: no capacity from ``stop`` to ``start`` (local hour and minute in
    ``timezone``), and with ``weekends`` no start on Saturday or Sunday."""

    timezone: str
    stop: tuple[int, int]
    start: tuple[int, int]
    weekends: bool = True


@dataclass(frozen=True, kw_only=True)
class SimPool:
    name: str
    cloud: str
    min_size: int
    max_size: int
    rules: ScalingRules
    boot_minutes: int = DEFAULT_BOOT_MINUTES
    on_demand_base: int = 0
    spot_percent: float = 0.0
    on_demand_hourly: float = 0.0
    spot_hourly: float = 0.0
    currency: str = "USD"
    instance_type: str = ""
    off_hours: OffHoursWindow | None = None
    # A worker protects its instance while it holds a job (gpufleet.worker, every shipped pool): a
    # scale-in or schedule lowers the desired capacity, and the busy instances go once their job ends.
    protect_running: bool = True

    @property
    def cooldown_minutes(self) -> int:
        return math.ceil(self.rules.cooldown_s / 60)

    @property
    def oscillation_window(self) -> int:
        return max(self.cooldown_minutes, OSCILLATION_FLOOR_MINUTES)

    def scaling_type(self) -> str:
        """What the pool's cloud does with the compiled rules, in one sentence."""
        cooldown = self.rules.cooldown_s
        if self.cloud in SIMPLE_SCALING_CLOUDS:
            bands = ", ".join(
                f"+{band.add} above {band.lower:g}" for band in backlog_bands(self.rules, self.max_size)
            )
            return (
                f"simple rules: backlog bands ({bands} waiting), +1 on GPU, -1 on idle GPU; the group "
                f"rejects alarm-triggered activities for {cooldown} s after each"
            )
        return (
            "scale-out: target tracking on the jobs per instance in service (an instance for each job "
            f"once more than {self.rules.queue_out:g} wait, or any at zero, every {SQS_PERIOD_S // 60} "
            "minutes) and a step "
            f"+1 on GPU paced by the {cooldown} s warm-up; scale-in: simple policy -1 every {cooldown} s "
            "cooldown while the queue is empty, none while an instance warms up"
        )


@dataclass(frozen=True)
class Trace:
    name: str
    start: dt.datetime  # timezone-aware: the first minute
    jobs: tuple[int, ...]
    gpu_util: tuple[float, ...]
    source: str = ""
    initial_size: int | None = None  # instances running before the first minute; None: jobs[0]

    def __post_init__(self) -> None:
        if self.start.tzinfo is None:
            raise ValueError("a trace's start needs a time zone")
        if len(self.jobs) != len(self.gpu_util) or not self.jobs:
            raise ValueError("a trace needs as many utilisation values as job counts, at least one")

    def __len__(self) -> int:
        return len(self.jobs)

    def at(self, minute: int) -> dt.datetime:
        return self.start + dt.timedelta(minutes=minute)


@dataclass(frozen=True)
class ScaleEvent:
    minute: int
    kind: EventKind
    before: int  # desired capacity before
    after: int
    reason: str


@dataclass(frozen=True)
class Oscillation:
    scale_in: int  # minute of the scale-in
    scale_out: int  # minute of the scale-out that followed it within the window


@dataclass(frozen=True)
class Result:
    pool: SimPool
    trace: Trace
    launched: tuple[int, ...]  # instances billed each minute
    booted: tuple[int, ...]
    desired: tuple[int, ...]
    max_allowed: tuple[int, ...]  # the group's max that minute (0 while off-hours)
    waiting: tuple[int, ...]
    cumulative_cost: tuple[float, ...]
    events: tuple[ScaleEvent, ...]
    waits: tuple[tuple[int, int], ...]  # (minutes waited, jobs), shortest first: each job's wait before
    # it started, or until it left the queue or the trace ended
    unstarted: int  # jobs still waiting when the trace ends
    interrupted: int  # running jobs stopped by a scale-in or the schedule
    on_demand_minutes: float
    spot_minutes: float
    oscillations: tuple[Oscillation, ...] = field(default=())

    @property
    def total_cost(self) -> float:
        return self.cumulative_cost[-1] if self.cumulative_cost else 0.0

    @property
    def minutes_at_max(self) -> int:
        return sum(1 for d, m in zip(self.desired, self.max_allowed, strict=True) if m > 0 and d >= m)

    @property
    def jobs_waited(self) -> int:
        return sum(count for _, count in self.waits)

    @property
    def max_wait(self) -> int:
        return self.waits[-1][0] if self.waits else 0

    def wait_percentile(self, percent: float) -> int:
        """Nearest-rank percentile of the jobs' waits, in minutes (0 with no job)."""
        rank = max(1, math.ceil(percent / 100 * self.jobs_waited))
        seen = 0
        for wait, count in self.waits:
            seen += count
            if seen >= rank:
                return wait
        return 0

    def count(self, kind: EventKind) -> int:
        return sum(1 for e in self.events if e.kind == kind)


# ------------------------------------------------------------------------------------------ schedule


def schedule_actions(pool: SimPool, trace: Trace) -> tuple[dict[int, EventKind], bool]:
    """The off-hours actions due in each minute of the trace, and whether the pool is stopped when
    the trace starts (the last action in the week before it was a stop)."""
    window = pool.off_hours
    if window is None:
        return {}, False
    zone = zoneinfo.ZoneInfo(window.timezone)

    def action(moment: dt.datetime) -> EventKind | None:
        local = moment.astimezone(zone)
        if (local.hour, local.minute) == window.stop:
            return "stop"
        if (local.hour, local.minute) == window.start and not (window.weekends and local.weekday() >= 5):
            return "start"
        return None

    stopped = False
    for back in range(1, 8 * 1440 + 1):
        found = action(trace.at(-back))
        if found is not None:
            stopped = found == "stop"
            break
    actions: dict[int, EventKind] = {}
    for minute in range(len(trace)):
        found = action(trace.at(minute))
        if found is not None:
            actions[minute] = found
    return actions, stopped


# -------------------------------------------------------------------------------------------- alarms


class _Alarm:
    """One compiled alarm: a datapoint per period (its statistic over the period's minutes), in
    ALARM while the last ``evaluation_periods`` datapoints all breach."""

    def __init__(self, spec: AlarmSpec) -> None:
        self.spec = spec
        self.period = max(1, spec.period_s // 60)
        self.points: deque[float | None] = deque(maxlen=spec.evaluation_periods)
        self.state = False

    def observe(self, minute: int, series: Sequence[float | None]) -> bool:
        if (minute + 1) % self.period == 0:
            values = [v for v in series[minute + 1 - self.period : minute + 1] if v is not None]
            point: float | None = None
            if values:
                point = max(values) if self.spec.statistic == "Maximum" else sum(values) / len(values)
            self.points.append(point)
            self.state = len(self.points) == self.spec.evaluation_periods and all(
                self._breaches(p) for p in self.points
            )
        return self.state

    def _breaches(self, point: float | None) -> bool:
        if point is None:
            return False  # treat_missing_data: notBreaching
        if self.spec.comparison_operator.startswith("Greater"):
            return point > self.spec.threshold and (self.spec.upper is None or point <= self.spec.upper)
        return point < self.spec.threshold


# ------------------------------------------------------------------------------------------ simulate


class _Group:
    """The scaling group: desired capacity within min..max, and the launch minute of each instance
    (in launch order, so counts by age are a bisection)."""

    def __init__(self, pool: SimPool, desired: int, low: int, high: int) -> None:
        self.pool = pool
        self.low, self.high = low, high
        self.desired = desired
        self.launches: list[int] = [-(10**9)] * desired  # running since long before the trace

    def reconcile(self, now: int, busy: int = 0) -> None:
        """Launch up to the desired capacity, or remove instances newest first; with scale-in
        protection the ``busy`` ones (the oldest booted, which run the jobs) stay until their job ends."""
        if len(self.launches) < self.desired:
            self.launches.extend([now] * (self.desired - len(self.launches)))
        keep = max(self.desired, busy) if self.pool.protect_running else self.desired
        del self.launches[keep:]  # newest first

    def booted(self, now: int) -> int:
        return bisect.bisect_right(self.launches, now - self.pool.boot_minutes)

    def warmed(self, now: int) -> int:
        return bisect.bisect_right(self.launches, now - self.pool.cooldown_minutes)


class _Queue:
    """Waiting jobs as runs of (arrival minute, count), oldest first; and how long each job waited."""

    def __init__(self) -> None:
        self.runs: deque[list[int]] = deque()
        self.size = 0
        self.waits: Counter[int] = Counter()

    def arrive(self, minute: int, count: int, *, front: bool = False) -> None:
        if count <= 0:
            return
        if front:
            self.runs.appendleft([minute, count])
        elif self.runs and self.runs[-1][0] == minute:
            self.runs[-1][1] += count
        else:
            self.runs.append([minute, count])
        self.size += count

    def take(self, minute: int, count: int, *, newest: bool = False) -> int:
        """Up to ``count`` jobs leave (oldest first, to start; newest first, giving up): their waits
        are recorded. Returns how many left."""
        left = 0
        while left < count and self.runs:
            run = self.runs[-1] if newest else self.runs[0]
            n = min(run[1], count - left)
            self.waits[minute - run[0]] += n
            run[1] -= n
            left += n
            if run[1] == 0:
                self.runs.pop() if newest else self.runs.popleft()
        self.size -= left
        return left


@dataclass
class _Series:
    """What each minute of the replay records."""

    gpu: list[float | None] = field(default_factory=list)
    visible: list[float | None] = field(default_factory=list)
    idle: list[float | None] = field(default_factory=list)  # the GPU while the queue is empty, 100 else
    launched: list[int] = field(default_factory=list)
    booted: list[int] = field(default_factory=list)
    desired: list[int] = field(default_factory=list)
    max_allowed: list[int] = field(default_factory=list)
    waiting: list[int] = field(default_factory=list)
    cumulative: list[float] = field(default_factory=list)


def _compiled_alarms(pool: SimPool, *, simple: bool) -> list[AlarmSpec]:
    """The pool's alarms as the pool component compiles them for its cloud (a cloud without a module of
    its own replays as the default cloud)."""
    if simple:
        return list(compile_band_alarms(pool.rules, pool.max_size))
    cloud = as_cloud(pool.cloud)
    part = _PARTS.get(cloud) if cloud is not None else None
    return list((part or _PARTS[DEFAULT_CLOUD]).compile_alarms(pool.rules))


class _Replay:
    """The state of one replay; :meth:`minute` runs one minute of the module docstring's steps."""

    def __init__(self, pool: SimPool, trace: Trace) -> None:
        self.pool = pool
        self.simple = pool.cloud in SIMPLE_SCALING_CLOUDS
        self.alarms = [_Alarm(spec) for spec in _compiled_alarms(pool, simple=self.simple)]
        self.actions, stopped = schedule_actions(pool, trace)
        initial = trace.initial_size if trace.initial_size is not None else trace.jobs[0]
        low, high = (0, 0) if stopped else (pool.min_size, pool.max_size)
        self.group = _Group(pool, min(max(initial, low), high), low, high)
        self.group_ready_at = 0  # Alibaba/Tencent: no alarm-triggered activity before this minute
        self.scale_in_ready_at = 0  # AWS: the simple scale-in policy's cooldown
        self.queue = _Queue()
        self.running = min(trace.jobs[0], self.group.booted(0))  # jobs already running before the trace
        self.interrupted = 0
        self.events: list[ScaleEvent] = []
        self.series = _Series()
        self.cost = self.on_demand_minutes = self.spot_minutes = 0.0

    def minute(self, minute: int, jobs: int, util: float) -> None:
        self._schedule(minute)
        booted = self._work(minute, jobs)
        self._record(booted, util)
        firing = self._firing(minute)
        now = minute + 1  # decisions take effect from the next minute
        if not self.simple and now % (SQS_PERIOD_S // 60) == 0:
            self._track(minute, booted)
        if firing["out"] is not None:
            self._scale_out(minute, now, firing["out"])
        elif firing["in"] is not None:
            self._scale_in(minute, now, firing["in"])
        self.group.reconcile(now, self.running)

    def _schedule(self, minute: int) -> None:
        kind = self.actions.get(minute)
        if kind is None:
            return
        group = self.group
        before = group.desired
        if kind == "stop":
            group.low = group.high = group.desired = 0
        else:
            group.low, group.high, group.desired = self.pool.min_size, self.pool.max_size, self.pool.min_size
        # The off-hours stop ends running jobs too: on every cloud the worker reads the group's maximum
        # of 0 as a stop notice, checkpoints, returns its job and lifts its protection.
        group.reconcile(minute)
        self.events.append(ScaleEvent(minute, kind, before, group.desired, "off-hours schedule"))

    def _work(self, minute: int, jobs: int) -> int:
        """Jobs arrive, finish, start; returns the instances booted this minute."""
        queue = self.queue
        booted = self.group.booted(minute)
        if self.running > booted:  # instances went away under running jobs
            self.interrupted += self.running - booted
            queue.arrive(minute, self.running - booted, front=True)
            self.running = booted
        change = jobs - (self.running + queue.size)
        if change > 0:
            queue.arrive(minute, change)
        elif change < 0:
            finished = min(-change, self.running)  # running jobs finish first
            self.running -= finished
            queue.take(minute, -change - finished, newest=True)  # then the newest waiting jobs leave
        self.running += queue.take(minute, booted - self.running)
        return booted

    def _record(self, booted: int, util: float) -> None:
        series, pool = self.series, self.pool
        series.gpu.append(util * self.running / booted if booted else None)
        series.visible.append(float(self.queue.size))
        series.idle.append(100.0 if self.queue.size else series.gpu[-1])
        count = len(self.group.launches)
        on_demand, spot = split_capacity(count, pool.on_demand_base, pool.spot_percent)
        self.on_demand_minutes += on_demand
        self.spot_minutes += spot
        self.cost += (on_demand * pool.on_demand_hourly + spot * pool.spot_hourly) / 60
        series.launched.append(count)
        series.booted.append(booted)
        series.desired.append(self.group.desired)
        series.max_allowed.append(self.group.high)
        series.waiting.append(self.queue.size)
        series.cumulative.append(self.cost)

    def _firing(self, minute: int) -> dict[str, AlarmSpec | None]:
        """The alarm each direction runs this minute: the first in order on AWS; on Alibaba and Tencent
        the one that adds the most (the bands are disjoint, so at most GPU high and one band)."""
        firing: dict[str, AlarmSpec | None] = {"out": None, "in": None}
        series = self.series
        for alarm in self.alarms:
            spec = alarm.spec
            if spec.while_queue_empty:
                values = series.idle
            elif spec.namespace == "CWAgent":
                values = series.gpu
            else:
                values = series.visible
            held = firing[spec.direction]
            if alarm.observe(minute, values) and (
                held is None or (self.simple and spec.adjustment > held.adjustment)
            ):
                firing[spec.direction] = spec
        return firing

    def _track(self, minute: int, booted: int) -> None:
        """AWS's target tracking on the backlog (never scales in): the capacity its metric asks for."""
        group = self.group
        wanted = min(
            backlog_desired(
                self.pool.rules, waiting=self.queue.size, running=self.running, in_service=booted
            ),
            group.high,
        )
        if wanted > group.desired:
            self.events.append(ScaleEvent(minute, "out", group.desired, wanted, "target tracking -backlog"))
            group.desired = wanted

    def _scale_out(self, minute: int, now: int, spec: AlarmSpec) -> None:
        group = self.group
        before = group.desired
        if self.simple:
            if now >= self.group_ready_at and group.desired < group.high:
                group.desired = min(group.desired + spec.adjustment, group.high)
                self.group_ready_at = now + self.pool.cooldown_minutes
        else:
            # Step scaling: warming instances count as capacity already added by this step.
            group.desired = max(group.desired, min(group.warmed(now) + 1, group.high))
        if group.desired != before:
            self.events.append(ScaleEvent(minute, "out", before, group.desired, f"alarm {spec.suffix}"))

    def _scale_in(self, minute: int, now: int, spec: AlarmSpec) -> None:
        group = self.group
        if group.desired <= group.low:
            return
        if self.simple:
            allowed = now >= self.group_ready_at
        else:
            allowed = now >= self.scale_in_ready_at and group.warmed(now) == len(group.launches)
        if not allowed:
            return
        before = group.desired
        group.desired -= 1
        if self.simple:
            self.group_ready_at = now + self.pool.cooldown_minutes
        else:
            self.scale_in_ready_at = now + self.pool.cooldown_minutes
        self.events.append(ScaleEvent(minute, "in", before, group.desired, f"alarm {spec.suffix}"))


def simulate(pool: SimPool, trace: Trace) -> Result:
    """Replay ``trace`` through ``pool``'s compiled rules; see the module's docstring."""
    replay = _Replay(pool, trace)
    for minute, (jobs, util) in enumerate(zip(trace.jobs, trace.gpu_util, strict=True)):
        replay.minute(minute, jobs, util)
    queue, series = replay.queue, replay.series
    unstarted = queue.size
    queue.take(len(trace), unstarted)  # still waiting at the end: their wait so far
    return Result(
        pool=pool,
        trace=trace,
        launched=tuple(series.launched),
        booted=tuple(series.booted),
        desired=tuple(series.desired),
        max_allowed=tuple(series.max_allowed),
        waiting=tuple(series.waiting),
        cumulative_cost=tuple(series.cumulative),
        events=tuple(replay.events),
        waits=tuple(sorted(queue.waits.items())),
        unstarted=unstarted,
        interrupted=replay.interrupted,
        on_demand_minutes=replay.on_demand_minutes,
        spot_minutes=replay.spot_minutes,
        oscillations=oscillations(replay.events, trace.jobs, pool.oscillation_window),
    )


def oscillations(events: Sequence[ScaleEvent], jobs: Sequence[int], window: int) -> tuple[Oscillation, ...]:
    """Each scale-out that follows scale-ins and either comes within ``window`` minutes (a cooldown) of
    the last of them, or finds no more jobs than the first of them saw, however long after: the
    capacity removed was needed back for the same work. So a flap of any period counts (in, then out
    one cooldown later, all weekend); a schedule action starts afresh."""
    found: list[Oscillation] = []
    first_in: int | None = None
    last_in: int | None = None
    for event in events:
        if event.kind == "in":
            first_in = event.minute if first_in is None else first_in
            last_in = event.minute
        elif event.kind == "out" and first_in is not None and last_in is not None:
            if event.minute - last_in <= window or jobs[event.minute] <= jobs[first_in]:
                found.append(Oscillation(last_in, event.minute))
            first_in = last_in = None
        elif event.kind in ("stop", "start"):
            first_in = last_in = None
    return tuple(found)

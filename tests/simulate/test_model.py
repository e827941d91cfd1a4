"""The replay on small traces whose outcomes are worked out by hand in each test's comments."""

from __future__ import annotations

import datetime as dt
import itertools
from dataclasses import replace

import pytest

from gpufleet.components.pools.scaling import ScalingRules
from gpufleet.simulate.model import (
    OffHoursWindow,
    Oscillation,
    ScaleEvent,
    SimPool,
    Trace,
    oscillations,
    schedule_actions,
    simulate,
)

MONDAY = dt.datetime(2026, 1, 5, 0, 0, tzinfo=dt.UTC)
SATURDAY = dt.datetime(2026, 1, 10, 0, 0, tzinfo=dt.UTC)


def pool(**changes: object) -> SimPool:
    base = SimPool(
        name="p",
        cloud="aws",
        min_size=0,
        max_size=10,
        rules=ScalingRules(),
        boot_minutes=4,
        on_demand_hourly=60.0,  # 1 a minute: cost = instance-minutes
        spot_hourly=6.0,
    )
    return replace(base, **changes)  # type: ignore[arg-type]


def trace(jobs: list[int], util: float | list[float], *, start: dt.datetime = MONDAY, initial: int) -> Trace:
    utils = util if isinstance(util, list) else [util] * len(jobs)
    return Trace("t", start, tuple(jobs), tuple(float(u) for u in utils), initial_size=initial)


def test_warm_up_delays_capacity_by_the_boot_time() -> None:
    # One job from minute 0 on an empty pool. Target tracking reads the queue every five minutes: at
    # minute 4 it sees one waiting job and no instance in service (a pool at zero counts every waiting
    # job) and asks for 1, launched at 5, booted at 5+4 = 9: the job waited 9 minutes. Its GPU runs at
    # 100 % from 9; five one-minute datapoints above 70 % (9..13) fire the GPU step at 13: +1 at 14.
    result = simulate(pool(), trace([1] * 20, 100, initial=0))
    assert result.launched == (0,) * 5 + (1,) * 9 + (2,) * 6
    assert result.booted == (0,) * 9 + (1,) * 9 + (2,) * 2
    assert result.events == (
        ScaleEvent(4, "out", 0, 1, "target tracking -backlog"),
        ScaleEvent(13, "out", 1, 2, "alarm gpu-high"),
    )
    assert result.waits == ((9, 1),)  # (minutes, jobs)
    assert result.wait_percentile(50) == result.wait_percentile(95) == 9
    assert result.total_cost == pytest.approx(21.0)  # 9 + 2 x 6 instance-minutes
    # Without a boot time the same instance takes the job the minute it is launched.
    assert simulate(pool(boot_minutes=0), trace([1] * 20, 100, initial=0)).waits == ((5, 1),)


def test_min_and_max_are_respected() -> None:
    # 50 jobs against max 3: the pool starts at 3 (the first minute's demand, clamped) and stays there.
    # Demand ends at minute 60; utilisation 0 for 30 one-minute datapoints (60..89) -> scale-in at 89
    # and, with no cooldown, again at 90; at 91 the pool is at its minimum 1 and stays.
    rules = ScalingRules(cooldown_s=0)
    result = simulate(pool(min_size=1, max_size=3, rules=rules), trace([50] * 60 + [0] * 60, 100, initial=50))
    assert max(result.launched) == 3
    assert min(result.desired) == 1
    assert [(e.minute, e.kind, e.after) for e in result.events] == [(89, "in", 2), (90, "in", 1)]
    assert result.minutes_at_max == 90
    assert result.total_cost == pytest.approx(3 * 90 + 2 + 29)
    assert result.unstarted == 0


def test_the_idle_scale_in_waits_for_an_empty_queue_and_does_not_flap() -> None:
    # 6 instances, 3 jobs at 100 % (GPU 50 %), a dip to no jobs at minutes 12..20, 3 jobs again from 21.
    # The GPU scale-in alarm reads five-minute periods of the GPU while the queue is empty (100 while a
    # job waits): the period 10..14 averages under 30 % -> scale-in at 14; with no cooldown one a minute
    # down to the minimum (14..18), with 300 s one at 14 and one at 19. The jobs of minute 21 find
    # instances (or wake one through the backlog at 24, six minutes after the last scale-in, for more
    # jobs than the dip had): no flap either way.
    jobs = [3] * 12 + [0] * 9 + [3] * 19
    shape = {"out_for_s": 300, "in_for_s": 300, "queue_out": 1}
    hasty = simulate(
        pool(min_size=1, boot_minutes=0, rules=ScalingRules(cooldown_s=0, **shape)),
        trace(jobs, 100, initial=6),
    )
    calm = simulate(
        pool(min_size=1, boot_minutes=0, rules=ScalingRules(cooldown_s=300, **shape)),
        trace(jobs, 100, initial=6),
    )
    assert [e.minute for e in hasty.events if e.kind == "in"] == [14, 15, 16, 17, 18]
    assert (24, "out", 1, 3, "target tracking -backlog") in [
        (e.minute, e.kind, e.before, e.after, e.reason) for e in hasty.events
    ]
    assert hasty.oscillations == calm.oscillations == ()
    assert [(e.minute, e.kind) for e in calm.events if e.kind == "in"] == [(14, "in"), (19, "in")]
    assert calm.waits == ((0, 3),)  # the three jobs of minute 21 start at once on the 4 instances


def test_a_flap_of_any_period_counts() -> None:
    # In, then out one cooldown (5 min) later, all weekend with the same two jobs: every pair counts.
    weekend = [2] * (48 * 60)
    cycle = []
    for start in range(0, 48 * 60 - 10, 10):
        cycle += [ScaleEvent(start, "in", 2, 1, "alarm gpu-low"), ScaleEvent(start + 5, "out", 1, 2, "x")]
    assert len(oscillations(cycle, weekend, 5)) == len(cycle) // 2
    # Once a day, out two hours after the in for the same work: still a flap.
    daily = [ScaleEvent(60, "in", 2, 1, "alarm gpu-low"), ScaleEvent(180, "out", 1, 2, "x")]
    assert oscillations(daily, weekend, 5) == (Oscillation(60, 180),)
    # Out later for more work than the scale-in saw: the capacity was right to go.
    busier = [2] * 100 + [5] * (48 * 60 - 100)
    assert oscillations(daily, busier, 5) == ()
    # A schedule action in between starts afresh.
    stopped = [daily[0], ScaleEvent(120, "stop", 1, 0, "off-hours schedule"), daily[1]]
    assert oscillations(stopped, weekend, 5) == ()


@pytest.mark.parametrize("cloud", ["aws", "alicloud"])
def test_scale_out_adds_one_instance_per_cooldown(cloud: str) -> None:
    # Ten jobs at 100 % on one instance: GPU above 70 % from minute 0, the alarm holds from minute 4
    # on. AWS's step policy counts the instance still warming up (5 min) as added; Alibaba's group
    # rejects alarm activities for the cooldown: either way one instance every 5 minutes.
    result = simulate(pool(cloud=cloud, min_size=1, boot_minutes=0), trace([10] * 20, 100, initial=1))
    assert [(e.minute, e.after) for e in result.events] == [(4, 2), (9, 3), (14, 4), (19, 5)]


def test_off_hours_cut_the_weekend_cost_to_zero() -> None:
    # Saturday and Sunday, two jobs at 60 % (no alarm fires). Around the clock: 2 instances x 48 h,
    # half on spot (1 at 60/h + 1 at 6/h) = 66 x 48. With off-hours and weekends the pool was stopped
    # on Friday at 20:00 and is not restarted before Monday: nothing runs, nothing is billed.
    weekend = trace([2] * 48 * 60, 60, start=SATURDAY, initial=2)
    always = simulate(pool(spot_percent=50), weekend)
    assert always.total_cost == pytest.approx(66 * 48)
    window = OffHoursWindow(timezone="UTC", stop=(20, 0), start=(8, 0), weekends=True)
    off = simulate(pool(spot_percent=50, off_hours=window), weekend)
    assert off.total_cost == 0
    assert max(off.launched) == 0
    assert [(e.minute, e.kind) for e in off.events] == [(20 * 60, "stop"), (44 * 60, "stop")]
    assert off.unstarted == 2
    assert off.wait_percentile(50) == 48 * 60  # still waiting when the trace ends
    # With weekends allowed the pool comes back on Saturday at 08:00 (desired = min 0; the waiting
    # jobs then wake it through the queue alarm).
    workdays = simulate(pool(spot_percent=50, off_hours=replace(window, weekends=False)), weekend)
    assert (8 * 60, "start") in [(e.minute, e.kind) for e in workdays.events]
    assert workdays.total_cost > 0


def test_the_schedule_is_read_in_the_pool_time_zone() -> None:
    # 20:00 in Shanghai is 12:00 UTC; the trace starts Monday 00:00 UTC = 08:00 Shanghai (a start).
    window = OffHoursWindow(timezone="Asia/Shanghai", stop=(20, 0), start=(8, 0), weekends=True)
    actions, stopped = schedule_actions(pool(off_hours=window), trace([0] * 1440, 0, initial=0))
    assert stopped is True  # the last action before Monday 08:00 Shanghai was Friday's 20:00 stop
    assert actions == {0: "start", 12 * 60: "stop"}


def test_a_stop_interrupts_running_jobs() -> None:
    # Friday 19:58 UTC, 2 jobs running on 2 instances; the 20:00 stop takes both instances away.
    friday = dt.datetime(2026, 1, 9, 19, 58, tzinfo=dt.UTC)
    window = OffHoursWindow(timezone="UTC", stop=(20, 0), start=(8, 0), weekends=True)
    result = simulate(pool(off_hours=window), trace([2] * 5, 60, start=friday, initial=2))
    assert result.interrupted == 2
    assert result.launched == (2, 2, 0, 0, 0)
    assert result.waits == ((3, 2),)  # back in the queue at minute 2, still waiting at the end (5)


def test_alibaba_group_cooldown_also_holds_back_the_scale_out_after_a_scale_in() -> None:
    # 6 instances scale in at 14 (the dip of minutes 12..16); 8 jobs arrive at 17, 3 of them wait.
    # AWS: target tracking reads the queue at 19 (3 waiting > queue_out 1) and asks for the 5 running
    # plus the 3 waiting, 8, five minutes after the scale-in: within a cooldown, so it counts as an
    # oscillation. Alibaba's simple rules: the group rejects alarm activities for a cooldown after
    # each, so its scale-outs come at least five minutes apart.
    jobs = [3] * 12 + [0] * 5 + [8] * 13
    rules = ScalingRules(cooldown_s=300, out_for_s=300, in_for_s=300, queue_out=1)
    aws = simulate(pool(min_size=1, boot_minutes=0, rules=rules), trace(jobs, 100, initial=6))
    ali = simulate(
        pool(cloud="alicloud", min_size=1, boot_minutes=0, rules=rules), trace(jobs, 100, initial=6)
    )
    assert [(e.minute, e.kind, e.after, e.reason) for e in aws.events][:2] == [
        (14, "in", 5, "alarm gpu-low"),
        (19, "out", 8, "target tracking -backlog"),
    ]
    assert aws.oscillations == (Oscillation(scale_in=14, scale_out=19),)
    outs = [e.minute for e in ali.events if e.kind == "out"]
    assert all(b - a >= 5 for a, b in itertools.pairwise(outs))


def test_the_backlog_target_follows_the_livestream_spike() -> None:
    # 20 streams, 200 within the hour from 18:30, held 90 minutes: every five minutes target tracking
    # asks for an instance for each running and waiting job, so capacity follows the spike a boot
    # time behind; no job is interrupted, nothing flaps.
    from gpufleet.simulate.scenarios import scenario_trace

    spike = scenario_trace("livestream-spike", "UTC")
    result = simulate(pool(min_size=0, max_size=300), spike)
    assert max(result.booted) >= max(spike.jobs) == 200
    assert result.wait_percentile(95) <= 15
    assert result.oscillations == ()
    assert result.interrupted == 0


@pytest.mark.parametrize("cloud", ["alicloud", "tencentcloud"])
def test_the_backlog_bands_follow_the_livestream_spike(cloud: str) -> None:
    # The seed's rules (queue_out 10, GPU > 70 % / 5 min, < 30 % / 30 min, 300 s cooldown) on ESS or AS:
    # the bands above 10, 20, 40 and 80 waiting jobs add 10, 20, 40 and 80 instances, one activity a
    # cooldown. The ramp adds 15 jobs every 5 minutes, so the +20 band runs each cooldown from minute
    # 40 and capacity serves the 200 streams from minute 95; the waits stay under the 15 minutes.
    from gpufleet.simulate.scenarios import scenario_trace

    spike = scenario_trace("livestream-spike", "UTC")
    result = simulate(pool(cloud=cloud, min_size=0, max_size=300), spike)
    assert max(result.booted) >= max(spike.jobs) == 200
    assert result.wait_percentile(95) <= 15
    assert result.oscillations == ()
    assert result.interrupted == 0
    assert result.count("in") == 0
    bands = [(e.minute, e.after - e.before, e.reason) for e in result.events if "queue-deep" in e.reason]
    assert bands[0] == (40, 20, "alarm queue-deep-x2")
    assert {step for _, step, _ in bands} == {10, 20}
    # The whole replay, the same on ESS and AS: +20 each cooldown from minute 40, +10 while the backlog
    # sits between 10 and 20 (minutes 65 to 75), +20 again until capacity meets demand.
    x2, x1 = (20, "alarm queue-deep-x2"), (10, "alarm queue-deep")
    assert bands == [(minute, *(x1 if 65 <= minute <= 75 else x2)) for minute in range(40, 95, 5)]
    first_at_demand = next(m for m, b in enumerate(result.booted) if b >= 200)
    assert first_at_demand == 95
    # One band a cooldown: never two activities within five minutes.
    outs = [e.minute for e in result.events if e.kind == "out"]
    assert all(b - a >= 5 for a, b in itertools.pairwise(outs))


def test_a_band_holds_only_within_its_bounds() -> None:
    # 35 jobs wait on a pool at zero (queue_out 10): only the 20..40 band holds, and adds 20 at once;
    # at 15 minutes the +10 band runs for the 15 still waiting; GPU high never runs while a band does.
    result = simulate(
        pool(cloud="alicloud", min_size=0, max_size=100, boot_minutes=0), trace([35] * 12, 100, initial=0)
    )
    assert [(e.minute, e.before, e.after, e.reason) for e in result.events] == [
        (4, 0, 20, "alarm queue-deep-x2"),
        (9, 20, 30, "alarm queue-deep"),
    ]


def test_a_pool_at_zero_waits_for_more_than_queue_out() -> None:
    # Five jobs (queue_out 10) on an Alibaba pool at zero: no band holds, no GPU datapoint: nothing
    # starts (set queue_out 0 to wake on any message); with queue_out 0 the first band adds 1.
    idle = simulate(pool(cloud="alicloud", boot_minutes=0), trace([5] * 12, 100, initial=0))
    assert idle.events == ()
    eager = simulate(
        pool(cloud="alicloud", boot_minutes=0, rules=ScalingRules(queue_out=0)),
        trace([5] * 12, 100, initial=0),
    )
    assert [(e.minute, e.after, e.reason) for e in eager.events][:1] == [(4, 4, "alarm queue-deep-x4")]
    # and after it only GPU high adds one: nothing else runs in the hour
    assert [(e.minute, e.after, e.reason) for e in eager.events] == [
        (4, 4, "alarm queue-deep-x4"),
        (9, 5, "alarm gpu-high"),
    ]

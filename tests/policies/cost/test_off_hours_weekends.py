"""GF-COST-005: off-hours means nights and weekends. A schedule that stops a non-production pool every
night but starts it every morning, weekends included, fires; the same schedule starting on weekdays
only does not."""

from __future__ import annotations

from typing import Any

import pytest

from gpufleet.policies.cost._weekly import NotReplayable, fire_minutes, weekend_running_minutes
from gpufleet.policies.cost.nonprod_off_hours import POLICY

from .helpers import UNKNOWN_STR, aws_pool, check_stack, res

AWS_SCHEDULE = "aws:autoscaling/schedule:Schedule"


def scheduled_pool(*actions: tuple[str, str, int]) -> list[Any]:
    """An AWS GPU group without scale-in, with (name, recurrence, max size) scheduled actions."""
    stack = aws_pool(schedule=False, scaling=False)
    asg = stack[1]
    for name, recurrence, size in actions:
        props = {
            "autoscalingGroupName": UNKNOWN_STR,
            "minSize": 0,
            "maxSize": size,
            "desiredCapacity": size,
            "recurrence": recurrence,
            "timeZone": "Europe/Berlin",
        }
        stack.append(res(AWS_SCHEDULE, name, props, deps={"autoscalingGroupName": [asg]}))
    return stack


def test_weekday_starts_keep_the_weekend_off() -> None:
    assert (
        check_stack(POLICY, scheduled_pool(("night", "0 20 * * *", 0), ("morning", "0 8 * * 1-5", 4))) == []
    )
    assert (
        check_stack(POLICY, scheduled_pool(("night", "0 20 * * 1-5", 0), ("morning", "0 8 * * MON-FRI", 4)))
        == []
    )
    # Stopped and never restarted by the schedule: off all weekend.
    assert check_stack(POLICY, scheduled_pool(("night", "0 20 * * *", 0))) == []


def test_every_day_start_leaves_the_weekend_on() -> None:
    stack = scheduled_pool(("night", "0 20 * * *", 0), ("morning", "0 8 * * *", 4))
    assert check_stack(POLICY, stack) == [
        (
            "Auto Scaling group 'gpu' (dev) is scaled to zero at night only: its schedule "
            "(start '0 8 * * *') brings it back on weekends (24 of the weekend's 48 h); start it on weekdays "
            "only (day of week "
            "1-5) so it stays at zero from Saturday to Monday",
            stack[1].urn,
        )
    ]


def test_a_saturday_start_is_caught() -> None:
    stack = scheduled_pool(("night", "0 20 * * *", 0), ("morning", "0 8 * * 1-6", 4))
    [(message, _)] = check_stack(POLICY, stack)
    assert "(12 of the weekend's 48 h)" in message


def test_scale_in_or_config_exempts_the_weekend() -> None:
    daily = [("night", "0 20 * * *", 0), ("morning", "0 8 * * *", 4)]
    assert check_stack(POLICY, scheduled_pool(*daily), config={"weekends_off": False}) == []
    with_scale_in = aws_pool(schedule=False)
    asg = with_scale_in[1]
    for name, recurrence, size in daily:
        props = {"autoscalingGroupName": UNKNOWN_STR, "maxSize": size, "recurrence": recurrence}
        with_scale_in.append(res(AWS_SCHEDULE, name, props, deps={"autoscalingGroupName": [asg]}))
    assert check_stack(POLICY, with_scale_in) == []


def test_a_date_bound_schedule_is_not_judged_on_weekends() -> None:
    assert check_stack(POLICY, scheduled_pool(("night", "0 20 1 * *", 0), ("morning", "0 8 * * *", 4))) == []


@pytest.mark.parametrize(
    ("recurrence", "first"),
    [
        ("0 20 * * *", 20 * 60),  # Monday 20:00
        ("30 7 * * 0", 6 * 1440 + 7 * 60 + 30),  # Sunday
        ("30 7 * * 7", 6 * 1440 + 7 * 60 + 30),  # Sunday as 7
        ("cron(0 8 ? * 2 *)", 8 * 60),  # Application Auto Scaling: 2 is Monday
        ("cron(0 8 ? * SAT *)", 5 * 1440 + 8 * 60),
        ("Cron 0 12 * * 1-5", 12 * 60),  # an Alibaba ESS task
    ],
)
def test_recurrences_are_read_in_their_own_day_numbering(recurrence: str, first: int) -> None:
    assert min(fire_minutes(recurrence)) == first


def test_unreadable_recurrences() -> None:
    # Out-of-range fields and a zero step were read as other minutes, or raised past the rule.
    unreadable = ("rate(1 day)", "at(2026-12-24T20:00:00)", "Weekly 1,2,3", "0 20 * 1 *", "75 20 * * *",
                  "0 25 * * *", "0 20 * * 8", "*/0 20 * * *")  # fmt: skip
    for recurrence in unreadable:
        with pytest.raises(NotReplayable):
            fire_minutes(recurrence)
    assert weekend_running_minutes(["0 20 * * *"], ["0 8 * * *"]) == 24 * 60

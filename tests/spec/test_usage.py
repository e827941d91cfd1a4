"""The usage profile in the spec: hours a day at each size, its one-step form, and every error it can have."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from gpufleet.components.spec import CONFIG_KEY, SpecError, Usage, UsageStep, parse_fleet

SOURCE = "stacks/Pulumi.dev.yaml"
POOL = f"{CONFIG_KEY}.pools.train"
NIGHTS_AND_WEEKENDS = {"timezone": "Asia/Shanghai", "scale_to_zero": "20:00-08:00", "weekends": True}


def fleet(usage: Any, *, environment: str = "dev", **pool: Any) -> dict[str, Any]:
    config: dict[str, Any] = {
        "environment": environment,
        "tags": {"project": "vision", "team": "ml-platform", "cost-center": "cc-042"},
        "budget": {"monthly": 5000},
        "pools": {
            "train": {
                "instance_types": ["g5.2xlarge"],
                "size": {"min": 2, "max": 8},
                "workload": {"image_reads_queue": True},
                **pool,
            }
        },
    }
    config["pools"]["train"]["usage"] = copy.deepcopy(usage)
    return config


def errors_of(config: Any) -> list[str]:
    with pytest.raises(SpecError) as excinfo:
        parse_fleet(config, source=SOURCE)
    return excinfo.value.format().splitlines()


def steps(*pairs: tuple[Any, Any]) -> list[dict[str, Any]]:
    return [{"size": size, "hours_per_day": hours} for size, hours in pairs]


# ------------------------------------------------------------------------------------------- valid


def test_a_profile_lists_hours_a_day_at_each_size() -> None:
    usage = parse_fleet(fleet({"profile": steps((8, 4), (3, 10))})).pools["train"].usage
    assert usage is not None
    assert usage.is_profile
    assert usage.steps == (UsageStep(size=8, hours_per_day=4), UsageStep(size=3, hours_per_day=10))
    assert usage.days_per_month == 30
    assert (usage.hours_per_day, usage.average_size) == (None, None)


def test_the_one_step_form_keeps_its_meaning() -> None:
    usage = (
        parse_fleet(fleet({"hours_per_day": 10, "average_size": 4, "days_per_month": 22}))
        .pools["train"]
        .usage
    )
    assert usage is not None
    assert not usage.is_profile
    assert usage.steps == (UsageStep(size=4, hours_per_day=10),)
    assert usage.days_per_month == 22


def test_profile_steps_at_the_size_limits_and_filling_the_day_are_allowed() -> None:
    # size.min and size.max themselves, 24 h in all.
    usage = parse_fleet(fleet({"profile": steps((8, 12), (2, 12))})).pools["train"].usage
    assert usage is not None and sum(step.hours_per_day for step in usage.steps) == 24
    assert usage.profile == [UsageStep(size=8, hours_per_day=12), UsageStep(size=2, hours_per_day=12)]


def test_a_profile_filling_the_running_hours_of_the_off_hours_schedule_is_allowed() -> None:
    # 20:00-08:00 off leaves 08:00-20:00: 4 + 8 = 12 h.
    spec = parse_fleet(fleet({"profile": steps((8, 4), (3, 8))}, off_hours=NIGHTS_AND_WEEKENDS))
    train = spec.pools["train"]
    assert train.off_hours is not None and train.off_hours.scale_to_zero == "20:00-08:00"
    assert train.usage is not None
    assert train.usage.profile == [UsageStep(size=8, hours_per_day=4), UsageStep(size=3, hours_per_day=8)]


def test_prod_ignores_off_hours_so_the_profile_is_not_held_to_them() -> None:
    # The fleet never switches production capacity off by a timetable (the cost prices it around the
    # clock), so 14 h a day is possible there.
    spec = parse_fleet(
        fleet({"profile": steps((8, 4), (3, 10))}, environment="prod", off_hours=NIGHTS_AND_WEEKENDS)
    )
    usage = spec.pools["train"].usage
    assert usage is not None
    assert usage.profile == [UsageStep(size=8, hours_per_day=4), UsageStep(size=3, hours_per_day=10)]


def test_models_check_the_form_on_direct_construction() -> None:
    with pytest.raises(ValueError, match="needs a profile"):
        Usage()
    with pytest.raises(ValueError, match="not both"):
        Usage(profile=[UsageStep(size=1, hours_per_day=1)], hours_per_day=1, average_size=1)
    with pytest.raises(ValueError, match="must list at least one step"):
        Usage(profile=[])


# ------------------------------------------------------------------------------------------ errors


@pytest.mark.parametrize(
    ("usage", "pool", "expected"),
    [
        # Sizes: within size.min (2) .. size.max (8).
        ({"profile": steps((9, 4), (3, 10))}, {},
         [".usage.profile[0].size: must be between size.min (2) and size.max (8), got 9"]),
        ({"profile": steps((8, 4), (1, 10))}, {},
         [".usage.profile[1].size: must be between size.min (2) and size.max (8), got 1"]),
        ({"profile": steps((-1, 4))}, {}, [".usage.profile[0].size: must be >= 0, got -1"]),
        ({"hours_per_day": 8, "average_size": 1}, {},
         [".usage.average_size: must be between size.min (2) and size.max (8), got 1"]),
        # Hours: 0..24 each, at most 24 in all, and within what the off-hours schedule leaves.
        ({"profile": steps((8, -1))}, {}, [".usage.profile[0].hours_per_day: must be >= 0, got -1"]),
        ({"profile": steps((8, 25))}, {}, [".usage.profile[0].hours_per_day: must be <= 24, got 25"]),
        ({"profile": steps((8, 14), (3, 12))}, {},
         [".usage.profile: the steps add up to 26 h a day; a day has 24 h, so at most 24 are allowed"]),
        ({"profile": steps((8, 4), (3, 10))}, {"off_hours": NIGHTS_AND_WEEKENDS},
         [".usage.profile: 14 h a day in use, but the off-hours schedule (scale_to_zero 20:00-08:00) "
          "leaves the pool running at most 12 h a day"]),
        ({"hours_per_day": 20, "average_size": 4}, {"off_hours": NIGHTS_AND_WEEKENDS},
         [".usage.hours_per_day: 20 h a day in use, but the off-hours schedule (scale_to_zero "
          "20:00-08:00) leaves the pool running at most 12 h a day"]),
        ({"profile": steps((8, 10), (3, 6.5))},
         {"off_hours": {"timezone": "UTC", "scale_to_zero": "22:30-06:30", "weekends": False}},
         [".usage.profile: 16.5 h a day in use, but the off-hours schedule (scale_to_zero 22:30-06:30) "
          "leaves the pool running at most 16 h a day"]),
        # The form: a profile, or hours_per_day with average_size; not both, not neither, not empty.
        ({"profile": steps((8, 4)), "hours_per_day": 4}, {},
         [".usage: give either profile (hours a day at each size) or hours_per_day with average_size "
          "(one size), not both"]),
        ({"profile": steps((8, 4)), "average_size": 4, "hours_per_day": 4}, {},
         [".usage: give either profile (hours a day at each size) or hours_per_day with average_size "
          "(one size), not both"]),
        ({"profile": []}, {},
         [".usage.profile: must list at least one step {size, hours_per_day}; leave usage out to price "
          "the pool at its maximum size"]),
        ({}, {}, [".usage: needs a profile (a list of {size, hours_per_day} steps) or hours_per_day with "
                  "average_size"]),
        ({"days_per_month": 20}, {},
         [".usage: needs a profile (a list of {size, hours_per_day} steps) or hours_per_day with "
          "average_size"]),
        ({"hours_per_day": 4}, {},
         [".usage.average_size: is required with usage.hours_per_day (or give a profile instead)"]),
        ({"average_size": 4}, {},
         [".usage.hours_per_day: is required with usage.average_size (or give a profile instead)"]),
        # Shapes.
        ({"profile": [{"size": 8, "hours": 4}]}, {},
         [".usage.profile[0].hours_per_day: is required",
          ".usage.profile[0]: unknown field 'hours'; allowed: size, hours_per_day"]),
        ({"profile": {"size": 8, "hours_per_day": 4}}, {}, [".usage.profile: must be a list, got a mapping"]),
        ({"profile": [8]}, {}, [".usage.profile[0]: must be a mapping of settings, got 8"]),
        ({"profile": steps(("8", 4))}, {}, [".usage.profile[0].size: must be a number, got '8'"]),
        ({"profile": steps((8, 4)), "days_per_month": 32}, {},
         [".usage.days_per_month: must be <= 31, got 32"]),
        ({"profile": steps((8, 4)), "weekly": True}, {},
         [".usage: unknown field 'weekly'; allowed: hours_per_day, average_size, days_per_month, profile"]),
    ],
)  # fmt: skip
def test_error_messages(usage: Any, pool: dict[str, Any], expected: list[str]) -> None:
    assert errors_of(fleet(usage, **pool)) == [f"{SOURCE}: {POOL}{line}" for line in expected]


def test_every_usage_error_is_reported_at_once() -> None:
    config = fleet({"profile": steps((9, 4), (1, 30), (3, 8))}, off_hours=NIGHTS_AND_WEEKENDS)
    config["pools"]["infer"] = {
        "instance_types": ["g5.2xlarge"],
        "size": {"max": 4},
        "workload": {"image_reads_queue": True},
        "usage": {"hours_per_day": 8, "profile": []},
    }
    assert errors_of(config) == [
        f"{SOURCE}: {POOL}.usage.profile[1].hours_per_day: must be <= 24, got 30",
        f"{SOURCE}: {POOL}.usage.profile[0].size: must be between size.min (2) and size.max (8), got 9",
        f"{SOURCE}: {POOL}.usage.profile[1].size: must be between size.min (2) and size.max (8), got 1",
        f"{SOURCE}: {CONFIG_KEY}.pools.infer.usage: give either profile (hours a day at each size) or "
        "hours_per_day with average_size (one size), not both",
    ]


def test_sizes_are_not_judged_against_an_invalid_size_range() -> None:
    # size.max < size.min is its own error; the steps are not also measured against it.
    config = fleet({"profile": steps((5, 4))})
    config["pools"]["train"]["size"] = {"min": 6, "max": 4}
    assert errors_of(config) == [f"{SOURCE}: {POOL}.size.max: must be >= size.min (6), got 4"]


def test_the_schedule_limit_waits_for_valid_hours_and_window() -> None:
    # A broken window, or a step's own bad hours, is reported alone: no sum is made of invalid parts.
    broken_window = {"timezone": "UTC", "scale_to_zero": "8pm-8am"}
    assert errors_of(fleet({"profile": steps((8, 20))}, off_hours=broken_window)) == [
        f'{SOURCE}: {POOL}.off_hours.scale_to_zero: must be a window "HH:MM-HH:MM" like "20:00-08:00", '
        "got '8pm-8am'"
    ]
    assert errors_of(fleet({"profile": steps((8, 30))}, off_hours=NIGHTS_AND_WEEKENDS)) == [
        f"{SOURCE}: {POOL}.usage.profile[0].hours_per_day: must be <= 24, got 30"
    ]

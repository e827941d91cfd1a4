"""Specs that contradict themselves, or that AWS would refuse at deploy: each an error with its field path."""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from gpufleet.components.spec import (
    CONFIG_KEY,
    OffHours,
    SpecError,
    load_fleet_from_config,
    parse_fleet,
)
from gpufleet.components.spec_limits.aws import LOG_RETENTION_DAYS as AWS_LOG_RETENTION_DAYS
from tests.spec.test_spec import SOURCE, errors_of, minimal, with_change

RETENTIONS = ", ".join(str(days) for days in AWS_LOG_RETENTION_DAYS)


def errors(path: list[str], value: Any) -> list[tuple[str, str]]:
    with pytest.raises(SpecError) as info:
        parse_fleet(with_change(path, value), source=SOURCE)
    return info.value.errors


def tags(**extra: str) -> dict[str, str]:
    return {"project": "vision", "team": "ml-platform", "cost-center": "cc-042", **extra}


# ----------------------------------------------------------------------------------------- tags


def test_an_env_tag_naming_another_environment_is_an_error() -> None:
    # Today a dev stack tagged env: prod switches off every dev cost rule.
    assert errors(["tags"], tags(env="prod")) == [
        (
            "gpufleet:fleet.tags.env",
            "must name the stack's environment (dev): one of dev, development, test, sandbox, or be left out "
            "(env is then set from environment); got 'prod'. The guardrails read the environment from this "
            "tag, so another one switches the wrong rules on and off",
        )
    ]
    assert errors(["tags"], tags(env="blue"))[0][0] == "gpufleet:fleet.tags.env"
    assert errors(["tags"], tags(Environment="production"))[0][0] == "gpufleet:fleet.tags.Environment"


def test_env_tags_naming_the_same_environment_are_kept() -> None:
    assert parse_fleet(with_change(["tags"], tags(env="development"))).cost_tags["env"] == "development"
    prod = with_change(
        ["environment"], "prod", with_change(["tags"], tags(env="Production", stage="training"))
    )
    assert parse_fleet(prod).cost_tags["env"] == "Production"


def test_reserved_and_oversized_tags_are_refused_each_by_key() -> None:
    found = errors(
        ["tags"],
        tags(
            **{
                "aws:owner": "me",
                "AWS:x": "y",
                "k" * 129: "v",
                "long": "v" * 257,
                "purpose": "x",
                "bad": "a;b",
            }
        ),
    )
    assert found == [
        (
            "gpufleet:fleet.tags.aws:owner",
            "tag keys starting with aws: are reserved for AWS and refused at deploy",
        ),
        (
            "gpufleet:fleet.tags.AWS:x",
            "tag keys starting with aws: are reserved for AWS and refused at deploy",
        ),
        (f"gpufleet:fleet.tags.{'k' * 60}…", "tag keys are 1 to 128 characters on AWS, this one has 129"),
        ("gpufleet:fleet.tags.long", "tag values are at most 256 characters on AWS, got 257"),
        (
            "gpufleet:fleet.tags.purpose",
            "is set by the fleet itself on the resources it applies to; use another key",
        ),
        (
            "gpufleet:fleet.tags.bad",
            "the value has characters AWS refuses in tags; allowed: letters, digits, spaces and "
            "_ . : / = + - @",
        ),
    ]


def test_limits_are_inclusive_and_unicode_letters_are_allowed() -> None:
    spec = parse_fleet(with_change(["tags"], tags(**{"k" * 128: "v" * 256, "équipe": "données 1/2"})))
    assert spec.tags["équipe"] == "données 1/2"


def test_too_many_tags_for_one_aws_resource() -> None:
    many = tags(**{f"t{i}": "x" for i in range(42)})  # 46 with env, 4 more from the fleet: 50
    assert parse_fleet(with_change(["tags"], many)).tags["t41"] == "x"
    assert errors(["tags"], {**many, "t42": "x"}) == [
        (
            "gpufleet:fleet.tags",
            "47 tags (env included); AWS allows 50 a resource and the fleet adds up to 4 of its own (Name, "
            "purpose, data-classification, gpufleet:pool), so at most 46",
        )
    ]


# --------------------------------------------------------------------------------------- network


@pytest.mark.parametrize(
    ("cidr", "message"),
    [
        ("10.0.0.0/8", "must be a /16 to /28 (the VPC sizes AWS allows), got 10.0.0.0/8"),
        ("10.40.0.0/29", "must be a /16 to /28 (the VPC sizes AWS allows), got 10.40.0.0/29"),
        (
            "8.8.0.0/16",
            "must be inside a private range (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 100.64.0.0/10), "
            "got 8.8.0.0/16",
        ),
        (
            "10.40.0.0/27",
            "a /27 is too small: the fleet carves 4 equal subnets of at least /28 from it (one per "
            "availability zone, the rest kept free), so at most /26",
        ),
    ],
)
def test_vpc_ranges_aws_refuses(cidr: str, message: str) -> None:
    assert errors(["network"], {"vpc_cidr": cidr}) == [("gpufleet:fleet.network.vpc_cidr", message)]


def test_vpc_ranges_aws_accepts() -> None:
    for cidr in ("100.64.0.0/16", "172.31.0.0/16", "192.168.8.0/24", "10.1.2.0/26"):
        assert str(parse_fleet(with_change(["network"], {"vpc_cidr": cidr})).network.vpc_cidr) == cidr


def test_a_second_regions_vpc_range_is_checked_too() -> None:
    network = {"regions": {"us-west-2": {"vpc_cidr": "11.0.0.0/16"}}}
    assert errors(["network"], network) == [
        (
            "gpufleet:fleet.network.regions.us-west-2.vpc_cidr",
            "must be inside a private range (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 100.64.0.0/10), "
            "got 11.0.0.0/16",
        )
    ]


def test_subnet_ids_must_name_subnets() -> None:
    assert errors(["network"], {"subnet_ids": []}) == [
        (
            "gpufleet:fleet.network.subnet_ids",
            "must list at least one subnet id (subnet-0abc...), or be left out to create a VPC",
        )
    ]
    assert errors(["network"], {"subnet_ids": ["sg-0a1b2c3d"]}) == [
        (
            "gpufleet:fleet.network.subnet_ids",
            "must be subnet ids like subnet-0123456789abcdef0, got 'sg-0a1b2c3d'",
        )
    ]
    assert errors(["network"], {"subnet_ids": ["subnet-0a1b2c3d", "subnet-0a1b2c3d"]}) == [
        ("gpufleet:fleet.network.subnet_ids", "lists subnet-0a1b2c3d more than once")
    ]
    existing = parse_fleet(
        with_change(["network"], {"subnet_ids": ["subnet-0a1b2c3d"], "vpc_cidr": "10.0.0.0/8"})
    )
    assert existing.network.subnet_ids == ["subnet-0a1b2c3d"]  # no VPC is made: its range is not used


# ------------------------------------------------------------------------------------- retention


@pytest.mark.parametrize("days", [2, 200, 366, 3650, 10_000])
def test_log_retention_outside_the_cloudwatch_list_is_refused(days: int) -> None:
    assert errors(["audit"], {"log_retention_days": days}) == [
        (
            "gpufleet:fleet.audit.log_retention_days",
            f"must be 0 (keep forever) or one of the retention periods CloudWatch Logs allows: {RETENTIONS}; "
            f"got {days}",
        )
    ]
    assert errors(["access"], {"session_log_retention_days": days}) == [
        (
            "gpufleet:fleet.access.session_log_retention_days",
            f"must be one of the retention periods CloudWatch Logs allows: {RETENTIONS}; got {days}",
        )
    ]


def test_every_cloudwatch_retention_is_accepted() -> None:
    for days in AWS_LOG_RETENTION_DAYS:
        spec = parse_fleet(with_change(["audit"], {"log_retention_days": days}))
        assert spec.audit.log_retention_days == days
    assert parse_fleet(with_change(["audit"], {"log_retention_days": 0})).audit.log_retention_days == 0


# ---------------------------------------------------------------------------------- time and scaling


@pytest.mark.parametrize(
    "zone", ["localtime", "posixrules", "US/Eastern", "EST5EDT", "GB", "Mars/Base", "../etc"]
)
def test_time_zones_that_are_not_iana_area_names_are_refused(zone: str) -> None:
    found = errors(["pools", "train", "off_hours"], {"timezone": zone, "scale_to_zero": "20:00-08:00"})
    assert found == [
        (
            "gpufleet:fleet.pools.train.off_hours.timezone",
            "must be an IANA time zone name Area/Location like Asia/Shanghai or America/New_York, or UTC "
            f"(areas: Africa, America, Antarctica, Arctic, Asia, Atlantic, Australia, Etc, Europe, Indian, "
            f"Pacific), got {zone!r}",
        )
    ]


def test_iana_area_names_are_accepted() -> None:
    for zone in ("America/Argentina/Buenos_Aires", "Etc/GMT+9", "UTC", "Asia/Shanghai"):
        assert OffHours(timezone=zone, scale_to_zero="20:00-08:00").timezone == zone


def test_a_5000_character_time_zone_is_quoted_to_200() -> None:
    (_, message) = errors(
        ["pools", "train", "off_hours"], {"timezone": "x" * 5000, "scale_to_zero": "20:00-08:00"}
    )[0]
    assert message.endswith(f"got {'x' * 200!r}… (5,000 characters)")


@pytest.mark.parametrize("cooldown", ["0s", 0, "30s", "25h", "999999999999h"])
def test_absurd_cooldowns_are_refused(cooldown: str | int) -> None:
    found = errors(["pools", "train", "scaling"], {"cooldown": cooldown})
    assert len(found) == 1
    path, message = found[0]
    assert path == "gpufleet:fleet.pools.train.scaling.cooldown"
    assert message.startswith(
        "must be between 60s and 1 day (86400 s): it is also the warm-up of a new instance"
    )


def test_alarm_windows_over_a_day_are_refused() -> None:
    assert errors(["pools", "train", "scaling"], {"out_for": "25h", "in_for": "26h"}) == [
        (
            "gpufleet:fleet.pools.train.scaling.out_for",
            "must be at most 1 day (CloudWatch evaluates an alarm over at most 86400 s), got 25h",
        ),
        (
            "gpufleet:fleet.pools.train.scaling.in_for",
            "must be at most 1 day (CloudWatch evaluates an alarm over at most 86400 s), got 26h",
        ),
    ]


def test_a_duration_of_5000_digits_is_an_error_not_a_crash() -> None:
    assert errors(["pools", "train", "scaling"], {"in_for": "9" * 5000 + "m"})[0][1].startswith(
        "must be a duration like 90s, 5m or 1h (or a whole number of seconds), got '999"
    )


# ----------------------------------------------------------------------------------- all at once


def test_every_contradiction_is_reported_at_once() -> None:
    config = with_change(["tags"], tags(env="prod", **{"aws:team": "x"}))
    config["network"] = {"vpc_cidr": "8.8.0.0/16"}
    config["audit"] = {"log_retention_days": 200}
    config["pools"]["train"]["scaling"] = {"cooldown": "0s"}
    config["pools"]["train"]["off_hours"] = {"timezone": "localtime", "scale_to_zero": "20:00-08:00"}
    lines = errors_of(config)
    assert [line.split(": ", 2)[1] for line in lines] == [
        "gpufleet:fleet.audit.log_retention_days",
        "gpufleet:fleet.pools.train.scaling.cooldown",
        "gpufleet:fleet.pools.train.off_hours.timezone",
        "gpufleet:fleet.tags.env",
        "gpufleet:fleet.tags.aws:team",
        "gpufleet:fleet.network.vpc_cidr",
    ]


def test_infinite_and_nan_numbers_are_refused() -> None:
    assert errors(["budget"], {"monthly": float("inf")}) == [
        ("gpufleet:fleet.budget.monthly", "must be a finite number, got inf")
    ]
    usage = {"hours_per_day": float("nan"), "average_size": 1}
    assert ("gpufleet:fleet.pools.train.usage.hours_per_day", "must be a finite number, got nan") in errors(
        ["pools", "train", "usage"], usage
    )


# ------------------------------------------------------------------------------ the JSON string form


def load_json(text: str) -> list[tuple[str, str]]:
    with pytest.raises(SpecError) as info:
        load_fleet_from_config({CONFIG_KEY: text}, SOURCE)
    return info.value.errors


def test_the_json_form_refuses_what_the_yaml_form_refuses() -> None:
    base = json.dumps(minimal())
    twice = base.replace('"pools": {', '"pools": {"train": {}, ', 1)
    assert load_json(twice) == [(CONFIG_KEY, "the key 'train' is given twice in one object; keep one")]
    assert load_json(base.replace('"monthly": 5000', '"monthly": NaN')) == [
        (CONFIG_KEY, "NaN is not a number JSON allows; give a finite number")
    ]
    assert load_json(base.replace('"monthly": 5000', '"monthly": Infinity')) == [
        (CONFIG_KEY, "Infinity is not a number JSON allows; give a finite number")
    ]
    assert load_json(base.replace('"monthly": 5000', '"monthly": ' + "9" * 400)) == [
        (
            CONFIG_KEY,
            f"the integer {'9' * 40!r}… (400 characters) is too large: numbers are exact only up to 2^53",
        )
    ]
    assert load_json("[" * 100_000 + "]" * 100_000) == [
        (CONFIG_KEY, "the JSON string is nested too deeply to be a fleet spec")
    ]
    assert load_json('"' + "x" * (1024 * 1024 + 1) + '"') == [
        (CONFIG_KEY, "a JSON string of 1,048,579 characters; at most 1,048,576 are allowed")
    ]


def _leaf_paths(node: Any, path: list[Any]) -> list[list[Any]]:
    if isinstance(node, dict):
        return [p for key, value in node.items() for p in _leaf_paths(value, [*path, key])]
    if isinstance(node, list):
        return [p for index, value in enumerate(node) for p in _leaf_paths(value, [*path, index])]
    return [path]


def test_a_5000_character_value_anywhere_is_quoted_short() -> None:
    from tests.spec.test_spec import full

    long = "x" * 5000
    base = full()
    refused: list[list[Any]] = []
    for path in [*_leaf_paths(base, []), ["pools", long], ["tags", long], ["network", "regions", long]]:
        config = copy.deepcopy(base)
        node: Any = config
        for key in path[:-1]:
            node = node[key] if not isinstance(node, dict) or key in node else node.setdefault(key, {})
        node[path[-1]] = {"a": 1} if path[-1] == long else long
        try:
            parse_fleet(config)
        except SpecError as error:
            for field, message in error.errors:
                assert len(field) + len(message) < 500, (path, field, message[:300])
            refused.append(path)
    assert ["network", "vpc_cidr"] in refused
    assert ["pools", "train-a100", "instance_types", 0] in refused


def test_figures_too_large_to_price_are_refused() -> None:
    # Each is finite, but the cost model's sums of them were Infinity in the cost and check JSON.
    config = with_change(["budget"], {"monthly": 1.7e308})
    config["storage"] = {"datasets_gib": 1.7e308, "checkpoints": {"written_gib_per_month": 1e10}}
    config["pools"]["train"]["size"] = {"max": 10**6}
    config["pools"]["train"]["transfer"] = {"egress_gib_per_month": 2e9}
    assert errors_of(config) == [
        f"{SOURCE}: gpufleet:fleet.budget.monthly: must be <= 1000000000000, got 1.7e+308",
        f"{SOURCE}: gpufleet:fleet.storage.checkpoints.written_gib_per_month: must be <= 1000000000, got "
        "10000000000",
        f"{SOURCE}: gpufleet:fleet.storage.datasets_gib: must be <= 1000000000, got 1.7e+308",
        f"{SOURCE}: gpufleet:fleet.pools.train.size.max: must be <= 100000, got 1000000",
        f"{SOURCE}: gpufleet:fleet.pools.train.transfer.egress_gib_per_month: must be <= 1000000000, got "
        "2000000000",
    ]

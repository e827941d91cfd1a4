from __future__ import annotations

import copy
import ipaddress
import json
from typing import Any

import pytest

from gpufleet.components.spec import (
    CONFIG_KEY,
    FleetSpec,
    OffHours,
    Scaling,
    Size,
    SpecError,
    duration_seconds,
    load_fleet_from_config,
    parse_fleet,
)

SOURCE = "stacks/Pulumi.dev.yaml"


def minimal() -> dict[str, Any]:
    return {
        "environment": "dev",
        "tags": {"project": "vision", "team": "ml-platform", "cost-center": "cc-042"},
        "budget": {"monthly": 5000},
        "pools": {
            "train": {
                "instance_types": ["g5.2xlarge"],
                "size": {"max": 4},
                "workload": {"image_reads_queue": True},
            }
        },
    }


def full() -> dict[str, Any]:
    return {
        "environment": "prod",
        "tags": {"project": "vision", "team": "ml-platform", "cost-center": "cc-042", "env": "production"},
        "budget": {"monthly": 60000, "currency": "USD", "alert_percent": 80},
        "storage": {
            "checkpoints": {
                "encryption": "byok",
                "classification": "restricted",
                "ia_after_days": 7,
                "expire_after_days": 30,
                "replicate_to": "us-west-2",
            }
        },
        "access": {"session_manager": True, "session_log_retention_days": 365},
        "audit": {"log_retention_days": 0, "trail": True},
        "network": {"vpc_cidr": "10.50.0.0/16", "availability_zones": 3},
        "pools": {
            "train-a100": {
                "cloud": "aws",
                "region": "us-east-1",
                "instance_types": ["p4d.24xlarge"],
                "size": {"min": 0, "max": 8},
                "spot_percent": 50,
                "on_demand_base": 2,
                "scaling": {
                    "gpu_util_out": 70,
                    "out_for": "5m",
                    "queue_out": 10,
                    "gpu_util_in": 30,
                    "in_for": "30m",
                    "cooldown": "300s",
                },
                "usage": {"hours_per_day": 10, "average_size": 4},
                "workload": {"image_reads_queue": True},
            },
            "experiments": {
                "instance_types": ["g5.2xlarge", "g6.2xlarge"],
                "size": {"max": 40},
                "spot_percent": 100,
                "queue": {"name": "team-experiments"},
                "off_hours": {"timezone": "Asia/Shanghai", "scale_to_zero": "20:00-08:00", "weekends": True},
                "usage": {
                    "days_per_month": 22,
                    "profile": [{"size": 8, "hours_per_day": 4}, {"size": 3, "hours_per_day": 6}],
                },
            },
            "cn-infer": {
                "cloud": "alicloud",
                "region": "cn-hangzhou",
                "instance_types": ["ecs.gn7i-c8g1.2xlarge"],
                "size": {"max": 2},
                "workload": {"image_reads_queue": True},
            },
        },
    }


def errors_of(config: Any) -> list[str]:
    with pytest.raises(SpecError) as excinfo:
        parse_fleet(config, source=SOURCE)
    return excinfo.value.format().splitlines()


def with_change(path: list[str], value: Any, base: dict[str, Any] | None = None) -> dict[str, Any]:
    config = copy.deepcopy(base if base is not None else minimal())
    node: Any = config
    for key in path[:-1]:
        node = node.setdefault(key, {})
    node[path[-1]] = value
    return config


# ------------------------------------------------------------------------------------------- valid


def test_minimal_spec_takes_every_default() -> None:
    spec = parse_fleet(minimal())
    assert spec.environment == "dev"
    assert spec.budget.currency == "USD"
    assert spec.budget.alert_percent == 80
    bucket = spec.storage.checkpoints
    assert (bucket.encryption, bucket.classification) == ("sse-kms", "internal")
    assert (bucket.ia_after_days, bucket.expire_after_days, bucket.noncurrent_expire_days) == (7, 30, 7)
    assert bucket.replicate_to is None
    assert (spec.storage.data_prefix, spec.storage.checkpoint_prefix) == ("data/", "checkpoints/")
    assert spec.access.session_manager is True
    assert spec.access.session_log_retention_days == 180
    assert (spec.audit.log_retention_days, spec.audit.trail) == (180, True)
    assert spec.network.vpc_cidr == ipaddress.IPv4Network("10.40.0.0/16")
    assert spec.network.subnet_ids is None
    assert spec.network.availability_zones == 2
    pool = spec.pools["train"]
    assert (pool.cloud, pool.region, pool.spot_percent, pool.on_demand_base, pool.disk_gib) == (
        "aws",
        None,
        0,
        0,
        200,
    )
    assert (pool.size.min, pool.size.max) == (0, 4)
    assert pool.off_hours is None
    assert pool.usage is None
    scaling = pool.scaling
    assert (scaling.gpu_util_out, scaling.queue_out, scaling.gpu_util_in) == (70, 10, 30)
    assert (scaling.out_for_s, scaling.in_for_s, scaling.cooldown_s) == (300, 1800, 300)
    assert spec.onprem is None
    assert spec.links == {}


def test_full_spec_parses_and_resolves() -> None:
    spec = parse_fleet(full())
    assert spec.storage.checkpoints.encryption == "byok"
    assert spec.audit.log_retention_days == 0
    assert spec.network.vpc_cidr.num_addresses == 65536
    assert spec.pool_region("train-a100", "eu-west-1") == "us-east-1"
    assert spec.pool_region("experiments", "eu-west-1") == "eu-west-1"
    assert spec.pools["cn-infer"].cloud == "alicloud"
    assert spec.pools["train-a100"].usage is not None
    assert spec.pools["train-a100"].usage.days_per_month == 30
    experiments = spec.pools["experiments"].usage
    assert experiments is not None and experiments.is_profile
    assert [(step.size, step.hours_per_day) for step in experiments.steps] == [(8, 4), (3, 6)]


def test_cost_tags_add_env_from_environment() -> None:
    assert parse_fleet(minimal()).cost_tags == {
        "project": "vision",
        "team": "ml-platform",
        "cost-center": "cc-042",
        "env": "dev",
    }
    assert parse_fleet(full()).cost_tags["env"] == "production"


def test_spec_is_frozen() -> None:
    spec = parse_fleet(minimal())
    with pytest.raises(ValueError, match="frozen"):
        spec.environment = "prod"  # type: ignore[misc]


def test_defaults_view_is_plain_data() -> None:
    view = parse_fleet(minimal()).defaults_view()
    assert view["network"]["vpc_cidr"] == "10.40.0.0/16"
    assert view["pools"]["train"]["scaling"]["cooldown"] == "300s"
    json.dumps(view)


@pytest.mark.parametrize(("text", "seconds"), [("90s", 90), ("5m", 300), ("1h", 3600), ("30m", 1800)])
def test_duration_seconds(text: str, seconds: int) -> None:
    assert duration_seconds(text) == seconds


def test_integer_duration_is_seconds() -> None:
    scaling = Scaling(cooldown=600, out_for=120, in_for=1800)  # type: ignore[arg-type]
    assert (scaling.cooldown, scaling.cooldown_s, scaling.out_for_s) == ("600s", 600, 120)


def test_off_hours_crons() -> None:
    off = OffHours(timezone="Asia/Shanghai", scale_to_zero="20:30-08:15")
    assert (off.start_hour, off.start_minute, off.end_hour, off.end_minute) == (20, 30, 8, 15)
    assert off.stop_cron == "30 20 * * *"
    assert off.start_cron == "15 8 * * 1-5"
    every_day = OffHours(timezone="UTC", scale_to_zero="22:00-06:00", weekends=False)
    assert every_day.start_cron == "0 6 * * *"


def test_models_check_cross_fields_on_direct_construction() -> None:
    with pytest.raises(ValueError, match=r"max: must be >= size.min \(4\), got 2"):
        Size(min=4, max=2)


# ------------------------------------------------------------------------------------------ errors

ALLOWED_POOL = (
    "cloud, region, instance_types, size, spot_percent, on_demand_base, scaling, off_hours, usage, disk_gib, "
    "transfer, queue, image, workload, fit"
)


@pytest.mark.parametrize(
    ("path", "value", "expected"),
    [
        (["environment"], "qa", ".environment: must be one of dev, staging, prod, got 'qa'"),
        (["pools", "train", "size", "min"], 5,
         ".pools.train.size.max: must be >= size.min (5), got 4"),
        (["pools", "train", "spto_percent"], 50,
         f".pools.train: unknown field 'spto_percent'; did you mean 'spot_percent'? allowed: {ALLOWED_POOL}"),
        (["budget", "monthly"], 0, ".budget.monthly: must be > 0, got 0"),
        (["budget", "alert_percent"], 120, ".budget.alert_percent: must be <= 100, got 120"),
        (["budget", "currency"], "EUR", ".budget.currency: must be one of USD, CNY, got 'EUR'"),
        (["budget", "alert_percent"], "80", ".budget.alert_percent: must be a whole number, got '80'"),
        (["budget", "alert_percent"], 80.5, ".budget.alert_percent: must be a whole number, got 80.5"),
        (["tags"], {"project": "p"},
         ".tags: must contain the cost tags project, team, cost-center; missing: team, cost-center"),
        (["tags", "team"], 7, ".tags.team: must be a string, got 7"),
        (["access", "session_manager"], False,
         ".access.session_manager: there is no SSH switch: "
         "access is through the cloud's session manager only"),
        (["audit", "trail"], "yes", ".audit.trail: must be true or false, got 'yes'"),
        (["audit", "log_retention_days"], -1, ".audit.log_retention_days: must be >= 0, got -1"),
        (["network", "vpc_cidr"], "10.40.0.1/16",
         ".network.vpc_cidr: must be an IPv4 network like 10.40.0.0/16, got '10.40.0.1/16' "
         "(10.40.0.1/16 has host bits set)"),
        (["network", "availability_zones"], 7, ".network.availability_zones: must be <= 6, got 7"),
        (["storage", "checkpoints", "classification"], "restricted",
         ".storage.checkpoints.encryption: must be byok when classification is restricted, "
         "got 'sse-kms'"),
        (["storage", "checkpoints", "ia_after_days"], 30,
         ".storage.checkpoints.ia_after_days: must be < expire_after_days (30), got 30"),
        (["pools", "train", "instance_types"], ["g5.2xlarg"],
         ".pools.train.instance_types[0]: unknown aws instance type 'g5.2xlarg'; "
         "did you mean g5.2xlarge, g5g.2xlarge, g5.24xlarge?"),
        (["pools", "train", "instance_types"], [], ".pools.train.instance_types: "
         "must have at least 1 entry, got none"),
        (["pools", "train", "on_demand_base"], 5,
         ".pools.train.on_demand_base: must be <= size.max (4), got 5"),
        (["pools", "train", "spot_percent"], 101, ".pools.train.spot_percent: must be <= 100, got 101"),
        (["pools", "train", "disk_gib"], 10, ".pools.train.disk_gib: must be >= 20, got 10"),
        (["pools", "train", "cloud"], "gcp",
         ".pools.train.cloud: must be one of aws, alicloud, tencentcloud, got 'gcp'"),
        (["pools", "train", "scaling", "gpu_util_in"], 80,
         ".pools.train.scaling.gpu_util_out: must be > scaling.gpu_util_in (80), got 70"),
        (["pools", "train", "scaling", "in_for"], "2m",
         ".pools.train.scaling.in_for: must be >= scaling.out_for (5m = 300 s), got 2m (120 s)"),
        (["pools", "train", "scaling", "out_for"], "90s",
         ".pools.train.scaling.out_for: must be a whole number of minutes "
         "(CloudWatch alarm periods are multiples of 60 s), got 90s (90 s)"),
        (["pools", "train", "scaling", "cooldown"], "five minutes",
         ".pools.train.scaling.cooldown: must be a duration like 90s, 5m or 1h "
         "(or a whole number of seconds), got 'five minutes'"),
        (["pools", "train", "off_hours"], {"timezone": "Mars/Base", "scale_to_zero": "20:00-08:00"},
         ".pools.train.off_hours.timezone: must be an IANA time zone name Area/Location like "
         "Asia/Shanghai or America/New_York, or UTC (areas: Africa, America, Antarctica, Arctic, Asia, "
         "Atlantic, Australia, Etc, Europe, Indian, Pacific), got 'Mars/Base'"),
        (["pools", "train", "off_hours"], {"timezone": "UTC", "scale_to_zero": "8pm-8am"},
         ".pools.train.off_hours.scale_to_zero: must be a window \"HH:MM-HH:MM\" like "
         "\"20:00-08:00\", got '8pm-8am'"),
        (["pools", "train", "usage"], {"hours_per_day": 25, "average_size": 2},
         ".pools.train.usage.hours_per_day: must be <= 24, got 25"),
        (["pools", "train", "usage"], {"hours_per_day": 8, "average_size": 6},
         ".pools.train.usage.average_size: must be between size.min (0) and size.max (4), got 6"),
        (["pools", "Train_1"], {"instance_types": ["g5.xlarge"], "size": {"max": 1}, "queue": {"name": "t"}},
         ".pools.Train_1: pool names must be lower-case letters, digits and '-', start and end "
         "with a letter or digit, at most 40 characters; got 'Train_1'"),
        (["pools"], {}, ".pools: must have at least 1 entry, got none"),
        (["pools"], [], ".pools: must be a mapping, got a list"),
        (["storage"], "s3", ".storage: must be a mapping of settings, got 's3'"),
        (["onprem"], "lab", ".onprem: must be a mapping of settings, got 'lab'"),
        (["links"], [{"type": "vpn"}], ".links: must be a mapping, got a list"),
        (["spto"], 1,
         ": unknown field 'spto'; allowed: environment, tags, budget, storage, access, "
         "audit, network, account, pools, onprem, links, burst"),
    ],
)  # fmt: skip
def test_error_messages(path: list[str], value: Any, expected: str) -> None:
    assert errors_of(with_change(path, value)) == [f"{SOURCE}: {CONFIG_KEY}{expected}"]


def test_missing_required_fields() -> None:
    assert errors_of({"pools": {}}) == [
        f"{SOURCE}: gpufleet:fleet.environment: is required",
        f"{SOURCE}: gpufleet:fleet.tags: is required",
        f"{SOURCE}: gpufleet:fleet.budget: is required",
        f"{SOURCE}: gpufleet:fleet.pools: must have at least 1 entry, got none",
    ]


@pytest.mark.parametrize(("value", "shown"), [(None, "null"), ([], "a list"), ("fleet", "'fleet'")])
def test_top_level_must_be_a_mapping(value: Any, shown: str) -> None:
    assert errors_of(value) == [f"{SOURCE}: gpufleet:fleet: must be a mapping of settings, got {shown}"]


def test_every_error_reported_at_once() -> None:
    config = with_change(["environment"], "qa")
    config["pools"]["train"]["size"] = {"min": 4, "max": 2}
    config["pools"]["train"]["instance_types"] = ["g5.2xlarg", "p5.48xlarge"]
    config["budget"]["alert_percent"] = 0
    config["storage"] = {"checkpoints": {"classification": "restricted"}}
    lines = errors_of(config)
    assert [line.split(": ", 2)[1] for line in lines] == [
        "gpufleet:fleet.environment",
        "gpufleet:fleet.budget.alert_percent",
        "gpufleet:fleet.storage.checkpoints.encryption",
        "gpufleet:fleet.pools.train.size.max",
        "gpufleet:fleet.pools.train.instance_types[0]",
    ]
    assert f"{SOURCE}: gpufleet:fleet.pools.train.size.max: must be >= size.min (4), got 2" in lines


def test_spec_error_carries_paths_and_messages() -> None:
    with pytest.raises(SpecError) as excinfo:
        parse_fleet(with_change(["environment"], "qa"), source=SOURCE)
    assert excinfo.value.errors == [
        ("gpufleet:fleet.environment", "must be one of dev, staging, prod, got 'qa'")
    ]
    assert str(excinfo.value) == excinfo.value.format()


# ------------------------------------------------------------------------------------ stack config


def test_load_from_stack_config() -> None:
    spec = load_fleet_from_config({"aws:region": "us-west-2", CONFIG_KEY: minimal()}, SOURCE)
    assert isinstance(spec, FleetSpec)
    assert spec.pool_region("train", "us-west-2") == "us-west-2"


def test_load_accepts_json_encoded_structured_config() -> None:
    spec = load_fleet_from_config({"aws:region": "us-east-1", CONFIG_KEY: json.dumps(minimal())}, SOURCE)
    assert spec.pools["train"].size.max == 4


def test_load_missing_key_names_it() -> None:
    with pytest.raises(SpecError) as excinfo:
        load_fleet_from_config({"aws:region": "us-east-1"}, SOURCE)
    assert excinfo.value.errors == [
        (CONFIG_KEY, "is missing: describe the fleet under config: gpufleet:fleet in the stack file")
    ]

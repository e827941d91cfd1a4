"""The typed fleet spec, parsed from the stack's structured config key ``gpufleet:fleet``.

``parse_fleet`` reports every problem at once: pydantic's field errors (rephrased to say what is allowed)
plus the cross-field and catalogue checks, each with its full field path, so one run of ``gpufleet plan``
shows everything a stack file gets wrong.
"""

from __future__ import annotations

import ipaddress
import math
import re
import types
import typing
import zoneinfo
from collections.abc import Callable, Iterator, Mapping
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)
from pydantic_core import PydanticCustomError

from components import spec_limits as limits
from components.catalog import AWS_REGIONS, CLOUDS, load_catalog
from components.spec_limits import IANA_AREAS

__all__ = [
    "ACCOUNT_CONFIG_KEY",
    "CONFIG_KEY",
    "REQUIRED_COST_TAGS",
    "Access",
    "Account",
    "AccountBaselineSpec",
    "Audit",
    "BucketSpec",
    "Budget",
    "Container",
    "FleetSpec",
    "Image",
    "Network",
    "OffHours",
    "Pool",
    "PoolQueue",
    "PoolWorkload",
    "RegionNetwork",
    "Scaling",
    "Size",
    "SpecError",
    "Storage",
    "Transfer",
    "Usage",
    "UsageStep",
    "duration_seconds",
    "load_fleet_from_config",
    "parse_account_baseline",
    "parse_fleet",
]

CONFIG_KEY = "gpufleet:fleet"
ACCOUNT_CONFIG_KEY = "gpufleet:account"
REQUIRED_COST_TAGS = ("project", "team", "cost-center")
NO_SSH_MESSAGE = "there is no SSH switch: access is through the cloud's session manager only"

_DURATION_RE = re.compile(r"^(\d{1,12})\s*([smh])$")
_DURATION_UNITS = {"s": 1, "m": 60, "h": 3600}
_DURATION_FORM = "a duration like 90s, 5m or 1h (or a whole number of seconds)"
_POOL_NAME_RE = re.compile(r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?$")
_POOL_NAME_MAX = 40
_WINDOW_RE = re.compile(r"^([01]\d|2[0-3]):([0-5]\d)-([01]\d|2[0-3]):([0-5]\d)$")
# The error type of checks that parse_fleet re-runs on the raw input with field-level paths.
_CROSS = "gf_cross"
_MAX_SHOWN_INT = 10**15
_INSTANCE_TYPE_MAX = 64  # longer than any instance type name (or network): not looked up, quoted short


class SpecError(Exception):
    """Every problem found in a fleet spec, each as (field path, message)."""

    def __init__(self, errors: list[tuple[str, str]], source: str = "stack config") -> None:
        self.errors = errors
        self.source = source
        super().__init__(self.format())

    def format(self) -> str:
        return "\n".join(f"{self.source}: {path}: {message}" for path, message in self.errors)


# --------------------------------------------------------------------------------------------- values


def _show(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return limits.quote(value)
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, list | tuple):
        return "a list"
    if isinstance(value, float) and value.is_integer() and abs(value) <= _MAX_SHOWN_INT:
        return str(int(value))
    if isinstance(value, int) and abs(value) > _MAX_SHOWN_INT:
        return f"an integer of {len(str(abs(value)))} digits"
    if isinstance(value, int | float):
        return str(value)
    return type(value).__name__


def _parse_duration(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value >= 0 else None
    if isinstance(value, str):
        match = _DURATION_RE.match(value.strip())
        if match:
            return int(match.group(1)) * _DURATION_UNITS[match.group(2)]
    return None


def duration_seconds(value: str) -> int:
    """Seconds in a validated duration string ("90s", "5m", "1h")."""
    seconds = _parse_duration(value)
    if seconds is None:
        raise ValueError(f"must be {_DURATION_FORM}, got {_show(value)}")
    return seconds


def _normalize_duration(value: Any) -> str:
    seconds = _parse_duration(value)
    if seconds is None:
        raise ValueError(f"must be {_DURATION_FORM}, got {_show(value)}")
    return f"{value}s" if isinstance(value, int) else value.strip()


def _minute_multiple(value: str) -> str:
    seconds = duration_seconds(value)
    if seconds % 60 or seconds == 0:
        raise ValueError(
            "must be a whole number of minutes (CloudWatch alarm periods are multiples of 60 s), "
            f"got {value} ({seconds} s)"
        )
    return value


def _ipv4_network(value: Any) -> ipaddress.IPv4Network:
    if isinstance(value, ipaddress.IPv4Network):
        return value
    if not isinstance(value, str):
        raise ValueError(f"must be an IPv4 network like 10.40.0.0/16, got {_show(value)}")
    try:
        return ipaddress.IPv4Network(value.strip())
    except ValueError as exc:
        # The parser's reason quotes the value again: only worth adding for a short one.
        reason = f" ({exc})" if len(value) <= _INSTANCE_TYPE_MAX else ""
        raise ValueError(f"must be an IPv4 network like 10.40.0.0/16, got {_show(value)}{reason}") from None


_T = typing.TypeVar("_T")


def _checked(value: _T, problem: str | None) -> _T:
    """`value`, or a field error when a check found a problem with it."""
    if problem is not None:
        raise ValueError(problem)
    return value


def _reserved(message: str) -> Callable[[Any], None]:
    def check(value: Any) -> None:
        if value is not None:
            raise ValueError(f"{message}; leave it out")

    return check


Duration = Annotated[str, BeforeValidator(_normalize_duration)]
Ipv4Net = Annotated[ipaddress.IPv4Network, BeforeValidator(_ipv4_network)]


def _cross(message: str) -> PydanticCustomError:
    return PydanticCustomError(_CROSS, "{message}", {"message": message})


class _Model(BaseModel):
    # No infinities or NaN anywhere: JSON (reports, the program's config) cannot carry them.
    model_config = ConfigDict(frozen=True, extra="forbid", strict=True, allow_inf_nan=False)


# -------------------------------------------------------------------------------------- cross checks
# Each check takes plain values and returns (relative path, message); parse_fleet runs them on the raw
# config (so they report even when other fields are wrong) and the models run them on construction.


def _bucket_checks(encryption: Any, classification: Any, ia: Any, expire: Any) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    if classification == "restricted" and encryption in ("sse-kms",):
        found.append(
            ("encryption", f"must be byok when classification is restricted, got {_show(encryption)}")
        )
    if _is_int(ia) and _is_int(expire) and ia >= 0 and expire >= 1 and ia >= expire:
        found.append(("ia_after_days", f"must be < expire_after_days ({expire}), got {ia}"))
    return found


def _size_checks(size_min: Any, size_max: Any) -> list[tuple[str, str]]:
    if _is_int(size_min) and _is_int(size_max) and size_min >= 0 and size_max >= 1 and size_max < size_min:
        return [("max", f"must be >= size.min ({size_min}), got {size_max}")]
    return []


def _scaling_checks(util_out: Any, util_in: Any, out_for: Any, in_for: Any) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    in_range = _is_int(util_out) and _is_int(util_in) and 1 <= util_out <= 100 and 0 <= util_in <= 99
    if in_range and util_out <= util_in:
        found.append(("gpu_util_out", f"must be > scaling.gpu_util_in ({util_in}), got {util_out}"))
    out_s, in_s = _parse_duration(out_for), _parse_duration(in_for)
    if out_s and in_s and out_s % 60 == 0 and in_s % 60 == 0 and in_s < out_s:
        found.append(
            ("in_for", f"must be >= scaling.out_for ({out_for} = {out_s} s), got {in_for} ({in_s} s)")
        )
    return found


def _pool_checks(
    cloud: Any, instance_types: Any, size_max: Any, on_demand_base: Any
) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    if cloud in CLOUDS and isinstance(instance_types, list):
        catalog = load_catalog()
        for index, name in enumerate(instance_types):
            if isinstance(name, str) and len(name) > _INSTANCE_TYPE_MAX:
                found.append((f"instance_types[{index}]", f"unknown {cloud} instance type {_show(name)}"))
            elif isinstance(name, str) and catalog.find(cloud, name) is None:
                try:
                    catalog.get(cloud, name)
                except KeyError as exc:
                    found.append((f"instance_types[{index}]", str(exc)))
    max_ok = _is_int(size_max) and size_max >= 1
    if max_ok and _is_int(on_demand_base) and on_demand_base >= 0 and on_demand_base > size_max:
        found.append(("on_demand_base", f"must be <= size.max ({size_max}), got {on_demand_base}"))
    return found


_STEP_FORM = "{size, hours_per_day}"


def _usage_form_checks(usage: Mapping[str, Any]) -> list[tuple[str, str]]:
    """One form or the other: a ``profile`` of steps, or one step as ``hours_per_day`` + ``average_size``."""
    given = {k for k in ("hours_per_day", "average_size", "profile") if usage.get(k) is not None}
    if "profile" in given:
        if given & {"hours_per_day", "average_size"}:
            return [
                (
                    "usage",
                    "give either profile (hours a day at each size) or hours_per_day with average_size "
                    "(one size), not both",
                )
            ]
        if usage["profile"] == []:
            return [
                (
                    "usage.profile",
                    f"must list at least one step {_STEP_FORM}; leave usage out to price the pool at its "
                    "maximum size",
                )
            ]
        return []
    if not given:
        return [
            ("usage", f"needs a profile (a list of {_STEP_FORM} steps) or hours_per_day with average_size")
        ]
    if {"hours_per_day", "average_size"} <= given:
        return []
    missing = "average_size" if "hours_per_day" in given else "hours_per_day"
    written = "hours_per_day" if missing == "average_size" else "average_size"
    return [(f"usage.{missing}", f"is required with usage.{written} (or give a profile instead)")]


def _usage_steps(usage: Mapping[str, Any]) -> tuple[str, list[tuple[str, Any, Any]]]:
    """The path that holds the day's hours, and each step as written: (path of its size, size, hours)."""
    profile = usage.get("profile")
    if profile is None:
        return "usage.hours_per_day", [
            ("usage.average_size", usage.get("average_size"), usage.get("hours_per_day"))
        ]
    if not isinstance(profile, list):
        return "usage.profile", []
    return "usage.profile", [
        (f"usage.profile[{i}].size", _get(step, "size"), _get(step, "hours_per_day"))
        for i, step in enumerate(profile)
    ]


def _finite(value: Any) -> bool:
    return _is_number(value) and math.isfinite(value)


def _usage_hours_per_day(usage: Mapping[str, Any]) -> float | None:
    """The day's hours the steps add up to, or None while a step's hours are themselves invalid."""
    _, steps = _usage_steps(usage)
    hours = [h for _, _, h in steps]
    if not steps or not all(_finite(h) and 0 <= h <= 24 for h in hours):
        return None
    return float(sum(hours))


def _usage_checks(usage: Any, size_min: Any, size_max: Any) -> list[tuple[str, str]]:
    """A usage profile on its own and against the pool's size: every step within size.min..size.max,
    the steps' hours at most the 24 of a day."""
    if not isinstance(usage, Mapping):
        return []
    found = _usage_form_checks(usage)
    hours_path, steps = _usage_steps(usage)
    sizes_ok = _is_int(size_min) and _is_int(size_max) and 0 <= size_min <= size_max and size_max >= 1
    for size_path, size, _ in steps:
        if sizes_ok and _finite(size) and size >= 0 and not size_min <= size <= size_max:
            found.append(
                (
                    size_path,
                    f"must be between size.min ({size_min}) and size.max ({size_max}), got {_show(size)}",
                )
            )
    total = _usage_hours_per_day(usage)
    if total is not None and total > 24 + 1e-9:
        found.append(
            (
                hours_path,
                f"the steps add up to {_show(total)} h a day; a day has 24 h, so at most 24 are allowed",
            )
        )
    return found


def _running_hours_per_day(scale_to_zero: Any) -> float | None:
    """Hours a day an off-hours window leaves running: 24 less the window ("20:00-08:00" leaves 12)."""
    match = _WINDOW_RE.match(scale_to_zero.strip()) if isinstance(scale_to_zero, str) else None
    if match is None:
        return None
    h1, m1, h2, m2 = (int(g) for g in match.groups())
    off_minutes = (h2 * 60 + m2 - h1 * 60 - m1) % 1440
    return None if off_minutes == 0 else (1440 - off_minutes) / 60


def _usage_schedule_checks(usage: Any, off_hours: Any, environment: Any) -> list[tuple[str, str]]:
    """The day's hours in use must fit in the hours the off-hours schedule leaves running. Production
    fleets ignore off_hours (their capacity is never switched off by a timetable), so there is no limit."""
    if environment == "prod" or not isinstance(usage, Mapping) or not isinstance(off_hours, Mapping):
        return []
    running = _running_hours_per_day(off_hours.get("scale_to_zero"))
    total = _usage_hours_per_day(usage)
    if running is None or total is None or total > 24 + 1e-9 or total <= running + 1e-9:
        return []
    hours_path, _ = _usage_steps(usage)
    window = str(off_hours["scale_to_zero"]).strip()
    return [
        (
            hours_path,
            f"{_show(total)} h a day in use, but the off-hours schedule (scale_to_zero {window}) leaves the "
            f"pool running at most {_show(running)} h a day",
        )
    ]


def _network_checks(home_cidr: Any, regions: Any) -> list[tuple[str, str]]:
    """Overlapping VPC ranges across the fleet's regions (they may be peered or routed to later)."""
    if not isinstance(regions, Mapping):
        return []
    ranges: list[tuple[str, ipaddress.IPv4Network]] = []
    for path, value in [("vpc_cidr", home_cidr)] + [
        (f"regions.{region}.vpc_cidr", _get(entry, "vpc_cidr")) for region, entry in regions.items()
    ]:
        try:
            ranges.append((path, _ipv4_network(value)))
        except ValueError:
            continue
    found: list[tuple[str, str]] = []
    for index, (path, network) in enumerate(ranges):
        for other_path, other in ranges[:index]:
            if network.overlaps(other):
                message = f"{network} overlaps network.{other_path} ({other}); give each region its own range"
                found.append((path, message))
    return found


def _pool_name_checks(names: Any) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    for name in names:
        if not isinstance(name, str):
            continue
        if len(name) > _POOL_NAME_MAX or not _POOL_NAME_RE.match(name):
            found.append(
                (
                    limits.clip(name, 60),
                    "pool names must be lower-case letters, digits and '-', start and end with a letter "
                    f"or digit, at most {_POOL_NAME_MAX} characters; got {_show(name)}",
                )
            )
    return found


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _raise_first(found: list[tuple[str, str]]) -> None:
    if found:
        path, message = found[0]
        raise _cross(f"{path}: {message}")


# -------------------------------------------------------------------------------------------- models


# ------------------------------------------------------------- account, first deploy and images (AWS)

_AMI_RE = re.compile(r"^ami-[0-9a-f]{8}([0-9a-f]{9})?$")
_SSM_PARAMETER_RE = re.compile(r"^/[A-Za-z0-9_.\-/]+:\d+$")


def _byok_material_checks(encryption: Any, material: Any) -> list[tuple[str, str]]:
    if material is not None and encryption != "byok":
        return [("byok_material", f"applies to encryption byok only; leave it out with {_show(encryption)}")]
    return []


def _account_checks(baseline: Any, roles: Any) -> list[tuple[str, str]]:
    if baseline == "separate" and roles == "create":
        return [
            (
                "service_linked_roles",
                "must be left out (or existing) with baseline separate: the account-baseline stack creates "
                "them, and a second create fails",
            )
        ]
    return []


def _image_checks(ami: Any, parameter: Any) -> list[tuple[str, str]]:
    if (ami is None) == (parameter is None):
        return [("image", "give exactly one of ami (an AMI id) or ssm_parameter (a name with :version)")]
    return []


class Account(_Model):
    """Where the account's once-only resources live (AWS): ``in-stack`` (this fleet creates them:
    single-stack accounts) or ``separate`` (the account-baseline stack does; see docs/first-deploy.md)."""

    baseline: Literal["in-stack", "separate"] = "in-stack"
    service_linked_roles: Literal["create", "existing"] | None = Field(
        default=None,
        description=(
            "the Auto Scaling service-linked role: create (in-stack default) or existing (the account "
            "already has it); with baseline separate the account-baseline stack owns it"
        ),
    )

    @model_validator(mode="after")
    def _cross_fields(self) -> Account:
        _raise_first(_account_checks(self.baseline, self.service_linked_roles))
        return self

    @property
    def creates_service_linked_roles(self) -> bool:
        return self.baseline == "in-stack" and self.service_linked_roles != "existing"


class Image(_Model):
    """The pool's machine image, pinned: an AMI id, or an SSM parameter name with its version
    (``/aws/service/...:42``), resolved by EC2 at each launch (``resolve:ssm:``)."""

    ami: str | None = Field(default=None, description="an AMI id like ami-0123456789abcdef0")
    ssm_parameter: str | None = Field(default=None, description="a parameter name with :version")

    @field_validator("ami")
    @classmethod
    def _ami_id(cls, value: str | None) -> str | None:
        if value is not None and not _AMI_RE.match(value):
            raise ValueError(f"must be an AMI id like ami-0123456789abcdef0, got {value!r}")
        return value

    @field_validator("ssm_parameter")
    @classmethod
    def _pinned(cls, value: str | None) -> str | None:
        if value is not None and not _SSM_PARAMETER_RE.match(value):
            raise ValueError(
                "must be an SSM parameter name with its version, like /aws/service/deeplearning/ami/"
                f"x86_64/base-oss-nvidia-driver-gpu-amazon-linux-2023/latest/ami-id:42, got {value!r}"
            )
        return value

    @model_validator(mode="after")
    def _cross_fields(self) -> Image:
        if _image_checks(self.ami, self.ssm_parameter):
            raise _cross(_image_checks(self.ami, self.ssm_parameter)[0][1])
        return self

    @property
    def image_id(self) -> str:
        """What a launch template's ``image_id`` takes."""
        return self.ami if self.ami is not None else f"resolve:ssm:{self.ssm_parameter}"


_AWS_REGION_RE = re.compile(r"^[a-z]{2}(-[a-z]+)+-\d+$")


class Budget(_Model):
    monthly: float = Field(gt=0, le=limits.MAX_MONTHLY_BUDGET, description="monthly budget, in `currency`")
    currency: Literal["USD", "CNY"] = "USD"
    alert_percent: int = Field(default=80, ge=1, le=100, description="alert at this % of the budget")
    activate_stack_tag: bool = Field(
        default=False,
        description=(
            "activate the gpufleet:stack cost-allocation tag the budget filters on, from this stack; "
            "AWS offers a new tag key for activation about a day after resources first carry it, so "
            "turn this on for the second deploy, or activate the tag in the payer account"
        ),
    )


class BucketSpec(_Model):
    encryption: Literal["sse-kms", "byok"] = "sse-kms"
    classification: Literal["public", "internal", "confidential", "restricted"] = "internal"
    ia_after_days: int = Field(default=7, ge=0, description="days before the infrequent-access class")
    expire_after_days: int = Field(default=30, ge=1, description="days before objects are deleted")
    noncurrent_expire_days: int = Field(default=7, ge=1, description="days noncurrent versions are kept")
    replicate_to: str | None = Field(
        default=None, description="second AWS region holding a two-way replica of the bucket"
    )
    written_gib_per_month: float | None = Field(
        default=None,
        ge=0,
        le=limits.MAX_GIB,
        allow_inf_nan=False,
        description="GiB of checkpoints written a month, fleet-wide (prices storage over the lifecycle)",
    )
    byok_material: Literal["pending", "imported", "config"] | None = Field(
        default=None,
        description=(
            "byok only: pending (first deploy builds the keys alone), imported (material is in; build "
            "everything; the default), config (material in the secret config gpufleet:byokMaterial)"
        ),
    )

    @model_validator(mode="after")
    def _cross_fields(self) -> BucketSpec:
        found = _bucket_checks(
            self.encryption, self.classification, self.ia_after_days, self.expire_after_days
        )
        found += _byok_material_checks(self.encryption, self.byok_material)
        _raise_first(found)
        return self

    @property
    def material(self) -> Literal["pending", "imported", "config"] | None:
        """How a byok key gets its material (None for sse-kms keys, whose material AWS makes)."""
        if self.encryption != "byok":
            return None
        return self.byok_material or "imported"


class Storage(_Model):
    checkpoints: BucketSpec = BucketSpec()
    data_prefix: str = "data/"
    checkpoint_prefix: str = "checkpoints/"
    datasets_gib: float | None = Field(
        default=None,
        ge=0,
        le=limits.MAX_GIB,
        allow_inf_nan=False,
        description="GiB of datasets kept under data_prefix (prices their storage at STANDARD)",
    )


class Transfer(_Model):
    """Data a pool moves a month that the cloud bills by volume, for the monthly estimate."""

    egress_gib_per_month: float | None = Field(
        default=None,
        ge=0,
        le=limits.MAX_GIB,
        allow_inf_nan=False,
        description="GiB a month sent to the internet",
    )
    cross_region_gib_per_month: float | None = Field(
        default=None,
        ge=0,
        le=limits.MAX_GIB,
        allow_inf_nan=False,
        description="GiB a month sent from the pool's region to another region of its cloud",
    )


class Access(_Model):
    session_manager: Literal[True] = True
    session_log_retention_days: int = Field(
        default=180, ge=1, description="days the Session Manager log group (CloudWatch Logs) keeps sessions"
    )

    @field_validator("session_log_retention_days")
    @classmethod
    def _allowed_retention(cls, value: int) -> int:
        return _checked(value, limits.retention_problem(value, forever=False))


class Audit(_Model):
    log_retention_days: int = Field(
        default=180,
        ge=0,
        description="days the audit log group and trail bucket keep logs; 0 keeps them forever",
    )
    trail: bool = True

    @field_validator("log_retention_days")
    @classmethod
    def _allowed_retention(cls, value: int) -> int:
        return _checked(value, limits.retention_problem(value, forever=True))


class RegionNetwork(_Model):
    """The private network of a second region the fleet's pools reach."""

    vpc_cidr: Ipv4Net
    availability_zones: int = Field(default=2, ge=1, le=6)

    @model_validator(mode="after")
    def _cross_fields(self) -> RegionNetwork:
        _raise_first(limits.vpc_cidr_checks(self.vpc_cidr, self.availability_zones))
        return self


class Network(_Model):
    vpc_cidr: Ipv4Net = ipaddress.IPv4Network("10.40.0.0/16")
    subnet_ids: list[str] | None = Field(
        default=None, description="existing private subnets to run pools in, instead of a new VPC"
    )
    availability_zones: int = Field(default=2, ge=1, le=6)
    regions: dict[str, RegionNetwork] = Field(
        default_factory=dict, description="networks of the other regions pools run in, by region"
    )
    egress: Literal["none", "endpoints", "nat"] = Field(
        default="none",
        description=(
            "the private subnets' way out: none (the fleet's own VPC endpoints), endpoints (also ECR and "
            "STS, for containers), nat (a NAT gateway: HTTPS anywhere, billed hourly)"
        ),
    )

    @field_validator("subnet_ids")
    @classmethod
    def _subnets(cls, value: list[str] | None) -> list[str] | None:
        return value if value is None else _checked(value, limits.subnet_ids_problem(value))

    @model_validator(mode="after")
    def _cross_fields(self) -> Network:
        found = [] if self.subnet_ids else limits.vpc_cidr_checks(self.vpc_cidr, self.availability_zones)
        _raise_first(found + _network_checks(self.vpc_cidr, self.regions))
        return self


class Size(_Model):
    min: int = Field(default=0, ge=0)
    max: int = Field(ge=1, le=limits.MAX_POOL_SIZE)

    @model_validator(mode="after")
    def _cross_fields(self) -> Size:
        _raise_first(_size_checks(self.min, self.max))
        return self


class Scaling(_Model):
    gpu_util_out: int = Field(default=70, ge=1, le=100, description="% GPU utilisation to scale out")
    out_for: Duration = "5m"
    queue_out: int = Field(
        default=10,
        ge=1,
        description="messages waiting in the pool's queue to scale out (size.min 0: any message wakes it)",
    )
    gpu_util_in: int = Field(default=30, ge=0, le=99, description="% GPU utilisation to scale in")
    in_for: Duration = "30m"
    cooldown: Duration = "300s"

    @field_validator("out_for", "in_for")
    @classmethod
    def _whole_minutes(cls, value: str) -> str:
        _minute_multiple(value)
        return _checked(value, limits.alarm_window_problem(duration_seconds(value), value))

    @field_validator("cooldown")
    @classmethod
    def _sane_cooldown(cls, value: str) -> str:
        return _checked(value, limits.cooldown_problem(duration_seconds(value), value))

    @model_validator(mode="after")
    def _cross_fields(self) -> Scaling:
        _raise_first(_scaling_checks(self.gpu_util_out, self.gpu_util_in, self.out_for, self.in_for))
        return self

    @property
    def out_for_s(self) -> int:
        return duration_seconds(self.out_for)

    @property
    def in_for_s(self) -> int:
        return duration_seconds(self.in_for)

    @property
    def cooldown_s(self) -> int:
        return duration_seconds(self.cooldown)


class OffHours(_Model):
    timezone: str
    scale_to_zero: str = Field(description='window with no capacity, "HH:MM-HH:MM", e.g. "20:00-08:00"')
    weekends: bool = True

    @field_validator("timezone")
    @classmethod
    def _known_zone(cls, value: str) -> str:
        # AWS scheduled actions take the canonical IANA names only: see spec_limits.is_area_zone_name.
        known = limits.is_area_zone_name(value)
        if known:
            try:
                zoneinfo.ZoneInfo(value)
            except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
                known = False
        if not known:
            raise ValueError(
                "must be an IANA time zone name Area/Location like Asia/Shanghai or America/New_York, or "
                f"UTC (areas: {', '.join(IANA_AREAS)}), got {_show(value)}"
            )
        return value

    @field_validator("scale_to_zero")
    @classmethod
    def _window(cls, value: str) -> str:
        match = _WINDOW_RE.match(value.strip())
        if not match:
            raise ValueError(f'must be a window "HH:MM-HH:MM" like "20:00-08:00", got {_show(value)}')
        if match.group(1, 2) == match.group(3, 4):
            raise ValueError(f"must have different start and end times, got {_show(value)}")
        return value.strip()

    def _parts(self) -> tuple[int, int, int, int]:
        match = _WINDOW_RE.match(self.scale_to_zero)
        if match is None:  # validated on construction
            raise AssertionError(self.scale_to_zero)
        h1, m1, h2, m2 = (int(g) for g in match.groups())
        return h1, m1, h2, m2

    @property
    def start_hour(self) -> int:
        """Hour the scale-to-zero window starts (capacity goes to zero)."""
        return self._parts()[0]

    @property
    def start_minute(self) -> int:
        return self._parts()[1]

    @property
    def end_hour(self) -> int:
        """Hour the window ends (capacity comes back)."""
        return self._parts()[2]

    @property
    def end_minute(self) -> int:
        return self._parts()[3]

    @property
    def stop_cron(self) -> str:
        """Cron recurrence, in ``timezone``, that scales the pool to zero (every day)."""
        return f"{self.start_minute} {self.start_hour} * * *"

    @property
    def start_cron(self) -> str:
        """Cron recurrence, in ``timezone``, that restores capacity; weekdays only when weekends are off."""
        days = "1-5" if self.weekends else "*"
        return f"{self.end_minute} {self.end_hour} * * {days}"


class UsageStep(_Model):
    """Hours a day a pool runs at one size."""

    size: float = Field(ge=0, description="instances running, within size.min..size.max")
    hours_per_day: float = Field(ge=0, le=24, description="hours a day at this size")


class Usage(_Model):
    """How much a pool runs, for the monthly estimate: hours a day at each size.

    Either ``profile``, a list of steps, or the one-step form ``hours_per_day`` with ``average_size``.
    The steps' hours add up to at most 24 and to at most the hours the off-hours schedule leaves
    running; the scheduled hours no step covers are priced at size.min.
    """

    hours_per_day: float | None = Field(default=None, ge=0, le=24, description="one step: hours a day in use")
    average_size: float | None = Field(
        default=None, ge=0, description="one step: average instances running while in use"
    )
    days_per_month: float = Field(default=30, ge=1, le=31, description="days a month the pool is in use")
    profile: list[UsageStep] | None = Field(
        default=None, description="hours a day at each size; the rest of the scheduled hours at size.min"
    )

    @model_validator(mode="after")
    def _cross_fields(self) -> Usage:
        _raise_first(_usage_form_checks(self.model_dump()))
        return self

    @property
    def steps(self) -> tuple[UsageStep, ...]:
        """The profile's steps; the one-step form as one step."""
        if self.profile is not None:
            return tuple(self.profile)
        if self.hours_per_day is None or self.average_size is None:  # validated on construction
            raise AssertionError("usage has neither a profile nor hours_per_day with average_size")
        return (UsageStep(size=self.average_size, hours_per_day=self.hours_per_day),)

    @property
    def is_profile(self) -> bool:
        """True when written as a ``profile`` list (errors and reports name usage.profile[i])."""
        return self.profile is not None


# ------------------------------------------------------------------------------------- pool queue
_QUEUE_NAME_RE = re.compile(r"^[A-Za-z0-9_-]{1,75}\.fifo$|^[A-Za-z0-9_-]{1,80}$")
_QUEUE_ARN_RE = re.compile(r"^arn:aws[a-z-]*:sqs:[a-z]{2}(-[a-z]+)+-\d:\d{12}:(?P<name>[^:]+)$")
_KMS_KEY_ARN_RE = re.compile(r"^arn:aws[a-z-]*:kms:[a-z]{2}(-[a-z]+)+-\d:\d{12}:key/[A-Za-z0-9-]{1,128}$")
_MAX_VISIBILITY_S = 43_200


class PoolQueue(_Model):
    """The SQS queue a pool takes work from and scales out on (AWS/SQS
    ApproximateNumberOfMessagesVisible). Left out, the fleet creates one, encrypted with the fleet key,
    with a dead-letter queue; ``name`` or ``arn`` names an existing queue in the stack's account and
    the pool's region instead, whose encryption and dead-letter queue are its owner's (with a
    customer-managed key, name it in ``kms_key_arn`` so the pool's role may decrypt through SQS)."""

    name: str | None = Field(default=None, description="an existing queue's name")
    arn: str | None = Field(default=None, description="an existing queue's ARN, in the stack's account")
    kms_key_arn: str | None = Field(
        default=None, description="an existing queue's customer-managed key: the pool's role may decrypt"
    )
    visibility_timeout: Duration = Field(
        default="15m", description="how long a received message stays hidden (a created queue)"
    )
    max_receives: int = Field(
        default=5, ge=1, le=1000, description="receives before a message moves to the dead-letter queue"
    )

    @field_validator("name")
    @classmethod
    def _queue_name(cls, value: str | None) -> str | None:
        if value is not None and not _QUEUE_NAME_RE.match(value):
            raise ValueError(
                "must be an SQS queue name: 1-80 letters, digits, '-' or '_' (a FIFO queue ends in .fifo), "
                f"got {value!r}"
            )
        return value

    @field_validator("arn")
    @classmethod
    def _queue_arn(cls, value: str | None) -> str | None:
        match = _QUEUE_ARN_RE.match(value) if value is not None else None
        if value is not None and (match is None or not _QUEUE_NAME_RE.match(match.group("name"))):
            raise ValueError(
                f"must be an SQS queue ARN like arn:aws:sqs:us-east-1:123456789012:jobs, got {value!r}"
            )
        return value

    @field_validator("kms_key_arn")
    @classmethod
    def _key_arn(cls, value: str | None) -> str | None:
        if value is not None and not _KMS_KEY_ARN_RE.match(value):
            raise ValueError(
                "must be a KMS key ARN like arn:aws:kms:us-east-1:123456789012:key/1234abcd-12ab-34cd-56ef-"
                f"1234567890ab (not an alias), got {_show(value)}"
            )
        return value

    @field_validator("visibility_timeout")
    @classmethod
    def _visibility(cls, value: str) -> str:
        if duration_seconds(value) > _MAX_VISIBILITY_S:
            raise ValueError(f"must be at most 12h (SQS's longest visibility timeout), got {value}")
        return value

    @model_validator(mode="after")
    def _one_source(self) -> PoolQueue:
        if self.name is not None and self.arn is not None:
            raise ValueError("give either name or arn of an existing queue, not both")
        if self.kms_key_arn is not None and self.name is None and self.arn is None:
            raise ValueError(
                "kms_key_arn is the key of an existing queue (name or arn); a queue the fleet creates is "
                "encrypted with the fleet's key"
            )
        settings = sorted(self.model_fields_set & {"visibility_timeout", "max_receives"})
        if settings and (self.name is not None or self.arn is not None):
            raise ValueError(
                f"{' and '.join(settings)} apply to a queue the fleet creates; an existing queue "
                "(name or arn) keeps its own settings"
            )
        return self

    @property
    def existing(self) -> bool:
        return self.name is not None or self.arn is not None

    @property
    def visibility_timeout_s(self) -> int:
        return duration_seconds(self.visibility_timeout)


# ----------------------------------------------------------------------------------------- workload
_MAX_SNIPPET_CHARS = limits.MAX_WORKLOAD_CHARS


class Container(_Model):
    """A container the pool's instances run with every GPU (Docker, or nerdctl), restarted when it
    stops. ``env`` is readable by anyone who can read the launch template: no secrets."""

    image: str = Field(description="an image reference; in ECR (pulled through endpoints), or any registry")
    command: list[str] | None = Field(default=None, description="replaces the image's command")
    env: dict[str, str] = Field(default_factory=dict, description="environment variables (no secrets)")

    @field_validator("image")
    @classmethod
    def _reference(cls, value: str) -> str:
        if not limits.IMAGE_RE.match(value):
            raise ValueError(f"must be an image reference like {limits.IMAGE_EXAMPLES}, got {_show(value)}")
        return value

    @field_validator("env")
    @classmethod
    def _names(cls, value: dict[str, str]) -> dict[str, str]:
        bad = [name for name in value if not limits.ENV_NAME_RE.match(name)]
        if bad:
            raise ValueError(
                "names must be environment variable names (letters, digits and _, not starting with a "
                f"digit), got {', '.join(_show(name) for name in bad[:5])}"
            )
        return value

    @model_validator(mode="after")
    def _fits_user_data(self) -> Container:
        size = limits.container_size(self.image, self.command or [], self.env)
        if size > limits.MAX_WORKLOAD_CHARS:
            raise ValueError(
                f"image, command and env take about {size} characters of user data; at most "
                f"{limits.MAX_WORKLOAD_CHARS} fit in EC2's 16 KB beside the agent's setup: keep large "
                "settings in S3 or SSM Parameter Store and read them in the container"
            )
        return self


class PoolWorkload(_Model):
    """What a pool's instances run after the CloudWatch agent starts: ``user_data`` (a shell
    snippet, run by bash as root) or ``container``; exactly one."""

    user_data: str | None = Field(default=None, description="a shell snippet run after the agent starts")
    container: Container | None = None

    @field_validator("user_data")
    @classmethod
    def _snippet(cls, value: str | None) -> str | None:
        if value is None:
            return value
        if not value.strip():
            raise ValueError("must not be empty; leave workload out instead")
        if len(value) > _MAX_SNIPPET_CHARS:
            raise ValueError(
                f"must be at most {_MAX_SNIPPET_CHARS} characters (EC2 takes 16 KB of user data, the "
                f"agent's setup included), got {len(value)}: fetch a longer script from S3 instead"
            )
        if "\x00" in value:
            raise ValueError("must not contain a NUL character")
        return value

    @model_validator(mode="after")
    def _one_kind(self) -> PoolWorkload:
        if (self.user_data is None) == (self.container is None):
            raise ValueError("give exactly one of user_data (a shell snippet) or container (an image)")
        return self


class Pool(_Model):
    cloud: Literal["aws", "alicloud", "tencentcloud"] = "aws"
    region: str | None = Field(default=None, description="None: the stack's provider region")
    instance_types: list[str] = Field(min_length=1)
    size: Size
    spot_percent: int = Field(default=0, ge=0, le=100)
    on_demand_base: int = Field(default=0, ge=0)
    scaling: Scaling = Scaling()
    off_hours: OffHours | None = None
    usage: Usage | None = None
    disk_gib: int = Field(default=200, ge=20, le=16384)
    transfer: Transfer | None = None
    queue: PoolQueue = PoolQueue()
    image: Image | None = Field(default=None, description="None: the newest Deep Learning Base AMI")
    workload: PoolWorkload | None = Field(default=None, description="None: the image brings its own")

    @model_validator(mode="after")
    def _cross_fields(self) -> Pool:
        found = _pool_checks(self.cloud, self.instance_types, self.size.max, self.on_demand_base)
        if self.usage is not None:
            found += _usage_checks(self.usage.model_dump(), self.size.min, self.size.max)
        _raise_first(found)
        return self


class FleetSpec(_Model):
    environment: Literal["dev", "staging", "prod"]
    tags: dict[str, str]
    budget: Budget
    storage: Storage = Storage()
    access: Access = Access()
    audit: Audit = Audit()
    network: Network = Network()
    account: Account = Account()
    pools: dict[str, Pool] = Field(min_length=1)
    onprem: Annotated[None, BeforeValidator(_reserved("on-prem baseline is not supported yet"))] = None
    links: Annotated[None, BeforeValidator(_reserved("private links are not supported yet"))] = None

    @field_validator("tags")
    @classmethod
    def _cost_tags_present(cls, value: dict[str, str]) -> dict[str, str]:
        missing = [tag for tag in REQUIRED_COST_TAGS if not value.get(tag)]
        if missing:
            raise ValueError(
                f"must contain the cost tags {', '.join(REQUIRED_COST_TAGS)}; missing: {', '.join(missing)}"
            )
        return value

    @model_validator(mode="after")
    def _consistent_tags(self) -> FleetSpec:
        found = limits.tag_checks(self.tags, self.environment)
        _raise_first([(f"tags{rel}", message) for rel, message in found])
        return self

    @model_validator(mode="after")
    def _pool_names(self) -> FleetSpec:
        found = _pool_name_checks(self.pools)
        if found:
            raise _cross(f"pools.{found[0][0]}: {found[0][1]}")
        return self

    @model_validator(mode="after")
    def _workload_routes(self) -> FleetSpec:
        for name, pool in self.pools.items():
            if pool.workload is not None:
                found = limits.workload_route_checks(
                    pool.workload.model_dump(), self.network.egress, self.network.subnet_ids
                )
                if found:
                    raise _cross(f"pools.{name}.workload.{found[0][0]}: {found[0][1]}")
        return self

    @model_validator(mode="after")
    def _usage_within_schedules(self) -> FleetSpec:
        for name, pool in self.pools.items():
            if pool.usage is not None and pool.off_hours is not None:
                found = _usage_schedule_checks(
                    pool.usage.model_dump(), pool.off_hours.model_dump(), self.environment
                )
                _raise_first([(f"pools.{name}.{path}", message) for path, message in found])
        return self

    @property
    def cost_tags(self) -> dict[str, str]:
        """The tags every taggable resource carries: the spec's tags plus ``env`` from the environment."""
        return {**self.tags, "env": self.tags.get("env", self.environment)}

    def pool_region(self, name: str, default: str) -> str:
        """The pool's region, or ``default`` (the stack's provider region) where the pool names none."""
        region = self.pools[name].region
        return region if region is not None else default

    def defaults_view(self) -> dict[str, Any]:
        """The whole spec with every default filled in, as plain data (for `gpufleet plan`)."""
        return self.model_dump(mode="json")


class AccountBaselineSpec(_Model):
    """``gpufleet:account``: the account-baseline stack (one per account), see components.account.aws."""

    tags: dict[str, str]
    budget: Budget
    audit: Audit = Audit()
    regions: list[str] = Field(
        default_factory=list, description="regions that get the per-region settings; none: aws:region"
    )
    session_log_retention_days: int = Field(
        default=180, ge=1, description="days Session Manager logs are kept"
    )
    service_linked_roles: Literal["create", "existing"] = "create"

    @field_validator("tags")
    @classmethod
    def _cost_tags_present(cls, value: dict[str, str]) -> dict[str, str]:
        missing = [tag for tag in REQUIRED_COST_TAGS if not value.get(tag)]
        if missing:
            raise ValueError(
                f"must contain the cost tags {', '.join(REQUIRED_COST_TAGS)}; missing: {', '.join(missing)}"
            )
        return value

    @field_validator("regions")
    @classmethod
    def _region_names(cls, value: list[str]) -> list[str]:
        bad = [r for r in value if not _AWS_REGION_RE.match(r)]
        if bad:
            raise ValueError(f"must list AWS region names like us-east-1, got {', '.join(map(repr, bad))}")
        if len(set(value)) != len(value):
            raise ValueError("must not list a region twice")
        return value

    @property
    def cost_tags(self) -> dict[str, str]:
        """The spec's tags plus ``env: shared`` unless given: the baseline serves every environment."""
        return {**self.tags, "env": self.tags.get("env", "shared")}


# ------------------------------------------------------------------------------------ error mapping


def _unwrap(annotation: Any) -> Any:
    while True:
        origin = typing.get_origin(annotation)
        if origin is Annotated:
            annotation = typing.get_args(annotation)[0]
        elif origin in (typing.Union, types.UnionType):
            annotation = next(a for a in typing.get_args(annotation) if a is not type(None))
        else:
            return annotation


def _model_at(loc: tuple[Any, ...], root: type[BaseModel] | None = None) -> type[BaseModel] | None:
    annotation: Any = root or FleetSpec
    for part in loc:
        annotation = _unwrap(annotation)
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            if part not in annotation.model_fields:
                return None
            annotation = annotation.model_fields[part].annotation
        elif typing.get_origin(annotation) is dict:
            annotation = typing.get_args(annotation)[1]
        elif typing.get_origin(annotation) is list:
            annotation = typing.get_args(annotation)[0]
        else:
            return None
    annotation = _unwrap(annotation)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    return None


def _path(loc: tuple[Any, ...], key: str = CONFIG_KEY) -> str:
    path = key
    for part in loc:
        if isinstance(part, int) and not isinstance(part, bool):
            path += f"[{part}]"
        else:
            path += f".{limits.clip(str(part), 60)}"
    return path


def _choices(expected: str) -> str:
    names = re.findall(r"'([^']*)'|(\w+)", expected)
    return ", ".join(a or b for a, b in names if (a or b) != "or")


_SIMPLE_MESSAGES = {
    "missing": "is required",
    "int_type": "must be a whole number, got {input}",
    "int_parsing": "must be a whole number, got {input}",
    "int_from_float": "must be a whole number, got {input}",
    "float_type": "must be a number, got {input}",
    "float_parsing": "must be a number, got {input}",
    "bool_type": "must be true or false, got {input}",
    "bool_parsing": "must be true or false, got {input}",
    "string_type": "must be a string, got {input}",
    "dict_type": "must be a mapping, got {input}",
    "list_type": "must be a list, got {input}",
    "none_required": "must be left out, got {input}",
    "finite_number": "must be a finite number, got {input}",
}


def _message(error: Mapping[str, Any], root: type[BaseModel] | None = None) -> tuple[tuple[Any, ...], str]:
    kind: str = error["type"]
    loc: tuple[Any, ...] = tuple(error["loc"])
    ctx: Mapping[str, Any] = error.get("ctx") or {}
    shown = _show(error.get("input"))
    if loc and loc[-1] == "[key]":
        return loc[:-1], f"names must be strings, got {shown}"
    if kind == "extra_forbidden":
        model = _model_at(loc[:-1], root)
        allowed = ", ".join(model.model_fields) if model else "none"
        return loc[:-1], f"unknown field {limits.quote(str(loc[-1]), 60)}; allowed: {allowed}"
    if kind == "literal_error":
        if loc[-2:] == ("access", "session_manager"):
            return loc, NO_SSH_MESSAGE
        return loc, f"must be one of {_choices(str(ctx.get('expected', '')))}, got {shown}"
    if kind in ("model_type", "model_attributes_type"):
        return loc, f"must be a mapping of settings, got {shown}"
    if kind == "greater_than_equal":
        return loc, f"must be >= {_show(ctx['ge'])}, got {shown}"
    if kind == "less_than_equal":
        return loc, f"must be <= {_show(ctx['le'])}, got {shown}"
    if kind == "greater_than":
        return loc, f"must be > {_show(ctx['gt'])}, got {shown}"
    if kind == "less_than":
        return loc, f"must be < {_show(ctx['lt'])}, got {shown}"
    if kind == "too_short":
        return loc, f"must have at least {ctx['min_length']} entry, got none"
    if kind in ("value_error", "assertion_error"):
        message = str(ctx.get("error", error["msg"]))
        return loc, message.removeprefix("Value error, ")
    if kind in _SIMPLE_MESSAGES:
        return loc, _SIMPLE_MESSAGES[kind].format(input=shown)
    return loc, str(error["msg"])


# -------------------------------------------------------------------------------------- raw checks


def _get(node: Any, key: str, default: Any = None) -> Any:
    return node.get(key, default) if isinstance(node, Mapping) else None


def _field_default(model: type[BaseModel], name: str) -> Any:
    return model.model_fields[name].default


def _raw_cross_checks(raw: Any) -> Iterator[tuple[str, str]]:
    for rel, message in limits.tag_checks(_get(raw, "tags"), _get(raw, "environment")):
        yield f"{CONFIG_KEY}.tags{rel}", message
    network = _get(raw, "network", {})
    if isinstance(network, Mapping):
        home_cidr = network.get("vpc_cidr", str(_field_default(Network, "vpc_cidr")))
        zones = network.get("availability_zones", _field_default(Network, "availability_zones"))
        if not network.get("subnet_ids"):
            for rel, message in limits.vpc_cidr_checks(home_cidr, zones):
                yield f"{CONFIG_KEY}.network.{rel}", message
        regions = network.get("regions", {})
        for region, entry in regions.items() if isinstance(regions, Mapping) else ():
            zones = _get(entry, "availability_zones", _field_default(RegionNetwork, "availability_zones"))
            for rel, message in limits.vpc_cidr_checks(_get(entry, "vpc_cidr"), zones):
                yield f"{CONFIG_KEY}.network.regions.{limits.clip(str(region), 60)}.{rel}", message
        for rel, message in _network_checks(home_cidr, regions):
            yield f"{CONFIG_KEY}.network.{rel}", message
    checkpoints = _get(_get(raw, "storage", {}), "checkpoints", {})
    if isinstance(checkpoints, Mapping):
        defaults = {n: _field_default(BucketSpec, n) for n in BucketSpec.model_fields}
        found = _bucket_checks(
            *(checkpoints.get(n, defaults[n]) for n in ("encryption", "classification")),
            *(checkpoints.get(n, defaults[n]) for n in ("ia_after_days", "expire_after_days")),
        )
        found += _byok_material_checks(
            checkpoints.get("encryption", defaults["encryption"]), checkpoints.get("byok_material")
        )
        for rel, message in found:
            yield f"{CONFIG_KEY}.storage.checkpoints.{rel}", message
    account = _get(raw, "account", {})
    if isinstance(account, Mapping):
        found = _account_checks(
            account.get("baseline", _field_default(Account, "baseline")), account.get("service_linked_roles")
        )
        for rel, message in found:
            yield f"{CONFIG_KEY}.account.{rel}", message
    pools = _get(raw, "pools")
    if not isinstance(pools, Mapping):
        return
    for rel, message in _pool_name_checks(pools):
        yield f"{CONFIG_KEY}.pools.{rel}", message
    for name, pool in pools.items():
        if not isinstance(pool, Mapping):
            continue
        prefix = f"{CONFIG_KEY}.pools.{limits.clip(str(name), 60)}"
        size = pool.get("size")
        size_min = _get(size, "min", _field_default(Size, "min"))
        size_max = _get(size, "max")
        for rel, message in _size_checks(size_min, size_max):
            yield f"{prefix}.size.{rel}", message
        scaling = pool.get("scaling", {})
        if isinstance(scaling, Mapping):
            values = {n: scaling.get(n, _field_default(Scaling, n)) for n in Scaling.model_fields}
            found = _scaling_checks(
                values["gpu_util_out"], values["gpu_util_in"], values["out_for"], values["in_for"]
            )
            for rel, message in found:
                yield f"{prefix}.scaling.{rel}", message
        for rel, message in _pool_checks(
            pool.get("cloud", _field_default(Pool, "cloud")),
            pool.get("instance_types"),
            size_max,
            pool.get("on_demand_base", _field_default(Pool, "on_demand_base")),
        ):
            yield f"{prefix}.{rel}", message
        egress = _get(network, "egress", _field_default(Network, "egress"))
        for rel, message in limits.workload_route_checks(
            pool.get("workload"), egress, _get(network, "subnet_ids")
        ):
            yield f"{prefix}.workload.{rel}", message
        image = pool.get("image")
        if isinstance(image, Mapping):
            for _, message in _image_checks(image.get("ami"), image.get("ssm_parameter")):
                yield f"{prefix}.image", message
        usage = pool.get("usage")
        found = _usage_checks(usage, size_min, size_max)
        found += _usage_schedule_checks(usage, pool.get("off_hours"), _get(raw, "environment"))
        for rel, message in found:
            yield f"{prefix}.{rel}", message


# ----------------------------------------------------------------------------------------- parsing


def parse_fleet(config_value: Any, *, source: str = "stack config") -> FleetSpec:
    """Parse ``gpufleet:fleet`` into a FleetSpec, or raise SpecError listing every problem."""
    errors: list[tuple[str, str]] = []
    spec: FleetSpec | None = None
    try:
        spec = FleetSpec.model_validate(config_value)
    except ValidationError as exc:
        for error in exc.errors():
            if error["type"] == _CROSS:
                continue
            loc, message = _message(error)
            errors.append((_path(loc), message))
    for item in _raw_cross_checks(config_value):
        if item not in errors:
            errors.append(item)
    if errors or spec is None:
        raise SpecError(errors or [(CONFIG_KEY, "is not a valid fleet spec")], source)
    return spec


def parse_account_baseline(config_value: Any, *, source: str = "stack config") -> AccountBaselineSpec:
    """Parse ``gpufleet:account`` into an AccountBaselineSpec, or raise SpecError listing every problem."""
    if isinstance(config_value, str):
        try:
            config_value = limits.parse_json(config_value)
        except ValueError:
            message = "must be a mapping of account-baseline settings, got a string that is not JSON"
            raise SpecError([(ACCOUNT_CONFIG_KEY, message)], source) from None
    try:
        return AccountBaselineSpec.model_validate(config_value)
    except ValidationError as exc:
        errors = []
        for error in exc.errors():
            loc, message = _message(error, AccountBaselineSpec)
            errors.append((_path(loc, ACCOUNT_CONFIG_KEY), message))
        raise SpecError(errors, source) from None


def load_fleet_from_config(config: Mapping[str, Any], source: str = "stack config") -> FleetSpec:
    """Read the fleet from a stack's config mapping (keys like ``gpufleet:fleet``, ``aws:region``)."""
    if CONFIG_KEY not in config:
        raise SpecError(
            [(CONFIG_KEY, "is missing: describe the fleet under config: gpufleet:fleet in the stack file")],
            source,
        )
    region = config.get("aws:region")
    if region is not None and region not in AWS_REGIONS:
        message = f"unknown AWS region {region!r}; use one of {', '.join(AWS_REGIONS)}"
        raise SpecError([("aws:region", message)], source)
    value = config[CONFIG_KEY]
    if isinstance(value, str):
        # The Pulumi engine hands structured config to programs as a JSON string.
        try:
            value = limits.parse_json(value)
        except limits.JsonProblem as exc:
            raise SpecError([(CONFIG_KEY, str(exc))], source) from None
    return parse_fleet(value, source=source)

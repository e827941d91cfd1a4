"""The spec's config keys, its error type, and the values its fields take: durations, IPv4 networks,
values shown in messages; the strict base model every section builds on."""

from __future__ import annotations

import ipaddress
import re
import typing
from collections.abc import Callable, Mapping
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict
from pydantic_core import PydanticCustomError

from gpufleet.components import spec_limits as limits

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

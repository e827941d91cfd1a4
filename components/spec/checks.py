"""The cross-field checks: each takes plain values and returns (relative path, message), so the
models run it on construction and parse_fleet on the raw config."""

from __future__ import annotations

import ipaddress
import math
from collections.abc import Mapping
from typing import Any

from gpufleet.components import spec_limits as limits
from gpufleet.components.catalog import CLOUDS, load_catalog
from gpufleet.components.clouds import cloud_parts, part_values
from gpufleet.components.spec.values import (
    _INSTANCE_TYPE_MAX,
    _POOL_NAME_MAX,
    _POOL_NAME_RE,
    _WINDOW_RE,
    _cross,
    _ipv4_network,
    _parse_duration,
    _show,
)

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


# The workload forms a pool may give (components.spec.pool.PoolWorkload), named in the errors.
WORKLOAD_KEYS = ("user_data", "container", "reference_worker", "image_reads_queue")
# The clouds whose pools may run the reference worker: `python -m gpufleet.worker` wires SQS and EC2
# Auto Scaling only (gpufleet/worker/__main__.py, build()); MNS/ESS and CMQ/AS take injected clients.
REFERENCE_WORKER_CLOUDS = tuple(
    cloud
    for cloud, runs in part_values(cloud_parts("gpufleet.components.spec"), "REFERENCE_WORKER").items()
    if runs
)


def _workload_checks(
    cloud: Any, queue: Any, workload: Any, joined: bool, region: Any = None
) -> list[tuple[str, str]]:
    """A pool whose queue the fleet creates declares what reads it (a created queue nothing reads keeps
    the pool at its maximum for as long as one message waits); the reference worker runs where its
    entrypoint does. ``joined``: the pool's nodes join the on-prem cluster (``onprem.scheduler``) and
    take work from Kueue, so cluster-autoscaler, not the queue, sizes it."""
    existing = _get(queue, "name") is not None or _get(queue, "arn") is not None
    if workload is None and not existing and not joined:
        return [
            (
                "workload",
                "is required: the fleet creates this pool's queue and scales on it, so something must read "
                "it; give one of user_data (a shell snippet), container (an image), reference_worker "
                "({image: ...}: python -m gpufleet.worker in an image) or image_reads_queue: true (the "
                "pool's image reads the queue itself), or name an existing queue in queue.name or "
                "queue.arn",
            )
        ]
    if (
        _get(workload, "reference_worker") is not None
        and cloud in CLOUDS
        and cloud not in REFERENCE_WORKER_CLOUDS
    ):
        return [
            (
                "workload.reference_worker",
                f"python -m gpufleet.worker runs on {', '.join(REFERENCE_WORKER_CLOUDS)} only, not {cloud}: "
                f"build the worker with gpufleet.worker.{cloud} in your image's entrypoint "
                "(docs/worker.md) and give the image as workload.container",
            )
        ]
    worker = _get(workload, "reference_worker")
    part = cloud_parts("gpufleet.components.spec_limits").get(cloud) if cloud in CLOUDS else None
    problem_of = getattr(part, "reference_worker_problem", None)
    if worker is not None and problem_of is not None:
        env = _get(worker, "env")
        problem = problem_of(
            region, env if isinstance(env, Mapping) else {}, queue if isinstance(queue, Mapping) else {}
        )
        if problem:
            return [("workload.reference_worker", problem)]
    return []


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
    """Overlapping VPC ranges across the fleet's sites (they are routed to each other and on-prem).
    ``home_cidr`` None: the fleet has no AWS home, whose range ``network.vpc_cidr`` is."""
    if not isinstance(regions, Mapping):
        return []
    ranges: list[tuple[str, ipaddress.IPv4Network]] = []
    home = [] if home_cidr is None else [("vpc_cidr", home_cidr)]
    for path, value in home + [
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


def _get(node: Any, key: str, default: Any = None) -> Any:
    return node.get(key, default) if isinstance(node, Mapping) else None

"""A replay's figures as JSON (stable, ``version``), text, and Markdown; and two replays side by side
(``--compare``: the base branch's spec and the head's on the same trace)."""

from __future__ import annotations

import datetime as dt
import zoneinfo
from collections.abc import Callable, Sequence
from typing import Any

from gpufleet.components.clouds import cloud_parts, part_values
from gpufleet.simulate.model import SIMPLE_SCALING_CLOUDS, Result, SimPool, Trace

REPORT_VERSION = 1
MAX_EVENTS_SHOWN = 20

# The clouds whose groups run simple rules, by their short names (SHORT_NAME in gpufleet/simulate/<cloud>.py).
_SIMPLE_NAMES = " and ".join(part_values(cloud_parts("gpufleet.simulate"), "SHORT_NAME").values())
ASSUMPTIONS = (
    "a minute of the trace is its queued jobs (waiting or running, one instance each) at a GPU "
    "utilisation per busy instance; the pool runs as many as it has booted instances, oldest first",
    "alarms as compiled for the pool (GPU one-minute average; queue five-minute maximum), each policy "
    "re-run every minute while its alarm holds; no CloudWatch publishing delay",
    "whole minutes (cooldowns round up); warm-up counts from launch; instances are removed newest first",
    "spot instances at the catalogue's spot price, never interrupted; booting instances are billed",
    "a job stopped by a scale-in or the schedule waits again at the front of the queue; a job still "
    "waiting at the end counts its wait so far",
    f"{_SIMPLE_NAMES}: when the GPU rule and a backlog band hold in the same minute the band runs; "
    "the cloud runs whichever request reaches the group first",
)


def _zone(pool: SimPool) -> dt.tzinfo:
    return zoneinfo.ZoneInfo(pool.off_hours.timezone) if pool.off_hours else dt.UTC


def _when(trace: Trace, minute: int, zone: dt.tzinfo) -> str:
    return trace.at(minute).astimezone(zone).strftime("%a %Y-%m-%d %H:%M")


def _hhmm(moment: tuple[int, int]) -> str:
    return f"{moment[0]:02d}:{moment[1]:02d}"


def _money(value: float) -> str:
    return f"{value:,.2f}"


def summary(result: Result) -> dict[str, Any]:
    """The figures of one replay (the JSON document's ``result``)."""
    minutes = len(result.trace)
    return {
        "cost": round(result.total_cost, 2),
        "currency": result.pool.currency,
        "instance_hours": {
            "on_demand": round(result.on_demand_minutes / 60, 2),
            "spot": round(result.spot_minutes / 60, 2),
        },
        "queue_wait_minutes": {
            "p50": result.wait_percentile(50),
            "p95": result.wait_percentile(95),
            "max": result.max_wait,
        },
        "jobs_waited": result.jobs_waited,
        "jobs_unstarted": result.unstarted,
        "jobs_interrupted": result.interrupted,
        "scale_events": {kind: result.count(kind) for kind in ("out", "in", "stop", "start")},
        "minutes_at_max": result.minutes_at_max,
        "percent_at_max": round(100 * result.minutes_at_max / minutes, 1),
        "peak_instances": max(result.launched, default=0),
        "oscillations": len(result.oscillations),
    }


def _pool_json(pool: SimPool, notes: Sequence[str]) -> dict[str, Any]:
    rules = pool.rules
    return {
        "name": pool.name,
        "cloud": pool.cloud,
        "instance_type": pool.instance_type,
        "min_size": pool.min_size,
        "max_size": pool.max_size,
        "on_demand_base": pool.on_demand_base,
        "spot_percent": pool.spot_percent,
        "on_demand_hourly": round(pool.on_demand_hourly, 6),
        "spot_hourly": round(pool.spot_hourly, 6),
        "scaling": {
            "gpu_util_out": rules.gpu_util_out,
            "out_for_s": rules.out_for_s,
            "queue_out": rules.queue_out,
            "gpu_util_in": rules.gpu_util_in,
            "in_for_s": rules.in_for_s,
            "cooldown_s": rules.cooldown_s,
        },
        "boot_minutes": pool.boot_minutes,
        "scaling_type": pool.scaling_type(),
        "off_hours": None
        if pool.off_hours is None
        else {
            "timezone": pool.off_hours.timezone,
            "stop": _hhmm(pool.off_hours.stop),
            "start": _hhmm(pool.off_hours.start),
            "weekends": pool.off_hours.weekends,
        },
        "notes": list(notes),
    }


def _trace_json(trace: Trace) -> dict[str, Any]:
    return {
        "name": trace.name,
        "source": trace.source,
        "start": trace.start.isoformat(),
        "minutes": len(trace),
        "peak_jobs": max(trace.jobs),
    }


def to_json(result: Result, stack: str, notes: Sequence[str] = ()) -> dict[str, Any]:
    zone = _zone(result.pool)
    return {
        "version": REPORT_VERSION,
        "stack": stack,
        "pool": _pool_json(result.pool, notes),
        "trace": _trace_json(result.trace),
        "result": summary(result),
        "events": [
            {
                "minute": e.minute,
                "time": result.trace.at(e.minute).astimezone(zone).isoformat(),
                "kind": e.kind,
                "from": e.before,
                "to": e.after,
                "reason": e.reason,
            }
            for e in result.events
        ],
        "oscillations": [{"scale_in": o.scale_in, "scale_out": o.scale_out} for o in result.oscillations],
        "assumptions": list(ASSUMPTIONS),
    }


def _rules_line(pool: SimPool) -> str:
    r = pool.rules
    # AWS's target tracking counts every waiting job at zero instances; the band clouds wake past
    # queue_out like any pool.
    at_zero = pool.min_size == 0 and pool.cloud not in SIMPLE_SCALING_CLOUDS
    queue = "any waiting job" if at_zero else f"queue > {r.queue_out:g}"
    return (
        f"out when GPU > {r.gpu_util_out:g}% for {r.out_for_s // 60} min or {queue}; in when GPU < "
        f"{r.gpu_util_in:g}% for {r.in_for_s // 60} min; cooldown {r.cooldown_s} s; "
        f"boot {pool.boot_minutes} min"
    )


def _figure_rows(result: Result) -> list[tuple[str, str]]:
    s = summary(result)
    wait = s["queue_wait_minutes"]
    events = s["scale_events"]
    hours = s["instance_hours"]
    schedule = (
        f", {events['stop']} off-hours stops, {events['start']} restarts" if result.pool.off_hours else ""
    )
    return [
        (
            "cost",
            f"{_money(s['cost'])} {s['currency']} ({hours['on_demand']:,} on-demand and {hours['spot']:,} "
            "spot instance-hours)",
        ),
        (
            "queue wait",
            f"p50 {wait['p50']:,} min, p95 {wait['p95']:,} min, max {wait['max']:,} min "
            f"({s['jobs_waited']:,} waits; {s['jobs_unstarted']:,} jobs still waiting at the end)",
        ),
        ("scale events", f"{events['out']} out, {events['in']} in{schedule}"),
        ("time at max", f"{s['minutes_at_max']:,} min ({s['percent_at_max']}% of the trace)"),
        (
            "oscillations",
            f"{s['oscillations']} (a scale-out within {result.pool.oscillation_window} min of a scale-in, "
            "or later with no more jobs)",
        ),
        (
            "peak",
            f"{s['peak_instances']} instances for a peak of {max(result.trace.jobs)} jobs; "
            f"{s['jobs_interrupted']} running jobs stopped",
        ),
    ]


def _header(result: Result, stack: str, notes: Sequence[str]) -> list[str]:
    pool, trace = result.pool, result.trace
    zone = _zone(pool)
    lines = [
        f"gpufleet simulate: pool {pool.name} of stack {stack} on {trace.name}",
        f"  trace: {len(trace):,} minutes from {_when(trace, 0, zone)} to "
        f"{_when(trace, len(trace) - 1, zone)} ({getattr(zone, 'key', 'UTC')})",
        f"  pool: {pool.cloud} {pool.instance_type}, size {pool.min_size}..{pool.max_size}, "
        f"{pool.spot_percent:g}% spot above {pool.on_demand_base} on demand; {pool.on_demand_hourly:.4g} "
        f"{pool.currency}/h on demand, {pool.spot_hourly:.4g} spot",
        f"  rules: {_rules_line(pool)}",
        f"  scaling: {pool.scaling_type()}",
    ]
    if pool.off_hours is not None:
        off = pool.off_hours
        weekends = ", and weekends" if off.weekends else ""
        lines.append(
            f"  off-hours: no capacity {_hhmm(off.stop)}-{_hhmm(off.start)} {off.timezone}{weekends}"
        )
    lines += [f"  note: {n}" for n in notes]
    return lines


def render_text(result: Result, stack: str, notes: Sequence[str] = ()) -> str:
    lines = _header(result, stack, notes)
    lines.append("")
    lines += [f"{label:<14}{value}" for label, value in _figure_rows(result)]
    zone = _zone(result.pool)
    if result.events:
        shown = result.events[:MAX_EVENTS_SHOWN]
        more = f" (first {len(shown)} of {len(result.events)})" if len(result.events) > len(shown) else ""
        lines += ["", f"scale events{more}:"]
        lines += [
            f"  {_when(result.trace, e.minute, zone)}  {e.kind:<5} {e.before} -> {e.after}  {e.reason}"
            for e in shown
        ]
    lines += ["", "model:"] + [f"  - {a}" for a in ASSUMPTIONS]
    return "\n".join(lines) + "\n"


def render_markdown(result: Result, stack: str, notes: Sequence[str] = ()) -> str:
    pool = result.pool
    lines = [
        f"### `gpufleet simulate`: pool `{pool.name}` of stack `{stack}` on `{result.trace.name}`",
        "",
        f"Rules: {_rules_line(pool)}. Scaling: {pool.scaling_type()}.",
        "",
        "| | |",
        "|---|---|",
    ]
    lines += [f"| {label} | {value} |" for label, value in _figure_rows(result)]
    lines += [f"\n> {n}" for n in notes]
    return "\n".join(lines) + "\n"


# ------------------------------------------------------------------------------------------ compare

_COMPARED: tuple[tuple[str, Callable[[dict[str, Any]], float], bool], ...] = (
    ("cost", lambda s: s["cost"], True),
    ("queue wait p50 (min)", lambda s: s["queue_wait_minutes"]["p50"], False),
    ("queue wait p95 (min)", lambda s: s["queue_wait_minutes"]["p95"], False),
    ("queue wait max (min)", lambda s: s["queue_wait_minutes"]["max"], False),
    ("jobs still waiting at the end", lambda s: s["jobs_unstarted"], False),
    ("scale-outs", lambda s: s["scale_events"]["out"], False),
    ("scale-ins", lambda s: s["scale_events"]["in"], False),
    ("minutes at max", lambda s: s["minutes_at_max"], False),
    ("oscillations", lambda s: s["oscillations"], False),
    ("peak instances", lambda s: s["peak_instances"], False),
)


def _cell(value: float, money: bool) -> str:
    return _money(value) if money else f"{value:,.0f}"


def _delta(base: float, head: float, money: bool) -> str:
    change = head - base
    if abs(change) < 0.005:
        return "="
    sign = "+" if change > 0 else "-"
    return f"{sign}{_cell(abs(change), money)}"


def compare_rows(base: Result, head: Result) -> list[tuple[str, str, str, str]]:
    b, h = summary(base), summary(head)
    rows = []
    for label, get, money in _COMPARED:
        name = f"{label} ({h['currency']})" if money else label
        rows.append((name, _cell(get(b), money), _cell(get(h), money), _delta(get(b), get(h), money)))
    return rows


def _rule_changes(base: SimPool, head: SimPool) -> list[str]:
    a, b = _pool_json(base, ()), _pool_json(head, ())
    changes = []
    for key in ("min_size", "max_size", "on_demand_base", "spot_percent", "instance_type", "off_hours"):
        if a[key] != b[key]:
            changes.append(f"{key}: {a[key]} -> {b[key]}")
    for key, value in a["scaling"].items():
        if b["scaling"][key] != value:
            changes.append(f"scaling.{key}: {value} -> {b['scaling'][key]}")
    return changes


def compare_json(base: Result, head: Result, stack: str, base_label: str) -> dict[str, Any]:
    return {
        "version": REPORT_VERSION,
        "stack": stack,
        "base": base_label,
        "trace": _trace_json(head.trace),
        "changes": _rule_changes(base.pool, head.pool),
        "base_pool": _pool_json(base.pool, ()),
        "head_pool": _pool_json(head.pool, ()),
        "base_result": summary(base),
        "head_result": summary(head),
        "assumptions": list(ASSUMPTIONS),
    }


def render_compare_text(base: Result, head: Result, stack: str, base_label: str) -> str:
    lines = [
        f"gpufleet simulate: pool {head.pool.name} of stack {stack} on {head.trace.name}, "
        f"{base_label} (base) against this branch (head)",
    ]
    changes = _rule_changes(base.pool, head.pool)
    lines.append(
        "  changes: " + ("; ".join(changes) if changes else "none in the pool's size, rules or schedule")
    )
    lines.append("")
    rows = [("", "base", "head", "change"), *compare_rows(base, head)]
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    for row in rows:
        lines.append(
            f"{row[0]:<{widths[0]}}  "
            + "  ".join(f"{cell:>{widths[i + 1]}}" for i, cell in enumerate(row[1:]))
        )
    return "\n".join(lines) + "\n"


def render_compare_markdown(base: Result, head: Result, stack: str, base_label: str) -> str:
    changes = _rule_changes(base.pool, head.pool)
    lines = [
        f"### `gpufleet simulate`: pool `{head.pool.name}` of stack `{stack}` on `{head.trace.name}`",
        "",
        f"Base: {base_label}. Changes: "
        + ("; ".join(f"`{c}`" for c in changes) if changes else "none")
        + ".",
        "",
        "| | base | head | change |",
        "|---|---:|---:|---:|",
    ]
    lines += [f"| {a} | {b} | {c} | {d} |" for a, b, c, d in compare_rows(base, head)]
    return "\n".join(lines) + "\n"

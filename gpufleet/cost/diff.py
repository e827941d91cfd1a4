"""What a change adds or saves per line, per month: a cost report against the base branch's JSON."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from gpufleet.components.catalog import Catalog, load_catalog
from gpufleet.cost.lookup import _rate
from gpufleet.cost.model import REPORT_VERSION, CostError, CostReport
from gpufleet.cost.units import _show


@dataclass(frozen=True)
class DiffRow:
    key: str
    change: str  # added | removed | changed | unchanged
    base_monthly: float | None
    head_monthly: float | None
    detail: str = ""

    @property
    def delta(self) -> float:
        return (self.head_monthly or 0.0) - (self.base_monthly or 0.0)


@dataclass(frozen=True)
class CostDiff:
    stack: str
    currency: str
    rows: tuple[DiffRow, ...]
    base_total: float
    head_total: float
    base_envelope: float
    head_envelope: float

    @property
    def delta(self) -> float:
        return self.head_total - self.base_total

    @property
    def changed(self) -> tuple[DiffRow, ...]:
        return tuple(r for r in self.rows if r.change != "unchanged")

    def to_json(self) -> dict[str, Any]:
        return {
            "stack": self.stack,
            "currency": self.currency,
            "rows": [
                {
                    "key": r.key,
                    "change": r.change,
                    "base_monthly": r.base_monthly,
                    "head_monthly": r.head_monthly,
                    "delta": round(r.delta, 2),
                    "detail": r.detail,
                }
                for r in self.rows
            ],
            "base_monthly_estimate": round(self.base_total, 2),
            "head_monthly_estimate": round(self.head_total, 2),
            "delta": round(self.delta, 2),
            "base_monthly_envelope": round(self.base_envelope, 2),
            "head_monthly_envelope": round(self.head_envelope, 2),
        }


_SHAPE_FIELDS = (
    ("instance_type", "type"),
    ("region", "region"),
    ("min", "min"),
    ("max", "max"),
    ("spot_percent", "spot %"),
    ("on_demand_base", "on-demand base"),
    ("schedule", "schedule"),
    ("scheduled_hours", "scheduled h"),
    ("usage_hours", "in-use h"),
)
CROSS_CURRENCY_TOLERANCE = 0.001
"""Across currencies, figures within 0.1% of each other are the same: each side was converted with the
catalogue's rates and rounded, and a round trip does not land on the cent."""


def _usage(line: Mapping[str, Any]) -> str:
    """`2 x 8 h/day, 1 x 4 h/day`: the usage profile's steps as the estimate counted them."""
    steps = [
        f"{_show(step.get('size'))} x {_show(step.get('hours_per_day'))} h/day"
        for step in line.get("steps") or ()
        if isinstance(step, Mapping) and step.get("hours_per_day") is not None
    ]
    return ", ".join(steps) or "none"


def _same(base: float, head: float, factor: float, places: float = 0.005) -> bool:
    """Equal to the rounding of the reports: exactly in one currency, within the tolerance across two."""
    if factor == 1.0:
        return abs(head - base) < places
    return abs(head - base) <= max(places, CROSS_CURRENCY_TOLERANCE * max(abs(head), abs(base)))


def _loaded(report: CostReport | Mapping[str, Any], label: str) -> Mapping[str, Any]:
    data = report.to_json() if isinstance(report, CostReport) else report
    if not isinstance(data, Mapping) or data.get("version") != REPORT_VERSION or "pools" not in data:
        raise CostError(
            f"{label}: not a gpufleet cost JSON document (version {REPORT_VERSION}); "
            "write one with `gpufleet cost -s STACK --format json`"
        )
    return data


def _rows(data: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    rows: dict[str, Mapping[str, Any]] = {}
    for pool in data.get("pools", []):
        rows[f"pool:{pool['pool']}"] = pool
    for other in data.get("other", []):
        rows[f"{other['kind']}:{other['name']}"] = other
    return rows


def _detail(
    base: Mapping[str, Any], head: Mapping[str, Any], rate: Callable[[str, str], float] | None = None
) -> str:
    """What changed in a line's shape, usage, schedule and price; `rate(from, to)` converts a base price
    published in another currency than the head's (prices keep their published currency)."""
    changes = []
    for key, label in _SHAPE_FIELDS:
        if key in base and key in head and base[key] != head[key]:
            if (
                key == "scheduled_hours"
                and "schedule" in base
                and base.get("schedule") == head.get("schedule")
            ):
                continue  # the same schedule: hours differ only by rounding
            changes.append(f"{label} {_show(base[key])} -> {_show(head[key])}")
    if "steps" in base and "steps" in head and _usage(base) != _usage(head):
        changes.append(f"usage {_usage(base)} -> {_usage(head)}")
    base_price = base.get("on_demand_price") or base.get("price") or {}
    head_price = head.get("on_demand_price") or head.get("price") or {}
    if base_price.get("amount") is not None and head_price.get("amount") is not None:
        amount, currency = float(base_price["amount"]), str(base_price.get("currency"))
        factor = 1.0
        if rate is not None and currency != head_price.get("currency"):
            factor = rate(currency, str(head_price.get("currency")))
        if not _same(amount * factor, float(head_price["amount"]), factor, places=1e-9):
            shown = _show(amount) if factor == 1.0 else f"{_show(round(amount * factor, 4))} (converted)"
            changes.append(f"price {shown} -> {_show(head_price['amount'])}")
    return "; ".join(changes)


def diff(
    base: CostReport | Mapping[str, Any],
    head: CostReport | Mapping[str, Any],
    *,
    catalog: Catalog | None = None,
    base_label: str = "base",
) -> CostDiff:
    """What ``head`` changes against ``base`` (the cost JSON of the base branch), per line, per month.

    Both are converted to the head's currency when they differ, with the catalogue's rates.
    """
    head_data = _loaded(head, "head")
    base_data = _loaded(base, base_label)
    currency = str(head_data["currency"])
    rates = catalog or load_catalog()

    def rate(source: str, target: str) -> float:
        return _rate(rates, source, target, base_label)

    factor = rate(str(base_data["currency"]), currency) if base_data["currency"] != currency else 1.0
    base_rows, head_rows = _rows(base_data), _rows(head_data)
    rows: list[DiffRow] = []
    for key in [*head_rows, *(k for k in base_rows if k not in head_rows)]:
        b, h = base_rows.get(key), head_rows.get(key)
        b_month = round(float(b["monthly_estimate"]) * factor, 2) if b is not None else None
        h_month = float(h["monthly_estimate"]) if h is not None else None
        if b is None:
            change, detail = "added", ""
        elif h is None:
            change, detail = "removed", ""
        else:
            detail = _detail(b, h, rate)
            change = "changed" if detail or not _same(b_month or 0.0, h_month or 0.0, factor) else "unchanged"
        rows.append(DiffRow(key, change, b_month, h_month, detail))
    totals_b, totals_h = base_data["totals"], head_data["totals"]
    return CostDiff(
        stack=str(head_data.get("stack", "")),
        currency=currency,
        rows=tuple(rows),
        base_total=float(totals_b["monthly_estimate"]) * factor,
        head_total=float(totals_h["monthly_estimate"]),
        base_envelope=float(totals_b["monthly_envelope"]) * factor,
        head_envelope=float(totals_h["monthly_envelope"]),
    )

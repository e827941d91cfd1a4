"""What a change adds or saves per line, per month: a cost report against the base branch's JSON."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from components.catalog import Catalog, load_catalog
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
    ("usage_hours", "in-use h"),
)


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


def _detail(base: Mapping[str, Any], head: Mapping[str, Any]) -> str:
    changes = []
    for key, label in _SHAPE_FIELDS:
        if key in base and key in head and base[key] != head[key]:
            changes.append(f"{label} {_show(base[key])} -> {_show(head[key])}")
    base_price = (base.get("on_demand_price") or base.get("price") or {}).get("amount")
    head_price = (head.get("on_demand_price") or head.get("price") or {}).get("amount")
    if base_price != head_price and base_price is not None and head_price is not None:
        changes.append(f"price {_show(base_price)} -> {_show(head_price)}")
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
    factor = 1.0
    if base_data["currency"] != currency:
        factor = _rate(catalog or load_catalog(), str(base_data["currency"]), currency, base_label)
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
            detail = _detail(b, h)
            change = "changed" if detail or abs((h_month or 0) - (b_month or 0)) >= 0.005 else "unchanged"
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

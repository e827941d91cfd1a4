"""The units every figure is in (a 730-hour month), and how figures read in prose."""

from __future__ import annotations

from typing import Any

HOURS_PER_MONTH = 730.0
HOURS_PER_WEEK = 168.0
DAYS_PER_MONTH = HOURS_PER_MONTH / 24.0


def _num(value: float, places: int = 2) -> str:
    """Short form for prose: 12, 12.5, 0.0125."""
    text = f"{value:.{places}f}".rstrip("0").rstrip(".")
    return text if text not in ("", "-0") else "0"


def _money(value: float) -> str:
    return f"{value:,.2f}"


def _signed(value: float) -> str:
    return f"{'+' if value >= 0 else '-'}{abs(value):,.2f}"


def _show(value: Any) -> str:
    if isinstance(value, float):
        return _num(value, 4)
    return str(value)

"""The whole cost of owning a GPU server a month, beside its purchase price: power, hosting, maintenance,
staff share and the hardware's life.

Defaults are the catalogue's `ownership` block (components/catalog/gpus.yaml, where each is sourced);
a stack's `onprem.hardware` overrides any of them (components/spec/onprem.py `OwnedHardware`).
"""

from __future__ import annotations

import functools
import importlib.resources
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import yaml

HOURS_PER_MONTH = 730.0

_NUMBERS = (
    "power_kw_per_gpu",
    "power_kw_host",
    "price_per_kwh",
    "pue",
    "hosting_per_server_month",
    "maintenance_percent_per_year",
    "staff_per_server_month",
)
# onprem.hardware field -> Ownership field
OVERRIDES = {
    "price_per_kwh": "price_per_kwh",
    "pue": "pue",
    "hosting_per_server_month": "hosting_per_server_month",
    "maintenance_percent_per_year": "maintenance_percent_per_year",
    "staff_per_server_month": "staff_per_server_month",
    "amortisation_months": "life_months",
}


class OwnershipError(ValueError):
    """The catalogue's ownership block is missing a figure or holds a bad one."""


@dataclass(frozen=True)
class Ownership:
    currency: str
    date: str
    source: str
    confirmed: bool
    power_kw_per_gpu: float
    power_kw_host: float
    price_per_kwh: float
    pue: float
    hosting_per_server_month: float
    maintenance_percent_per_year: float
    staff_per_server_month: float
    life_months: int
    server_kw: float | None = None
    """A server's draw given outright (onprem.hardware.power_kw), instead of GPUs x kW + host."""
    overridden: tuple[str, ...] = ()
    """The figures the stack's onprem.hardware set."""

    def kw(self, gpu_count: int) -> float:
        if self.server_kw is not None:
            return self.server_kw
        return gpu_count * self.power_kw_per_gpu + self.power_kw_host

    def with_hardware(self, hardware: Any) -> Ownership:
        """These defaults with every figure the stack's `onprem.hardware` gives (not its defaults)."""
        given = set(getattr(hardware, "model_fields_set", ()) or ())
        changes: dict[str, Any] = {}
        named: list[str] = []
        for spec_field, own_field in (*OVERRIDES.items(), ("power_kw", "server_kw")):
            value = getattr(hardware, spec_field, None)
            if spec_field in given and value is not None:
                changes[own_field] = value
                named.append(f"onprem.hardware.{spec_field}")
        return replace(self, **changes, overridden=tuple(named)) if changes else self

    def monthly_terms(
        self, purchase: float, gpu_count: int, convert: Callable[[float], float]
    ) -> list[tuple[str, float, str]]:
        """One server's month of owning, term by term: (name, amount in the report's currency, formula).
        `purchase` is already in the report's currency; `convert` turns this block's currency into it."""
        kw = self.kw(gpu_count)
        power = kw * HOURS_PER_MONTH * self.price_per_kwh * self.pue
        maintenance = purchase * self.maintenance_percent_per_year / 100.0 / 12.0
        c = self.currency
        kw_formula = (
            f"{kw:g} kW"
            if self.server_kw is not None
            else f"({gpu_count} GPUs x {self.power_kw_per_gpu:g} + host {self.power_kw_host:g}) kW"
        )
        return [
            ("hardware", purchase / self.life_months, f"purchase / {self.life_months} months of life"),
            (
                "power",
                convert(power),
                f"{kw_formula} x {HOURS_PER_MONTH:g} h x {self.price_per_kwh:g} {c}/kWh x PUE {self.pue:g}",
            ),
            (
                "hosting",
                convert(self.hosting_per_server_month),
                f"{self.hosting_per_server_month:g} {c} a server",
            ),
            (
                "maintenance",
                maintenance,
                f"{self.maintenance_percent_per_year:g}% of the purchase a year / 12",
            ),
            ("staff", convert(self.staff_per_server_month), f"{self.staff_per_server_month:g} {c} a server"),
        ]


def parse_ownership(block: Any) -> Ownership:
    where = "catalogue ownership"
    if not isinstance(block, Mapping):
        raise OwnershipError(f"{where}: must be a mapping")
    values: dict[str, Any] = {}
    for name in _NUMBERS:
        value = block.get(name)
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
            or value < 0
        ):
            raise OwnershipError(f"{where}.{name}: must be a non-negative number, got {value!r}")
        values[name] = float(value)
    life = block.get("life_months")
    if isinstance(life, bool) or not isinstance(life, int) or life < 1:
        raise OwnershipError(f"{where}.life_months: must be a whole number of months >= 1, got {life!r}")
    if values["pue"] < 1:
        raise OwnershipError(f"{where}.pue: must be at least 1, got {values['pue']:g}")
    return Ownership(
        currency=str(block.get("currency", "USD")),
        date=str(block.get("date", "")),
        source=str(block.get("source", "")),
        confirmed=bool(block.get("confirmed", False)),
        life_months=life,
        **values,
    )


@functools.cache
def load_ownership() -> Ownership:
    """The packaged catalogue's defaults."""
    catalog = importlib.resources.files("gpufleet.components.catalog")
    text = catalog.joinpath("gpus.yaml").read_text(encoding="utf-8")
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return parse_ownership(yaml.load(text, Loader=loader).get("ownership"))

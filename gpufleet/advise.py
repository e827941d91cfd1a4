"""Buy versus rent, per GPU pool, with every number shown.

Renting costs hourly price x hours x instances a month. Owning costs the purchase price spread over
36 months, per hour of use: purchase / (36 months x 730 h x monthly utilisation). Consider buying when
renting costs more than twice owning.

Per pool, from its cost line:

- instances: the largest size the pool runs at, of its usage profile's steps with hours (and size.min
  where the profile leaves scheduled hours to it): the servers one would have to own; the maximum size
  without a profile;
- hours a month per instance: the pool's instance-hours a month / instances; utilisation = hours / 730.
  The instance-hours are the cost estimate's own: every step's size x its hours a month, plus size.min
  x the scheduled hours no step covers, so a profile with a daytime peak and a night floor owns the
  peak and spreads the floor's hours over it;
- hourly price: the pool's monthly estimate / its instance-hours, i.e. the on-demand and spot prices
  blended by the pool's spot share, so renting equals the pool's monthly estimate;
- purchase price: the catalogue's (a quoted system price, or gpu_count x card street price + host).

Owning costs the whole month of each server, used or not (gpufleet/ownership.py): purchase / its life
(36 months by default) + power (kW x 730 h x price per kWh x PUE) + hosting + maintenance (a share of
the purchase a year) + staff share, from the catalogue's `ownership` defaults or the stack's
`onprem.hardware`; times the instances. The ratio rent / own is the same whichever way it is written.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from gpufleet import finite
from gpufleet.components.catalog import Catalog, Price, load_catalog
from gpufleet.cost import HOURS_PER_MONTH, REPORT_VERSION, CostReport, PoolLine, estimate_stack
from gpufleet.ownership import Ownership, load_ownership
from gpufleet.redact import redactor

__all__ = [
    "AMORTISATION_MONTHS",
    "BUY_THRESHOLD",
    "BuyVsRent",
    "advise_stack",
    "buy_vs_rent",
    "render_advice_json",
    "render_advice_markdown",
    "render_advice_text",
]

AMORTISATION_MONTHS = 36
BUY_THRESHOLD = 2.0  # consider buying when renting costs more than this many times owning


@dataclass(frozen=True)
class BuyVsRent:
    pool: str
    instance_type: str
    currency: str
    hourly: float
    hours_per_month: float
    instances: float
    utilisation: float
    purchase: Price | None
    purchase_converted: float | None
    purchase_formula: str
    rent_monthly: float
    own_monthly: float | None
    own_per_hour: float | None
    verdict: str
    notes: tuple[str, ...] = ()
    hours_formula: str = ""  # how the hours per instance follow from the estimate's instance-hours
    own_terms: tuple[tuple[str, float, str], ...] = ()
    """One server's month of owning, term by term (name, amount, formula): gpufleet/ownership.py."""
    life_months: int = AMORTISATION_MONTHS
    overridden: tuple[str, ...] = ()
    """The ownership figures the stack's onprem.hardware set."""

    @property
    def ratio(self) -> float | None:
        if not self.own_monthly:
            return None
        return self.rent_monthly / self.own_monthly

    def to_json(self) -> dict[str, Any]:
        return {
            "pool": self.pool,
            "instance_type": self.instance_type,
            "currency": self.currency,
            "hourly": round(self.hourly, 4),
            "hours_per_month": round(self.hours_per_month, 2),
            "instances": self.instances,
            "utilisation_percent": round(self.utilisation * 100, 2),
            "purchase": None
            if self.purchase is None
            else {
                "amount": self.purchase.amount,
                "currency": self.purchase.currency,
                "date": self.purchase.date,
                "source": self.purchase.source,
                "confirmed": self.purchase.confirmed,
                "formula": self.purchase_formula,
            },
            "months": self.life_months,
            "ownership": {
                "per_server_monthly": {name: round(amount, 2) for name, amount, _ in self.own_terms},
                "formulas": {name: formula for name, _, formula in self.own_terms},
                "overridden": list(self.overridden),
            },
            "rent_monthly": round(self.rent_monthly, 2),
            "own_monthly": None if self.own_monthly is None else round(self.own_monthly, 2),
            "own_per_hour": None if self.own_per_hour is None else round(self.own_per_hour, 4),
            "ratio": None if self.ratio is None else round(self.ratio, 3),
            "verdict": self.verdict,
            "hours_formula": self.hours_formula,
            "notes": list(self.notes),
        }


def _advise(line: PoolLine, catalog: Catalog, currency: str, owning: Ownership) -> BuyVsRent:
    instances = line.peak_size
    notes: list[str] = []
    if line.usage_hours == 0:
        notes.append("no usage profile: utilisation assumes the pool at max size whenever it may run")
    if instances <= 0 or line.instance_hours <= 0:
        return BuyVsRent(
            line.pool, line.instance_type, currency, 0.0, 0.0, instances, 0.0, None, None, "",
            0.0, None, None, "nothing to buy: the pool does not run", tuple(notes),
        )  # fmt: skip
    hours = line.instance_hours / instances
    utilisation = hours / HOURS_PER_MONTH
    terms = " + ".join(f"{_n(step.size)} x {_n(step.hours)} h" for step in line.steps if step.size)
    formula = (
        f"{terms} = {_n(line.instance_hours)} instance-h / {_n(instances)} instances = {_n(hours)} h each "
        f"({utilisation * 100:.1f}% of {HOURS_PER_MONTH:g} h)"
    )
    hourly = line.monthly_estimate / line.instance_hours
    rent = hourly * hours * instances
    instance_type = catalog.get(line.cloud, line.instance_type)
    purchase = catalog.purchase_of(instance_type)
    if purchase is None:
        notes.append(f"the catalogue has no purchase price for GPU class {instance_type.gpu_class}")
        return BuyVsRent(
            line.pool, line.instance_type, currency, hourly, hours, instances, utilisation, None, None, "",
            rent, None, None, "no purchase price", tuple(notes), formula,
        )  # fmt: skip
    price = purchase.price
    converted = catalog.convert(price.amount, price.currency, currency)
    owned = owning.monthly_terms(
        converted, instance_type.gpu_count, lambda amount: catalog.convert(amount, owning.currency, currency)
    )
    own = sum(amount for _, amount, _ in owned) * instances
    own_per_hour = own / (hours * instances)
    if not price.confirmed:
        notes.append(f"purchase price unconfirmed: check it on {price.source}")
    verdict = "consider buying" if rent > BUY_THRESHOLD * own else "keep renting"
    return BuyVsRent(
        pool=line.pool,
        instance_type=line.instance_type,
        currency=currency,
        hourly=hourly,
        hours_per_month=hours,
        instances=instances,
        utilisation=utilisation,
        purchase=price,
        purchase_converted=converted,
        purchase_formula=purchase.formula,
        rent_monthly=rent,
        own_monthly=own,
        own_per_hour=own_per_hour,
        verdict=verdict,
        notes=tuple(notes),
        hours_formula=formula,
        own_terms=tuple(owned),
        life_months=owning.life_months,
        overridden=owning.overridden,
    )


def buy_vs_rent(
    report: CostReport, catalog: Catalog | None = None, owning: Ownership | None = None
) -> list[BuyVsRent]:
    """The advice for every pool of a cost report, in the report's currency; owning at the catalogue's
    ownership defaults unless `owning` is given."""
    catalog = catalog or load_catalog()
    owning = owning or load_ownership()
    return [_advise(line, catalog, report.currency, owning) for line in report.pools]


def advise_stack(
    graph: Any, *, catalog: Catalog | None = None, currency: str | None = None, source: str | None = None
) -> list[BuyVsRent]:
    """`gpufleet advise buy-vs-rent -s STACK`: price the stack, then advise per pool."""
    catalog = catalog or load_catalog()
    report = estimate_stack(graph, catalog=catalog, currency=currency, source=source)
    rows = buy_vs_rent(report, catalog, load_ownership().with_hardware(_hardware(graph, source)))
    # Advised from the plain instance types; one that is a secret reads `[secret]`.
    return redactor(graph).value(rows)


def _hardware(graph: Any, source: str | None) -> Any:
    """The stack spec's onprem.hardware (its ownership overrides), or None."""
    from gpufleet.components.spec import CONFIG_KEY, SpecError, load_fleet_from_config

    config = getattr(graph, "config", None) or {}
    if CONFIG_KEY not in config:
        return None
    try:
        spec = load_fleet_from_config(config, source or "")
    except SpecError:
        return None  # the estimate above has already refused a bad spec
    return spec.onprem.hardware if spec.onprem is not None else None


def _n(value: float) -> str:
    text = f"{value:,.2f}"
    return text.removesuffix(".00")


def _explain(row: BuyVsRent) -> list[str]:
    c = row.currency
    lines = [f"hours: {row.hours_formula}"] if row.hours_formula else []
    lines += [
        f"rent: {row.hourly:.4f} {c}/h x {_n(row.hours_per_month)} h x {_n(row.instances)} instances "
        f"= {_n(row.rent_monthly)} {c}/month"
    ]
    if row.purchase is not None and row.own_monthly is not None and row.own_per_hour is not None:
        bought = f"{_n(row.purchase.amount)} {row.purchase.currency}"
        if row.purchase.currency != c and row.purchase_converted is not None:
            bought += f" = {_n(row.purchase_converted)} {c}"
        per_server = sum(amount for _, amount, _ in row.own_terms)
        lines.append(f"own: purchase {bought} ({row.purchase_formula}); a server a month:")
        lines += [f"  {name} {_n(amount)} {c} ({formula})" for name, amount, formula in row.own_terms]
        lines.append(
            f"  = {_n(per_server)} {c} a server x {_n(row.instances)} = {_n(row.own_monthly)} {c}/month "
            f"({row.own_per_hour:.4f} {c} per hour used at {row.utilisation * 100:.1f}% utilisation)"
        )
        if row.overridden:
            lines.append(f"  set by the stack: {', '.join(row.overridden)}")
        ratio = row.ratio or 0.0
        lines.append(
            f"rent / own = {ratio:.2f} ({'more' if ratio > BUY_THRESHOLD else 'not more'} than "
            f"{BUY_THRESHOLD:g}x): {row.verdict}"
        )
    else:
        lines.append(row.verdict)
    lines.extend(f"note: {note}" for note in row.notes)
    return lines


def render_advice_json(rows: Sequence[BuyVsRent], stack: str, currency: str) -> str:
    """The JSON document, versioned like `check`'s and `cost`'s: `{"version", "stack", "currency",
    "threshold", "pools": [...]}`."""
    return finite.dumps(
        {
            "version": REPORT_VERSION,
            "stack": stack,
            "currency": rows[0].currency if rows else currency,
            "threshold": BUY_THRESHOLD,
            "pools": [row.to_json() for row in rows],
        }
    )


def render_advice_text(rows: Sequence[BuyVsRent], stack: str = "") -> str:
    out = [f"buy versus rent for stack {stack or '?'} (consider buying when renting costs > 2x owning)"]
    for row in rows:
        out += ["", f"{row.pool} ({row.instance_type}): {row.verdict.upper()}"]
        out += [f"  {line}" for line in _explain(row)]
    if not rows:
        out += ["", "no GPU pools found"]
    return "\n".join(out) + "\n"


def render_advice_markdown(rows: Sequence[BuyVsRent], stack: str = "") -> str:
    out = [
        f"### Buy versus rent: `{stack or '?'}`",
        "",
        "| pool | type | rent/month | own/month | rent/own | verdict |",
        "| --- | --- | ---: | ---: | ---: | --- |",
    ]
    for row in rows:
        own = "-" if row.own_monthly is None else f"{_n(row.own_monthly)} {row.currency}"
        ratio = "-" if row.ratio is None else f"{row.ratio:.2f}"
        out.append(
            f"| {row.pool} | {row.instance_type} | {_n(row.rent_monthly)} {row.currency} | {own} | {ratio} "
            f"| {row.verdict} |"
        )
    out.append("")
    for row in rows:
        out.append(f"- `{row.pool}`: " + "; ".join(_explain(row)))
    return "\n".join(out) + "\n"

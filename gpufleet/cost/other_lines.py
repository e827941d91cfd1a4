"""Lines beside the GPUs: root and standalone volumes, what bills by the hour (NAT, VPN, endpoints),
bucket storage over its lifecycle, data transfer."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gpufleet.components.catalog import Catalog, Price
from gpufleet.cost.lookup import _rate, _service_price
from gpufleet.cost.model import CostError, OtherLine, PoolLine, PricedPool, PriceUsed
from gpufleet.cost.units import DAYS_PER_MONTH, HOURS_PER_MONTH, _num


def _monthly_line(
    kind: str,
    name: str,
    *,
    quantity: str,
    price: PriceUsed,
    cloud: str,
    rate: float,
    currency: str,
    monthly: float,
    notes: Sequence[str] = (),
    prices: Sequence[PriceUsed] = (),
) -> OtherLine:
    """A line that bills the same every hour whatever the pools do (storage held, data sent at a
    constant rate): its month is its estimate and its envelope, its hourly figures the month / 730 h."""
    return OtherLine(
        kind=kind,
        name=name,
        quantity=quantity,
        price=price,
        cloud=cloud,
        rate=rate,
        currency=currency,
        hourly_min=monthly / HOURS_PER_MONTH,
        hourly_max=monthly / HOURS_PER_MONTH,
        monthly_estimate=monthly,
        monthly_envelope=monthly,
        notes=tuple(notes),
        prices=tuple(prices),
    )


def volume_line(pool: PricedPool, line: PoolLine, catalog: Catalog, currency: str) -> OtherLine | None:
    """Each instance's root volume, billed while the instance exists (scale-in deletes it)."""
    if not pool.disk_gib:
        return None
    services = catalog.service(pool.cloud)
    price = services.price("block_gib_month") if services else None
    if price is None:
        return None
    rate = _rate(catalog, price.currency, currency, pool.where("disk_gib"))
    per_instance_hour = pool.disk_gib * price.amount / HOURS_PER_MONTH * rate
    notes = []
    if services is not None and services.region != pool.region:
        notes.append(f"list price of {services.region} used for {pool.region}")
    return OtherLine(
        kind="volume",
        name=pool.name,
        quantity=f"{_num(pool.disk_gib)} GiB per instance, {_num(line.instance_hours)} instance-h",
        price=PriceUsed.of(f"{pool.cloud} block storage", price, "GiB-month"),
        cloud=pool.cloud,
        rate=rate,
        currency=currency,
        hourly_min=per_instance_hour * pool.min_size,
        hourly_max=per_instance_hour * pool.max_size,
        monthly_estimate=per_instance_hour * line.instance_hours,
        monthly_envelope=per_instance_hour * pool.max_size * HOURS_PER_MONTH,
        notes=tuple(notes),
    )


def fixed_hourly_line(
    kind: str, name: str, *, cloud: str, key: str, count: int, catalog: Catalog, currency: str, where: str
) -> OtherLine:
    """Something billed per hour whether used or not (NAT gateway, VPN connection), 730 h a month."""
    price = _service_price(catalog, cloud, key, where)
    rate = _rate(catalog, price.currency, currency, where)
    hourly = count * price.amount * rate
    return OtherLine(
        kind=kind,
        name=name,
        quantity=f"{count} x {_num(HOURS_PER_MONTH)} h",
        price=PriceUsed.of(f"{cloud} {kind}", price, "h"),
        cloud=cloud,
        rate=rate,
        currency=currency,
        hourly_min=hourly,
        hourly_max=hourly,
        monthly_estimate=hourly * HOURS_PER_MONTH,
        monthly_envelope=hourly * HOURS_PER_MONTH,
    )


def standalone_volume_line(
    name: str, *, cloud: str, gib: float, catalog: Catalog, currency: str, where: str
) -> OtherLine:
    price = _service_price(catalog, cloud, "block_gib_month", where)
    rate = _rate(catalog, price.currency, currency, where)
    monthly = gib * price.amount * rate
    return _monthly_line(
        "volume",
        name,
        quantity=f"{_num(gib)} GiB",
        price=PriceUsed.of(f"{cloud} block storage", price, "GiB-month"),
        cloud=cloud,
        rate=rate,
        currency=currency,
        monthly=monthly,
    )


# S3 Intelligent-Tiering moves an object down a tier after this many consecutive days without access.
IT_TIERS = (("frequent", 0), ("infrequent", 30), ("archive_instant", 90))
IT_CLASS = "INTELLIGENT_TIERING"
IT_RULE = (
    "INTELLIGENT_TIERING objects are taken as not read once there: its frequent tier for their first "
    "30 days in the class, infrequent from day 30, archive instant from day 90 (a read moves an object "
    "back to frequent, which only the frequent price covers); its monitoring fee of 0.0025 USD per "
    "1,000 objects a month is left out: the spec gives no object count"
)


def lifecycle_stages(
    first_class: str, transitions: Sequence[tuple[int, str]], expire_days: int, noncurrent_days: int = 0
) -> list[tuple[str, int]]:
    """(storage class, days) an object spends in each class from its write to its deletion.

    Transitions at or after ``expire_days`` never happen. In a versioned bucket expiry only makes the
    object noncurrent: it stays ``noncurrent_days`` more in the class it had reached, still billed.
    """
    stages: list[tuple[str, int]] = []
    start, current = 0, first_class
    for days, storage_class in sorted(transitions):
        if days >= expire_days:
            break
        if days > start:
            stages.append((current, days - start))
        start, current = days, storage_class
    stages.append((current, expire_days - start + noncurrent_days))
    return stages


def _tiered(stages: Sequence[tuple[str, int]], services: Any) -> list[tuple[str, str, int]]:
    """(storage class, price key, days) with INTELLIGENT_TIERING split into its access tiers where the
    catalogue prices them."""
    split: list[tuple[str, str, int]] = []
    for storage_class, days in stages:
        tiers_priced = services is not None and all(
            services.price(f"intelligent_tiering_gib_month.{tier}") is not None for tier, _ in IT_TIERS
        )
        if storage_class != IT_CLASS or not tiers_priced:
            split.append((storage_class, f"object_gib_month.{storage_class}", days))
            continue
        bounds = [after for _, after in IT_TIERS[1:]] + [days]
        for (tier, after), until in zip(IT_TIERS, bounds, strict=True):
            held = min(days, until) - after
            if held > 0:
                split.append((f"{IT_CLASS} {tier}", f"intelligent_tiering_gib_month.{tier}", held))
    return split


def bucket_storage_line(
    name: str,
    *,
    cloud: str,
    gib_written_per_month: float,
    first_class: str,
    transitions: Sequence[tuple[int, str]],
    expire_days: int,
    catalog: Catalog,
    currency: str,
    where: str = "storage",
    noncurrent_days: int = 0,
    kept_gib: float = 0.0,
    kept_class: str = "STANDARD",
    region: str = "",
    notes: Sequence[str] = (),
    explain_tiers: bool = True,
) -> OtherLine:
    """Steady-state storage of a bucket written at a constant rate, by class over the lifecycle, plus
    ``kept_gib`` that no lifecycle rule deletes (datasets) in ``kept_class``.

    Objects spend ``transitions[0].days`` days in ``first_class``, then the days to the next transition
    in each later class, and are deleted at ``expire_days`` (plus ``noncurrent_days`` in a versioned
    bucket). At a constant write rate W GiB a month the bucket holds W x (days in class) / 30.42 GiB in
    each class. Early-deletion minimums are not added.
    """
    if gib_written_per_month < 0:
        raise CostError(f"{where}: GiB written per month must be >= 0, got {_num(gib_written_per_month)}")
    if kept_gib < 0:
        raise CostError(f"{where}: GiB kept must be >= 0, got {_num(kept_gib)}")
    services = catalog.service(cloud)
    held_by_class: list[tuple[str, float, int | None, Price]] = []
    if gib_written_per_month > 0 or kept_gib == 0:
        stages = lifecycle_stages(first_class, transitions, expire_days, noncurrent_days)
        for label, key, days in _tiered(stages, services):
            price = _service_price(catalog, cloud, key, where)
            held_by_class.append((label, gib_written_per_month * days / DAYS_PER_MONTH, days, price))
    if kept_gib > 0:
        price = _service_price(catalog, cloud, f"object_gib_month.{kept_class}", where)
        held_by_class.append((f"{kept_class} kept", kept_gib, None, price))
    amount = sum(held * price.amount for _, held, _, price in held_by_class)
    held_total = sum(held for _, held, _, _ in held_by_class)
    first_price = held_by_class[0][3]
    if any(price.currency != first_price.currency for _, _, _, price in held_by_class):
        raise CostError(f"{where}: the {cloud} object storage prices are in more than one currency")
    rate = _rate(catalog, first_price.currency, currency, where)
    monthly = amount * rate
    parts = [
        f"{_num(held)} GiB {label} ({f'{days} d' if days is not None else 'no expiry'} "
        f"at {_num(price.amount, 5)})"
        for label, held, days, price in held_by_class
    ]
    prices: dict[str, PriceUsed] = {}
    for label, _, _, price in held_by_class:
        what = f"{cloud} object storage {label.removesuffix(' kept')}"
        prices.setdefault(what, PriceUsed.of(what, price, "GiB-month"))
    summary = PriceUsed(
        f"{cloud} object storage by class",
        amount / max(held_total, 1e-12),
        first_price.currency,
        "GiB-month (blended)",
        first_price.date,
        services.sources.get("object_gib_month", services.source) if services else first_price.source,
        all(p.confirmed for p in prices.values()),
    )
    written = f"{_num(gib_written_per_month)} GiB written a month"
    kept = f"{_num(kept_gib)} GiB kept" if kept_gib > 0 else ""
    line_notes = list(notes)
    if region and services is not None and services.region != region:
        line_notes.append(f"list price of {services.region} used for {region}")
    if explain_tiers and any(label.startswith(IT_CLASS) for label, _, _, _ in held_by_class):
        line_notes.append(IT_RULE)
    return _monthly_line(
        "bucket",
        name,
        quantity=", ".join(x for x in (written if gib_written_per_month > 0 else "", kept) if x)
        + (": " if held_by_class else "")
        + "; ".join(parts),
        price=summary,
        cloud=cloud,
        rate=rate,
        currency=currency,
        monthly=monthly,
        notes=line_notes,
        prices=list(prices.values()),
    )


def transfer_line(
    kind: str,
    name: str,
    *,
    cloud: str,
    region: str,
    key: str,
    gib_per_month: float,
    catalog: Catalog,
    currency: str,
    where: str,
    notes: Sequence[str] = (),
) -> OtherLine:
    """Data billed by volume (``transfer_out_gib`` to the internet, ``transfer_inter_region_gib`` to
    another region), sent from ``region`` at a constant rate over the month."""
    if gib_per_month < 0:
        raise CostError(f"{where}: GiB a month must be >= 0, got {_num(gib_per_month)}")
    price = _service_price(catalog, cloud, key, where)
    rate = _rate(catalog, price.currency, currency, where)
    monthly = gib_per_month * price.amount * rate
    services = catalog.service(cloud)
    line_notes = list(notes)
    if services is not None and services.region != region:
        line_notes.append(f"list price of {services.region} used for {region}")
    what = "to the internet" if key == "transfer_out_gib" else "to another region"
    return _monthly_line(
        kind,
        name,
        quantity=f"{_num(gib_per_month)} GiB a month from {region} {what}",
        price=PriceUsed.of(f"{cloud} data transfer {what}", price, "GiB"),
        cloud=cloud,
        rate=rate,
        currency=currency,
        monthly=monthly,
        notes=line_notes,
    )

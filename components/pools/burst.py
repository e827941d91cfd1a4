"""Pure compilation of the burst order (``burst.order`` in the spec) into per-pool scale-out gates.

The on-prem baseline always runs first. After it come the sites, in the team's order or by price
(cheapest GPU-hour first). A pool at the n-th site may scale out only when no GPU is free ahead of it:
the baseline is full (every GPU requested) and every site before it is at its maximum. One signal says
so per site: ``gpufleet/Baseline`` ``FreeGpusAhead`` with dimension ``Site=<cloud:region>``, the
baseline's free GPUs plus the free headroom (max less in service, in GPUs) of the sites ahead. The
baseline's exporter publishes it (see docs/burst-order.md); the pool's scale-out alarms become
``signal < 1 AND <their own condition>`` where the cloud's alarms can say AND.

How each cloud enforces the gate (:data:`ENFORCEMENT`):

- ``aws``: metric-math alarms, ``IF(FILL(ahead, 0) < 1, <metric>, 0)``, so the AND is exact; a silent
  signal counts as no free GPU ahead (the burst is not held back by a broken exporter).
- ``alicloud`` and ``tencentcloud``: their alarms take one metric namespace each, so no AND across
  the queue's metrics and the signal (``ENFORCEMENT`` says "not-enforced" for the alarm itself). With
  ``burst.publishers.alicloud`` the exporter does the AND and the Alibaba queue alarms watch its
  ``GatedBacklog`` (:mod:`gpufleet.components.pools.burst_custom`); Tencent alarm policies cannot watch a
  published metric, so the Tencent pools keep scaling on their own queue, and ``gpufleet plan`` says so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from gpufleet.components.catalog import Catalog, load_catalog
from gpufleet.components.clouds import cloud_parts, profile

if TYPE_CHECKING:
    from gpufleet.components.spec import FleetSpec

SIGNAL_NAMESPACE = "gpufleet/Baseline"
SIGNAL_METRIC = "FreeGpusAhead"
SITE_DIMENSION = "Site"
SIGNAL_PERIOD_S = 60  # the exporter publishes once a minute
PRICE_CURRENCY = "USD"

Enforcement = Literal["metric-math", "not-enforced"]
# Each cloud's, from its facts module (components/pools/facts/<cloud>.py), in the registry's order.
FACTS = cloud_parts("gpufleet.components.pools.facts")
ENFORCEMENT: Mapping[str, Enforcement] = {cloud: part.ENFORCEMENT for cloud, part in FACTS.items()}


@dataclass(frozen=True, kw_only=True)
class BurstPool:
    """One pool as the order sees it: where it runs and its cheapest GPU-hour (None: unpriced)."""

    name: str
    cloud: str
    region: str
    gpu_hour: float | None = None


@dataclass(frozen=True, kw_only=True)
class Gate:
    """What holds one pool's scale-out back: the signal for its site, and the sites it counts."""

    site: str
    position: int  # 1: the first site after the baseline
    ahead: tuple[str, ...]  # the sites before this one, in order
    enforcement: Enforcement

    @property
    def dimensions(self) -> dict[str, str]:
        return {SITE_DIMENSION: self.site}

    def expression(self, signal_id: str, metric_id: str) -> str:
        """The CloudWatch metric-math expression that passes ``metric_id`` only with no GPU free ahead."""
        return f"IF(FILL({signal_id}, 0) < 1, {metric_id}, 0)"


@dataclass(frozen=True, kw_only=True)
class SiteOrder:
    site: str
    pools: tuple[str, ...]
    gpu_hour: float | None
    reason: str  # "listed" or "by price"


def _site_price(pools: Sequence[BurstPool]) -> float | None:
    prices = [p.gpu_hour for p in pools if p.gpu_hour is not None]
    return min(prices) if prices else None


def order_sites(pools: Sequence[BurstPool], order: Sequence[str] | None) -> list[SiteOrder]:
    """The sites in burst order: those listed in ``order`` first, as listed, then the rest by price
    (cheapest GPU-hour first, unpriced last, ties by site name). ``order`` None: all by price. A listed
    site without pools is an error naming it."""
    by_site: dict[str, list[BurstPool]] = {}
    for pool in pools:
        by_site.setdefault(f"{pool.cloud}:{pool.region}", []).append(pool)
    listed = list(order or ())
    missing = [site for site in listed if site not in by_site]
    if missing:
        raise ValueError(
            f"names {', '.join(missing)}, where no pool runs; the pools run at "
            f"{', '.join(sorted(by_site)) or 'no site'}"
        )
    rest = sorted(
        (site for site in by_site if site not in listed),
        key=lambda site: (_site_price(by_site[site]) is None, _site_price(by_site[site]) or 0.0, site),
    )
    return [
        SiteOrder(
            site=site,
            pools=tuple(p.name for p in by_site[site]),
            gpu_hour=_site_price(by_site[site]),
            reason="listed" if site in listed else "by price",
        )
        for site in [*listed, *rest]
    ]


def compile_gates(pools: Sequence[BurstPool], order: Sequence[str] | None) -> dict[str, Gate]:
    """Each pool's gate, by pool name: its site's place in the order and the sites ahead of it."""
    sites = order_sites(pools, order)
    gates: dict[str, Gate] = {}
    for position, entry in enumerate(sites, start=1):
        cloud = entry.site.partition(":")[0]
        ahead = tuple(s.site for s in sites[: position - 1])
        for name in entry.pools:
            gates[name] = Gate(
                site=entry.site, position=position, ahead=ahead, enforcement=ENFORCEMENT[cloud]
            )
    return gates


@dataclass(frozen=True, kw_only=True)
class PoolHeadroom:
    """What the exporter reads of one pool ahead: instances in service, its maximum, GPUs each."""

    site: str
    in_service: int
    max_size: int
    gpus_per_instance: int

    @property
    def free_gpus(self) -> int:
        return max(0, self.max_size - self.in_service) * self.gpus_per_instance


def free_gpus_ahead(gate: Gate, baseline_free: int, pools: Sequence[PoolHeadroom]) -> int:
    """The value the exporter publishes for ``gate.site``: the baseline's free GPUs (its GPUs less
    those requested, never below 0) plus the free headroom of every pool at a site ahead. A site ahead
    the exporter could not read counts as full: a broken reading must not hold the burst back."""
    ahead = set(gate.ahead)
    return max(0, baseline_free) + sum(p.free_gpus for p in pools if p.site in ahead)


# ------------------------------------------------------------------------------------ from the spec


def pool_gpu_hour(
    catalog: Catalog, cloud: str, region: str, instance_types: Sequence[str], spot_percent: int
) -> float | None:
    """The cheapest GPU-hour of a pool's instance types in ``region``, in USD, blending spot and
    on-demand by ``spot_percent``; None when the catalogue prices none of them there."""
    best: float | None = None
    share = spot_percent / 100
    for name in instance_types:
        found = catalog.find(cloud, name)
        if found is None or region not in found.on_demand or found.gpu_count < 1:
            continue
        on_demand = found.hourly(region)
        spot = found.hourly(region, spot=True)
        hourly = share * catalog.convert(spot.amount, spot.currency, PRICE_CURRENCY) + (1 - share) * (
            catalog.convert(on_demand.amount, on_demand.currency, PRICE_CURRENCY)
        )
        per_gpu = hourly / found.gpu_count
        best = per_gpu if best is None else min(best, per_gpu)
    return best


def spec_pools(spec: FleetSpec, provider_regions: Mapping[str, str | None] | None = None) -> list[BurstPool]:
    """The spec's pools placed at their sites (a pool without a region takes its cloud's provider
    region; one with neither is left out: its site is not known yet)."""
    catalog = load_catalog()
    regions = provider_regions or {}
    placed = []
    for name, pool in spec.pools.items():
        region = pool.region or regions.get(pool.cloud)
        if not region:
            continue
        price = pool_gpu_hour(catalog, pool.cloud, region, pool.instance_types, pool.spot_percent)
        placed.append(BurstPool(name=name, cloud=pool.cloud, region=region, gpu_hour=price))
    return placed


def spec_gates(
    spec: FleetSpec, provider_regions: Mapping[str, str | None] | None = None, *, source: str = "stack config"
) -> dict[str, Gate]:
    """The gates the spec's ``burst`` asks for; empty without ``burst`` (pools scale as before).
    Raises SpecError (``gpufleet:fleet.burst.order``) when a listed site holds no pool."""
    from gpufleet.components.spec.values import CONFIG_KEY, SpecError

    if spec.burst is None:
        return {}
    try:
        return compile_gates(spec_pools(spec, provider_regions), spec.burst.sites or None)
    except ValueError as error:
        raise SpecError([(f"{CONFIG_KEY}.burst.order", str(error))], source) from None


def describe_burst_order(
    spec: FleetSpec, provider_regions: Mapping[str, str | None] | None = None
) -> list[str]:
    """Lines for ``gpufleet plan``: the baseline first, then each site with its pools, price and how its
    cloud enforces the order."""
    if spec.burst is None:
        return ["no burst order: every pool scales on its own queue"]
    try:
        sites = order_sites(spec_pools(spec, provider_regions), spec.burst.sites or None)
    except ValueError as error:
        return [f"burst.order: {error}"]
    lines = []
    if spec.onprem is not None:
        lines.append(f"0. on-prem baseline: {spec.onprem.gpu_count} GPUs, always first")
    else:
        lines.append("0. no on-prem baseline: the first site starts at once")
    for position, entry in enumerate(sites, 1):
        cloud = entry.site.partition(":")[0]
        price = "unpriced" if entry.gpu_hour is None else f"{entry.gpu_hour:.2f} {PRICE_CURRENCY}/GPU-hour"
        how = FACTS[profile(cloud).key].describe_gate(spec.burst)
        lines.append(
            f"{position}. {entry.site} ({entry.reason}, {price}): pools {', '.join(entry.pools)}; {how}"
        )
    gated = [entry.site for entry in sites if ENFORCEMENT[entry.site.partition(":")[0]] == "metric-math"]
    if gated:
        lines.append(signal_line(spec, gated))
    return lines


def signal_line(spec: FleetSpec, gated: Sequence[str]) -> str:
    """Who publishes the gated sites' signal: the on-prem exporter and its Roles Anywhere trust."""
    signal = spec.onprem.signal if spec.onprem is not None else None
    sites = ", ".join(gated)
    if signal is None:
        return (
            f"signal: {SIGNAL_METRIC} for {sites} has no publisher: add onprem.signal (docs/burst-order.md)"
        )
    from gpufleet.components.spec.onprem import full_config_key

    trust = (
        f"trust anchor {signal.trust_anchor_arn}"
        if signal.trust_anchor_arn is not None
        else f"trust anchor built from {full_config_key(signal.ca_certificate or '')}"
    )
    return (
        f"signal: {SIGNAL_NAMESPACE} {SIGNAL_METRIC} for {sites}, every {signal.interval_seconds}s, by the "
        f"on-prem exporter (gpufleet-system) under the BaselineSignal role; IAM Roles Anywhere, {trust}"
    )

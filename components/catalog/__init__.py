"""GPU instance catalogue: hardware shape and published prices per cloud, region and instance type.

The data lives in ``gpus.yaml`` beside this module. Every price carries the date it was read and the page
it came from, so a cost estimate can always say where its numbers came from.
"""

from __future__ import annotations

import difflib
import functools
import importlib.resources
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

import yaml

from gpufleet.components.clouds import CLOUDS, as_cloud, cloud_parts

__all__ = [
    "CLOUDS",
    "CURRENCIES",
    "GPU_CLASSES_DEV_DEFAULT",
    "Catalog",
    "CatalogError",
    "InstanceType",
    "Price",
    "Purchase",
    "ServicePrices",
    "UnknownInstanceType",
    "load_catalog",
    "parse_catalog",
]

CURRENCIES = ("USD", "CNY")
GPU_CLASSES_DEV_DEFAULT = ("T4", "A10G", "A10", "L4")
# Each cloud's catalogue facts (its regions, how its type names read), in `catalog/<cloud>.py`.
_PARTS = cloud_parts(__name__)


@dataclass(frozen=True)
class Price:
    """One published price. ``confirmed`` is false where the figure could not be checked on ``source``."""

    amount: float
    currency: str
    date: str
    source: str
    confirmed: bool = True


@dataclass(frozen=True)
class InstanceType:
    cloud: str
    name: str
    family: str
    gpu_model: str
    gpu_class: str
    gpu_count: int
    vram_gib: float
    vcpu: int
    memory_gib: float
    on_demand: Mapping[str, Price]
    spot_discount: float
    purchase: Price | None = None
    # Spot prices per region where the source has them (the median of the region's zones); a region
    # without one is priced at on-demand less ``spot_discount``.
    spot: Mapping[str, Price] = field(default_factory=lambda: MappingProxyType({}))
    # From the catalogue's `families` block: the CPU architecture an image must match, whether the size
    # takes an Elastic Fabric Adapter, and its network bandwidth in Gbps (None: not in the catalogue;
    # `network_burst`: an "up to" figure, reached in bursts only).
    arch: str = "x86_64"
    efa: bool = False
    network_gbps: float | None = None
    network_burst: bool = False

    @property
    def network_text(self) -> str:
        if self.network_gbps is None:
            return "unknown bandwidth"
        return f"{'up to ' if self.network_burst else ''}{self.network_gbps:g} Gbps"

    @property
    def total_vram_gib(self) -> float:
        return self.vram_gib * self.gpu_count

    def spot_basis(self, region: str) -> str:
        """How the spot price in ``region`` was reached, for reports."""
        if region in self.spot:
            return "median of the region's zones"
        return f"on-demand less {self.spot_discount * 100:g}%"

    def hourly(self, region: str, *, spot: bool = False) -> Price:
        """Hourly price in ``region``; with ``spot`` the region's spot price where the catalogue has one,
        else the typical spot price (on-demand less the discount)."""
        try:
            price = self.on_demand[region]
        except KeyError:
            known = ", ".join(sorted(self.on_demand))
            raise KeyError(
                f"{self.cloud} {self.name} has no price for region {region!r}; priced regions: {known}"
            ) from None
        if not spot:
            return price
        if region in self.spot:
            return self.spot[region]
        return Price(
            amount=price.amount * (1.0 - self.spot_discount),
            currency=price.currency,
            date=price.date,
            source=price.source,
            confirmed=price.confirmed,
        )


@dataclass(frozen=True)
class Purchase:
    """What owning one instance's equivalent server costs, and how that figure was reached."""

    price: Price
    formula: str


@dataclass(frozen=True)
class ServicePrices:
    """One cloud's list prices for what a fleet needs beside its GPUs (storage, NAT, VPN, transfer).

    ``amounts`` keys: ``block_gib_month``, ``nat_gateway_hour``, ``interface_endpoint_az_hour`` (one
    VPC interface endpoint in one availability zone), ``vpn_connection_hour``,
    ``transfer_out_gib`` (to the internet, first tier), ``transfer_inter_region_gib`` (to another region
    of the same cloud), ``object_gib_month.<storage class>`` and ``intelligent_tiering_gib_month.<tier>``
    (S3 Intelligent-Tiering's access tiers: ``frequent``, ``infrequent``, ``archive_instant``).
    ``unconfirmed`` names the keys (before the first dot) whose figures could not be checked on their
    source even where the block as a whole is confirmed.
    """

    cloud: str
    currency: str
    region: str
    date: str
    source: str
    amounts: Mapping[str, float]
    sources: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    confirmed: bool = True
    unconfirmed: frozenset[str] = frozenset()

    def price(self, key: str) -> Price | None:
        amount = self.amounts.get(key)
        if amount is None:
            return None
        group = key.split(".", 1)[0]
        source = self.sources.get(group, self.source)
        confirmed = self.confirmed and group not in self.unconfirmed
        return Price(amount, self.currency, self.date, source, confirmed)

    def object_classes(self) -> list[str]:
        prefix = "object_gib_month."
        return [key.removeprefix(prefix) for key in self.amounts if key.startswith(prefix)]


class CatalogError(ValueError):
    """The catalogue data file is malformed; the message names the entry."""


class UnknownInstanceType(KeyError):
    def __init__(self, cloud: str, name: str, matches: list[str]) -> None:
        super().__init__(cloud, name)
        self.cloud = cloud
        self.name = name
        self.matches = matches

    def __str__(self) -> str:
        message = f"unknown {self.cloud} instance type {self.name!r}"
        if self.matches:
            return f"{message}; did you mean {', '.join(self.matches)}?"
        return f"{message}; the catalogue has no close match"


@dataclass(frozen=True)
class Catalog:
    instance_types: tuple[InstanceType, ...]
    per_usd: Mapping[str, float]
    rates_date: str
    rates_source: str
    _index: Mapping[tuple[str, str], InstanceType] = field(init=False, repr=False, compare=False)
    gpu_street_prices: Mapping[str, Price] = field(default_factory=lambda: MappingProxyType({}))
    host_price: Price | None = None
    services: Mapping[str, ServicePrices] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        index = {(t.cloud, t.name): t for t in self.instance_types}
        object.__setattr__(self, "_index", MappingProxyType(index))

    def find(self, cloud: str, name: str) -> InstanceType | None:
        return self._index.get((cloud, name))

    def get(self, cloud: str, name: str) -> InstanceType:
        found = self.find(cloud, name)
        if found is not None:
            return found
        names = [t.name for t in self.types(cloud)]
        # Names differ by case across clouds (GN7.2XLARGE32 vs g5.2xlarge), so match case-insensitively.
        lowered = {n.lower(): n for n in names}
        close = difflib.get_close_matches(name.lower(), list(lowered), n=3, cutoff=0.6)
        raise UnknownInstanceType(cloud, name, [lowered[c] for c in close])

    def types(self, cloud: str | None = None) -> list[InstanceType]:
        return [t for t in self.instance_types if cloud is None or t.cloud == cloud]

    def regions(self, cloud: str) -> list[str]:
        return sorted({region for t in self.types(cloud) for region in t.on_demand})

    def convert(self, amount: float, from_currency: str, to_currency: str) -> float:
        for currency in (from_currency, to_currency):
            if currency not in self.per_usd:
                raise KeyError(f"unknown currency {currency!r}; known: {', '.join(sorted(self.per_usd))}")
        return amount / self.per_usd[from_currency] * self.per_usd[to_currency]

    def rate(self, from_currency: str, to_currency: str) -> float:
        """Units of ``to_currency`` per unit of ``from_currency``."""
        return self.convert(1.0, from_currency, to_currency)

    def purchase_of(self, instance_type: InstanceType) -> Purchase | None:
        """The price of owning the type's equivalent server: its quoted system price where it has one,
        else ``gpu_count x street price of its GPU class + host price``; None when the class is unpriced."""
        if instance_type.purchase is not None:
            return Purchase(instance_type.purchase, "quoted system price")
        card = self.gpu_street_prices.get(instance_type.gpu_class)
        host = self.host_price
        if card is None or host is None:
            return None
        amount = instance_type.gpu_count * card.amount + host.amount
        formula = (
            f"{instance_type.gpu_count} x {instance_type.gpu_class} at {card.amount:,.0f} "
            f"+ host {host.amount:,.0f} {card.currency}"
        )
        price = Price(amount, card.currency, card.date, card.source, card.confirmed and host.confirmed)
        return Purchase(price, formula)

    def service(self, cloud: str) -> ServicePrices | None:
        return self.services.get(cloud)


def _require(entry: Mapping[str, Any], key: str, where: str) -> Any:
    if key not in entry or entry[key] is None:
        raise CatalogError(f"{where}: missing {key!r}")
    return entry[key]


def _number(value: Any, where: str, key: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise CatalogError(f"{where}: {key} must be a number, got {value!r}")
    return float(value)


def _price(block: Mapping[str, Any], amount: Any, where: str) -> Price:
    currency = _require(block, "currency", where)
    if currency not in CURRENCIES:
        raise CatalogError(f"{where}: unknown currency {currency!r}; known: {', '.join(CURRENCIES)}")
    value = _number(amount, where, "amount")
    if value <= 0:
        raise CatalogError(f"{where}: price must be > 0, got {value}")
    source = block.get("source", block.get("url"))
    if not source:
        raise CatalogError(f"{where}: missing 'source'")
    return Price(
        amount=value,
        currency=str(currency),
        date=str(_require(block, "date", where)),
        source=str(source),
        confirmed=bool(block.get("confirmed", True)),
    )


def _instance_type(entry: Mapping[str, Any], position: int) -> InstanceType:
    where = f"instance_types[{position}] ({entry.get('cloud', '?')} {entry.get('name', '?')})"
    cloud = _require(entry, "cloud", where)
    if cloud not in CLOUDS:
        raise CatalogError(f"{where}: unknown cloud {cloud!r}; known: {', '.join(CLOUDS)}")
    on_demand_block = _require(entry, "on_demand", where)
    regions = on_demand_block.get("regions") or {}
    if not regions:
        raise CatalogError(f"{where}: needs at least one on-demand price")
    on_demand = {
        str(region): _price(on_demand_block, amount, f"{where} on_demand.{region}")
        for region, amount in regions.items()
    }
    purchase_block = entry.get("purchase")
    purchase = (
        _price(purchase_block, purchase_block.get("amount"), f"{where} purchase") if purchase_block else None
    )
    spot_block = entry.get("spot")
    spot_prices: dict[str, Price] = {}
    if spot_block:
        if not isinstance(spot_block, Mapping) or not isinstance(spot_block.get("regions"), Mapping):
            raise CatalogError(f"{where}: spot must be a mapping with regions")
        for region, amount in spot_block["regions"].items():
            if str(region) not in on_demand:
                raise CatalogError(f"{where} spot.{region}: no on-demand price in that region")
            spot_prices[str(region)] = _price(spot_block, amount, f"{where} spot.{region}")
    spot_discount = _number(_require(entry, "spot_discount", where), where, "spot_discount")
    if not 0.0 <= spot_discount < 1.0:
        raise CatalogError(f"{where}: spot_discount must be in [0, 1), got {spot_discount}")
    gpu_count = _require(entry, "gpu_count", where)
    vcpu = _require(entry, "vcpu", where)
    for key, value in (("gpu_count", gpu_count), ("vcpu", vcpu)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise CatalogError(f"{where}: {key} must be a positive integer, got {value!r}")
    return InstanceType(
        cloud=str(cloud),
        name=str(_require(entry, "name", where)),
        family=str(_require(entry, "family", where)),
        gpu_model=str(_require(entry, "gpu_model", where)),
        gpu_class=str(_require(entry, "gpu_class", where)),
        gpu_count=gpu_count,
        vram_gib=_number(_require(entry, "vram_gib", where), where, "vram_gib"),
        vcpu=vcpu,
        memory_gib=_number(_require(entry, "memory_gib", where), where, "memory_gib"),
        on_demand=MappingProxyType(on_demand),
        spot_discount=spot_discount,
        purchase=purchase,
        spot=MappingProxyType(spot_prices),
    )


def _purchase_formula(block: Any) -> tuple[dict[str, Price], Price | None]:
    if not block:
        return {}, None
    where = "purchase_formula"
    if not isinstance(block, Mapping):
        raise CatalogError(f"{where}: must be a mapping")
    cards = _require(block, "gpu_street_prices", where)
    if not isinstance(cards, Mapping):
        raise CatalogError(f"{where}.gpu_street_prices: must be a mapping of GPU class to amount")
    prices = {
        str(gpu_class): _price(block, amount, f"{where}.gpu_street_prices.{gpu_class}")
        for gpu_class, amount in cards.items()
    }
    host = _price(block, _require(block, "host_price", where), f"{where}.host_price")
    return prices, host


_SERVICE_KEYS = (
    "block_gib_month",
    "nat_gateway_hour",
    "interface_endpoint_az_hour",
    "vpn_connection_hour",
    "transfer_out_gib",
    "transfer_inter_region_gib",
)
_SERVICE_GROUPS = ("object_gib_month", "intelligent_tiering_gib_month")


def _services(block: Any) -> dict[str, ServicePrices]:
    if not block:
        return {}
    if not isinstance(block, Mapping):
        raise CatalogError("services: must be a mapping of cloud to prices")
    found: dict[str, ServicePrices] = {}
    for cloud, entry in block.items():
        where = f"services.{cloud}"
        if cloud not in CLOUDS:
            raise CatalogError(f"{where}: unknown cloud {cloud!r}; known: {', '.join(CLOUDS)}")
        if not isinstance(entry, Mapping):
            raise CatalogError(f"{where}: must be a mapping")
        currency = _require(entry, "currency", where)
        if currency not in CURRENCIES:
            raise CatalogError(f"{where}: unknown currency {currency!r}; known: {', '.join(CURRENCIES)}")
        amounts: dict[str, float] = {}
        for key in _SERVICE_KEYS:
            if entry.get(key) is not None:
                amounts[key] = _number(entry[key], where, key)
        for group in _SERVICE_GROUPS:
            for name, amount in (entry.get(group) or {}).items():
                key = f"{group}.{name}"
                amounts[key] = _number(amount, where, key)
        unconfirmed = entry.get("unconfirmed") or []
        known = {*_SERVICE_KEYS, *_SERVICE_GROUPS}
        if not isinstance(unconfirmed, list) or any(k not in known for k in unconfirmed):
            raise CatalogError(f"{where}.unconfirmed: must list price keys among {', '.join(sorted(known))}")
        if any(amount < 0 for amount in amounts.values()):
            raise CatalogError(f"{where}: prices must be >= 0")
        found[str(cloud)] = ServicePrices(
            cloud=str(cloud),
            currency=str(currency),
            region=str(_require(entry, "region", where)),
            date=str(_require(entry, "date", where)),
            source=str(_require(entry, "source", where)),
            amounts=MappingProxyType(amounts),
            sources=MappingProxyType({str(k): str(v) for k, v in (entry.get("sources") or {}).items()}),
            confirmed=bool(entry.get("confirmed", True)),
            unconfirmed=frozenset(str(k) for k in unconfirmed),
        )
    return found


ARCHES = ("x86_64", "arm64")


def _network(value: Any, where: str) -> tuple[float, bool]:
    """`25` or `"up to 25"` (Gbps)."""
    burst = isinstance(value, str) and value.startswith("up to ")
    raw = value.removeprefix("up to ") if isinstance(value, str) else value
    try:
        gbps = float(raw)
    except (TypeError, ValueError):
        raise CatalogError(f"{where}: must be a number of Gbps or 'up to N', got {value!r}") from None
    if gbps <= 0:
        raise CatalogError(f"{where}: must be > 0, got {value!r}")
    return gbps, burst


def _size_of(cloud: str, name: str, family: str) -> str:
    """The part of a type's name after its family: `g5.xlarge` -> `xlarge`, `ecs.gn7i-c8g1.2xlarge` ->
    `c8g1.2xlarge`, `GN7.2XLARGE32` -> `2XLARGE32`."""
    key = as_cloud(cloud)
    sized = getattr(_PARTS.get(key), "size_of", None) if key is not None else None
    if sized is not None:
        return str(sized(name, family))
    return name.split(".", 1)[1] if "." in name else name


def _with_families(types: tuple[InstanceType, ...], block: Any) -> tuple[InstanceType, ...]:
    if not block:
        return types
    if not isinstance(block, Mapping):
        raise CatalogError("families: must be a mapping of cloud to families")
    shaped: dict[tuple[str, str], dict[str, Any]] = {}
    for cloud in CLOUDS:
        for family, entry in (block.get(cloud) or {}).items():
            where = f"families.{cloud}.{family}"
            if not isinstance(entry, Mapping):
                raise CatalogError(f"{where}: must be a mapping")
            arch = entry.get("arch", "x86_64")
            if arch not in ARCHES:
                raise CatalogError(f"{where}.arch: must be one of {', '.join(ARCHES)}, got {arch!r}")
            network = entry.get("network") or {}
            if not isinstance(network, Mapping):
                raise CatalogError(f"{where}.network: must map sizes to Gbps")
            shaped[(cloud, str(family))] = {
                "arch": arch,
                # `efa` (AWS) and `eri` (Alibaba Cloud's elastic RDMA interface): the sizes that take the
                # cloud's RDMA interface, carried as `efa` on the type.
                "efa": {str(size) for size in entry.get("efa") or entry.get("eri") or ()},
                "network": {str(k): _network(v, f"{where}.network.{k}") for k, v in network.items()},
            }
    out: list[InstanceType] = []
    for t in types:
        entry = shaped.get((t.cloud, t.family))
        if entry is None:
            out.append(t)
            continue
        size = _size_of(t.cloud, t.name, t.family)
        gbps, burst = entry["network"].get(size, (None, False))
        out.append(
            replace(t, arch=entry["arch"], efa=size in entry["efa"], network_gbps=gbps, network_burst=burst)
        )
    return tuple(out)


def parse_catalog(data: Any) -> Catalog:
    """Validate the parsed data file and build a catalogue; raises CatalogError naming the bad entry."""
    if not isinstance(data, Mapping):
        raise CatalogError("catalogue: top level must be a mapping")
    rates = _require(data, "rates", "catalogue")
    per_usd_raw = _require(rates, "per_usd", "rates")
    per_usd = {str(k): _number(v, "rates.per_usd", str(k)) for k, v in per_usd_raw.items()}
    missing = [c for c in CURRENCIES if c not in per_usd]
    if missing:
        raise CatalogError(f"rates.per_usd: missing {', '.join(missing)}")
    entries = _require(data, "instance_types", "catalogue")
    types = tuple(_instance_type(entry, i) for i, entry in enumerate(entries))
    types = _with_families(types, data.get("families"))
    seen: set[tuple[str, str]] = set()
    for t in types:
        if (t.cloud, t.name) in seen:
            raise CatalogError(f"instance_types: {t.cloud} {t.name} is listed twice")
        seen.add((t.cloud, t.name))
    street_prices, host_price = _purchase_formula(data.get("purchase_formula"))
    return Catalog(
        instance_types=types,
        per_usd=MappingProxyType(per_usd),
        rates_date=str(_require(rates, "date", "rates")),
        rates_source=str(_require(rates, "source", "rates")),
        gpu_street_prices=MappingProxyType(street_prices),
        host_price=host_price,
        services=MappingProxyType(_services(data.get("services"))),
    )


@functools.cache
def load_catalog() -> Catalog:
    text = importlib.resources.files(__package__).joinpath("gpus.yaml").read_text(encoding="utf-8")
    # The packaged catalogue is ours and trusted; libyaml's safe loader parses it about ten times faster
    # than the pure-Python one, which every command pays once per process.
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    return parse_catalog(yaml.load(text, Loader=loader))

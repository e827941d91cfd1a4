"""Adapters: price a FleetSpec alone (`estimate_spec`) or what a program run registers
(`estimate_stack`), with the spec's usage profiles and budget overlaid by pool name."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from gpufleet.components.catalog import Catalog, load_catalog
from gpufleet.cost.billed import BILLED
from gpufleet.cost.lookup import unpriced_types
from gpufleet.cost.model import CostError, CostReport, OtherLine, PricedPool, UsageLevel, UsageProfile
from gpufleet.cost.other_lines import transfer_line
from gpufleet.cost.owned import with_owned
from gpufleet.cost.pricing import price_pools
from gpufleet.cost.props import _default_region, _tags
from gpufleet.cost.schedule import WeeklySchedule
from gpufleet.cost.services import _other_lines
from gpufleet.cost.storage import _storage_lines

# ------------------------------------------------------------------------------------------ adapters


def _usage_of(spec_usage: Any) -> UsageProfile | None:
    """The spec's ``usage`` (a profile, or its one-step form) as the pricing's profile."""
    if spec_usage is None:
        return None
    return UsageProfile(
        levels=tuple(UsageLevel(float(step.size), float(step.hours_per_day)) for step in spec_usage.steps),
        days_per_month=float(spec_usage.days_per_month),
        profile_form=bool(spec_usage.is_profile),
    )


def _spec_schedule(pool: Any, environment: str) -> tuple[WeeklySchedule | None, str | None]:
    hours = pool.off_hours
    if hours is None:
        return None, None
    if environment == "prod":
        # The fleet ignores off_hours in prod (production capacity is never switched off by a timetable).
        return None, "off_hours is ignored in prod: priced around the clock"
    return WeeklySchedule.from_off_hours(hours.scale_to_zero, hours.weekends, hours.timezone), None


def estimate_spec(
    spec: Any,
    *,
    catalog: Catalog | None = None,
    currency: str | None = None,
    stack: str = "",
    source: str = "stack config",
    config: Mapping[str, Any] | None = None,
) -> CostReport:
    """Price a FleetSpec on its own (no program run): every pool as the spec describes it."""
    from gpufleet.components.spec import CONFIG_KEY

    catalog = catalog or load_catalog()
    currency = currency or spec.budget.currency
    pools: list[PricedPool] = []
    for name, pool in spec.pools.items():
        path = f"{CONFIG_KEY}.pools.{name}"
        region = pool.region or _default_region(config or {}, pool.cloud)
        if region is None:
            raise CostError(
                f"{source}: {path}.region: is needed to price the pool "
                f"(or set {pool.cloud}:region in the stack)"
            )
        schedule, note = _spec_schedule(pool, spec.environment)
        pools.append(
            PricedPool(
                name=name,
                cloud=pool.cloud,
                region=region,
                instance_types=tuple(pool.instance_types),
                min_size=pool.size.min,
                max_size=pool.size.max,
                spot_percent=float(pool.spot_percent),
                on_demand_base=pool.on_demand_base,
                usage=_usage_of(pool.usage),
                schedule=schedule,
                disk_gib=float(pool.disk_gib),
                source=source,
                path=path,
                notes=(note,) if note else (),
            )
        )
    notes: list[str] = []
    other = _transfer_lines(spec, pools, catalog, currency, notes)
    if spec.storage.checkpoints.written_gib_per_month is not None or spec.storage.datasets_gib is not None:
        notes.append(
            "bucket storage is priced from the lifecycle the program builds: see the stack's estimate "
            "(gpufleet cost -s STACK), not this spec-only one"
        )
    report = price_pools(
        pools,
        catalog,
        currency=currency,
        stack=stack,
        other=other,
        notes=notes,
        basis="spec",
        budget=spec.budget,
        budget_where=f"{source}: {CONFIG_KEY}.budget.currency",
    )
    return with_owned(report, spec, pools, catalog)


POOL_TAG = "gpufleet:pool"


def _match_spec_pool(name: str, tags: Mapping[str, str], spec_pools: Iterable[str]) -> tuple[str | None, str]:
    """The spec pool a discovered pool belongs to: by its gpufleet:pool tag, else its logical name."""
    names = list(spec_pools)
    tagged = tags.get(POOL_TAG)
    if tagged in names:
        return tagged, "tag"
    candidates = [
        n
        for n in names
        if name == n or name.startswith(f"{n}-") or f"-{n}-" in name or name.endswith(f"-{n}")
    ]
    if not candidates:
        return None, ""
    return max(candidates, key=len), "name"


@dataclass(frozen=True)
class _Action:
    recurrence: str
    max_size: int | None
    desired: int | None

    @property
    def stops(self) -> bool:
        # A start action may restore desired capacity 0 (a pool whose minimum is 0): only a zero
        # maximum, or a zero desired capacity with no maximum given, takes the pool to zero.
        return self.max_size == 0 or (self.max_size is None and self.desired == 0)


# Scheduled scaling actions, of every cloud that has them (gpufleet.cost.billed).
_SCHEDULE_TYPES = tuple(token for billed in BILLED.values() for token in billed.schedules)


def _int_or_none(value: Any) -> int | None:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return int(value)
    return None


def _pool_actions(pool: Any, graph: Any) -> tuple[list[_Action], str | None]:
    """The pool's scheduled actions; where none was joined to it by reference, the schedules that share
    its component parent (a reference to the group's name may be unknown before deploy)."""
    actions = [_Action(s.recurrence, s.max_size, s.desired) for s in pool.schedules if s.recurrence]
    if actions:
        return actions, None
    resource = graph.get(pool.urn)
    parent = resource.parent if resource is not None else None
    if not parent:
        return [], None
    siblings = [r for r in graph.children(parent) if r.type == pool.resource_type]
    if len(siblings) != 1:
        return [], None
    for schedule in graph.children(parent):
        if schedule.type in _SCHEDULE_TYPES and isinstance(schedule.inputs.get("recurrence"), str):
            actions.append(
                _Action(
                    schedule.inputs["recurrence"],
                    _int_or_none(schedule.inputs.get("maxSize")),
                    _int_or_none(schedule.inputs.get("desiredCapacity")),
                )
            )
    return actions, "schedules joined to the pool through their shared component" if actions else None


def _graph_schedule(actions: Sequence[_Action]) -> tuple[WeeklySchedule | None, str | None]:
    stops = [a.recurrence for a in actions if a.stops]
    starts = [a.recurrence for a in actions if not a.stops]
    if not stops:
        return None, None
    description = "stop " + ", ".join(f"'{s}'" for s in stops)
    description += "; start " + ", ".join(f"'{s}'" for s in starts) if starts else "; never restarted"
    try:
        schedule = WeeklySchedule.from_crons(stops, starts, description)
    except ValueError as exc:
        return None, f"schedule not understood ({exc}): priced around the clock"
    return schedule, None


def _spot_above_base(pool: Any) -> float:
    """The pool model gives the spot share of the whole pool at max size; pricing wants the share of
    the instances above the on-demand base."""
    share = float(pool.spot_percent or 0.0)
    size = int(pool.max_size or 0)
    above = size - min(int(pool.on_demand_base), size)
    if above <= 0:
        return 0.0
    return min(100.0, round(share * size / above, 6))


def _by_vcpus(pool: Any, catalog: Catalog) -> tuple[Any | None, list[str]]:
    """A pool sized in vCPUs (AWS Batch) as instances of the type that costs most at its maxVcpus
    (bare families stand for the catalogue's types of the family); None and the reasons when the
    catalogue prices none of its types in the pool's region."""
    from gpufleet.policies.cost.pools.families import expand
    from gpufleet.policies.cost.pools.pricing import worst_shape

    shape, _ = worst_shape(pool, catalog, "USD")
    if shape is None:
        names = [name for name, _ in expand(catalog, pool.cloud, pool.instance_types)]
        return None, unpriced_types(catalog, pool.cloud, pool.region, names) or [
            f"the catalogue gives no vCPU count for {', '.join(names)}"
        ]
    return (
        replace(
            pool,
            instance_types=(shape.instance_type,),
            min_size=shape.count_min,
            max_size=shape.count_max,
            on_demand_base=0,
        ),
        [],
    )


def estimate_stack(
    graph: Any,
    *,
    catalog: Catalog | None = None,
    currency: str | None = None,
    source: str | None = None,
) -> CostReport:
    """Price the GPU pools (and NAT, VPN, volumes) a program run registers.

    The stack's spec (``gpufleet:fleet`` in ``graph.config``), where there is one, supplies each pool's
    usage profile and the budget, matched by the ``gpufleet:pool`` tag, else by logical name. The pools'
    shape (types, sizes, spot share, schedules) comes from the graph: that is what would be deployed.
    """
    from gpufleet.analyzer_inputs import default_stack_tags
    from gpufleet.components.spec import CONFIG_KEY, SpecError, load_fleet_from_config
    from gpufleet.evaluate import stack_policy_resources
    from gpufleet.policies.cost.pools import discover_pools

    catalog = catalog or load_catalog()
    source = source or f"stacks/Pulumi.{graph.stack}.yaml"
    spec = None
    if CONFIG_KEY in graph.config:
        try:
            spec = load_fleet_from_config(graph.config, source)
        except SpecError as exc:
            raise CostError(str(exc)) from None
    # Built once per graph: `check` judges the same objects with the stack policies.
    found = discover_pools(stack_policy_resources(graph), catalog, default_stack_tags(graph))
    notes: list[str] = []
    if spec is None:
        notes.append(
            "no gpufleet:fleet spec: every pool is estimated at its maximum size for the hours its "
            "schedules (if any) let it run"
        )
    priced: list[PricedPool] = []
    unpriced: list[str] = []
    matched: set[str] = set()
    for discovered in found:
        pool = _price_pool(
            discovered, graph, spec, catalog, source=source, tally=_Tally(matched, notes, unpriced)
        )
        if pool is not None:
            priced.append(pool)
    if spec is not None:
        for spec_name in spec.pools:
            if spec_name not in matched:
                notes.append(f"spec pool {spec_name} has no GPU pool in the program's resources: not priced")
    report_currency = currency or (spec.budget.currency if spec else None) or "USD"
    other = _other_lines(graph, catalog, report_currency, source, notes)
    other += _storage_lines(graph, spec, catalog, report_currency, source=source, notes=notes)
    other += _transfer_lines(spec, priced, catalog, report_currency, notes)
    report = price_pools(
        priced,
        catalog,
        currency=report_currency,
        stack=graph.stack,
        other=other,
        notes=notes,
        basis="graph+spec" if spec else "graph",
        budget=spec.budget if spec else None,
        budget_where=f"{source}: {CONFIG_KEY}.budget.currency",
        unpriced=unpriced,
    )
    return with_owned(report, spec, priced, catalog)


@dataclass(frozen=True)
class _Tally:
    """What pricing the pools gathers besides the priced pools: the spec pools matched, the report's
    notes and the pools left unpriced (with why)."""

    matched: set[str]
    notes: list[str]
    unpriced: list[str]


def _price_pool(
    pool: Any, graph: Any, spec: Any, catalog: Catalog, *, source: str, tally: _Tally
) -> PricedPool | None:
    """One discovered pool, matched to its spec pool and priced; None when it cannot be priced (said in
    the tally's notes or unpriced list)."""
    from gpufleet.components.spec import CONFIG_KEY

    resource = graph.get(pool.urn)
    tags = _tags(resource.inputs) if resource is not None else {}
    spec_name, how = _match_spec_pool(pool.name, tags, spec.pools if spec else ())
    spec_pool = spec.pools[spec_name] if spec and spec_name else None
    name = spec_name or pool.name
    pool_notes: list[str] = []
    if spec_name:
        tally.matched.add(spec_name)
        if how == "name":
            pool_notes.append(f"matched to spec pool {spec_name} by logical name {pool.name}")
    region = (
        pool.region
        or (spec.pool_region(spec_name, "") if spec and spec_name else "")
        or (_default_region(graph.config, pool.cloud) or "")
    )
    if not region:
        raise CostError(f"{source}: {pool.urn}: the pool's region is unknown; set {pool.cloud}:region")
    if pool.max_vcpus is not None and pool.instance_types:
        sized, reasons = _by_vcpus(replace(pool, region=region), catalog)
        if sized is None:
            tally.unpriced.append(f"{name}: {'; '.join(reasons)}")
            return None
        pool_notes.append(
            f"sized in vCPUs ({pool.min_vcpus or 0}-{pool.max_vcpus}): priced as "
            f"{sized.max_size} x {sized.instance_types[0]}, the type that costs most at maxVcpus"
        )
        pool = sized
    if pool.max_size is None or not pool.instance_types:
        tally.notes.append(f"{pool.name}: size or instance type unknown at preview: not priced")
        return None
    reasons = unpriced_types(catalog, pool.cloud, region, pool.instance_types)
    if reasons:
        # A type or region the catalogue does not price never stops a check: the pool is named
        # as unpriced and left out of every total (the security rules still judge it).
        tally.unpriced.append(f"{name}: {'; '.join(reasons)}")
        return None
    actions, joined_note = _pool_actions(pool, graph)
    schedule, schedule_note = _graph_schedule(actions)
    pool_notes.extend(n for n in (joined_note, schedule_note) if n)
    if spec_pool is not None and spec_pool.off_hours is not None and schedule is None:
        pool_notes.append("the spec's off_hours is not deployed: priced around the clock")
    path = f"{CONFIG_KEY}.pools.{spec_name}" if spec_name else pool.urn
    return PricedPool(
        name=name,
        cloud=pool.cloud,
        region=region,
        instance_types=tuple(pool.instance_types),
        min_size=pool.min_size or 0,
        max_size=pool.max_size,
        spot_percent=_spot_above_base(pool),
        on_demand_base=pool.on_demand_base,
        usage=_usage_of(spec_pool.usage) if spec_pool is not None else None,
        schedule=schedule,
        disk_gib=float(spec_pool.disk_gib) if spec_pool is not None else None,
        source=source,
        path=path,
        notes=tuple(pool_notes),
    )


def _transfer_lines(
    spec: Any, priced: Sequence[PricedPool], catalog: Catalog, currency: str, notes: list[str]
) -> list[OtherLine]:
    """Each priced spec pool's data transfer, where the spec gives its volume."""
    if spec is None:
        return []
    lines: list[OtherLine] = []
    missing: list[str] = []
    fields = (
        ("egress", "egress_gib_per_month", "transfer_out_gib"),
        ("cross-region", "cross_region_gib_per_month", "transfer_inter_region_gib"),
    )
    for pool in priced:
        spec_pool = spec.pools.get(pool.name)
        if spec_pool is None:
            continue
        transfer = spec_pool.transfer
        for kind, field_name, key in fields:
            gib = getattr(transfer, field_name) if transfer is not None else None
            if gib is None:
                missing.append(f"{pool.name}.transfer.{field_name}")
                continue
            if gib == 0:
                continue
            services = catalog.service(pool.cloud)
            if services is None or services.price(key) is None:
                notes.append(
                    f"{pool.name}: {kind} transfer not priced: the catalogue has no {pool.cloud} {key}"
                )
                continue
            lines.append(
                transfer_line(
                    kind,
                    pool.name,
                    cloud=pool.cloud,
                    region=pool.region,
                    key=key,
                    gib_per_month=float(gib),
                    catalog=catalog,
                    currency=currency,
                    where=pool.where(f"transfer.{field_name}"),
                )
            )
    if missing:
        notes.append(
            f"data transfer not priced where the spec gives no volume: pools.{', pools.'.join(missing)}"
        )
    return lines

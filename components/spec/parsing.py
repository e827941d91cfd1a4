"""Parsing the stack config: every field error and every cross-field check on the raw input, reported
at once."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

from gpufleet.components import spec_limits as limits
from gpufleet.components.clouds import ACCOUNT_CLOUD, DEFAULT_CLOUD, REGION_CONFIG_KEYS
from gpufleet.components.spec.account import (
    Account,
    _account_checks,
    _byok_material_checks,
    _image_checks,
    image_cloud_checks,
)
from gpufleet.components.spec.checks import (
    _bucket_checks,
    _get,
    _network_checks,
    _pool_checks,
    _pool_name_checks,
    _scaling_checks,
    _size_checks,
    _usage_checks,
    _usage_schedule_checks,
    _workload_checks,
)
from gpufleet.components.spec.messages import _message, _path
from gpufleet.components.spec.pool import Pool, Scaling, Size
from gpufleet.components.spec.settings import BucketSpec, Network, RegionNetwork
from gpufleet.components.spec.sites import provider_region_problems, site_plans
from gpufleet.components.spec.specs import AccountBaselineSpec, FleetSpec
from gpufleet.components.spec.values import _CROSS, ACCOUNT_CONFIG_KEY, CONFIG_KEY, SpecError

# -------------------------------------------------------------------------------------- raw checks


def _field_default(model: type[BaseModel], name: str) -> Any:
    return model.model_fields[name].default


def _raw_cross_checks(raw: Any) -> Iterator[tuple[str, str]]:
    for rel, message in limits.tag_checks(_get(raw, "tags"), _get(raw, "environment")):
        yield f"{CONFIG_KEY}.tags{rel}", message
    yield from _raw_network_checks(raw)
    yield from _raw_storage_checks(raw)
    yield from _raw_account_checks(raw)
    pools = _get(raw, "pools")
    if not isinstance(pools, Mapping):
        return
    for rel, message in _pool_name_checks(pools):
        yield f"{CONFIG_KEY}.pools.{rel}", message
    network = _get(raw, "network", {})
    for name, pool in pools.items():
        if isinstance(pool, Mapping):
            prefix = f"{CONFIG_KEY}.pools.{limits.clip(str(name), 60)}"
            yield from _raw_pool_checks(raw, network, prefix, pool)


def _raw_network_checks(raw: Any) -> Iterator[tuple[str, str]]:
    """The home and regional VPC ranges: sizes against their zones, and overlaps."""
    network = _get(raw, "network", {})
    if not isinstance(network, Mapping):
        return
    home_cidr = network.get("vpc_cidr", str(_field_default(Network, "vpc_cidr")))
    zones = network.get("availability_zones", _field_default(Network, "availability_zones"))
    if not network.get("subnet_ids"):
        for rel, message in limits.vpc_cidr_checks(home_cidr, zones):
            yield f"{CONFIG_KEY}.network.{rel}", message
    regions = network.get("regions", {})
    for region, entry in regions.items() if isinstance(regions, Mapping) else ():
        zones = _get(entry, "availability_zones", _field_default(RegionNetwork, "availability_zones"))
        for rel, message in limits.vpc_cidr_checks(_get(entry, "vpc_cidr"), zones):
            yield f"{CONFIG_KEY}.network.regions.{limits.clip(str(region), 60)}.{rel}", message
    pools = _get(raw, "pools")
    default = DEFAULT_CLOUD
    clouds = [_get(p, "cloud", default) for p in pools.values()] if isinstance(pools, Mapping) else [default]
    # network.vpc_cidr is the home's (the account cloud's) range: checked when that cloud has pools.
    home = home_cidr if ACCOUNT_CLOUD in clouds or not clouds else None
    for rel, message in _network_checks(home, regions):
        yield f"{CONFIG_KEY}.network.{rel}", message


def _raw_storage_checks(raw: Any) -> Iterator[tuple[str, str]]:
    """The checkpoint bucket's encryption, classification, lifecycle and key material."""
    checkpoints = _get(_get(raw, "storage", {}), "checkpoints", {})
    if not isinstance(checkpoints, Mapping):
        return
    defaults = {n: _field_default(BucketSpec, n) for n in BucketSpec.model_fields}
    found = _bucket_checks(
        *(checkpoints.get(n, defaults[n]) for n in ("encryption", "classification")),
        *(checkpoints.get(n, defaults[n]) for n in ("ia_after_days", "expire_after_days")),
    )
    found += _byok_material_checks(
        checkpoints.get("encryption", defaults["encryption"]), checkpoints.get("byok_material")
    )
    for rel, message in found:
        yield f"{CONFIG_KEY}.storage.checkpoints.{rel}", message


def _raw_account_checks(raw: Any) -> Iterator[tuple[str, str]]:
    """The account baseline against its service-linked roles."""
    account = _get(raw, "account", {})
    if not isinstance(account, Mapping):
        return
    found = _account_checks(
        account.get("baseline", _field_default(Account, "baseline")), account.get("service_linked_roles")
    )
    for rel, message in found:
        yield f"{CONFIG_KEY}.account.{rel}", message


def _raw_pool_checks(
    raw: Any, network: Any, prefix: str, pool: Mapping[str, Any]
) -> Iterator[tuple[str, str]]:
    """One pool's size, scaling, types, workload route, image and usage (under `prefix`)."""
    size = pool.get("size")
    size_min = _get(size, "min", _field_default(Size, "min"))
    size_max = _get(size, "max")
    for rel, message in _size_checks(size_min, size_max):
        yield f"{prefix}.size.{rel}", message
    scaling = pool.get("scaling", {})
    if isinstance(scaling, Mapping):
        values = {n: scaling.get(n, _field_default(Scaling, n)) for n in Scaling.model_fields}
        found = _scaling_checks(
            values["gpu_util_out"], values["gpu_util_in"], values["out_for"], values["in_for"]
        )
        for rel, message in found:
            yield f"{prefix}.scaling.{rel}", message
    for rel, message in _pool_checks(
        pool.get("cloud", _field_default(Pool, "cloud")),
        pool.get("instance_types"),
        size_max,
        pool.get("on_demand_base", _field_default(Pool, "on_demand_base")),
    ):
        yield f"{prefix}.{rel}", message
    egress = _get(network, "egress", _field_default(Network, "egress"))
    cloud = pool.get("cloud", _field_default(Pool, "cloud"))
    for rel, message in limits.workload_route_checks(
        pool.get("workload"), egress, _get(network, "subnet_ids"), cloud, pool.get("region")
    ):
        yield f"{prefix}.workload.{rel}", message
    joined = _get(_get(raw, "onprem"), "scheduler") is not None
    region = pool.get("region")
    for rel, message in _workload_checks(cloud, pool.get("queue", {}), pool.get("workload"), joined, region):
        yield f"{prefix}.{rel}", message
    image = pool.get("image")
    if isinstance(image, Mapping):
        ami, parameter, image_id = image.get("ami"), image.get("ssm_parameter"), image.get("id")
        for _, message in _image_checks(ami, parameter, image_id, image.get("arch")):
            yield f"{prefix}.image", message
        cloud = pool.get("cloud", _field_default(Pool, "cloud"))
        for rel, message in image_cloud_checks(cloud, ami, parameter, image_id):
            yield f"{prefix}.{rel}", message
    usage = pool.get("usage")
    found = _usage_checks(usage, size_min, size_max)
    found += _usage_schedule_checks(usage, pool.get("off_hours"), _get(raw, "environment"))
    for rel, message in found:
        yield f"{prefix}.{rel}", message


# ----------------------------------------------------------------------------------------- parsing


def parse_fleet(config_value: Any, *, source: str = "stack config") -> FleetSpec:
    """Parse ``gpufleet:fleet`` into a FleetSpec, or raise SpecError listing every problem."""
    errors: list[tuple[str, str]] = []
    spec: FleetSpec | None = None
    try:
        spec = FleetSpec.model_validate(config_value)
    except ValidationError as exc:
        for error in exc.errors():
            if error["type"] == _CROSS:
                continue
            loc, message = _message(error)
            errors.append((_path(loc), message))
    for item in _raw_cross_checks(config_value):
        if item not in errors:
            errors.append(item)
    if errors or spec is None:
        raise SpecError(errors or [(CONFIG_KEY, "is not a valid fleet spec")], source)
    return spec


def parse_account_baseline(config_value: Any, *, source: str = "stack config") -> AccountBaselineSpec:
    """Parse ``gpufleet:account`` into an AccountBaselineSpec, or raise SpecError listing every problem."""
    if isinstance(config_value, str):
        try:
            config_value = limits.parse_json(config_value)
        except ValueError:
            message = "must be a mapping of account-baseline settings, got a string that is not JSON"
            raise SpecError([(ACCOUNT_CONFIG_KEY, message)], source) from None
    try:
        return AccountBaselineSpec.model_validate(config_value)
    except ValidationError as exc:
        errors = []
        for error in exc.errors():
            loc, message = _message(error, AccountBaselineSpec)
            errors.append((_path(loc, ACCOUNT_CONFIG_KEY), message))
        raise SpecError(errors, source) from None


def load_fleet_from_config(config: Mapping[str, Any], source: str = "stack config") -> FleetSpec:
    """Read the fleet from a stack's config mapping (keys like ``gpufleet:fleet``, ``aws:region``)."""
    if CONFIG_KEY not in config:
        raise SpecError(
            [(CONFIG_KEY, "is missing: describe the fleet under config: gpufleet:fleet in the stack file")],
            source,
        )
    regions = provider_regions(config)
    # A bad provider region is reported with the spec's own problems, not before them: one run names
    # everything to fix. The site plan needs a parsed spec, so its problems (the provider regions' among
    # them) come once the spec parses.
    problems = provider_region_problems(regions)
    value = config[CONFIG_KEY]
    if isinstance(value, str):
        # The Pulumi engine hands structured config to programs as a JSON string.
        try:
            value = limits.parse_json(value)
        except limits.JsonProblem as exc:
            raise SpecError([*problems, (CONFIG_KEY, str(exc))], source) from None
    try:
        spec = parse_fleet(value, source=source)
    except SpecError as exc:
        raise SpecError([*problems, *exc.errors], source) from None
    site_plans(spec, regions, source=source)  # a spec that loads builds: its site plan is made here
    return spec


def provider_regions(config: Mapping[str, Any]) -> dict[str, str | None]:
    """Each cloud's provider region in a stack's config mapping (``aws:region`` ...), None where unset.

    A value that is not a string is kept as its text, so the region check names it."""
    regions: dict[str, str | None] = {}
    for cloud, key in REGION_CONFIG_KEYS.items():
        value = config.get(key)
        regions[cloud] = None if value is None else value if isinstance(value, str) else str(value)
    return regions

"""What every cloud's pool builder shares: the `Pool` record with its attachments, the spot share
above an on-demand base, standalone instances, and instance types read from templates and overrides."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from gpufleet.policies.context import environment, resource_region
from gpufleet.policies.cost.pools.attachments import _Attachments
from gpufleet.policies.cost.pools.model import Pool
from gpufleet.policies.cost.pools.reading import _Reader, _str
from gpufleet.policies.gpu import cloud_of
from gpufleet.policies.props import as_list, get_ref, is_unknown


# --- pool builders -------------------------------------------------------------------------------
def _pool(
    resource: Any,
    reader: _Reader,
    attachments: _Attachments,
    stack_tags: Mapping[str, str],
    **values: Any,
) -> Pool:
    values.setdefault("on_demand_base", 0)
    return Pool(
        cloud=cloud_of(resource.resource_type),
        resource_type=resource.resource_type,
        urn=resource.urn,
        name=resource.name,
        region=resource_region(resource.props, resource.provider),
        env=environment(resource.resource_type, resource.props, resource.urn, stack_tags),
        scaling=tuple(attachments.signals.get(resource.urn, ())),
        schedules=tuple(attachments.schedules.get(resource.urn, ())),
        unknown=dict(reader.unknown),
        **values,
    )


@dataclass(frozen=True)
class _Source:
    """The resource a pool is read from, with its reader, the stack's attachments and the stack's tags:
    what every sized pool's builder passes on unchanged."""

    resource: Any
    reader: _Reader
    attachments: _Attachments
    stack_tags: Mapping[str, str]

    def sized(
        self,
        instance_types: Iterable[str],
        sizes: tuple[int | None, int | None, int | None],
        spot_percent: float | None,
        **values: Any,
    ) -> Pool:
        """A pool of `instance_types` (each once, in order) sized `(min_size, max_size, desired)`."""
        min_size, max_size, desired = sizes
        return _pool(
            self.resource,
            self.reader,
            self.attachments,
            self.stack_tags,
            instance_types=tuple(dict.fromkeys(instance_types)),
            min_size=min_size,
            max_size=max_size,
            desired=desired,
            spot_percent=spot_percent,
            **values,
        )


def _spot_share(size: int | None, base: int, on_demand_percent: float) -> float:
    """Percent of capacity on spot at `size`, given an on-demand base and a percentage above it."""
    if size is None or size <= 0:
        return 0.0 if base > 0 else 100.0 - on_demand_percent
    on_demand_base = min(base, size)
    above = size - on_demand_base
    spot = above * (100.0 - on_demand_percent) / 100.0
    return round(spot * 100.0 / size, 2)


def _standalone_pool(
    resource: Any,
    reader: _Reader,
    attachments: _Attachments,
    stack_tags: Mapping[str, str],
    *,
    instance_types: Sequence[str],
    count: int,
    spot: bool,
    role_refs: tuple[str, ...],
) -> Pool:
    """`count` standalone instances of one resource, all spot or all on-demand."""
    return _pool(
        resource,
        reader,
        attachments,
        stack_tags,
        instance_types=tuple(instance_types),
        min_size=count,
        max_size=count,
        desired=count,
        spot_percent=100.0 if spot else 0.0,
        on_demand_base=0 if spot else count,
        role_refs=role_refs,
    )


def _instance_type(reader: _Reader, obj: Any, path: str) -> str | None:
    """`obj.instanceType` (an override, a launch specification, a launch template); an unknown type
    is recorded on the reader so that the rules judging instance types say it could not be judged."""
    value = get_ref(obj, "instanceType")
    if is_unknown(value):
        reader.unknown.setdefault("instance_types", (path, value))
        return None
    return _str(value)


def _instance_type_list(reader: _Reader, obj: Any, prop: str, path: str) -> list[str]:
    """The known types of a list (`instanceTypes` of a scaling configuration); an unknown list or
    element is recorded on the reader like `_instance_type` records an unknown single type."""
    value = get_ref(obj, prop)
    if is_unknown(value):
        reader.unknown.setdefault("instance_types", (path, value))
        return []
    found = []
    for item in as_list(value):
        if is_unknown(item):
            reader.unknown.setdefault("instance_types", (path, item))
        elif isinstance(item, str) and item:
            found.append(item)
    return found


def _template_types(reader: _Reader, templates: Iterable[Any]) -> list[str]:
    """The instance types launch templates name, in order."""
    return [t for lt in templates if (t := _instance_type(reader, lt.props, f"{lt.name}.instanceType"))]


def _override_types(reader: _Reader, obj: Any, prop: str, path: str) -> list[str]:
    """The instance types of a list of overrides (`overrides`, `instanceTypeOverrides`)."""
    return [t for o in as_list(get_ref(obj, prop)) if (t := _instance_type(reader, o, path))]

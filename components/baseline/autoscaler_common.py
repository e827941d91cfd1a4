"""What the cluster-autoscaler of every cloud shares (:mod:`gpufleet.components.baseline.autoscaler`), kept
apart so each cloud's module (:mod:`gpufleet.components.baseline.autoscalers`) may import it: the namespace,
the restricted container security context, and ``--nodes`` flags for providers that take their node
groups by id, and the environment of providers that read their keys from a Secret."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pulumi

if TYPE_CHECKING:
    from gpufleet.components.baseline.autoscaler import AutoscaledPool, SiteAutoscaler
    from gpufleet.components.baseline.scheduling import BurstSchedulingArgs

SYSTEM_NAMESPACE = "kube-system"


def restricted() -> dict[str, Any]:
    return {
        "allowPrivilegeEscalation": False,
        "readOnlyRootFilesystem": True,
        "capabilities": {"drop": ["ALL"]},
    }


def nodes_command(
    flags: list[str], args: BurstSchedulingArgs, site: SiteAutoscaler
) -> pulumi.Output[list[str]]:
    """``flags`` then ``--nodes`` for each group of each of the site's pools (``args.groups``)."""
    groups = [pool_nodes(pool, args.groups.get(pool.name, ())) for pool in site.pools]
    return pulumi.Output.all(*groups).apply(lambda found: [*flags, *(f for g in found for f in g)])


def pool_nodes(pool: AutoscaledPool, ids: Sequence[pulumi.Input[str]]) -> pulumi.Output[list[str]]:
    return pulumi.Output.all(*ids).apply(lambda found: nodes_flags(pool, found))


def nodes_flags(pool: AutoscaledPool, ids: Sequence[str]) -> list[str]:
    """``--nodes=<min>:<max>:<id>`` per group of the pool; a pool of several groups (Tencent's spot and
    on-demand) lets each reach the pool's maximum from 0."""
    low = pool.min_size if len(ids) == 1 else 0
    return [f"--nodes={low}:{pool.max_size}:{group}" for group in ids]


def secret_env(
    secret: str, keys: Mapping[str, str], region_variable: str, region: str
) -> list[dict[str, Any]]:
    """The environment of a provider that reads its keys from variables only: each of ``keys``
    (variable -> the item of the operator's Secret ``secret`` that holds it, by secretKeyRef, never
    inline), then the site's region in ``region_variable``."""
    found: list[dict[str, Any]] = [
        {"name": variable, "valueFrom": {"secretKeyRef": {"name": secret, "key": item}}}
        for variable, item in keys.items()
    ]
    return [*found, {"name": region_variable, "value": region}]

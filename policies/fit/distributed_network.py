"""GF-FIT-005: a pool that declares distributed work has the network it needs.

A pool whose declared fit says `distributed: true` (the `gpufleet:fit` tag, or `pools.<name>.fit` in a
gpufleet stack) exchanges gradients or activations between instances each step; it is judged on:

- bandwidth: each type sustains at least `min_gbps` (10 by default; an "up to" figure at or under it
  is a burst, not a rate), from the catalogue (a type without a figure is named as unknown);
- EFA (AWS): a type that takes an Elastic Fabric Adapter is launched with one (`interfaceType: efa`
  on a network interface of its launch template): without it NCCL falls back to TCP;
- placement (AWS): the group or its launch template names a placement group (`placementGroup`,
  `placement.groupName`) of strategy `cluster` when the stack builds it: instances spread over a zone
  pay in latency each step;
- eRDMA (Alibaba Cloud): a type that takes an elastic RDMA interface (the catalogue's `eri` sizes) is
  launched with one (`networkInterfaceTrafficMode: HighPerformance` on the instance, or on a network
  interface of its scaling configuration);
- deployment set (Alibaba Cloud): a standalone ECS instance names a deployment set (`deploymentSetId`)
  of strategy `LowLatency` when the stack builds it. ESS scaling configurations take no deployment set
  in the provider, so a scaling group is not judged on it. Tencent Cloud's placement groups (disaster
  recovery groups) only spread instances apart, and its HPC clusters serve HCC types the catalogue does
  not carry: a Tencent pool is judged on bandwidth alone.

Advisory: the job still runs, slower.
"""

from __future__ import annotations

from typing import Any

from pulumi_policy import EnforcementLevel, ReportViolation, Severity, StackValidationArgs

from gpufleet.policies.cost._common import describe, fmt, stack_pools
from gpufleet.policies.cost.pools import Pool, ResourceIndex
from gpufleet.policies.cost.pools.tokens import POOL_TYPES
from gpufleet.policies.fit._facts import (
    declared_fit,
    entries,
    fragments,
    launch_sources,
    part,
    parts,
    pool_view,
    rule_url,
)
from gpufleet.policies.gpu import current_catalog
from gpufleet.policies.rule import GfStackPolicy, Rule, judge, judges

# Each cloud module's interconnect (`INTERCONNECT`, `PLACEMENT`) and remediation fragment; its
# `has_interconnect` and `placement_problem` judge the pool (`_cloud_problems`).
_INTERCONNECTS = " or ".join(fragments("INTERCONNECT").values())
_PLACEMENTS = " or ".join(fragments("PLACEMENT").values())

RULE = Rule(
    id="GF-FIT-005",
    name="distributed-pool-network",
    description=(
        f"A distributed pool runs on types of at least 10 Gbps, with {_INTERCONNECTS} "
        f"where the type takes it, in a {_PLACEMENTS}."
    ),
    clouds=tuple(parts()),
    enforcement=EnforcementLevel.ADVISORY,
    severity=Severity.MEDIUM,
    remediation=" ".join(fragments("DISTRIBUTED_REMEDIATION").values()),
    url=rule_url("GF-FIT-005"),
    config={
        "min_gbps": {"type": "number", "default": 10},
        "pools": {
            "type": "object",
            "default": {},
            "description": "fit per pool name: {model_memory_gib, model, distributed}",
        },
    },
)


def _cloud_problems(pool: Pool, index: ResourceIndex, typed: list[tuple[str, Any]]) -> list[str]:
    """The interface and placement problems of the pool's cloud: its module's `has_interconnect` (the
    RDMA interface, named by `NO_INTERCONNECT`) and `placement_problem`."""
    module = part(pool.cloud)
    if module is None or not hasattr(module, "placement_problem"):
        return []
    rdma_types = [name for name, entry in typed if entry is not None and entry.efa]
    sources = launch_sources(pool, index)
    problems: list[str] = []
    if rdma_types and not module.has_interconnect(sources):
        problems.append(f"{module.NO_INTERCONNECT} although {', '.join(rdma_types)} take one")
    placement = module.placement_problem(pool, index, pool_view(pool, index), sources)
    if placement:
        problems.append(placement)
    return problems


def validate(args: StackValidationArgs, report: ReportViolation) -> None:
    settings = RULE.settings(args)
    minimum = float(settings["min_gbps"])
    configured = settings["pools"] or {}
    pools, index = stack_pools(args)
    catalog = current_catalog()
    for pool in pools:

        def check(pool: Pool = pool) -> None:
            fit = declared_fit(pool, index, configured)
            if fit is None or not fit.distributed:
                return
            problems: list[str] = []
            typed = entries(pool, catalog)
            slow = [
                f"{name} ({entry.network_text})"
                for name, entry in typed
                if entry is not None
                and entry.network_gbps is not None
                and (entry.network_gbps < minimum or (entry.network_burst and entry.network_gbps <= minimum))
            ]
            if slow:
                problems.append(f"under a sustained {fmt(minimum)} Gbps: {', '.join(slow)}")
            unknown = [name for name, entry in typed if entry is None or entry.network_gbps is None]
            if unknown:
                problems.append(f"bandwidth not in the catalogue: {', '.join(unknown)}")
            problems.extend(_cloud_problems(pool, index, typed))
            if problems:
                report(
                    f"{describe(pool)} is declared distributed ({fit.where}) but has "
                    f"{'; '.join(problems)}: every step waits on the network",
                    pool.urn,
                )

        judge(pool.urn, check)


POLICY = GfStackPolicy(RULE, validate, judges(POOL_TYPES))

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
from gpufleet.policies.cost.pools import Pool, ResourceIndex, ResourceView
from gpufleet.policies.cost.pools.tokens import ALI_INSTANCE, AWS_ASG, POOL_TYPES
from gpufleet.policies.fit._facts import declared_fit, entries, launch_sources, pool_view
from gpufleet.policies.gpu import current_catalog
from gpufleet.policies.props import as_list, get_ref, is_unknown
from gpufleet.policies.rule import GfStackPolicy, Rule, judge, judges

PLACEMENT_GROUP = "aws:ec2/placementGroup:PlacementGroup"
ALI_DEPLOYMENT_SET = "alicloud:ecs/ecsDeploymentSet:EcsDeploymentSet"
# The ENI mode that makes an elastic RDMA interface (CreateNetworkInterface NetworkInterfaceTrafficMode,
# https://www.alibabacloud.com/help/en/ecs/user-guide/elastic-rdma-network-interface-card-eri).
ERI_MODE = "highperformance"

RULE = Rule(
    id="GF-FIT-005",
    name="distributed-pool-network",
    description=(
        "A distributed pool runs on types of at least 10 Gbps, with EFA (AWS) or eRDMA (Alibaba Cloud) "
        "where the type takes it, in a cluster placement group or LowLatency deployment set."
    ),
    clouds=("aws", "alicloud", "tencentcloud"),
    enforcement=EnforcementLevel.ADVISORY,
    severity=Severity.MEDIUM,
    remediation=(
        "Choose types with a sustained 10 Gbps or more (g5.8xlarge and up, p4d, p5), add an EFA interface "
        "(`networkInterfaces: [{interfaceType: efa, deviceIndex: 0}]`) where the type takes one, and "
        "launch into a placement group of strategy `cluster`; on Alibaba Cloud set "
        "`networkInterfaceTrafficMode: HighPerformance` where the type takes an elastic RDMA interface and "
        "give standalone instances a deployment set of strategy `LowLatency`."
    ),
    url="https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa.html",
    config={
        "min_gbps": {"type": "number", "default": 10},
        "pools": {
            "type": "object",
            "default": {},
            "description": "fit per pool name: {model_memory_gib, model, distributed}",
        },
    },
)


def _has_efa(sources: list[ResourceView]) -> bool:
    for source in sources:
        for interface in as_list(get_ref(source.props, "networkInterfaces")):
            kind = get_ref(interface, "interfaceType")
            if isinstance(kind, str) and kind.lower() in ("efa", "efa-only"):
                return True
    return False


def _placement(pool: Pool, index: ResourceIndex, sources: list[ResourceView]) -> str | None:
    """What is wrong with the pool's placement, or None."""
    view = pool_view(pool, index)
    named: list[tuple[ResourceView, str, Any]] = []
    if view is not None and pool.resource_type == AWS_ASG:
        named.append((view, "placementGroup", get_ref(view.props, "placementGroup")))
    for source in sources:
        named.append((source, "placement.groupName", get_ref(source.props, "placement.groupName")))
    set_ = [(v, p, value) for v, p, value in named if value not in (None, "")]
    if not set_:
        return "no placement group"
    for holder, prop, value in set_:
        literal = value if not is_unknown(value) else ""
        for group in index.refs(holder, prop, (PLACEMENT_GROUP,), value=literal):
            strategy = get_ref(group.props, "strategy")
            if isinstance(strategy, str) and strategy.lower() != "cluster":
                return f"placement group '{group.name}' of strategy {strategy}, not cluster"
    return None


def _has_eri(sources: list[ResourceView]) -> bool:
    for source in sources:
        modes = [get_ref(source.props, "networkInterfaceTrafficMode")]
        modes += [
            get_ref(interface, "networkInterfaceTrafficMode")
            for interface in as_list(get_ref(source.props, "networkInterfaces"))
        ]
        if any(isinstance(mode, str) and mode.lower() == ERI_MODE for mode in modes):
            return True
    return False


def _deployment_set(pool: Pool, index: ResourceIndex) -> str | None:
    """What is wrong with a standalone ECS instance's deployment set, or None."""
    view = pool_view(pool, index)
    if view is None or pool.resource_type != ALI_INSTANCE:
        return None
    value = get_ref(view.props, "deploymentSetId")
    if value in (None, ""):
        return "no deployment set of strategy LowLatency"
    literal = value if not is_unknown(value) else ""
    for found in index.refs(view, "deploymentSetId", (ALI_DEPLOYMENT_SET,), value=literal):
        strategy = get_ref(found.props, "strategy") or "Availability"  # the provider's default
        if isinstance(strategy, str) and strategy != "LowLatency":
            return f"deployment set '{found.name}' of strategy {strategy}, not LowLatency"
    return None


def _cloud_problems(pool: Pool, index: ResourceIndex, typed: list[tuple[str, Any]]) -> list[str]:
    """The interface and placement problems of the pool's cloud."""
    problems: list[str] = []
    rdma_types = [name for name, entry in typed if entry is not None and entry.efa]
    if pool.cloud == "aws":
        sources = launch_sources(pool, index)
        if rdma_types and not _has_efa(sources):
            problems.append(f"no EFA interface although {', '.join(rdma_types)} take one")
        placement = _placement(pool, index, sources)
        if placement:
            problems.append(placement)
    elif pool.cloud == "alicloud":
        if rdma_types and not _has_eri(launch_sources(pool, index)):
            problems.append(
                f"no elastic RDMA interface (networkInterfaceTrafficMode HighPerformance) although "
                f"{', '.join(rdma_types)} take one"
            )
        deployment = _deployment_set(pool, index)
        if deployment:
            problems.append(deployment)
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

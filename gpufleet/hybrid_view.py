"""`gpufleet plan`'s fleet section for a hybrid fleet: the on-prem baseline, every site (cloud:region)
with its pools, and every private link with its kind, routes and crypto, as one fleet.

The sites come from the spec's site plan (the same one the program builds from); each link's crypto
is read from the VPN connection the program recorded, so the section shows what would be built, not
what the spec hoped for. Alibaba keeps its algorithms in the same (secret) block as the pre-shared key:
only the algorithm names are read from it, never the key.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.markup import escape
from rich.tree import Tree

from gpufleet.components.clouds import PROFILES, as_cloud, cloud_parts
from gpufleet.graph import Resource, ResourceGraph, is_secret
from gpufleet.vpn_crypto import BY_TOKEN, VPN_CRYPTO

if TYPE_CHECKING:
    from gpufleet.components.network.onprem import EgressRule
    from gpufleet.components.sites.base import SitePlan
    from gpufleet.components.spec import FleetSpec
    from gpufleet.components.spec.links import Link
    from gpufleet.components.spec.onprem import OnPrem

LINK_TYPE_PREFIX = "gpufleet:links:"

# Each cloud's facts for this view (gpufleet/<cloud>.py).
_PARTS = cloud_parts("gpufleet")


def print_hybrid(spec: FleetSpec, graph: ResourceGraph, console: Console) -> None:
    """The section, for a fleet with an on-prem baseline or private links (others print nothing)."""
    if is_hybrid(spec):
        console.print(render_hybrid(spec, graph))


def is_hybrid(spec: FleetSpec) -> bool:
    """A fleet with an on-prem baseline or private links gets the section."""
    return spec.onprem is not None or bool(spec.links)


def render_hybrid(spec: FleetSpec, graph: ResourceGraph) -> Tree:
    """The fleet as one: baseline first, then the sites in the site plan's order, then the links."""
    from gpufleet.components.spec import SpecError, site_plans

    regions: dict[str, str | None] = {
        cloud: _text(graph.config.get(p.region_key)) for cloud, p in PROFILES.items()
    }
    try:
        plans = site_plans(spec, regions)
    except SpecError:
        plans = []
    sites_word = "site" if len(plans) == 1 else "sites"
    links_word = "link" if len(spec.links) == 1 else "links"
    baseline = "the on-prem baseline" if spec.onprem is not None else "no on-prem baseline"
    tree = Tree(
        f"[bold]hybrid fleet[/]: {baseline}, {len(plans)} cloud {sites_word} and "
        f"{len(spec.links)} private {links_word}"
    )
    if spec.onprem is not None:
        baseline_branch = tree.add("[bold]baseline[/] (on-prem, owned)")
        _baseline(baseline_branch, spec.onprem)
        reach = reach_line(next((p.onprem_egress for p in plans if p.onprem_egress), ()))
        if reach:
            baseline_branch.add(escape(reach))
    sites = tree.add("[bold]sites[/] (burst pools)")
    for plan in plans:
        sites.add(escape(site_line(spec, plan)))
    links = tree.add("[bold]links[/]")
    carried = {p.key: list(p.onprem_ranges) for p in plans}
    for key, link in spec.links.items():
        ranges = carried.get(key, [])
        links.add(escape(link_line(key, link, ranges, _link_connection(graph, key))))
    scheduler = spec.onprem.scheduler if spec.onprem is not None else None
    if scheduler is not None:
        _scheduler(tree, spec, regions)
    if spec.burst is not None:
        from gpufleet.components.pools.burst import describe_burst_order

        title = (
            "[bold]queue-fed pools outside the cluster[/] (their own alarms, not the scheduler: "
            "docs/burst-order.md)"
            if scheduler is not None
            else "[bold]burst order[/] (no scheduler enforces it; each cloud's alarms: docs/burst-order.md)"
        )
        order = tree.add(title)
        try:
            lines = describe_burst_order(spec, regions)
            if scheduler is not None and set(spec.pools) <= set(_joins(spec, regions)):
                lines = ["none: every burst pool joins the cluster, and cluster-autoscaler alone sizes it"]
        except (SpecError, ValueError) as error:
            lines = [f"not compiled: {error}"]
        for line in lines:
            order.add(escape(line))
    return tree


def _scheduler(tree: Tree, spec: FleetSpec, regions: Mapping[str, str | None]) -> None:
    """The burst order as Kueue's flavor order: the scheduler admits each workload to the first flavor
    with quota left, so the order is enforced for every job sent to a LocalQueue."""
    from gpufleet.components.baseline.autoscaler import plan_autoscalers
    from gpufleet.components.baseline.kueue import plan_flavors

    branch = tree.add(
        "[bold]scheduler[/] (Kueue enforces the burst order: a workload is admitted to the first flavor "
        "with quota left)"
    )
    try:
        flavors = plan_flavors(spec, regions)
        autoscalers = {a.flavor: a for a in plan_autoscalers(spec, regions)}
    except ValueError as error:
        branch.add(escape(f"not compiled: {error}"))
        return
    scheduler = spec.onprem.scheduler if spec.onprem is not None else None
    if scheduler is not None:
        control = ", ".join(str(net) for net in scheduler.control_plane())
        branch.add(
            escape(
                f"burst nodes join {scheduler.api_server} over their site's link (kubeadm join, the token "
                f"from each pool's join secret: docs/hybrid.md); kubelets admit 10250 from {control} only"
            )
        )
    for position, flavor in enumerate(flavors):
        scaler = autoscalers.get(flavor.name)
        how = (
            "always first, no autoscaler"
            if scaler is None
            else f"cluster-autoscaler --cloud-provider={scaler.cloud}, scale-down after {scaler.unneeded} "
            f"unneeded, not within {scaler.delay_after_add} of a scale-up"
        )
        if scaler is not None:
            how += _autoscaler_caveat(scaler.cloud)
        branch.add(
            escape(
                f"{position}. flavor {flavor.name}: {flavor.gpus} GPUs, {flavor.cpus} CPUs, "
                f"{flavor.memory_gib} GiB; {how}"
            )
        )


def _autoscaler_caveat(cloud: str) -> str:
    """What a flavor sized by ``cloud``'s cluster-autoscaler adds: its module's AUTOSCALER_CAVEAT
    (gpufleet/<cloud>.py; Tencent's provider requires TKE), or nothing."""
    key = as_cloud(cloud)
    part = _PARTS.get(key) if key is not None else None
    return str(getattr(part, "AUTOSCALER_CAVEAT", ""))


def _joins(spec: FleetSpec, regions: Mapping[str, str | None]) -> dict[str, object]:
    """The pools whose nodes join the cluster (components/pools/join.py)."""
    from gpufleet.components.pools.join import plan_joins

    return dict(plan_joins(spec, regions, "cluster"))


def _baseline(branch: Tree, onprem: OnPrem) -> None:
    nodes = onprem.gpu_nodes
    access = onprem.cluster
    cluster = (
        f"kubeconfig context {access.kubeconfig_context}"
        if access.kubeconfig_context is not None
        else f"secret kubeconfig {access.config_key}"
    )
    branch.add(escape(f"cluster: {cluster}"))
    branch.add(
        escape(
            f"GPUs: {onprem.gpu_count} ({nodes.node_count} nodes x {nodes.gpus_per_node} {nodes.gpu_model})"
        )
    )
    quotas = ", ".join(f"{name} {ns.gpus}" for name, ns in onprem.namespaces.items())
    branch.add(escape(f"namespaces (GPU quota): {quotas}"))
    prio = onprem.priorities
    branch.add(
        escape(
            f"priority: baseline {prio.baseline} > burst {prio.burst} "
            f"(burst preemption {prio.burst_preemption})"
        )
    )
    scaler = onprem.queue_scaler
    if scaler is not None:
        branch.add(
            escape(
                f"KEDA: {scaler.deployment} in {onprem.scaler_namespace} on {scaler.source} "
                f"{scaler.queue}, {scaler.queue_threshold} messages per worker, cooldown {scaler.cooldown}, "
                f"{scaler.min_replicas}-{scaler.max_replicas} replicas"
            )
        )
    branch.add(
        escape(
            f"ranges: nodes {_join(onprem.node_cidrs)}, pods {_join(onprem.pod_cidrs)}, "
            f"services {_join(onprem.service_cidrs)}"
            + (f", data {_join(onprem.data_cidrs)}" if onprem.data_cidrs else "")
        )
    )


def reach_line(rules: Sequence[EgressRule]) -> str | None:
    """``burst nodes may open: ingress tcp/443 to 192.168.16.0/20; storage tcp/443, tcp/2049 to ...``:
    what every linked site's security group opens towards on-prem (onprem.reachable), and nothing else."""
    if not rules:
        return None
    by_endpoint: dict[str, tuple[list[str], list[str]]] = {}
    for rule in rules:
        ports, cidrs = by_endpoint.setdefault(rule.endpoint, ([], []))
        port = f"{rule.protocol}/{rule.ports}"
        if port not in ports:
            ports.append(port)
        cidrs.extend(c for c in rule.cidrs if c not in cidrs)
    parts = [
        f"{name} {', '.join(ports)} to {', '.join(cidrs)}" for name, (ports, cidrs) in by_endpoint.items()
    ]
    return "burst nodes may open: " + "; ".join(parts) + " (nothing else on-prem)"


def site_line(spec: FleetSpec, plan: SitePlan) -> str:
    """``aws:us-east-1  VPC 10.43.0.0/16  pools burst-aws (p4d.24xlarge, 0-4, 70% spot)``."""
    network = (
        f"VPC {plan.vpc_cidr}" if plan.vpc_cidr else ("existing subnets" if plan.subnet_ids else "no network")
    )
    pools = [
        f"{name} ({', '.join(spec.pools[name].instance_types)}, {spec.pools[name].size.min}-"
        f"{spec.pools[name].size.max}, {spec.pools[name].spot_percent}% spot)"
        for name in plan.pools
    ]
    held = f"pools {'; '.join(pools)}" if pools else "no pools (keys and replica only)"
    link = "private link" if plan.onprem_ranges else "no link"
    return f"{plan.key}  {network}  {held}  [{link}]"


def link_line(key: str, link: Link, ranges: Sequence[str], connection: Resource | None) -> str:
    """``aws:us-east-1  vpn to 198.51.100.20, BGP (on-prem ASN 65010)  routes 192.168.16.0/20  ...``."""
    routing = f"BGP (on-prem ASN {link.bgp_asn})" if link.bgp_asn is not None else "static routes"
    where = (
        f"vpn to {link.gateway_ip}"
        if link.kind == "vpn"
        else f"dedicated {link.connection_id} VLAN {link.vlan}"
    )
    routes = f"routes {', '.join(ranges)}" if ranges else "routes: none"
    crypto = crypto_summary(connection) if link.kind == "vpn" else "private line, no IPsec"
    return f"{key}  {where}, {routing}  {routes}  {crypto}"


def crypto_summary(connection: Resource | None) -> str:
    """``ike=ikev2 enc=AES256-GCM-16 integrity=SHA2-384 dh=20,21 pfs=20,21`` from the recorded connection
    (``crypto: not recorded`` when the program built none)."""
    vpn = BY_TOKEN.get(connection.type) if connection is not None else None
    if connection is None or vpn is None:
        return "crypto: not recorded"
    parts = [f"{label}={_value(connection.inputs, path)}" for label, path in vpn.paths]
    if vpn.second_tunnel:
        # A cloud that sets each tunnel on its own: the summary says when the second differs.
        first = [_value(connection.inputs, path) for _, path in vpn.paths]
        second = [_value(connection.inputs, path) for path in vpn.second_tunnel]
        parts.append("both tunnels" if first == second else "tunnel 2 differs")
    return " ".join(parts)


def _link_connection(graph: ResourceGraph, key: str) -> Resource | None:
    cloud, _, region = key.partition(":")
    suffix = f"-{cloud}-{region}-link"
    for component in graph:
        if component.type.startswith(LINK_TYPE_PREFIX) and component.name.endswith(suffix):
            for child in _descendants(graph, component.urn):
                if child.type in VPN_CRYPTO:
                    return child
    return None


def _descendants(graph: ResourceGraph, urn: str) -> Iterator[Resource]:
    for child in graph.children(urn):
        yield child
        yield from _descendants(graph, child.urn)


def _value(inputs: Mapping[str, Any], path: str) -> str:
    value: Any = inputs
    for part in path.split("."):
        if is_secret(value):
            value = value.get("value")
        value = value.get(part) if isinstance(value, Mapping) else None
    if is_secret(value):
        value = value.get("value")
    if value is None:
        return "unset"
    if isinstance(value, list):
        return ",".join(_number(v) for v in value)
    return _number(value)


def _number(value: Any) -> str:
    return str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)


def _join(values: Sequence[object]) -> str:
    return ", ".join(str(v) for v in values)


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None

"""Kueue in ``BurstScheduling`` (:mod:`gpufleet.components.baseline.scheduling`): one ``ResourceFlavor``
per site in burst order, the ``ClusterQueue`` listing them in that order, a ``LocalQueue`` per GPU
namespace, and the policy that keeps cluster-autoscaler from evicting an admitted workload's pods."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pulumi
import pulumi_kubernetes as k8s

from gpufleet.components.catalog import load_catalog
from gpufleet.components.k8s_names import check_labels, check_name

if TYPE_CHECKING:
    from gpufleet.components.baseline.scheduling import BurstSchedulingArgs
    from gpufleet.components.spec import FleetSpec

KUEUE = "kueue.x-k8s.io/v1beta1"
KUEUE_CHART = "oci://registry.k8s.io/kueue/charts/kueue"
KUEUE_NAMESPACE = "kueue-system"
GPU = "nvidia.com/gpu"
SITE_LABEL = "gpufleet.io/site"
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
SAFE_TO_EVICT = "cluster-autoscaler.kubernetes.io/safe-to-evict"
LOCAL_QUEUE = "gpu"
ONPREM = "onprem"


@dataclass(frozen=True, kw_only=True)
class Flavor:
    """One Kueue ResourceFlavor and its quota in the ClusterQueue; ``site``: ``onprem`` or
    ``cloud:region``."""

    name: str
    site: str
    node_labels: Mapping[str, str]
    taint: Mapping[str, str] | None
    gpus: int
    cpus: int
    memory_gib: int
    pools: tuple[str, ...] = ()

    def quota(self) -> list[dict[str, Any]]:
        return [
            {"name": "cpu", "nominalQuota": str(self.cpus)},
            {"name": "memory", "nominalQuota": f"{self.memory_gib}Gi"},
            {"name": GPU, "nominalQuota": str(self.gpus)},
        ]


def flavor_name(site: str) -> str:
    """``aws:us-east-1`` -> ``aws-us-east-1`` (a ResourceFlavor name and the site's node label value)."""
    return check_name(site.replace(":", "-"))


def burst_sites(
    spec: FleetSpec, provider_regions: Mapping[str, str | None] | None
) -> list[tuple[str, tuple[str, ...]]]:
    """The burst sites in burst order with their pools (``burst.order``, else by price)."""
    from gpufleet.components.pools.burst import order_sites, spec_pools

    order = spec.burst.sites if spec.burst is not None else None
    return [(s.site, s.pools) for s in order_sites(spec_pools(spec, provider_regions), order or None)]


def plan_flavors(spec: FleetSpec, provider_regions: Mapping[str, str | None] | None = None) -> list[Flavor]:
    """The flavors in burst order: on-prem first, then each burst site. Raises ValueError when a quota
    cannot be known (an instance type the catalogue lacks, an on-prem host shape not given)."""
    from gpufleet.components.spec.scheduler import SERVER_SHAPES

    onprem = spec.onprem
    if onprem is None or onprem.scheduler is None:
        return []
    scheduler = onprem.scheduler
    nodes = onprem.gpu_nodes
    server = onprem.hardware.server if onprem.hardware is not None else None
    shape = SERVER_SHAPES.get(server or "", (None, None))
    cpus = scheduler.cpus_per_node or shape[0]
    memory = scheduler.memory_gib_per_node or shape[1]
    if cpus is None or memory is None:
        raise ValueError(
            "onprem.scheduler: cpus_per_node and memory_gib_per_node are needed for the on-prem flavor's "
            f"quota (known only for the servers {', '.join(SERVER_SHAPES)})"
        )
    from gpufleet.components.baseline.kubernetes import CAPACITY_LABEL

    labels = {CAPACITY_LABEL: "baseline"} if nodes.names is not None else dict(nodes.selector or {})
    flavors = [
        Flavor(
            name=ONPREM,
            site=ONPREM,
            node_labels=check_labels(labels),
            taint=None,
            gpus=onprem.gpu_count,
            cpus=cpus * nodes.node_count,
            memory_gib=memory * nodes.node_count,
        )
    ]
    catalog = load_catalog()
    for site, pools in burst_sites(spec, provider_regions):
        cloud = site.partition(":")[0]
        gpus = cpus_total = memory_total = 0
        for pool_name in pools:
            pool = spec.pools[pool_name]
            found = [catalog.find(cloud, t) for t in pool.instance_types]
            known = [t for t in found if t is not None and t.gpu_count >= 1]
            if len(known) != len(found):
                raise ValueError(
                    f"pools.{pool_name}.instance_types: the catalogue lacks one of "
                    f"{', '.join(pool.instance_types)}, so the {site} flavor's quota is unknown"
                )
            # The smallest type of the pool: the quota never promises GPUs a scale-up may not bring.
            gpus += pool.size.max * min(t.gpu_count for t in known)
            cpus_total += pool.size.max * min(t.vcpu for t in known)
            memory_total += pool.size.max * int(min(t.memory_gib for t in known))
        name = flavor_name(site)
        flavors.append(
            Flavor(
                name=name,
                site=site,
                node_labels=check_labels({SITE_LABEL: name}),
                taint={"key": SITE_LABEL, "value": name, "effect": "NoSchedule"},
                gpus=gpus,
                cpus=cpus_total,
                memory_gib=memory_total,
                pools=tuple(pools),
            )
        )
    return flavors


def _namespaces(names: Sequence[str]) -> dict[str, Any]:
    return {
        "matchExpressions": [{"key": "kubernetes.io/metadata.name", "operator": "In", "values": list(names)}]
    }


def job_template_annotations() -> dict[str, str]:
    """What a Kueue-admitted Job's pod template carries: cluster-autoscaler never evicts it to remove its
    node (scale-down waits until the pod ends)."""
    return {SAFE_TO_EVICT: "false"}


class KueueParts:
    """The Kueue part of ``BurstScheduling``: its queues, flavors and the not-evictable policy."""

    _labels: dict[str, str]
    cluster_queue: str

    def _queues(self, name: str, args: BurstSchedulingArgs, opts: pulumi.ResourceOptions) -> None:
        flavors = []
        for flavor in args.flavors:
            spec: dict[str, Any] = {"nodeLabels": dict(flavor.node_labels)}
            if flavor.taint is not None:
                spec["nodeTaints"] = [dict(flavor.taint)]
                spec["tolerations"] = [
                    {
                        "key": flavor.taint["key"],
                        "operator": "Equal",
                        "value": flavor.taint["value"],
                        "effect": flavor.taint["effect"],
                    }
                ]
            flavors.append(
                k8s.apiextensions.CustomResource(
                    f"{name}-flavor-{flavor.name}",
                    api_version=KUEUE,
                    kind="ResourceFlavor",
                    metadata={"name": flavor.name, "labels": self._labels},
                    spec=spec,
                    opts=opts,
                )
            )
        with_flavors = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(depends_on=flavors))
        queue = k8s.apiextensions.CustomResource(
            f"{name}-cluster-queue",
            api_version=KUEUE,
            kind="ClusterQueue",
            metadata={"name": self.cluster_queue, "labels": self._labels},
            spec={
                "namespaceSelector": _namespaces(args.namespaces),
                "queueingStrategy": "BestEffortFIFO",
                "resourceGroups": [
                    {
                        "coveredResources": ["cpu", "memory", GPU],
                        "flavors": [{"name": f.name, "resources": f.quota()} for f in args.flavors],
                    }
                ],
                "flavorFungibility": {"whenCanBorrow": "Borrow", "whenCanPreempt": "TryNextFlavor"},
                "preemption": {
                    "withinClusterQueue": "LowerPriority",
                    "reclaimWithinCohort": "Never",
                    "borrowWithinCohort": {"policy": "Never"},
                },
            },
            opts=with_flavors,
        )
        self._safe_to_evict_policy(name, args, opts)
        for namespace in args.namespaces:
            k8s.apiextensions.CustomResource(
                f"{name}-local-queue-{namespace}",
                api_version=KUEUE,
                kind="LocalQueue",
                metadata={"name": LOCAL_QUEUE, "namespace": namespace, "labels": self._labels},
                spec={"clusterQueue": self.cluster_queue},
                opts=pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(depends_on=[queue])),
            )

    def _safe_to_evict_policy(
        self, name: str, args: BurstSchedulingArgs, opts: pulumi.ResourceOptions
    ) -> None:
        """A Job sent to a LocalQueue of the GPU namespaces is refused unless its pods carry
        ``safe-to-evict: "false"`` (a ValidatingAdmissionPolicy, Kubernetes 1.30+): the autoscalers then
        never remove a node under a running job pod."""
        policy = check_name(f"{args.fleet}-queued-jobs-not-evictable")
        annotations = "object.spec.template.metadata.annotations"
        meta: Any = {"name": policy, "labels": self._labels}
        spec: Any = {
            "failurePolicy": "Fail",
            "matchConstraints": {
                "resourceRules": [
                    {
                        "apiGroups": ["batch"],
                        "apiVersions": ["v1"],
                        "operations": ["CREATE", "UPDATE"],
                        "resources": ["jobs"],
                    }
                ],
                "namespaceSelector": _namespaces(args.namespaces),
            },
            "matchConditions": [
                {
                    "name": "sent-to-a-queue",
                    "expression": (
                        f"has(object.metadata.labels) && '{QUEUE_LABEL}' in object.metadata.labels"
                    ),
                }
            ],
            "validations": [
                {
                    "expression": (
                        f"has({annotations}) && '{SAFE_TO_EVICT}' in {annotations} && "
                        f"{annotations}['{SAFE_TO_EVICT}'] == 'false'"
                    ),
                    "message": (
                        f"a Job sent to a Kueue LocalQueue needs the pod template annotation "
                        f'{SAFE_TO_EVICT}: "false" (docs/hybrid.md)'
                    ),
                }
            ],
        }
        k8s.admissionregistration.v1.ValidatingAdmissionPolicy(
            f"{name}-not-evictable", metadata=meta, spec=spec, opts=opts
        )
        binding: Any = {"policyName": policy, "validationActions": ["Deny"]}
        k8s.admissionregistration.v1.ValidatingAdmissionPolicyBinding(
            f"{name}-not-evictable-binding", metadata=meta, spec=binding, opts=opts
        )

"""``BurstScheduling``: the on-prem cluster schedules the burst; Kueue, cluster-autoscaler and KEDA do it.

Built on the on-prem cluster (through the baseline's provider) when the spec has ``onprem.scheduler``:

- **Kueue** (``kueue.x-k8s.io/v1beta1``): its controller from the pinned Helm chart (a
  ``kubernetes.helm.v3.Release``: the offline engine treats it as opaque); one ``ResourceFlavor`` per site
  in burst order, ``onprem`` first (node labels selecting the on-prem GPU nodes), then ``<cloud>-<region>``
  per burst site (node label ``gpufleet.io/site: <cloud>-<region>`` and the taint
  ``gpufleet.io/site=<cloud>-<region>:NoSchedule``, which Kueue adds as a toleration to the pods it admits
  to that flavor only); one ``ClusterQueue`` whose single resource group lists the flavors IN BURST
  ORDER, each with that site's capacity as ``nominalQuota`` (on-prem: GPU nodes x GPUs, and the servers'
  cpu and memory; a cloud site: each pool's ``size.max`` x the instance type's GPUs, vCPUs and memory
  from the catalogue); ``flavorFungibility`` ``whenCanBorrow: Borrow`` / ``whenCanPreempt:
  TryNextFlavor`` (a full flavor sends the workload to the next one before anything is preempted) and
  ``preemption.withinClusterQueue: LowerPriority``; one ``LocalQueue`` (``gpu``) per GPU namespace.
- **cluster-autoscaler**, one ``Deployment`` per cloud site in ``kube-system`` with its own service
  account, lease and status ConfigMap (several autoscalers share the namespace), the upstream RBAC, the
  pinned image, ``--scale-down-unneeded-time`` and ``--scale-down-delay-after-add`` from the site's pools'
  ``scaling.in_for`` and ``scaling.cooldown``, ``--skip-nodes-with-local-storage=false``, and node groups
  limited to this fleet's: AWS by auto-discovery tags (:func:`discovery_tags`), Alibaba and Tencent by
  ``--nodes=<min>:<max>:<group id>`` of the fleet's own groups; each with a ``NetworkPolicy`` of its own
  (no ingress; egress DNS, the API server, the cloud's API on 443) and its API token from a projected
  one-hour volume instead of the automount (:mod:`~gpufleet.components.baseline.autoscaler_pod`).
- **KEDA** (``keda.sh/v1alpha1``): per ``scheduler.serving`` entry a ``ScaledObject`` on the Deployment's
  pods' average ``DCGM_FI_DEV_GPU_UTIL`` (Prometheus), above the threshold over the window.

Credentials: AWS through IAM Roles Anywhere (a sidecar ``aws_signing_helper serve`` answering the SDK's
instance-metadata calls on 127.0.0.1:9911, with the signal's client certificate and trust anchor and a
role of its own); Alibaba and Tencent from Kubernetes Secrets the operator creates (named in
``scheduler.credentials``; never inline), as environment variables: their upstream providers read the keys
from nothing else, so checkov's CKV_K8S_35 is skipped on those Deployments with that reason.

The parts live in :mod:`~gpufleet.components.baseline.kueue`,
:mod:`~gpufleet.components.baseline.autoscaler` and :mod:`~gpufleet.components.baseline.keda`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import pulumi
import pulumi_kubernetes as k8s

from gpufleet.components.baseline.autoscaler import AutoscalerParts, SiteAutoscaler
from gpufleet.components.baseline.keda import KedaParts
from gpufleet.components.baseline.kueue import KUEUE_CHART, KUEUE_NAMESPACE, Flavor, KueueParts
from gpufleet.components.k8s_names import check_name

if TYPE_CHECKING:
    from gpufleet.components.spec.scheduler import Scheduler

TYPE = "gpufleet:baseline:BurstScheduling"


@dataclass(frozen=True, kw_only=True)
class BurstSchedulingArgs:
    """``groups``: each pool's scaling group names or ids (the sites' outputs), for ``--nodes``."""

    fleet: str
    scheduler: Scheduler
    namespaces: Sequence[str]
    flavors: Sequence[Flavor]
    autoscalers: Sequence[SiteAutoscaler]
    labels: Mapping[str, str]
    groups: Mapping[str, Sequence[pulumi.Input[str]]] = field(default_factory=dict)
    access: Mapping[str, object] = field(default_factory=dict)


class BurstScheduling(KueueParts, AutoscalerParts, KedaParts, pulumi.ComponentResource):
    """Kueue's queues and flavors, one cluster-autoscaler per cloud site, KEDA on DCGM for serving (see
    the module docstring). Output: ``cluster_queue`` (its name) and ``flavor_order``."""

    def __init__(
        self, name: str, args: BurstSchedulingArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__(TYPE, name, None, opts)
        self._labels = dict(args.labels)
        child = pulumi.ResourceOptions(parent=self)
        kueue = k8s.helm.v3.Release(
            f"{name}-kueue",
            name="kueue",
            chart=KUEUE_CHART,
            version=args.scheduler.kueue_chart_version,
            namespace=KUEUE_NAMESPACE,
            create_namespace=True,
            atomic=True,
            opts=child,
        )
        after = pulumi.ResourceOptions.merge(child, pulumi.ResourceOptions(depends_on=[kueue]))
        self.cluster_queue = check_name(f"{args.fleet}-gpu")
        self.flavor_order = [f.name for f in args.flavors]
        self._queues(name, args, after)
        for autoscaler in args.autoscalers:
            self._autoscaler(name, args, autoscaler, child)
        for serving in args.scheduler.serving:
            self._serving(name, args.scheduler.prometheus, serving, child)
        self.register_outputs({"cluster_queue": self.cluster_queue, "flavor_order": self.flavor_order})


__all__ = ["TYPE", "BurstScheduling", "BurstSchedulingArgs", "Flavor", "SiteAutoscaler"]

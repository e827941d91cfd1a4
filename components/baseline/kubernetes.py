"""``OnPremBaseline``: the on-prem Kubernetes cluster's share of the fleet, as explicit objects.

Built against the cluster the spec's ``onprem.cluster`` names, through an explicit ``kubernetes.Provider``
(a kubeconfig context of the operator's kubeconfig, or the whole kubeconfig from a secret stack config
key), so nothing lands on whatever cluster the ambient kubeconfig happens to point at:

- per GPU namespace: the ``Namespace`` (cost labels; Pod Security ``baseline`` enforced) and a
  ``ResourceQuota`` on ``requests.nvidia.com/gpu``. Kubernetes counts extended resources in quotas by
  their requests only (requests must equal limits for them), so a ``limits.nvidia.com/gpu`` entry would
  never be counted and is not written;
- two ``PriorityClass`` objects, ``<fleet>-baseline`` above ``<fleet>-burst``; burst pods do not preempt
  (unless the spec says so), baseline pods do;
- the NVIDIA device plugin and the DCGM exporter as ``DaemonSet`` objects in ``kube-system`` with images
  pinned by digest, on the GPU nodes only, tolerating the GPU taint, probed (the exporter's ``/health``,
  the plugin's registration socket) and limited in CPU and memory. Neither is privileged: both drop
  every capability, forbid privilege escalation, keep a read-only root file system and the runtime's
  seccomp profile. Both run as root (the kubelet's sockets are root's): checkov's UID checks are
  skipped on each DaemonSet by a ``checkov.io/skip`` annotation carrying the reason, as is the
  exporter's ``NVIDIA_VISIBLE_DEVICES=all`` (a monitor sees every GPU). Each mounts exactly one kubelet
  directory from the host: the device plugin ``/var/lib/kubelet/device-plugins`` (where it registers
  its socket), the exporter ``/var/lib/kubelet/pod-resources`` read-only (to attribute GPUs to pods).
  GF-K8S-003 allows exactly these two paths, to DaemonSets in ``kube-system`` only (see
  policies/k8s/pod_host_isolation.py); the exporter's only other volume is an ``emptyDir`` at ``/tmp``.
  Without ``SYS_ADMIN`` the exporter reports device metrics (utilisation, memory, power, temperature,
  errors) but not the profiling (``DCGM_FI_PROF_*``) metrics. With ``gpu_daemons: existing`` (a cluster
  whose NVIDIA GPU Operator already runs both) neither is built: two device plugins would fight over
  ``nvidia.com/gpu``;
- a ``NetworkPolicy`` per daemon selecting its pods only (a namespace-wide deny in ``kube-system`` would
  cut off DNS): no connection in or out, but the exporter's metrics port from ``onprem.metrics_scrapers``;
- the named GPU nodes labelled (``nvidia.com/gpu.present``, ``gpufleet.io/gpu-model``,
  ``gpufleet.io/capacity: baseline``) and tainted ``nvidia.com/gpu=present:NoSchedule`` through
  ``NodePatch`` (server-side apply; Node taints are an atomic list, so the patch owns the whole list and
  a taint another manager set makes the update fail rather than vanish). Nodes picked by a selector
  are not patched: their labels and taints are the cluster operator's;
- a KEDA ``ScaledObject`` (``keda.sh/v1alpha1``) scaling the job workers' Deployment on the length of
  their queue, with the spec's threshold; the cooldown is both KEDA's ``cooldownPeriod`` (to zero) and
  the HPA's scale-down stabilisation window (between replica counts);
- a ``PodDisruptionBudget`` (``maxUnavailable: 0``) per GPU namespace for pods labelled
  ``gpufleet.io/workload: training``.

What stays opaque or outside: the worker Deployment itself (the team's; the ScaledObject only names
it), KEDA and its CRDs (installed by the cluster operator; a ScaledObject without KEDA does nothing),
the NVIDIA driver and container toolkit on the hosts, and anything installed from Helm charts.
Training pods are protected from voluntary disruption in two places: the PodDisruptionBudget here
stops evictions (drains, the cluster autoscaler, Karpenter) for pods carrying the training label, and
the convention that such pods also carry the ``karpenter.sh/do-not-disrupt: "true"`` annotation stops
Karpenter from consolidating or expiring their burst node. Cloud scale-in (an Auto Scaling group
terminating an instance) respects neither: that protection belongs to the burst pools.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from gpufleet.components.baseline.keda_triggers import trigger_metadata
from gpufleet.components.k8s_names import check_labels, check_name, label_value, tag_labels
from gpufleet.components.spec.onprem import OnPrem, QueueScaler
from gpufleet.components.spec.values import duration_seconds

TYPE = "gpufleet:baseline:OnPremBaseline"
SYSTEM_NAMESPACE = "kube-system"
GPU_RESOURCE = "nvidia.com/gpu"
GPU_TAINT = {"key": GPU_RESOURCE, "value": "present", "effect": "NoSchedule"}
GPU_TOLERATION = {"key": GPU_RESOURCE, "operator": "Exists", "effect": "NoSchedule"}
GPU_PRESENT_LABEL = "nvidia.com/gpu.present"
GPU_MODEL_LABEL = "gpufleet.io/gpu-model"
CAPACITY_LABEL = "gpufleet.io/capacity"
FLEET_LABEL = "gpufleet.io/fleet"
WORKLOAD_LABEL = "gpufleet.io/workload"
TRAINING = "training"
DO_NOT_DISRUPT = "karpenter.sh/do-not-disrupt"
# The kubelet directories the two daemons need from the host, and nothing else.
DEVICE_PLUGIN_DIR = "/var/lib/kubelet/device-plugins"
POD_RESOURCES_DIR = "/var/lib/kubelet/pod-resources"
DEVICE_PLUGIN_SOCKET = f"{DEVICE_PLUGIN_DIR}/nvidia-gpu.sock"
DCGM_PORT = 9400
# Set by Kubernetes (1.22+) on every namespace: what a NetworkPolicy selects a namespace by name with.
NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name"
# checkov findings that cannot be fixed in the objects, skipped on the object itself with the reason (the
# checkov-native per-resource skip; never a global one). checkov splits each value at '=': none in reasons.
SKIP_ANNOTATION = "checkov.io/skip"
_PLUGIN_RUNS_AS_ROOT = (
    "the device plugin creates its registration socket in the kubelet's root-owned "
    "/var/lib/kubelet/device-plugins directory, so it runs as root (all capabilities dropped, "
    "no privilege escalation, read-only root file system)"
)
_EXPORTER_RUNS_AS_ROOT = (
    "the exporter connects to the kubelet's root-only pod-resources socket to attribute GPUs to "
    "pods, and DCGM's embedded host engine expects root, so it runs as root (all capabilities "
    "dropped, no SYS_ADMIN, no privilege escalation, read-only root file system)"
)
ROOT_CHECKS = ("CKV_K8S_23", "CKV_K8S_40")
EXPORTER_SEES_EVERY_GPU = (
    "a monitoring daemon: the DCGM exporter reads every GPU of its node to report on it and allocates "
    "none (no nvidia.com/gpu request); the image sets NVIDIA_VISIBLE_DEVICES to all in any case"
)
QUOTA_NAME = "gpu-quota"
# The address-plan annotations GF-NET-002 reads on-prem ranges from.
RANGE_ANNOTATIONS = {
    "node_cidrs": "gpufleet.io/node-cidr",
    "pod_cidrs": "gpufleet.io/pod-cidr",
    "service_cidrs": "gpufleet.io/service-cidr",
}


@dataclass(frozen=True, kw_only=True)
class OnPremBaselineArgs:
    """``fleet``: the fleet's name (prefix of cluster-wide object names); ``onprem``: the spec's section;
    ``tags``: the cost tags, written as labels on every object (``gpufleet:<name>`` tag keys as
    ``gpufleet.io/<name>``: a label key takes no ':')."""

    fleet: str
    onprem: OnPrem
    tags: Mapping[str, str]
    # With onprem.scheduler: the burst sites' GPUs (Kueue's cloud flavors). A namespace's quota counts its
    # pods wherever they run, so it holds its on-prem share plus every burst GPU; Kueue places the work.
    burst_gpus: int = 0


class OnPremBaseline(pulumi.ComponentResource):
    """The on-prem cluster's GPU baseline (see the module docstring for every object and what stays
    opaque). Outputs: ``namespaces``, ``priority_class_names`` (``baseline``, ``burst``) and
    ``gpu_count`` (the GPUs the baseline owns, for the burst order and the cost model)."""

    namespaces: list[str]
    priority_class_names: dict[str, str]
    gpu_count: int

    def __init__(
        self, name: str, args: OnPremBaselineArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__(TYPE, name, None, opts)
        spec = args.onprem
        self._labels = check_labels({**tag_labels(args.tags), FLEET_LABEL: label_value(args.fleet)})
        self.provider = _provider(name, spec, pulumi.ResourceOptions(parent=self))
        child = pulumi.ResourceOptions(parent=self, provider=self.provider)

        self.namespaces = list(spec.namespaces)
        namespaces = {
            ns: self._namespace(name, ns, spec.namespaces[ns].gpus + args.burst_gpus, child)
            for ns in spec.namespaces
        }
        self.priority_class_names = self._priority_classes(name, args.fleet, spec, child)
        self._address_plan(name, args.fleet, spec, child)
        node_selector = self._gpu_nodes(name, spec, child)
        if spec.gpu_daemons == "build":
            self._device_plugin(name, args.fleet, spec.images.device_plugin, node_selector, child)
            self._dcgm_exporter(name, args.fleet, spec, node_selector, child)
        if spec.queue_scaler is not None:
            namespace = namespaces[spec.scaler_namespace]
            self._queue_scaler(name, spec.queue_scaler, namespace, child)
        self.gpu_count = spec.gpu_count
        self.register_outputs(
            {
                "namespaces": self.namespaces,
                "priority_class_names": self.priority_class_names,
                "gpu_count": self.gpu_count,
            }
        )

    # ------------------------------------------------------------------------------------ namespaces

    def _namespace(
        self, name: str, namespace: str, gpus: int, child: pulumi.ResourceOptions
    ) -> k8s.core.v1.Namespace:
        created = k8s.core.v1.Namespace(
            f"{name}-ns-{namespace}",
            metadata={
                "name": check_name(namespace, "label"),
                "labels": check_labels(
                    {
                        **self._labels,
                        "pod-security.kubernetes.io/enforce": "baseline",
                        "pod-security.kubernetes.io/warn": "restricted",
                    }
                ),
            },
            opts=child,
        )
        after = pulumi.ResourceOptions.merge(child, pulumi.ResourceOptions(depends_on=[created]))
        k8s.core.v1.ResourceQuota(
            f"{name}-quota-{namespace}",
            metadata={"name": QUOTA_NAME, "namespace": created.metadata.name, "labels": self._labels},
            spec={"hard": {f"requests.{GPU_RESOURCE}": str(gpus)}},
            opts=after,
        )
        # Training pods opt in by label; maxUnavailable 0 stops every voluntary eviction of them.
        training = check_labels({WORKLOAD_LABEL: TRAINING})
        budget: Any = {"maxUnavailable": 0, "selector": {"matchLabels": training}}
        k8s.policy.v1.PodDisruptionBudget(
            f"{name}-training-{namespace}",
            metadata={"name": "gpu-training", "namespace": created.metadata.name, "labels": self._labels},
            spec=budget,
            opts=after,
        )
        return created

    def _priority_classes(
        self, name: str, fleet: str, spec: OnPrem, child: pulumi.ResourceOptions
    ) -> dict[str, str]:
        names = {"baseline": check_name(f"{fleet}-baseline"), "burst": check_name(f"{fleet}-burst")}
        k8s.scheduling.v1.PriorityClass(
            f"{name}-priority-baseline",
            metadata={"name": names["baseline"], "labels": self._labels},
            value=spec.priorities.baseline,
            global_default=False,
            preemption_policy="PreemptLowerPriority",
            description="GPU work on the owned baseline: scheduled first, may preempt burst work.",
            opts=child,
        )
        k8s.scheduling.v1.PriorityClass(
            f"{name}-priority-burst",
            metadata={"name": names["burst"], "labels": self._labels},
            value=spec.priorities.burst,
            global_default=False,
            preemption_policy=spec.priorities.burst_preemption,
            description="GPU work that may run on rented burst capacity: ranks below the baseline.",
            opts=child,
        )
        return names

    def _address_plan(self, name: str, fleet: str, spec: OnPrem, child: pulumi.ResourceOptions) -> None:
        """The cluster's ranges, recorded where GF-NET-002 (and the cluster's operators) can read them."""
        ranges = {key: ",".join(str(n) for n in getattr(spec, key)) for key in RANGE_ANNOTATIONS}
        k8s.core.v1.ConfigMap(
            f"{name}-address-plan",
            metadata={
                "name": check_name(f"{fleet}-address-plan"),
                "namespace": SYSTEM_NAMESPACE,
                "labels": self._labels,
                "annotations": {RANGE_ANNOTATIONS[key]: value for key, value in ranges.items()},
            },
            data=ranges,
            opts=child,
        )

    # ------------------------------------------------------------------------------------- GPU nodes

    def _gpu_nodes(self, name: str, spec: OnPrem, child: pulumi.ResourceOptions) -> dict[str, str]:
        """Label and taint the named GPU nodes; the node selector the GPU daemons run with."""
        nodes = spec.gpu_nodes
        if nodes.names is None:
            return check_labels(nodes.selector or {}, "onprem.gpu_nodes.selector")
        labels = check_labels(
            {
                GPU_PRESENT_LABEL: "true",
                GPU_MODEL_LABEL: label_value(nodes.gpu_model),
                CAPACITY_LABEL: "baseline",
            }
        )
        taints: Any = {"taints": [GPU_TAINT]}
        for node in nodes.names:
            metadata: Any = {"name": check_name(node), "labels": labels}
            k8s.core.v1.NodePatch(f"{name}-node-{node}", metadata=metadata, spec=taints, opts=child)
        return {GPU_PRESENT_LABEL: "true"}

    def _daemon_set(
        self,
        name: str,
        app: str,
        *,
        node_selector: Mapping[str, str],
        container: dict[str, Any],
        volumes: list[dict[str, Any]],
        skips: Mapping[str, str],
        child: pulumi.ResourceOptions,
    ) -> dict[str, str]:
        """One GPU daemon in ``kube-system``; returns its pod selector (for its NetworkPolicy)."""
        selector = check_labels({"app.kubernetes.io/name": app, FLEET_LABEL: self._labels[FLEET_LABEL]})
        container["securityContext"] = {
            "privileged": False,
            "allowPrivilegeEscalation": False,
            "readOnlyRootFilesystem": True,
            "capabilities": {"drop": ["ALL"]},
        }
        metadata: Any = {
            "name": app,
            "namespace": SYSTEM_NAMESPACE,
            "labels": {**self._labels, **selector},
            "annotations": skip_annotations(skips),
        }
        spec: Any = {
            "selector": {"matchLabels": selector},
            "updateStrategy": {"type": "RollingUpdate"},
            "template": {
                "metadata": {"labels": {**self._labels, **selector}},
                "spec": {
                    "priorityClassName": "system-node-critical",
                    "nodeSelector": dict(node_selector),
                    "tolerations": [GPU_TOLERATION, {"key": "CriticalAddonsOnly", "operator": "Exists"}],
                    "automountServiceAccountToken": False,
                    # Both run as root (the reasons are in their skips): said here, not left to the image.
                    "securityContext": {
                        "runAsUser": 0,
                        "runAsGroup": 0,
                        "runAsNonRoot": False,
                        "seccompProfile": {"type": "RuntimeDefault"},
                    },
                    "containers": [container],
                    "volumes": volumes,
                },
            },
        }
        k8s.apps.v1.DaemonSet(name, metadata=metadata, spec=spec, opts=child)
        return selector

    def _device_plugin(
        self,
        name: str,
        fleet: str,
        image: str,
        node_selector: Mapping[str, str],
        child: pulumi.ResourceOptions,
    ) -> None:
        # The plugin has no network endpoint: it is alive and registered while its socket exists in the
        # kubelet's directory (the kubelet removes every socket there when it restarts; the plugin then
        # registers again). `test` is in the pinned image (UBI minimal base).
        socket_probe = {"exec": {"command": ["test", "-S", DEVICE_PLUGIN_SOCKET]}}
        container = {
            "name": "nvidia-device-plugin",
            "image": image,
            "env": [{"name": "FAIL_ON_INIT_ERROR", "value": "false"}],
            "resources": {
                "requests": {"cpu": "50m", "memory": "64Mi"},
                "limits": {"cpu": "200m", "memory": "256Mi"},
            },
            "volumeMounts": [{"name": "device-plugins", "mountPath": DEVICE_PLUGIN_DIR}],
            "readinessProbe": {**socket_probe, "periodSeconds": 10},
            "livenessProbe": {
                **socket_probe,
                "initialDelaySeconds": 30,
                "periodSeconds": 30,
                "failureThreshold": 3,
            },
        }
        volume = {"name": "device-plugins", "hostPath": {"path": DEVICE_PLUGIN_DIR, "type": "Directory"}}
        app = f"{fleet}-nvidia-device-plugin"
        selector = self._daemon_set(
            f"{name}-device-plugin",
            app,
            node_selector=node_selector,
            container=container,
            volumes=[volume],
            skips=dict.fromkeys(ROOT_CHECKS, _PLUGIN_RUNS_AS_ROOT),
            child=child,
        )
        # Nothing connects to the plugin over the network, and it connects to nothing: deny both ways.
        self._network_policy(f"{name}-device-plugin-netpol", app, selector, [], child)

    def _dcgm_exporter(
        self,
        name: str,
        fleet: str,
        spec: OnPrem,
        node_selector: Mapping[str, str],
        child: pulumi.ResourceOptions,
    ) -> None:
        health = {"httpGet": {"path": "/health", "port": DCGM_PORT, "scheme": "HTTP"}}
        container = {
            "name": "dcgm-exporter",
            "image": spec.images.dcgm_exporter,
            "env": [
                {"name": "DCGM_EXPORTER_KUBERNETES", "value": "true"},
                {"name": "DCGM_EXPORTER_LISTEN", "value": f":{DCGM_PORT}"},
                {"name": "NVIDIA_VISIBLE_DEVICES", "value": "all"},
                # The image's entry point tries `setcap cap_sys_admin` on its binary unless this is set;
                # without CAP_SETFCAP and on a read-only root that can only fail.
                {"name": "NO_SETCAP", "value": "true"},
            ],
            "ports": [{"name": "metrics", "containerPort": DCGM_PORT}],
            "resources": {
                "requests": {"cpu": "100m", "memory": "128Mi"},
                "limits": {"cpu": "500m", "memory": "512Mi"},
            },
            "volumeMounts": [
                {"name": "pod-resources", "mountPath": POD_RESOURCES_DIR, "readOnly": True},
                {"name": "tmp", "mountPath": "/tmp"},
            ],
            # The exporter's own health endpoint, on its metrics port (dcgm-exporter's chart does the same).
            "readinessProbe": {**health, "initialDelaySeconds": 45, "periodSeconds": 10},
            "livenessProbe": {
                **health,
                "initialDelaySeconds": 45,
                "periodSeconds": 30,
                "failureThreshold": 3,
            },
        }
        volumes = [
            {"name": "pod-resources", "hostPath": {"path": POD_RESOURCES_DIR, "type": "Directory"}},
            # Scratch space for the DCGM library, the root file system being read-only.
            {"name": "tmp", "emptyDir": {"sizeLimit": "64Mi"}},
        ]
        app = f"{fleet}-dcgm-exporter"
        selector = self._daemon_set(
            f"{name}-dcgm-exporter",
            app,
            node_selector=node_selector,
            container=container,
            volumes=volumes,
            skips={
                **dict.fromkeys(ROOT_CHECKS, _EXPORTER_RUNS_AS_ROOT),
                "CKV_GPUF_7": EXPORTER_SEES_EVERY_GPU,
            },
            child=child,
        )
        scrapers = spec.metrics_scrapers
        scraper: dict[str, Any] = {
            "namespaceSelector": {"matchLabels": check_labels({NAMESPACE_NAME_LABEL: scrapers.namespace})}
        }
        if scrapers.pod_labels:
            scraper["podSelector"] = {
                "matchLabels": check_labels(scrapers.pod_labels, "onprem.metrics_scrapers.pod_labels")
            }
        ingress = [{"from": [scraper], "ports": [{"protocol": "TCP", "port": DCGM_PORT}]}]
        self._network_policy(f"{name}-dcgm-exporter-netpol", app, selector, ingress, child)

    def _network_policy(
        self,
        name: str,
        app: str,
        selector: Mapping[str, str],
        ingress: list[dict[str, Any]],
        child: pulumi.ResourceOptions,
    ) -> None:
        """Ingress and egress denied to the daemon's pods but for ``ingress``. It selects those pods only:
        a namespace-wide default deny in ``kube-system`` would cut off the cluster's DNS and every other
        system component."""
        spec: Any = {
            "podSelector": {"matchLabels": dict(selector)},
            "policyTypes": ["Ingress", "Egress"],
            "ingress": ingress,
            "egress": [],
        }
        k8s.networking.v1.NetworkPolicy(
            name,
            metadata={"name": app, "namespace": SYSTEM_NAMESPACE, "labels": self._labels},
            spec=spec,
            opts=child,
        )

    # ------------------------------------------------------------------------------------ the queue

    def _queue_scaler(
        self,
        name: str,
        scaler: QueueScaler,
        namespace: k8s.core.v1.Namespace,
        child: pulumi.ResourceOptions,
    ) -> None:
        cooldown = duration_seconds(scaler.cooldown)
        trigger: dict[str, Any] = {"type": scaler.source, "metadata": _trigger_metadata(scaler)}
        if scaler.authentication is not None:
            trigger["authenticationRef"] = {"name": scaler.authentication}
        k8s.apiextensions.CustomResource(
            f"{name}-workers",
            api_version="keda.sh/v1alpha1",
            kind="ScaledObject",
            metadata={
                "name": scaler.deployment,
                "namespace": namespace.metadata.name,
                "labels": self._labels,
            },
            spec={
                "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": scaler.deployment},
                "pollingInterval": duration_seconds(scaler.polling_interval),
                "cooldownPeriod": cooldown,
                "minReplicaCount": scaler.min_replicas,
                "maxReplicaCount": scaler.max_replicas,
                "advanced": {
                    "horizontalPodAutoscalerConfig": {
                        "behavior": {"scaleDown": {"stabilizationWindowSeconds": cooldown}}
                    }
                },
                "triggers": [trigger],
            },
            opts=pulumi.ResourceOptions.merge(child, pulumi.ResourceOptions(depends_on=[namespace])),
        )


def skip_annotations(skips: Mapping[str, str]) -> dict[str, str]:
    """checkov's per-object skips: ``checkov.io/skip<n>: <check id>=<reason>``, one check each, in check
    order (stable across runs)."""
    for check, reason in skips.items():
        if "=" in reason or "=" in check:
            raise ValueError(f"a checkov skip must not contain '=' (checkov splits at it): {check}")
    return {f"{SKIP_ANNOTATION}{n}": f"{check}={skips[check]}" for n, check in enumerate(sorted(skips), 1)}


def _trigger_metadata(scaler: QueueScaler) -> dict[str, str]:
    """The KEDA trigger's metadata (every value a string, as KEDA reads them), from the trigger type's
    module (:mod:`gpufleet.components.baseline.keda_triggers`). No credential is ever written here: they
    come from the named TriggerAuthentication or KEDA's own identity."""
    return trigger_metadata(scaler)


def _provider(name: str, spec: OnPrem, opts: pulumi.ResourceOptions) -> k8s.Provider:
    access = spec.cluster
    if access.kubeconfig_context is not None:
        return k8s.Provider(
            f"{name}-cluster", context=access.kubeconfig_context, enable_server_side_apply=True, opts=opts
        )
    key = access.config_key or ""
    namespace, _, config_name = key.partition(":")
    kubeconfig = pulumi.Config(namespace).require_secret(config_name)
    return k8s.Provider(f"{name}-cluster", kubeconfig=kubeconfig, enable_server_side_apply=True, opts=opts)


__all__ = ["TYPE", "OnPremBaseline", "OnPremBaselineArgs", "label_value", "skip_annotations"]

"""cluster-autoscaler in ``BurstScheduling`` (:mod:`gpufleet.components.baseline.scheduling`): one
``Deployment`` per cloud site in ``kube-system`` with its own service account, lease and status
ConfigMap, the upstream RBAC, and node groups limited to this fleet's (AWS by auto-discovery tags,
Alibaba and Tencent by ``--nodes``); AWS credentials through a Roles Anywhere signing helper, Alibaba
and Tencent keys from the operator's Secrets as environment variables (:data:`KEYS_FROM_ENV`). Each
cloud's provider name, node groups, environment and sidecars are in its module of
:mod:`gpufleet.components.baseline.autoscalers`. What the pod may reach and its API token:
:mod:`~gpufleet.components.baseline.autoscaler_pod`."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

import pulumi
import pulumi_kubernetes as k8s

from gpufleet.components.baseline.autoscaler_common import SYSTEM_NAMESPACE, restricted
from gpufleet.components.baseline.autoscaler_pod import api_token_mount, api_token_volume, network_policy_spec
from gpufleet.components.baseline.kubernetes import skip_annotations
from gpufleet.components.baseline.kueue import GPU, SITE_LABEL, Flavor, burst_sites, flavor_name
from gpufleet.components.clouds import cloud_parts, part_values
from gpufleet.components.k8s_names import check_labels, check_name

if TYPE_CHECKING:
    from gpufleet.components.baseline.scheduling import BurstSchedulingArgs
    from gpufleet.components.clouds import Cloud
    from gpufleet.components.spec import FleetSpec

# Each cloud's provider (components/baseline/autoscalers/<cloud>.py), in the registry's order.
PROVIDERS = cloud_parts("gpufleet.components.baseline.autoscalers")
# The cloud-provider names cluster-autoscaler takes.
CLOUD_PROVIDER: Mapping[str, str] = {cloud: part.PROVIDER for cloud, part in PROVIDERS.items()}
RBAC = "rbac.authorization.k8s.io"
# Why checkov's CKV_K8S_35 is skipped on the Deployment of a cloud whose provider reads its keys from
# the environment only (each such cloud's module says where the provider reads them).
KEYS_FROM_ENV: Mapping[str, str] = {
    cloud: str(reason) for cloud, reason in part_values(PROVIDERS, "KEYS_FROM_ENV").items()
}


@dataclass(frozen=True, kw_only=True)
class AutoscaledPool:
    name: str
    min_size: int
    max_size: int


@dataclass(frozen=True, kw_only=True)
class SiteAutoscaler:
    """One cluster-autoscaler: the site's cloud and region, its pools and the scale-down timing."""

    site: str
    flavor: str
    pools: tuple[AutoscaledPool, ...]
    unneeded: str  # --scale-down-unneeded-time
    delay_after_add: str  # --scale-down-delay-after-add

    @property
    def cloud(self) -> str:
        return self.site.partition(":")[0]

    @property
    def region(self) -> str:
        return self.site.partition(":")[2]


def _minutes(seconds: int) -> str:
    return f"{seconds // 60}m" if seconds % 60 == 0 else f"{seconds}s"


def plan_autoscalers(
    spec: FleetSpec, provider_regions: Mapping[str, str | None] | None = None
) -> list[SiteAutoscaler]:
    """One autoscaler per burst site, in burst order. Its scale-down waits for the longest ``in_for`` of
    the site's pools, and never within the longest ``cooldown`` after a scale-up."""
    if spec.onprem is None or spec.onprem.scheduler is None:
        return []
    found = []
    for site, pools in burst_sites(spec, provider_regions):
        settings = [spec.pools[p] for p in pools]
        found.append(
            SiteAutoscaler(
                site=site,
                flavor=flavor_name(site),
                pools=tuple(
                    AutoscaledPool(name=p, min_size=spec.pools[p].size.min, max_size=spec.pools[p].size.max)
                    for p in pools
                ),
                unneeded=_minutes(max(s.scaling.in_for_s for s in settings)),
                delay_after_add=f"{max(s.scaling.cooldown_s for s in settings)}s",
            )
        )
    return found


def discovery_tags(cluster: str, flavor: Flavor, gpus_per_instance: int) -> dict[str, str]:
    """The tags an AWS Auto Scaling group needs for this fleet's autoscaler to find it and to build the
    node template it scales up from zero with (labels, taint and GPUs of a node that does not exist yet).
    The joined AWS pools carry them, not propagated to instances
    (:func:`gpufleet.components.pools.aws_join.discovery_tags`, which gives the same tags)."""
    template = "k8s.io/cluster-autoscaler/node-template"
    tags = {
        "k8s.io/cluster-autoscaler/enabled": "true",
        f"k8s.io/cluster-autoscaler/{cluster}": "owned",
        **{f"{template}/label/{k}": v for k, v in flavor.node_labels.items()},
        f"{template}/resources/{GPU}": str(gpus_per_instance),
    }
    if flavor.taint is not None:
        tags[f"{template}/taint/{flavor.taint['key']}"] = f"{flavor.taint['value']}:{flavor.taint['effect']}"
    return tags


class AutoscalerParts:
    """The cluster-autoscaler part of ``BurstScheduling``: one autoscaler per cloud site."""

    _labels: dict[str, str]

    def _rbac(self, name: str, app: str, opts: pulumi.ResourceOptions) -> None:
        """The upstream chart's rules (kubernetes/autoscaler, charts/cluster-autoscaler): read the cluster,
        evict pods, write its own lease and status ConfigMap."""
        read = ["get", "list", "watch"]
        rules: Any = [
            {"apiGroups": [""], "resources": ["events", "endpoints"], "verbs": ["create", "patch"]},
            {"apiGroups": [""], "resources": ["pods/eviction"], "verbs": ["create"]},
            {"apiGroups": [""], "resources": ["pods/status"], "verbs": ["update"]},
            {
                "apiGroups": [""],
                "resources": ["endpoints"],
                "resourceNames": ["cluster-autoscaler"],
                "verbs": ["get", "update"],
            },
            {"apiGroups": [""], "resources": ["nodes"], "verbs": ["watch", "list", "get", "update"]},
            {
                "apiGroups": [""],
                "resources": [
                    "namespaces",
                    "pods",
                    "services",
                    "replicationcontrollers",
                    "persistentvolumeclaims",
                    "persistentvolumes",
                ],
                "verbs": read,
            },
            {"apiGroups": ["extensions"], "resources": ["replicasets", "daemonsets"], "verbs": read},
            {"apiGroups": ["policy"], "resources": ["poddisruptionbudgets"], "verbs": ["watch", "list"]},
            {
                "apiGroups": ["apps"],
                "resources": ["statefulsets", "replicasets", "daemonsets"],
                "verbs": read,
            },
            {
                "apiGroups": ["storage.k8s.io"],
                "resources": [
                    "storageclasses",
                    "csinodes",
                    "csidrivers",
                    "csistoragecapacities",
                    "volumeattachments",
                ],
                "verbs": read,
            },
            {
                "apiGroups": ["batch", "extensions"],
                "resources": ["jobs"],
                "verbs": ["get", "list", "watch", "patch"],
            },
            {"apiGroups": ["coordination.k8s.io"], "resources": ["leases"], "verbs": ["create"]},
            {
                "apiGroups": ["coordination.k8s.io"],
                "resources": ["leases"],
                "resourceNames": [app],
                "verbs": ["get", "update"],
            },
            {
                "apiGroups": ["resource.k8s.io"],
                "resources": ["resourceclaims", "resourceslices", "deviceclasses"],
                "verbs": read,
            },
        ]
        meta: Any = {"name": app, "namespace": SYSTEM_NAMESPACE, "labels": self._labels}
        cluster_meta: Any = {"name": app, "labels": self._labels}
        role_ref: Any = {"apiGroup": RBAC, "kind": "ClusterRole", "name": app}
        own_ref: Any = {"apiGroup": RBAC, "kind": "Role", "name": app}
        subjects: Any = [{"kind": "ServiceAccount", "name": app, "namespace": SYSTEM_NAMESPACE}]
        account = k8s.core.v1.ServiceAccount(f"{name}-sa", metadata=meta, opts=opts)
        after = pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(depends_on=[account]))
        k8s.rbac.v1.ClusterRole(f"{name}-cluster-role", metadata=cluster_meta, rules=rules, opts=opts)
        k8s.rbac.v1.ClusterRoleBinding(
            f"{name}-cluster-binding",
            metadata=cluster_meta,
            role_ref=role_ref,
            subjects=subjects,
            opts=after,
        )
        own: Any = [
            {"apiGroups": [""], "resources": ["configmaps"], "verbs": ["create", "list", "watch"]},
            {
                "apiGroups": [""],
                "resources": ["configmaps"],
                "resourceNames": [f"{app}-status"],
                "verbs": ["delete", "get", "update", "watch"],
            },
        ]
        k8s.rbac.v1.Role(f"{name}-role", metadata=meta, rules=own, opts=opts)
        k8s.rbac.v1.RoleBinding(
            f"{name}-binding",
            metadata=meta,
            role_ref=own_ref,
            subjects=subjects,
            opts=after,
        )

    def _autoscaler(
        self, name: str, args: BurstSchedulingArgs, site: SiteAutoscaler, opts: pulumi.ResourceOptions
    ) -> None:
        app = check_name(f"{args.fleet}-autoscaler-{site.flavor}")
        base = f"{name}-autoscaler-{site.flavor}"
        self._rbac(base, app, opts)
        flags = autoscaler_flags(args.fleet, site, args.scheduler.expander, app)
        provider = PROVIDERS[cast("Cloud", site.cloud)]
        command: pulumi.Input[list[str]] = provider.command(flags, args, site)
        selector = check_labels({"app.kubernetes.io/name": "cluster-autoscaler", SITE_LABEL: site.flavor})
        container: dict[str, Any] = {
            "name": "cluster-autoscaler",
            "image": args.scheduler.autoscaler_image,
            "command": command,
            "env": provider.env(args, site),
            "resources": {
                "requests": {"cpu": "100m", "memory": "300Mi"},
                "limits": {"cpu": "500m", "memory": "600Mi"},
            },
            "ports": [{"name": "metrics", "containerPort": 8085}],
            "livenessProbe": {"httpGet": {"path": "/health-check", "port": 8085}, "periodSeconds": 30},
            "readinessProbe": {"httpGet": {"path": "/health-check", "port": 8085}, "periodSeconds": 10},
            "securityContext": restricted(),
            "volumeMounts": [api_token_mount()],
        }
        containers = [container]
        volumes: list[dict[str, Any]] = [api_token_volume()]
        depends: list[pulumi.Resource] = []
        if hasattr(provider, "sidecars"):
            more_containers, more_volumes, more_depends = provider.sidecars(
                base, app, args, self._labels, opts
            )
            containers += more_containers
            volumes += more_volumes
            depends += more_depends
        metadata: Any = {
            "name": app,
            "namespace": SYSTEM_NAMESPACE,
            "labels": {**self._labels, **selector},
        }
        if site.cloud in KEYS_FROM_ENV:
            metadata["annotations"] = skip_annotations({"CKV_K8S_35": KEYS_FROM_ENV[site.cloud]})
        k8s.apps.v1.Deployment(
            f"{base}-deployment",
            metadata=metadata,
            spec=_deployment_spec(app, {**self._labels, **selector}, selector, containers, volumes),
            opts=pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(depends_on=depends)),
        )
        policy: Any = network_policy_spec(
            selector,
            args.scheduler.api_server,
            [str(c) for c in args.scheduler.control_plane_cidrs],
        )
        k8s.networking.v1.NetworkPolicy(
            f"{base}-netpol",
            metadata={"name": app, "namespace": SYSTEM_NAMESPACE, "labels": self._labels},
            spec=policy,
            opts=opts,
        )


def autoscaler_flags(fleet: str, site: SiteAutoscaler, expander: str, app: str) -> list[str]:
    """The flags every autoscaler of the fleet runs with (node groups come after)."""
    return [
        "./cluster-autoscaler",
        f"--cloud-provider={CLOUD_PROVIDER[site.cloud]}",
        f"--scale-down-unneeded-time={site.unneeded}",
        f"--scale-down-delay-after-add={site.delay_after_add}",
        f"--expander={expander}",
        "--skip-nodes-with-local-storage=false",
        "--balance-similar-node-groups=false",
        # Several autoscalers share kube-system: each its own lease and status ConfigMap.
        f"--leader-elect-resource-name={app}",
        f"--status-config-map-name={app}-status",
        "--logtostderr=true",
        "--v=4",
    ]


def _deployment_spec(
    app: str,
    pod_labels: Mapping[str, str],
    selector: Mapping[str, str],
    containers: list[dict[str, Any]],
    volumes: list[dict[str, Any]],
) -> Any:
    """One replica on the on-prem control-plane side (an autoscaler never runs on a node it may
    remove), non-root, its API token from the projected volume only (no automount)."""
    return {
        "replicas": 1,
        "selector": {"matchLabels": dict(selector)},
        "template": {
            "metadata": {"labels": dict(pod_labels)},
            "spec": {
                "serviceAccountName": app,
                "automountServiceAccountToken": False,
                "priorityClassName": "system-cluster-critical",
                "affinity": {
                    "nodeAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": {
                            "nodeSelectorTerms": [
                                {"matchExpressions": [{"key": SITE_LABEL, "operator": "DoesNotExist"}]}
                            ]
                        }
                    }
                },
                "securityContext": {
                    "runAsNonRoot": True,
                    "runAsUser": 65532,
                    "runAsGroup": 65532,
                    "seccompProfile": {"type": "RuntimeDefault"},
                },
                "containers": containers,
                "volumes": volumes,
            },
        },
    }

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
  ``--nodes=<min>:<max>:<group id>`` of the fleet's own groups.
- **KEDA** (``keda.sh/v1alpha1``): per ``scheduler.serving`` entry a ``ScaledObject`` on the Deployment's
  pods' average ``DCGM_FI_DEV_GPU_UTIL`` (Prometheus), above the threshold over the window.

Credentials: AWS through IAM Roles Anywhere (a sidecar ``aws_signing_helper serve`` answering the SDK's
instance-metadata calls on 127.0.0.1:9911, with the signal's client certificate and trust anchor and a
role of its own); Alibaba and Tencent from Kubernetes Secrets the operator creates (named in
``scheduler.credentials``; never inline).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pulumi
import pulumi_kubernetes as k8s

from gpufleet.components.catalog import load_catalog
from gpufleet.components.k8s_names import check_labels, check_name

if TYPE_CHECKING:
    from gpufleet.components.spec import FleetSpec
    from gpufleet.components.spec.scheduler import Scheduler

TYPE = "gpufleet:baseline:BurstScheduling"
KUEUE = "kueue.x-k8s.io/v1beta1"
KEDA = "keda.sh/v1alpha1"
KUEUE_CHART = "oci://registry.k8s.io/kueue/charts/kueue"
KUEUE_NAMESPACE = "kueue-system"
SYSTEM_NAMESPACE = "kube-system"
GPU = "nvidia.com/gpu"
SITE_LABEL = "gpufleet.io/site"
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
SAFE_TO_EVICT = "cluster-autoscaler.kubernetes.io/safe-to-evict"
LOCAL_QUEUE = "gpu"
ONPREM = "onprem"
SIGNING_HELPER_PORT = 9911
# The cloud-provider names cluster-autoscaler takes.
CLOUD_PROVIDER = {"aws": "aws", "alicloud": "alicloud", "tencentcloud": "tencentcloud"}
RBAC = "rbac.authorization.k8s.io"


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


def flavor_name(site: str) -> str:
    """``aws:us-east-1`` -> ``aws-us-east-1`` (a ResourceFlavor name and the site's node label value)."""
    return check_name(site.replace(":", "-"))


def _minutes(seconds: int) -> str:
    return f"{seconds // 60}m" if seconds % 60 == 0 else f"{seconds}s"


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
    The AWS pools must carry them (not propagated to instances); see docs/hybrid.md."""
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


def aws_discovery_flag(cluster: str) -> str:
    tags = f"k8s.io/cluster-autoscaler/enabled,k8s.io/cluster-autoscaler/{cluster}"
    return f"--node-group-auto-discovery=asg:tag={tags}"


@dataclass(frozen=True, kw_only=True)
class AwsAccess:
    """What the AWS autoscaler's signing helper needs: the client certificate and key (secrets), and the
    Roles Anywhere trust anchor, profile and role ARNs."""

    image: str
    client_certificate: pulumi.Input[str]
    client_key: pulumi.Input[str]
    trust_anchor_arn: pulumi.Input[str]
    profile_arn: pulumi.Input[str]
    role_arn: pulumi.Input[str]


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
    aws: AwsAccess | None = None


class BurstScheduling(pulumi.ComponentResource):
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

    # ------------------------------------------------------------------------------------------ Kueue

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

    # ----------------------------------------------------------------------------- cluster-autoscaler

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
        if site.cloud == "aws":
            command: pulumi.Input[list[str]] = [*flags, aws_discovery_flag(args.fleet)]
        else:
            groups = [_pool_nodes(pool, args.groups.get(pool.name, ())) for pool in site.pools]
            command = pulumi.Output.all(*groups).apply(lambda found: [*flags, *(f for g in found for f in g)])
        selector = check_labels({"app.kubernetes.io/name": "cluster-autoscaler", SITE_LABEL: site.flavor})
        container: dict[str, Any] = {
            "name": "cluster-autoscaler",
            "image": args.scheduler.autoscaler_image,
            "command": command,
            "env": self._cloud_env(args, site),
            "resources": {
                "requests": {"cpu": "100m", "memory": "300Mi"},
                "limits": {"cpu": "500m", "memory": "600Mi"},
            },
            "ports": [{"name": "metrics", "containerPort": 8085}],
            "livenessProbe": {"httpGet": {"path": "/health-check", "port": 8085}, "periodSeconds": 30},
            "readinessProbe": {"httpGet": {"path": "/health-check", "port": 8085}, "periodSeconds": 10},
            "securityContext": _restricted(),
        }
        containers = [container]
        volumes: list[dict[str, Any]] = []
        depends: list[pulumi.Resource] = []
        if site.cloud == "aws" and args.aws is not None:
            secret = k8s.core.v1.Secret(
                f"{base}-client",
                metadata={"name": f"{app}-client", "namespace": SYSTEM_NAMESPACE, "labels": self._labels},
                type="kubernetes.io/tls",
                string_data={"tls.crt": args.aws.client_certificate, "tls.key": args.aws.client_key},
                opts=opts,
            )
            depends.append(secret)
            containers.append(_signing_helper(args.aws))
            volumes.append(
                {"name": "client", "secret": {"secretName": f"{app}-client", "defaultMode": 0o440}}
            )
        spec: Any = {
            "replicas": 1,
            "selector": {"matchLabels": selector},
            "template": {
                "metadata": {"labels": {**self._labels, **selector}},
                "spec": {
                    "serviceAccountName": app,
                    "priorityClassName": "system-cluster-critical",
                    # On the on-prem control-plane side: an autoscaler never runs on a node it may remove.
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
        k8s.apps.v1.Deployment(
            f"{base}-deployment",
            metadata={"name": app, "namespace": SYSTEM_NAMESPACE, "labels": {**self._labels, **selector}},
            spec=spec,
            opts=pulumi.ResourceOptions.merge(opts, pulumi.ResourceOptions(depends_on=depends)),
        )

    def _cloud_env(self, args: BurstSchedulingArgs, site: SiteAutoscaler) -> list[dict[str, Any]]:
        if site.cloud == "aws":
            env: list[dict[str, Any]] = [{"name": "AWS_REGION", "value": site.region}]
            if args.aws is not None:
                env.append(
                    {
                        "name": "AWS_EC2_METADATA_SERVICE_ENDPOINT",
                        "value": f"http://127.0.0.1:{SIGNING_HELPER_PORT}",
                    }
                )
            return env

        def key(secret: str, item: str) -> dict[str, Any]:
            return {"secretKeyRef": {"name": secret, "key": item}}

        if site.cloud == "alicloud":
            secret = args.scheduler.credentials.alicloud
            return [
                {"name": "ACCESS_KEY_ID", "valueFrom": key(secret, "access-key-id")},
                {"name": "ACCESS_KEY_SECRET", "valueFrom": key(secret, "access-key-secret")},
                {"name": "REGION_ID", "value": site.region},
            ]
        secret = args.scheduler.credentials.tencentcloud
        return [
            {"name": "SECRET_ID", "valueFrom": key(secret, "tencentcloud_secret_id")},
            {"name": "SECRET_KEY", "valueFrom": key(secret, "tencentcloud_secret_key")},
            {"name": "REGION", "value": site.region},
        ]

    # ------------------------------------------------------------------------------------------- KEDA

    def _serving(self, name: str, prometheus: str, serving: Any, opts: pulumi.ResourceOptions) -> None:
        from gpufleet.components.spec.scheduler import window_seconds

        window = _minutes(window_seconds(serving))
        query = (
            f'avg(avg_over_time(DCGM_FI_DEV_GPU_UTIL{{namespace="{serving.namespace}",'
            f'pod=~"{serving.deployment}-.*"}}[{window}]))'
        )
        k8s.apiextensions.CustomResource(
            f"{name}-serving-{serving.namespace}-{serving.deployment}",
            api_version=KEDA,
            kind="ScaledObject",
            metadata={
                "name": f"{serving.deployment}-gpu",
                "namespace": serving.namespace,
                "labels": self._labels,
            },
            spec={
                "scaleTargetRef": {"apiVersion": "apps/v1", "kind": "Deployment", "name": serving.deployment},
                "minReplicaCount": serving.min_replicas,
                "maxReplicaCount": serving.max_replicas,
                "triggers": [
                    {
                        "type": "prometheus",
                        "metricType": "AverageValue",
                        "metadata": {
                            "serverAddress": prometheus,
                            "query": query,
                            "threshold": str(serving.utilisation),
                        },
                    }
                ],
            },
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


def _pool_nodes(pool: AutoscaledPool, ids: Sequence[pulumi.Input[str]]) -> pulumi.Output[list[str]]:
    return pulumi.Output.all(*ids).apply(lambda found: _nodes_flags(pool, found))


def _nodes_flags(pool: AutoscaledPool, ids: Sequence[str]) -> list[str]:
    """``--nodes=<min>:<max>:<id>`` per group of the pool; a pool of several groups (Tencent's spot and
    on-demand) lets each reach the pool's maximum from 0."""
    low = pool.min_size if len(ids) == 1 else 0
    return [f"--nodes={low}:{pool.max_size}:{group}" for group in ids]


def _namespaces(names: Sequence[str]) -> dict[str, Any]:
    return {
        "matchExpressions": [{"key": "kubernetes.io/metadata.name", "operator": "In", "values": list(names)}]
    }


def _restricted() -> dict[str, Any]:
    return {
        "allowPrivilegeEscalation": False,
        "readOnlyRootFilesystem": True,
        "capabilities": {"drop": ["ALL"]},
    }


def _signing_helper(access: AwsAccess) -> dict[str, Any]:
    """``aws_signing_helper serve``: an instance-metadata endpoint on localhost handing out the Roles
    Anywhere session's credentials, which the autoscaler's AWS SDK reads as it would on EC2."""
    client = "/var/run/gpufleet/client"
    return {
        "name": "signing-helper",
        "image": access.image,
        "command": pulumi.Output.all(access.trust_anchor_arn, access.profile_arn, access.role_arn).apply(
            lambda arns: [
                "aws_signing_helper",
                "serve",
                "--port",
                str(SIGNING_HELPER_PORT),
                "--certificate",
                f"{client}/tls.crt",
                "--private-key",
                f"{client}/tls.key",
                "--trust-anchor-arn",
                arns[0],
                "--profile-arn",
                arns[1],
                "--role-arn",
                arns[2],
            ]
        ),
        "volumeMounts": [{"name": "client", "mountPath": client, "readOnly": True}],
        "resources": {
            "requests": {"cpu": "10m", "memory": "32Mi"},
            "limits": {"cpu": "100m", "memory": "64Mi"},
        },
        "securityContext": _restricted(),
    }


def job_template_annotations() -> dict[str, str]:
    """What a Kueue-admitted Job's pod template carries: cluster-autoscaler never evicts it to remove its
    node (scale-down waits until the pod ends)."""
    return {SAFE_TO_EVICT: "false"}


__all__ = [
    "TYPE",
    "AwsAccess",
    "BurstScheduling",
    "BurstSchedulingArgs",
    "Flavor",
    "SiteAutoscaler",
    "discovery_tags",
    "job_template_annotations",
    "plan_autoscalers",
    "plan_flavors",
]

"""``SignalExporter``: the process that publishes the burst order's signal, on the on-prem cluster.

It runs :mod:`gpufleet.components.baseline.exporter_script` (shipped in a ConfigMap) in a one-replica
``Deployment`` in the ``gpufleet-system`` namespace, through the baseline's own ``kubernetes.Provider``:

- ``Namespace`` ``gpufleet-system`` (Pod Security ``restricted`` enforced);
- ``ServiceAccount`` without an automounted token, a ``ClusterRole`` allowed ``get`` and ``list`` on
  ``nodes`` and ``pods`` and nothing else, and its ``ClusterRoleBinding``;
- ``ConfigMap``: the script, ``config.json`` (the whole burst order; the AWS sites, each with its region
  and the sites ahead; the GPU nodes' selector; the interval; with Alibaba publishing, ``alicloud``: the
  account, the RAM role and OIDC provider ARNs, the token file, and each Alibaba site with its region,
  the sites ahead and its gated pools' MNS queues) and the AWS ``config`` whose
  ``credential_process`` runs ``aws_signing_helper credential-process`` with the client certificate,
  its key and the trust anchor, profile and role ARNs of
  :class:`components.baseline.aws_signal.BaselineSignal`;
- ``Secret`` (``kubernetes.io/tls``) built from the two secret stack config keys, mounted read-only;
- the ``Deployment``: non-root (UID/GID 10001), read-only root filesystem, every capability dropped, no
  privilege escalation, seccomp ``RuntimeDefault``, CPU and memory requests and limits, liveness and
  readiness probes (``--check``: the last publish is at most three intervals old), the image by digest,
  and the API token as an explicit projected volume (one-hour token) instead of the automount; with
  Alibaba publishing, a second projected token whose audience is the RAM OIDC provider's client id,
  the only credential of ``AssumeRoleWithOIDC`` (never the API token: its audience is the API server);
- a ``NetworkPolicy``: no ingress; egress DNS (53) and HTTPS (443, the AWS endpoints and the API
  server's service) plus 6443, where the API server's endpoints listen on kubeadm clusters (policies
  see the endpoint's port once the service address is translated).

The image is the team's: ``python3``, ``boto3`` and ``aws_signing_helper`` on ``PATH``, running as a
non-root user (docs/burst-order.md gives a Dockerfile).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from gpufleet.components.baseline import exporter_script
from gpufleet.components.baseline.exporters import CLIENT_DIR
from gpufleet.components.baseline.kubernetes import FLEET_LABEL, label_value
from gpufleet.components.clouds import cloud_parts
from gpufleet.components.k8s_names import check_labels, check_name, tag_labels
from gpufleet.components.pools.burst import SIGNAL_METRIC, SIGNAL_NAMESPACE, SITE_DIMENSION

TYPE = "gpufleet:baseline:SignalExporter"
NAMESPACE = "gpufleet-system"
USER_ID = 10001
APP_LABEL = "app.kubernetes.io/name"
CONFIG_DIR = "/etc/gpufleet/exporter"
TOKEN_DIR = "/var/run/secrets/kubernetes.io/serviceaccount"
TOKEN_SECONDS = 3600
SCRIPT_KEY = "exporter.py"
CONFIG_KEY = "config.json"
ALICLOUD_TOKEN_DIR = "/var/run/secrets/gpufleet/alicloud"
ALICLOUD_SESSION = "gpufleet-exporter"
EGRESS_PORTS = (("UDP", 53), ("TCP", 53), ("TCP", 443), ("TCP", 6443))
# Each cloud's part of the exporter (components/baseline/exporters/<cloud>.py).
PARTS = cloud_parts("gpufleet.components.baseline.exporters")


@dataclass(frozen=True, kw_only=True)
class SignalSite:
    """One AWS site the exporter publishes for: ``aws:<region>`` and the sites ahead of it."""

    site: str
    region: str
    ahead: tuple[str, ...]


@dataclass(frozen=True, kw_only=True)
class AlicloudGatedPool:
    """A gated Alibaba pool: its spec name (the ``Pool`` dimension) and its MNS queue."""

    pool: str
    queue: str


@dataclass(frozen=True, kw_only=True)
class AlicloudSignalSite:
    """One Alibaba site the exporter publishes ``GatedBacklog`` for: its gated pools and the sites ahead."""

    site: str
    region: str
    ahead: tuple[str, ...]
    pools: tuple[AlicloudGatedPool, ...]


@dataclass(frozen=True, kw_only=True)
class AlicloudPublishing:
    """What the exporter needs to publish on Alibaba Cloud: the sites, the publisher's RAM role and OIDC
    provider (``AlicloudBurstPublisher``), the provider's client id (the token's audience) and the
    service account the role trusts, written ``namespace/name``."""

    sites: Sequence[AlicloudSignalSite]
    role_arn: pulumi.Input[str]
    oidc_provider_arn: pulumi.Input[str]
    client_id: str
    service_account: str


@dataclass(frozen=True, kw_only=True)
class SignalExporterArgs:
    """``client_certificate`` and ``client_key``: the PEM values (secrets, from the stack's config);
    ``role_arn``, ``profile_arn`` and ``trust_anchor_arn``: the ``BaselineSignal`` outputs."""

    fleet: str
    image: str
    sites: Sequence[SignalSite]
    node_selector: Mapping[str, str]
    interval_seconds: int
    client_certificate: pulumi.Input[str]
    client_key: pulumi.Input[str]
    role_arn: pulumi.Input[str]
    profile_arn: pulumi.Input[str]
    trust_anchor_arn: pulumi.Input[str]
    labels: Mapping[str, str]
    order: Sequence[str] = ()  # every site after the baseline, in burst order (for the operator to read)
    alicloud: AlicloudPublishing | None = None

    @property
    def service_account(self) -> str:
        """The exporter's service account, ``namespace/name``."""
        return f"{NAMESPACE}/{self.fleet}-signal-exporter"

    def __post_init__(self) -> None:
        if "@sha256:" not in self.image:
            raise ValueError(
                f"SignalExporterArgs: image: must be pinned by @sha256: digest, got {self.image!r}"
            )
        if not self.sites:
            required = " and ".join(p.SITES_REQUIRED for p in PARTS.values() if hasattr(p, "SITES_REQUIRED"))
            raise ValueError(f"SignalExporterArgs: sites: {required}")
        if self.alicloud is not None and self.alicloud.service_account != self.service_account:
            raise ValueError(
                f"SignalExporterArgs: alicloud.service_account: the Alibaba role trusts "
                f"{self.alicloud.service_account!r}, but the exporter runs as {self.service_account!r}"
            )


def cost_labels(fleet: str, tags: Mapping[str, str]) -> dict[str, str]:
    """The cost tags as labels (``gpufleet:<name>`` keys as ``gpufleet.io/<name>``), and the fleet's
    label: what the baseline's objects carry too."""
    return check_labels({**tag_labels(tags), FLEET_LABEL: label_value(fleet)})


def script_text() -> str:
    """The exporter script exactly as the ConfigMap ships it."""
    return Path(exporter_script.__file__).read_text(encoding="utf-8")


def account_of(role_arn: str) -> str:
    """The account of a RAM ARN, ``acs:ram::<account>:role/<name>``."""
    parts = role_arn.split(":")
    if len(parts) < 5 or parts[:2] != ["acs", "ram"] or not parts[3]:
        raise ValueError(f"not a RAM role ARN: {role_arn!r}")
    return parts[3]


def exporter_config(args: SignalExporterArgs, alicloud_arns: tuple[str, str] | None = None) -> dict[str, Any]:
    """``config.json`` of the ConfigMap: what the script reads. ``alicloud_arns``: the publisher's
    role and OIDC provider ARNs, when ``args.alicloud`` is set."""
    config: dict[str, Any] = {
        "namespace": SIGNAL_NAMESPACE,
        "metric": SIGNAL_METRIC,
        "dimension": SITE_DIMENSION,
        "interval_seconds": args.interval_seconds,
        "node_selector": dict(args.node_selector),
        "order": list(args.order),
        "sites": [{"site": s.site, "region": s.region, "ahead": list(s.ahead)} for s in args.sites],
    }
    if args.alicloud is not None and alicloud_arns is not None:
        role_arn, provider_arn = alicloud_arns
        config["alicloud"] = {
            "account_id": account_of(role_arn),
            "role_arn": role_arn,
            "oidc_provider_arn": provider_arn,
            "token_file": f"{ALICLOUD_TOKEN_DIR}/token",
            "session_name": ALICLOUD_SESSION,
            "sts_endpoint": "sts.aliyuncs.com",
            "sites": [
                {
                    "site": site.site,
                    "region": site.region,
                    "ahead": list(site.ahead),
                    "pools": [{"pool": p.pool, "queue": p.queue} for p in site.pools],
                }
                for site in args.alicloud.sites
            ],
        }
    return config


def probe(interval_seconds: int, *, initial: int) -> dict[str, Any]:
    return {
        "exec": {
            "command": [
                "python3",
                f"{CONFIG_DIR}/{SCRIPT_KEY}",
                "--config",
                f"{CONFIG_DIR}/{CONFIG_KEY}",
                "--check",
            ]
        },
        "initialDelaySeconds": initial,
        "periodSeconds": interval_seconds,
        "timeoutSeconds": 10,
        "failureThreshold": 3,
    }


class SignalExporter(pulumi.ComponentResource):
    """The exporter's objects on the on-prem cluster (see the module docstring)."""

    namespace: str
    name: str

    def __init__(
        self, name: str, args: SignalExporterArgs, opts: pulumi.ResourceOptions | None = None
    ) -> None:
        super().__init__(TYPE, name, None, opts)
        child = pulumi.ResourceOptions(parent=self)
        app = check_name(f"{args.fleet}-signal-exporter")
        self.namespace, self.name = NAMESPACE, app
        selector = check_labels({APP_LABEL: app})
        labels = check_labels({**args.labels, **selector})
        namespace = k8s.core.v1.Namespace(
            f"{name}-ns",
            metadata={
                "name": check_name(NAMESPACE, "label"),
                "labels": check_labels(
                    {
                        **args.labels,
                        "pod-security.kubernetes.io/enforce": "restricted",
                        "pod-security.kubernetes.io/warn": "restricted",
                    }
                ),
            },
            opts=child,
        )
        inside = pulumi.ResourceOptions.merge(child, pulumi.ResourceOptions(depends_on=[namespace]))
        meta: Any = {"name": app, "namespace": NAMESPACE, "labels": labels}
        account = k8s.core.v1.ServiceAccount(
            f"{name}-account", metadata=meta, automount_service_account_token=False, opts=inside
        )
        cluster_meta: Any = {"name": app, "labels": labels}
        rules: Any = [{"apiGroups": [""], "resources": ["nodes", "pods"], "verbs": ["get", "list"]}]
        role = k8s.rbac.v1.ClusterRole(f"{name}-reader", metadata=cluster_meta, rules=rules, opts=child)
        role_ref: Any = {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": app}
        subjects: Any = [{"kind": "ServiceAccount", "name": app, "namespace": NAMESPACE}]
        k8s.rbac.v1.ClusterRoleBinding(
            f"{name}-reader-binding",
            metadata=cluster_meta,
            role_ref=role_ref,
            subjects=subjects,
            opts=pulumi.ResourceOptions.merge(inside, pulumi.ResourceOptions(depends_on=[role, account])),
        )
        config: pulumi.Input[str] = json.dumps(exporter_config(args), indent=2, sort_keys=True)
        if args.alicloud is not None:
            config = pulumi.Output.all(args.alicloud.role_arn, args.alicloud.oidc_provider_arn).apply(
                lambda arns: json.dumps(
                    exporter_config(args, (str(arns[0]), str(arns[1]))), indent=2, sort_keys=True
                )
            )
        files: dict[str, pulumi.Input[str]] = {}
        for part in PARTS.values():
            files |= part.config_data(args) if hasattr(part, "config_data") else {}
        config_map = k8s.core.v1.ConfigMap(
            f"{name}-config",
            metadata=meta,
            data={SCRIPT_KEY: script_text(), CONFIG_KEY: config, **files},
            opts=inside,
        )
        secret = k8s.core.v1.Secret(
            f"{name}-client",
            metadata={"name": f"{app}-client", "namespace": NAMESPACE, "labels": labels},
            type="kubernetes.io/tls",
            string_data={"tls.crt": args.client_certificate, "tls.key": args.client_key},
            opts=inside,
        )
        deployment: Any = _deployment_spec(args, app, selector, labels)
        k8s.apps.v1.Deployment(
            f"{name}-deployment",
            metadata=meta,
            spec=deployment,
            opts=pulumi.ResourceOptions.merge(
                inside, pulumi.ResourceOptions(depends_on=[account, config_map, secret])
            ),
        )
        policy: Any = {
            "podSelector": {"matchLabels": selector},
            "policyTypes": ["Ingress", "Egress"],
            "ingress": [],
            "egress": [{"ports": [{"protocol": proto, "port": port} for proto, port in EGRESS_PORTS]}],
        }
        k8s.networking.v1.NetworkPolicy(f"{name}-egress", metadata=meta, spec=policy, opts=inside)
        self.register_outputs({"namespace": self.namespace, "name": self.name})


def _deployment_spec(
    args: SignalExporterArgs, app: str, selector: Mapping[str, str], labels: Mapping[str, str]
) -> dict[str, Any]:
    interval = args.interval_seconds
    mounts: list[dict[str, Any]] = [
        {"name": "config", "mountPath": CONFIG_DIR, "readOnly": True},
        {"name": "client", "mountPath": CLIENT_DIR, "readOnly": True},
        {"name": "api-token", "mountPath": TOKEN_DIR, "readOnly": True},
        {"name": "tmp", "mountPath": "/tmp"},
    ]
    if args.alicloud is not None:
        mounts.insert(3, {"name": "alicloud-token", "mountPath": ALICLOUD_TOKEN_DIR, "readOnly": True})
    # Each cloud's variables first (AWS: where its SDK finds the config file).
    cloud_env = [
        variable for part in PARTS.values() if hasattr(part, "env") for variable in part.env(CONFIG_DIR)
    ]
    container = {
        "name": "exporter",
        "image": args.image,
        "imagePullPolicy": "Always",
        "command": ["python3", f"{CONFIG_DIR}/{SCRIPT_KEY}", "--config", f"{CONFIG_DIR}/{CONFIG_KEY}"],
        "env": [
            *cloud_env,
            {"name": "HOME", "value": "/tmp"},
            {"name": "PYTHONDONTWRITEBYTECODE", "value": "1"},
        ],
        "resources": {
            "requests": {"cpu": "50m", "memory": "64Mi"},
            "limits": {"cpu": "250m", "memory": "256Mi"},
        },
        "livenessProbe": probe(interval, initial=interval + 30),
        "readinessProbe": probe(interval, initial=10),
        "securityContext": {
            "privileged": False,
            "allowPrivilegeEscalation": False,
            "readOnlyRootFilesystem": True,
            "runAsNonRoot": True,
            "runAsUser": USER_ID,
            "runAsGroup": USER_ID,
            "capabilities": {"drop": ["ALL"]},
            "seccompProfile": {"type": "RuntimeDefault"},
        },
        "volumeMounts": mounts,
    }
    volumes = [
        {"name": "config", "configMap": {"name": app, "defaultMode": 0o444}},
        {"name": "client", "secret": {"secretName": f"{app}-client", "defaultMode": 0o440}},
        {
            "name": "api-token",
            "projected": {
                "defaultMode": 0o444,
                "sources": [
                    {"serviceAccountToken": {"path": "token", "expirationSeconds": TOKEN_SECONDS}},
                    {
                        "configMap": {
                            "name": "kube-root-ca.crt",
                            "items": [{"key": "ca.crt", "path": "ca.crt"}],
                        }
                    },
                ],
            },
        },
        {"name": "tmp", "emptyDir": {"medium": "Memory", "sizeLimit": "16Mi"}},
    ]
    if args.alicloud is not None:
        token = {"path": "token", "audience": args.alicloud.client_id, "expirationSeconds": TOKEN_SECONDS}
        volumes.insert(
            3,
            {
                "name": "alicloud-token",
                "projected": {"defaultMode": 0o444, "sources": [{"serviceAccountToken": token}]},
            },
        )
    return {
        "replicas": 1,
        "strategy": {"type": "Recreate"},
        "selector": {"matchLabels": dict(selector)},
        "template": {
            "metadata": {"labels": dict(labels)},
            "spec": {
                "serviceAccountName": app,
                "automountServiceAccountToken": False,
                "securityContext": {
                    "runAsNonRoot": True,
                    "runAsUser": USER_ID,
                    "runAsGroup": USER_ID,
                    "fsGroup": USER_ID,
                    "seccompProfile": {"type": "RuntimeDefault"},
                },
                "containers": [container],
                "volumes": volumes,
            },
        },
    }


__all__ = [
    "TYPE",
    "AlicloudGatedPool",
    "AlicloudPublishing",
    "AlicloudSignalSite",
    "SignalExporter",
    "SignalExporterArgs",
    "SignalSite",
    "cost_labels",
    "exporter_config",
]

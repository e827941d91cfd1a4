"""Burst nodes that join the on-prem cluster: what a joined pool is told, and its boot script.

With ``onprem.scheduler`` every pool on a site that has a Kueue flavor (:func:`plan_joins`) is a
*joined* pool: its instances run ``kubeadm join`` to ``onprem.scheduler.api_server`` over the site's
private link, with the kubelet's ``--node-labels`` and ``--register-with-taints`` equal to the site's
flavor (:mod:`gpufleet.components.baseline.kueue`) and ``--provider-id`` in the form the cloud's
cluster-autoscaler provider parses (:data:`PROVIDER_IDS`). cluster-autoscaler alone sizes a joined
pool's groups: they carry ``gpufleet:scaler = cluster-autoscaler`` and no scaling policy or alarm
(GF-COST-006 holds them to it); every other group carries ``gpufleet:scaler = alarms``.

The bootstrap token and the CA certificate hash are never in the user data, the program or the
state: each joined pool has a secret in its cloud's secret store (:func:`secret_name`), which the
operator fills with the output of ``kubeadm token create --print-join-command`` (docs/hybrid.md); the
pool's instance role may read that secret only, and the boot script reads it with the instance's own
role (:func:`render_join`; each cloud's read is in ``pools/<cloud>_join.py``).

The node image must carry kubeadm, kubelet and containerd of the cluster's version (kubelet no newer
than the API server, at most three minor versions older), the NVIDIA driver and container toolkit, and
the cloud's CLI the secret is read with: the sites have no route to the internet (``egress: none``), so
nothing is installed at boot. The script checks for each tool and stops, saying which is missing.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from gpufleet.components.clouds import cloud_parts

if TYPE_CHECKING:
    from gpufleet.components.spec import FleetSpec

SCALER_TAG = "gpufleet:scaler"
CLUSTER_AUTOSCALER = "cluster-autoscaler"
ALARMS = "alarms"
JOIN_CONFIG = "/run/gpufleet/kubeadm-join.yaml"
JOIN_LOG_PREFIX = "gpufleet-join"
# kubeadm's JoinConfiguration (kubeadm.k8s.io/v1beta4, kubeadm 1.31+: kubeletExtraArgs is a list of
# name/value pairs; https://kubernetes.io/docs/reference/config-api/kubeadm-config.v1beta4/).
KUBEADM_API = "kubeadm.k8s.io/v1beta4"
REQUIRED_TOOLS = ("kubeadm", "kubelet", "containerd", "nvidia-smi")
# A bootstrap token is [a-z0-9]{6}.[a-z0-9]{16}; the discovery hash is sha256:<64 hex>
# (https://kubernetes.io/docs/reference/access-authn-authz/bootstrap-tokens/).
TOKEN_RE = r"[a-z0-9]{6}\.[a-z0-9]{16}"
HASH_RE = r"sha256:[a-f0-9]{64}"
# The form each cloud's cluster-autoscaler provider reads a node's spec.providerID in
# (kubernetes/autoscaler, cluster-autoscaler/cloudprovider/...), from each cloud's facts module
# (components/pools/facts/<cloud>.py, which cites the provider's source).
PROVIDER_IDS: Mapping[str, str] = {
    cloud: part.PROVIDER_ID for cloud, part in cloud_parts("gpufleet.components.pools.facts").items()
}
# Secret names every store takes: AWS Secrets Manager (512, letters digits /_+=.@-), Alibaba KMS (192,
# letters digits _/+=.@-), Tencent SSM (128, letters digits _-).
_SECRET_NAME_RE = re.compile(r"^[a-zA-Z0-9][a-zA-Z0-9_-]{0,122}$")


@dataclass(frozen=True, kw_only=True)
class PoolJoin:
    """How one pool's nodes join: the cluster (the fleet's name, the autoscaler's discovery tag), the
    API server's ``address:port``, the site's flavor (its node labels and taint) and the GPUs one
    instance brings (the scale-from-zero node template)."""

    cluster: str
    api_server: str
    site: str
    flavor: str
    node_labels: Mapping[str, str]
    taint: Mapping[str, str]
    gpus_per_instance: int

    def __post_init__(self) -> None:
        problems = []
        if not re.match(r"^\d{1,3}(\.\d{1,3}){3}:\d{1,5}$", self.api_server):
            problems.append(f"api_server: {self.api_server!r} is not address:port")
        if set(self.taint) != {"key", "value", "effect"}:
            problems.append("taint: needs key, value and effect")
        if not self.node_labels:
            problems.append("node_labels: the flavor's labels are needed")
        if self.gpus_per_instance < 1:
            problems.append(f"gpus_per_instance: {self.gpus_per_instance} (a GPU pool has at least one)")
        if problems:
            raise ValueError("PoolJoin: " + "; ".join(problems))

    @property
    def cloud(self) -> str:
        return self.site.partition(":")[0]

    @property
    def labels_flag(self) -> str:
        """``--node-labels``' value: exactly the flavor's labels."""
        return ",".join(f"{k}={v}" for k, v in sorted(self.node_labels.items()))

    @property
    def taint_flag(self) -> str:
        """``--register-with-taints``' value: exactly the flavor's taint."""
        return f"{self.taint['key']}={self.taint['value']}:{self.taint['effect']}"


def scaler_tags(join: PoolJoin | None) -> dict[str, str]:
    """``gpufleet:scaler``: who sizes the group (one scaler per group)."""
    return {SCALER_TAG: CLUSTER_AUTOSCALER if join is not None else ALARMS}


def secret_name(base: str, pool: str) -> str:
    """The join secret's name, ``<base>-join`` (``base``: the pool component's name): letters, digits,
    '-' and '_' (every store takes these), at most 128 characters."""
    name = f"{base}-join"
    if not _SECRET_NAME_RE.match(name):
        raise ValueError(
            f"pools.{pool}: the join secret's name {name!r} must be letters, digits, '-' or '_' and at "
            "most 128 characters: shorten the pool's name"
        )
    return name


def plan_joins(
    spec: FleetSpec, provider_regions: Mapping[str, str | None] | None, cluster: str
) -> dict[str, PoolJoin]:
    """Each joined pool by name: every pool of a burst site's Kueue flavor, when the spec has
    ``onprem.scheduler`` (nothing otherwise). ``cluster``: the fleet's name, which the autoscalers'
    discovery tags name. Raises ValueError as :func:`plan_flavors` does."""
    onprem = spec.onprem
    if onprem is None or onprem.scheduler is None:
        return {}
    from gpufleet.components.baseline.kueue import plan_flavors
    from gpufleet.components.catalog import load_catalog

    catalog = load_catalog()
    joins: dict[str, PoolJoin] = {}
    for flavor in plan_flavors(spec, provider_regions)[1:]:
        if flavor.taint is None:  # every cloud flavor has one (plan_flavors)
            raise AssertionError(flavor.name)
        cloud = flavor.site.partition(":")[0]
        for pool in flavor.pools:
            found = [catalog.find(cloud, t) for t in spec.pools[pool].instance_types]
            joins[pool] = PoolJoin(
                cluster=cluster,
                api_server=onprem.scheduler.api_server,
                site=flavor.site,
                flavor=flavor.name,
                node_labels=dict(flavor.node_labels),
                taint=dict(flavor.taint),
                # The smallest type's: a template never promises GPUs a scale-up may not bring.
                gpus_per_instance=min(t.gpu_count for t in found if t is not None),
            )
    return joins


def render_join(join: PoolJoin, *, identity: str, read_secret: str, secret: str, preamble: str = "") -> str:
    """The boot script of a joined node (plain text). ``identity`` sets ``ZONE``, ``REGION`` and
    ``INSTANCE`` from the instance's metadata; ``read_secret`` prints the secret's value (the join
    command) with the instance's role. Any failing step stops the boot with its reason in the log:
    a node that cannot join must not pretend to be capacity. ``preamble`` runs first (Tencent: lock
    the password logins CVM sets)."""
    form = PROVIDER_IDS[join.cloud].format(zone="$ZONE", instance="$INSTANCE", region="$REGION")
    tools = " ".join(REQUIRED_TOOLS)
    labels, taint = shlex.quote(join.labels_flag), shlex.quote(join.taint_flag)
    return (
        "#!/bin/bash\n"
        f"# gpufleet: join the on-prem cluster at {join.api_server} as a node of flavor {join.flavor}.\n"
        "set -euo pipefail\n"
        "umask 077\n"
        f"{preamble}"
        f'log() {{ echo "{JOIN_LOG_PREFIX}: $*" >&2; }}\n'
        f"for tool in {tools}; do\n"
        '  command -v "$tool" >/dev/null 2>&1 \\\n'
        '    || { log "$tool is not in the image (docs/hybrid.md)"; exit 1; }\n'
        "done\n"
        f"{identity}"
        f'PROVIDER_ID="{form}"\n'
        f'JOIN=$({read_secret}) || {{ log "cannot read the join secret {secret}"; exit 1; }}\n'
        f"TOKEN=$(printf '%s\\n' \"$JOIN\" | grep -oE -- '--token {TOKEN_RE}' | cut -d' ' -f2 || true)\n"
        "HASH=$(printf '%s\\n' \"$JOIN\" | grep -oE -- "
        f"'--discovery-token-ca-cert-hash {HASH_RE}' | cut -d' ' -f2 || true)\n"
        "unset JOIN\n"
        'if [ -z "$TOKEN" ] || [ -z "$HASH" ]; then\n'
        f'  log "the join secret {secret} holds no join command: put the output of '
        'kubeadm token create --print-join-command in it (docs/hybrid.md)"\n'
        "  exit 1\n"
        "fi\n"
        f"mkdir -p {JOIN_CONFIG.rsplit('/', 1)[0]}\n"
        f"cat > {JOIN_CONFIG} <<JOIN_CONFIG\n"
        f"apiVersion: {KUBEADM_API}\n"
        "kind: JoinConfiguration\n"
        "discovery:\n"
        "  bootstrapToken:\n"
        f"    apiServerEndpoint: {join.api_server}\n"
        '    token: "$TOKEN"\n'
        '    caCertHashes: ["$HASH"]\n'
        "nodeRegistration:\n"
        "  taints:\n"
        f"    - {{key: {join.taint['key']}, value: {join.taint['value']}, effect: {join.taint['effect']}}}\n"
        "  kubeletExtraArgs:\n"
        f"    - {{name: node-labels, value: {labels}}}\n"
        f"    - {{name: register-with-taints, value: {taint}}}\n"
        '    - {name: provider-id, value: "$PROVIDER_ID"}\n'
        "JOIN_CONFIG\n"
        "unset TOKEN HASH\n"
        f"status=0; kubeadm join --config {JOIN_CONFIG} || status=$?\n"
        f"shred -u {JOIN_CONFIG} 2>/dev/null || rm -f {JOIN_CONFIG}\n"
        'if [ "$status" -ne 0 ]; then log "kubeadm join failed ($status)"; exit "$status"; fi\n'
        'log "joined as $PROVIDER_ID"\n'
    )

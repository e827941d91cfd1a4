"""``onprem.scheduler``: the on-prem cluster schedules the burst (Kueue, cluster-autoscaler, KEDA).

With the section the baseline builds, on the on-prem cluster (:mod:`gpufleet.components.baseline.scheduling`):
Kueue (its controller from a pinned Helm chart), one ``ResourceFlavor`` per site in burst order (the
on-prem GPU nodes first), one ``ClusterQueue`` whose flavors follow that order with each site's capacity
as quota, a ``LocalQueue`` per GPU namespace, one cluster-autoscaler per cloud that has pools, and, for
serving, KEDA ``ScaledObject``s on DCGM GPU utilisation. Without it nothing of this is built.

    onprem:
      scheduler:
        autoscaler_image: registry.k8s.io/autoscaling/cluster-autoscaler:v1.33.0@sha256:<digest>
        cpus_per_node: 128            # default: the hardware.server's (dgx_a100 128, dgx_h100 112)
        memory_gib_per_node: 1024     # default: likewise (dgx_a100 1024, dgx_h100 2048)
        api_server: 192.168.16.10:6443   # where burst nodes' kubeadm join dials, over the private link
        control_plane_cidrs: [192.168.16.10/32]   # who calls the kubelets (10250); default: the API server
        serving:
          - {deployment: llm-server, namespace: inference}

Every burst pool on a site with a flavor joins the cluster at boot (docs/hybrid.md, "How a burst node
joins"): ``api_server`` is the address it joins, inside ``onprem.node_cidrs`` (checked with the other
on-prem ranges in :mod:`gpufleet.components.spec.reach`).
"""

from __future__ import annotations

import ipaddress
import re
from typing import TYPE_CHECKING, Literal

from pydantic import Field, field_validator

from gpufleet.components.spec.keyed import keyed_model
from gpufleet.components.spec.values import Duration, Ipv4Net, _Model, _show, duration_seconds

KUEUE_CHART_VERSION = "0.13.0"  # the CRDs GF-DEPLOY-002 validates against (policies/deploy/kubernetes.json)
# The owned servers' host shape, for the on-prem flavor's cpu and memory quota: NVIDIA's DGX A100
# (2x AMD EPYC 7742, 128 cores, 1 TB) and DGX H100 (2x Xeon Platinum 8480C, 112 cores, 2 TB) datasheets.
SERVER_SHAPES: dict[str, tuple[int, int]] = {"dgx_a100": (128, 1024), "dgx_h100": (112, 2048)}
_PINNED = re.compile(
    r"^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:\d{1,5})?(/[a-z0-9]+([._-][a-z0-9]+)*)+"
    r"(:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?@sha256:[0-9a-f]{64}$"
)
_NAME = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
_SEMVER = re.compile(r"^\d+\.\d+\.\d+$")
_HOST_PORT = re.compile(r"^(\d{1,3}(?:\.\d{1,3}){3}):(\d{1,5})$")
_URL = re.compile(r"^https?://[A-Za-z0-9.-]+(:\d{1,5})?(/[A-Za-z0-9._~/-]*)?$")


def _name(value: str, what: str) -> str:
    if not _NAME.match(value):
        raise ValueError(
            f"{what} must be a Kubernetes name (lower-case letters, digits, '-'), got {_show(value)}"
        )
    return value


class Serving(_Model):
    """A serving Deployment KEDA scales on its pods' DCGM GPU utilisation (Prometheus)."""

    deployment: str
    namespace: str
    utilisation: int = Field(default=70, ge=1, le=100, description="average GPU utilisation, percent")
    window: Duration = Field(default="5m", description="the utilisation is averaged over this window")
    min_replicas: int = Field(default=1, ge=0, le=1000)
    max_replicas: int = Field(default=8, ge=1, le=1000)

    @field_validator("deployment", "namespace")
    @classmethod
    def _names(cls, value: str) -> str:
        return _name(value, "deployment and namespace")


class _Credentials(_Model):
    """Kubernetes Secrets (in ``kube-system``, made by the operator) holding the Alibaba RAM and Tencent
    CAM keys the autoscalers read: the keys never go in the spec or the stack's state."""

    if TYPE_CHECKING:

        def __getattr__(self, cloud: str) -> str: ...

    @field_validator("*")
    @classmethod
    def _names(cls, value: str) -> str:
        return _name(value, "a Secret's name")


# One field per cloud whose spec module has an AUTOSCALER_SECRET field (spec/alicloud.py, ...).
if TYPE_CHECKING:
    Credentials = _Credentials
else:
    Credentials = keyed_model("Credentials", _Credentials, "AUTOSCALER_SECRET")


class Scheduler(_Model):
    engine: Literal["kueue"] = "kueue"
    kueue_chart_version: str = Field(default=KUEUE_CHART_VERSION, description="Kueue's Helm chart, pinned")
    autoscaler_image: str = Field(description="cluster-autoscaler's image, pinned by @sha256: digest")
    cpus_per_node: int | None = Field(default=None, ge=1, le=1024)
    memory_gib_per_node: int | None = Field(default=None, ge=1, le=65536)
    expander: Literal["least-waste", "priority", "random", "most-pods"] = "least-waste"
    prometheus: str = Field(
        default="http://prometheus-operated.monitoring.svc:9090",
        description="the Prometheus KEDA queries for DCGM utilisation",
    )
    serving: list[Serving] = Field(default_factory=list, max_length=64)
    credentials: Credentials = Credentials()
    api_server: str = Field(
        description=(
            "the on-prem API server burst nodes join, IPv4:port inside onprem.node_cidrs (the address "
            "kubeadm join dials over the private link), like 192.168.16.10:6443"
        )
    )
    control_plane_cidrs: list[Ipv4Net] = Field(
        default_factory=list,
        max_length=8,
        description=(
            "the on-prem ranges the API server calls kubelets from (TCP 10250, logs and exec), inside "
            "onprem.node_cidrs; none: the API server's address alone"
        ),
    )

    @field_validator("api_server")
    @classmethod
    def _api_server(cls, value: str) -> str:
        match = _HOST_PORT.match(value.strip()) if isinstance(value, str) else None
        port = int(match.group(2)) if match else 0
        try:
            ipaddress.IPv4Address(match.group(1) if match else "")
        except ValueError:
            match = None
        if match is None or not 1 <= port <= 65535:
            raise ValueError(
                f"must be the API server's IPv4 address and port like 192.168.16.10:6443, got "
                f"{_show(value)}: burst nodes dial it over the private link, which routes on-prem ranges only"
            )
        return value.strip()

    @property
    def api_server_address(self) -> ipaddress.IPv4Address:
        return ipaddress.IPv4Address(self.api_server.rpartition(":")[0])

    @property
    def api_server_port(self) -> int:
        return int(self.api_server.rpartition(":")[2])

    def control_plane(self) -> list[ipaddress.IPv4Network]:
        """Where the API server calls kubelets from: ``control_plane_cidrs``, else its own address."""
        if self.control_plane_cidrs:
            return list(self.control_plane_cidrs)
        return [ipaddress.IPv4Network(f"{self.api_server_address}/32")]

    @field_validator("autoscaler_image")
    @classmethod
    def _pinned(cls, value: str) -> str:
        if len(value) > 512 or not _PINNED.match(value):
            raise ValueError(
                f"must be an image pinned by digest (name:tag@sha256:<64 hex>), got {_show(value)}"
            )
        return value

    @field_validator("kueue_chart_version")
    @classmethod
    def _version(cls, value: str) -> str:
        if not _SEMVER.match(value):
            raise ValueError(f"must be a chart version like 0.13.0, got {_show(value)}")
        return value

    @field_validator("prometheus")
    @classmethod
    def _url(cls, value: str) -> str:
        if not _URL.match(value):
            raise ValueError(f"must be an http(s) URL, got {_show(value)}")
        return value


def window_seconds(serving: Serving) -> int:
    return duration_seconds(serving.window)

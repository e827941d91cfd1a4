"""``onprem``: the on-prem Kubernetes baseline the fleet owns and always fills first.

The section names the cluster (a kubeconfig context, or the stack config key of a secret kubeconfig),
its node, pod and service ranges (checked against every site's VPC range by the address plan), the GPU
nodes (by name or label selector, with their GPU model and count), the namespaces that run GPU work with
their GPU quotas, the job queue that scales the workers (KEDA), the PriorityClass values that rank
baseline work above burst work, the pinned images of the NVIDIA device plugin and DCGM exporter, and
the owned hardware the cost model amortises. :class:`gpufleet.components.baseline.kubernetes.OnPremBaseline`
builds it.

The field checks the models use are in :mod:`gpufleet.components.spec.onprem_checks`.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import AfterValidator, BeforeValidator, Field, field_validator, model_validator

from gpufleet.components import spec_limits as limits
from gpufleet.components.clouds import cloud_parts, part_values, profile
from gpufleet.components.spec.addresses import OwnedRange, overlaps
from gpufleet.components.spec.onprem_checks import (
    _CONTEXT_RE,
    _HOST_PORT_RE,
    _IMAGE_FORM,
    _LABEL_KEY_RE,
    _LABEL_VALUE_RE,
    _PINNED_IMAGE_RE,
    _QUEUE_NAME_RE,
    _SUBDOMAIN_MAX,
    _SUBDOMAIN_RE,
    MAX_GPU_NODES,
    MAX_GPUS_PER_NODE,
    MAX_LABELS,
    MAX_NAMESPACES,
    MAX_PRIORITY,
    MAX_REPLICAS,
    RESERVED_NAMESPACES,
    Ranges,
    _checked_name,
    _config_key,
    _exactly_one_of,
    _name_problem,
    _one_or_many,
    _raise_first,
    gpu_models,
    purchase_models,
)
from gpufleet.components.spec.reach import Endpoint, data_ranges, reach_problems
from gpufleet.components.spec.scheduler import Scheduler
from gpufleet.components.spec.values import Duration, Ipv4Net, _Model, _show, duration_seconds

# Published multi-arch digests (see docs/hybrid.md for where each was read). An image given by tag alone
# can change under the fleet; one given by digest cannot.
DEVICE_PLUGIN_IMAGE = (
    "nvcr.io/nvidia/k8s-device-plugin:v0.17.0"
    "@sha256:7089559ce6153018806857f5049085bae15b3bf6f1c8bd19d8b12f707d087dea"
)
DCGM_EXPORTER_IMAGE = (
    "nvcr.io/nvidia/k8s/dcgm-exporter:3.3.7-3.5.0-ubuntu22.04"
    "@sha256:98781424e83e14e8855aa6881e5ca8e68c81fdc75c82dd1bb3fe924349aee9d4"
)


class ClusterAccess(_Model):
    """How Pulumi reaches the on-prem cluster: exactly one of the two."""

    kubeconfig_context: str | None = Field(
        default=None, description="a context of the operator's kubeconfig (~/.kube/config or KUBECONFIG)"
    )
    kubeconfig_secret: str | None = Field(
        default=None,
        description=(
            "the stack config key holding the whole kubeconfig as a secret "
            "(pulumi config set --secret gpufleet:onpremKubeconfig ...)"
        ),
    )

    @field_validator("kubeconfig_context")
    @classmethod
    def _context(cls, value: str | None) -> str | None:
        if value is not None and not _CONTEXT_RE.match(value):
            raise ValueError(
                f"must be a kubeconfig context name (1 to 253 printable characters), got {_show(value)}"
            )
        return value

    @field_validator("kubeconfig_secret")
    @classmethod
    def _secret_key(cls, value: str | None) -> str | None:
        return _config_key(value, "gpufleet:onpremKubeconfig", "the kubeconfig itself never goes in the spec")

    @model_validator(mode="after")
    def _exactly_one(self) -> ClusterAccess:
        _exactly_one_of(
            self,
            kubeconfig_context="a context of the operator's kubeconfig",
            kubeconfig_secret="the stack config key of a secret kubeconfig",
        )
        return self

    @property
    def config_key(self) -> str | None:
        """The full config key of the secret kubeconfig (``gpufleet:`` when written bare)."""
        if self.kubeconfig_secret is None:
            return None
        return (
            self.kubeconfig_secret if ":" in self.kubeconfig_secret else f"gpufleet:{self.kubeconfig_secret}"
        )


class GpuNodes(_Model):
    """The cluster's GPU nodes: named (the baseline taints and labels each) or picked by labels."""

    names: list[str] | None = Field(default=None, description="the GPU nodes by name")
    selector: dict[str, str] | None = Field(
        default=None, description="labels every GPU node carries (when nodes are not named)"
    )
    count: int | None = Field(
        default=None, ge=1, le=MAX_GPU_NODES, description="how many GPU nodes (default: the names given)"
    )
    gpus_per_node: int = Field(ge=1, le=MAX_GPUS_PER_NODE)
    gpu_model: str = Field(description="the GPU class of the catalogue (A100, H100, L40S...)")

    @field_validator("names")
    @classmethod
    def _node_names(cls, value: list[str] | None) -> list[str] | None:
        if value is None:
            return None
        if not value:
            raise ValueError("must list at least one node; or give a selector instead")
        if len(value) > MAX_GPU_NODES:
            raise ValueError(f"must list at most {MAX_GPU_NODES} nodes, got {len(value)}")
        for name in value:
            problem = _name_problem(name, "node names", _SUBDOMAIN_RE, _SUBDOMAIN_MAX)
            if problem:
                raise ValueError(problem)
        if len(set(value)) != len(value):
            raise ValueError("must not name a node twice")
        return value

    @field_validator("selector")
    @classmethod
    def _labels(cls, value: dict[str, str] | None) -> dict[str, str] | None:
        if value is None:
            return None
        if not value:
            raise ValueError("must hold at least one label; an empty selector would pick every node")
        if len(value) > MAX_LABELS:
            raise ValueError(f"must hold at most {MAX_LABELS} labels, got {len(value)}")
        for key, label in value.items():
            if len(key) > _SUBDOMAIN_MAX + 64 or not _LABEL_KEY_RE.match(key):
                raise ValueError(f"label key {_show(key)} is not a Kubernetes label key")
            if not _LABEL_VALUE_RE.match(label):
                raise ValueError(f"label {limits.quote(key, 60)} has value {_show(label)}, not a label value")
        return value

    @field_validator("gpu_model")
    @classmethod
    def _known_model(cls, value: str) -> str:
        known = gpu_models()
        if value not in known:
            raise ValueError(f"must be one of {', '.join(known)}, got {_show(value)}")
        return value

    @model_validator(mode="after")
    def _names_or_selector(self) -> GpuNodes:
        if (self.names is None) == (self.selector is None):
            raise ValueError("give exactly one of names (the GPU nodes by name) or selector (their labels)")
        if self.names is None and self.count is None:
            raise ValueError("count is required with a selector: how many nodes it picks")
        if self.names is not None and self.count is not None and self.count != len(self.names):
            raise ValueError(f"count must equal the {len(self.names)} names given, got {self.count}")
        return self

    @property
    def node_count(self) -> int:
        return self.count if self.count is not None else len(self.names or ())


class GpuNamespace(_Model):
    """A namespace that runs GPU work, and the GPUs its pods may request and limit in total."""

    gpus: int = Field(ge=0, le=MAX_GPU_NODES * MAX_GPUS_PER_NODE, description="GPU quota of the namespace")


# The queues KEDA may read: each cloud's queue service (``spec/<cloud>.py``: SQS, the default), then Redis
# and RabbitMQ. Type checkers see a string, pydantic (and the schema) the Literal of them.
_PARTS = cloud_parts("gpufleet.components.spec")
_CLOUD_SOURCES: tuple[str, ...] = tuple(part_values(_PARTS, "KEDA_QUEUE_SOURCE").values())
# Each cloud source's queue form (``KEDA_QUEUE_RE``, with a ``region`` group, and ``KEDA_QUEUE_FORM``).
_SOURCE_PARTS = {
    part.KEDA_QUEUE_SOURCE: part for part in _PARTS.values() if hasattr(part, "KEDA_QUEUE_SOURCE")
}
QUEUE_SOURCES: tuple[str, ...] = (*_CLOUD_SOURCES, "redis", "rabbitmq")
if TYPE_CHECKING:
    QueueSource = str
else:
    QueueSource = Literal[QUEUE_SOURCES]


class QueueScaler(_Model):
    """The KEDA ScaledObject that scales the job workers on the length of their queue."""

    deployment: str = Field(default="gpu-worker", description="the worker Deployment KEDA scales")
    namespace: str | None = Field(default=None, description="its namespace (default: the first one)")
    source: QueueSource = QUEUE_SOURCES[0]
    queue: str = Field(description="the queue: an SQS queue URL, a Redis list or a RabbitMQ queue name")
    host: str | None = Field(default=None, description="redis only: host:port of the Redis server")
    authentication: str | None = Field(
        default=None,
        description=(
            "the KEDA TriggerAuthentication holding the queue's credentials (required for rabbitmq, "
            "whose host URL carries them); none: KEDA's own identity"
        ),
    )
    queue_threshold: int = Field(default=10, ge=1, le=1_000_000, description="messages per worker")
    cooldown: Duration = "300s"
    polling_interval: Duration = "30s"
    min_replicas: int = Field(default=0, ge=0, le=MAX_REPLICAS)
    max_replicas: int = Field(default=10, ge=1, le=MAX_REPLICAS)

    @field_validator("deployment", "authentication")
    @classmethod
    def _object_name(cls, value: str | None) -> str | None:
        return value if value is None else _checked_name(value, "names", _SUBDOMAIN_RE, _SUBDOMAIN_MAX)

    @field_validator("namespace")
    @classmethod
    def _namespace_name(cls, value: str | None) -> str | None:
        return value if value is None else _checked_name(value, "namespace names")

    @field_validator("cooldown")
    @classmethod
    def _sane_cooldown(cls, value: str) -> str:
        problem = limits.cooldown_problem(duration_seconds(value), value)
        if problem:
            raise ValueError(problem)
        return value

    @field_validator("polling_interval")
    @classmethod
    def _seconds(cls, value: str) -> str:
        seconds = duration_seconds(value)
        if not 1 <= seconds <= 86_400:
            raise ValueError(f"must be between 1s and 24h, got {value}")
        return value

    @model_validator(mode="after")
    def _cross_fields(self) -> QueueScaler:
        found: list[tuple[str, str]] = []
        if self.max_replicas < self.min_replicas:
            found.append(
                ("max_replicas", f"must be >= min_replicas ({self.min_replicas}), got {self.max_replicas}")
            )
        part = _SOURCE_PARTS.get(self.source)
        if part is not None and not part.KEDA_QUEUE_RE.match(self.queue):
            found.append(("queue", f"must be {part.KEDA_QUEUE_FORM}, got {_show(self.queue)}"))
        if part is None and not _QUEUE_NAME_RE.match(self.queue):
            found.append(
                ("queue", f"must be a queue name (letters, digits, _ . : -), got {_show(self.queue)}")
            )
        if self.source == "redis" and (self.host is None or not _HOST_PORT_RE.match(self.host)):
            found.append(
                ("host", f"must be host:port of the Redis server with source redis, got {_show(self.host)}")
            )
        if self.source != "redis" and self.host is not None:
            found.append(("host", f"is for source redis only; source is {self.source}"))
        if self.source == "rabbitmq" and self.authentication is None:
            found.append(
                (
                    "authentication",
                    "is required with source rabbitmq: name the TriggerAuthentication that holds its "
                    "host URL",
                )
            )
        _raise_first(found)
        return self

    @property
    def region(self) -> str | None:
        """A cloud queue's region, read from its address (an SQS queue's URL); None for the others."""
        part = _SOURCE_PARTS.get(self.source)
        match = part.KEDA_QUEUE_RE.match(self.queue) if part is not None else None
        return match.group("region") if match else None


class Priorities(_Model):
    """PriorityClass values: baseline work outranks burst work, and burst work never preempts."""

    baseline: int = Field(default=100_000, ge=-MAX_PRIORITY, le=MAX_PRIORITY)
    burst: int = Field(default=1_000, ge=-MAX_PRIORITY, le=MAX_PRIORITY)
    burst_preemption: Literal["Never", "PreemptLowerPriority"] = Field(
        default="Never", description="whether burst pods may evict lower-priority pods to get scheduled"
    )

    @model_validator(mode="after")
    def _baseline_first(self) -> Priorities:
        if self.baseline <= self.burst:
            raise ValueError(f"baseline must be > burst ({self.burst}), got {self.baseline}")
        return self


class Images(_Model):
    """The cluster daemons the baseline runs, each pinned by digest."""

    device_plugin: str = DEVICE_PLUGIN_IMAGE
    dcgm_exporter: str = DCGM_EXPORTER_IMAGE

    @field_validator("device_plugin", "dcgm_exporter")
    @classmethod
    def _pinned(cls, value: str) -> str:
        if len(value) > 512 or not _PINNED_IMAGE_RE.match(value):
            raise ValueError(f"must be {_IMAGE_FORM}, got {_show(value)}")
        return value


class OwnedHardware(_Model):
    """The servers behind the GPU nodes, for the cost model: bought once, amortised monthly."""

    server: str = Field(description="a server model of the catalogue's purchases (dgx_a100, dgx_h100)")
    count: int | None = Field(default=None, ge=1, le=MAX_GPU_NODES, description="default: the GPU nodes")
    amortisation_months: int = Field(default=36, ge=1, le=120, description="the hardware's life, in months")
    # The whole cost of owning, beside the purchase: each unset field takes the catalogue's default
    # (components/catalog/gpus.yaml `ownership`, in its currency).
    power_kw: float | None = Field(default=None, gt=0, le=100, description="draw of one server, kW")
    price_per_kwh: float | None = Field(default=None, ge=0, le=10, description="electricity, per kWh")
    pue: float | None = Field(default=None, ge=1, le=5, description="power usage effectiveness of the room")
    hosting_per_server_month: float | None = Field(default=None, ge=0, le=1_000_000)
    maintenance_percent_per_year: float | None = Field(default=None, ge=0, le=100)
    staff_per_server_month: float | None = Field(default=None, ge=0, le=1_000_000)

    @field_validator("server")
    @classmethod
    def _known_server(cls, value: str) -> str:
        known = sorted(purchase_models())
        if value not in known:
            raise ValueError(f"must be one of {', '.join(known) or 'none'}, got {_show(value)}")
        return value


# The burst signal is published on the cloud whose pools a burst order gates (``spec/aws.py``): its
# trust anchor's form and the words the schema uses come from that cloud's module.
_SIGNAL_CLOUD = next(cloud for cloud, gated in part_values(_PARTS, "BURST_SIGNAL").items() if gated)
_SIGNAL_PART, _SIGNAL_NAME = _PARTS[_SIGNAL_CLOUD], profile(_SIGNAL_CLOUD).name
TRUST_ANCHOR_RE: re.Pattern[str] = _SIGNAL_PART.TRUST_ANCHOR_RE
TRUST_ANCHOR_FORM: str = _SIGNAL_PART.TRUST_ANCHOR_FORM
SIGNAL_INTERVAL_MAX_S = 60  # the gated alarms read the signal's Maximum over 60-second periods


def full_config_key(name: str) -> str:
    """A stack config key written bare (``onpremKubeconfig``) in the project's namespace, ``gpufleet:``."""
    return name if ":" in name else f"gpufleet:{name}"


class Signal(_Model):
    """The burst signal's exporter: it runs on the on-prem cluster, reads the baseline's free GPUs and
    publishes ``gpufleet/Baseline`` ``FreeGpusAhead`` per AWS site under the ``BaselineSignal`` role,
    with IAM Roles Anywhere credentials from its client certificate (no access key exists)."""

    trust_anchor_arn: str | None = Field(
        default=None, description="an existing IAM Roles Anywhere trust anchor holding the on-prem CA"
    )
    ca_certificate: str | None = Field(
        default=None,
        description=(
            "the stack config key holding the on-prem CA's PEM bundle: the fleet builds the trust anchor "
            "(CERTIFICATE_BUNDLE) and a profile limited to the signal role"
        ),
    )
    client_certificate: str = Field(
        description="the secret stack config key holding the exporter's PEM client certificate"
    )
    client_key: str = Field(description="the secret stack config key holding the certificate's private key")
    client_cn: str = Field(
        description=(
            "the Common Name of the client certificate's subject: the signal role trusts a session from "
            f"the CA only when its certificate has this CN ({_SIGNAL_PART.SIGNAL_CN_TAG})"
        )
    )
    image: str = Field(
        description=f"the exporter image ({_SIGNAL_PART.SIGNAL_IMAGE_TOOLS}), pinned by @sha256: digest"
    )
    interval: Duration = "60s"

    @field_validator("trust_anchor_arn")
    @classmethod
    def _anchor(cls, value: str | None) -> str | None:
        if value is not None and not TRUST_ANCHOR_RE.match(value):
            raise ValueError(
                f"must be an IAM Roles Anywhere trust anchor ARN ({TRUST_ANCHOR_FORM}), got {_show(value)}"
            )
        return value

    @field_validator("ca_certificate", "client_certificate", "client_key")
    @classmethod
    def _config_key(cls, value: str | None) -> str | None:
        return _config_key(
            value,
            "gpufleet:signalClientKey",
            "set with pulumi config set --secret; certificates and keys never go in the spec",
        )

    @field_validator("client_cn")
    @classmethod
    def _common_name(cls, value: str) -> str:
        # X.509 caps a CN at 64 characters; StringEquals takes no wildcard, so "*" would match nothing.
        if not 1 <= len(value) <= 64 or not value.isprintable() or value != value.strip() or "*" in value:
            raise ValueError(
                f"must be the client certificate's subject CN (1 to 64 printable characters, no '*'), "
                f"got {_show(value)}"
            )
        return value

    @field_validator("image")
    @classmethod
    def _pinned(cls, value: str) -> str:
        if len(value) > 512 or not _PINNED_IMAGE_RE.match(value):
            raise ValueError(f"must be {_IMAGE_FORM}, got {_show(value)}")
        return value

    @field_validator("interval")
    @classmethod
    def _interval(cls, value: str) -> str:
        seconds = duration_seconds(value)
        if not 10 <= seconds <= SIGNAL_INTERVAL_MAX_S:
            raise ValueError(
                f"must be between 10s and {SIGNAL_INTERVAL_MAX_S}s (the gated alarms read one datapoint a "
                f"minute; a minute without one reads as nothing free ahead), got {value}"
            )
        return value

    @model_validator(mode="after")
    def _one_anchor(self) -> Signal:
        _exactly_one_of(
            self,
            trust_anchor_arn="an existing IAM Roles Anywhere trust anchor",
            ca_certificate="the config key of the CA bundle the fleet builds a trust anchor from",
        )
        return self

    @property
    def interval_seconds(self) -> int:
        return duration_seconds(self.interval)


class OnPrem(_Model):
    cluster: ClusterAccess
    node_cidrs: Ranges = Field(description="the ranges the on-prem nodes live in")
    pod_cidrs: Ranges = Field(description="the cluster's pod ranges")
    service_cidrs: Ranges = Field(description="the cluster's service ranges")
    gpu_nodes: GpuNodes
    namespaces: dict[str, GpuNamespace] = Field(
        min_length=1, description="the namespaces that run GPU work, with their GPU quotas"
    )
    queue_scaler: QueueScaler | None = None
    priorities: Priorities = Priorities()
    gpu_daemons: Literal["build", "existing"] = Field(
        default="build",
        description=(
            "build: the baseline runs the NVIDIA device plugin and DCGM exporter (pinned in images); "
            "existing: the cluster already runs them (the NVIDIA GPU Operator), so the baseline does not"
        ),
    )
    images: Images = Images()
    hardware: OwnedHardware | None = None
    metrics_scrapers: MetricsScrapers = Field(
        default_factory=lambda: MetricsScrapers(),  # noqa: PLW0108 (defined below: named when called)
        description="who may scrape the DCGM exporter's metrics port (every other connection is denied)",
    )
    # What burst nodes reach over the private links (components/spec/reach.py, docs/hybrid.md).
    data_cidrs: Annotated[list[Ipv4Net], BeforeValidator(_one_or_many), AfterValidator(data_ranges)] = Field(
        default_factory=list,
        description="on-prem data ranges burst nodes may read and write (NFS, object store, registry)",
    )
    reachable: list[Endpoint] | None = Field(
        default=None,
        min_length=1,
        description=(
            "the on-prem endpoints burst nodes may open (ranges, ports, protocol); none: TCP 443 on the "
            "node ranges and TCP 443 and 2049 on the data ranges"
        ),
    )

    @model_validator(mode="after")
    def _reach(self) -> OnPrem:
        _raise_first(reach_problems(self))
        return self

    signal: Signal | None = Field(
        default=None, description=f"the burst signal's exporter (needed by burst on {_SIGNAL_NAME})"
    )
    scheduler: Scheduler | None = Field(
        default=None,
        description=(
            "the cluster schedules the burst: Kueue flavors in burst order, one cluster-autoscaler per "
            "cloud, KEDA on DCGM utilisation for serving (docs/hybrid.md)"
        ),
    )

    @field_validator("namespaces")
    @classmethod
    def _namespace_names(cls, value: dict[str, GpuNamespace]) -> dict[str, GpuNamespace]:
        if len(value) > MAX_NAMESPACES:
            raise ValueError(f"must name at most {MAX_NAMESPACES} namespaces, got {len(value)}")
        for name in value:
            _checked_name(name, "namespace names")
            if name in RESERVED_NAMESPACES:
                raise ValueError(
                    f"{name} is Kubernetes' own namespace; GPU work needs a namespace of its own (not "
                    f"{', '.join(RESERVED_NAMESPACES)})"
                )
        return value

    @model_validator(mode="after")
    def _cross_fields(self) -> OnPrem:
        found: list[tuple[str, str]] = []
        scaler = self.queue_scaler
        if scaler is not None and scaler.namespace is not None and scaler.namespace not in self.namespaces:
            found.append(
                (
                    "queue_scaler.namespace",
                    f"must be one of the GPU namespaces ({', '.join(self.namespaces)}), "
                    f"got {_show(scaler.namespace)}",
                )
            )
        found += [
            (o.field_b.removeprefix("onprem."), o.swapped().message()) for o in overlaps(self.owned_ranges())
        ]
        _raise_first(found)
        return self

    def owned_ranges(self) -> list[OwnedRange]:
        """The on-prem ranges for the address plan, each with its owner and field."""
        return [
            OwnedRange(network, f"onprem {what}", f"onprem.{field}[{index}]")
            for field, what in (
                ("node_cidrs", "nodes"),
                ("pod_cidrs", "pods"),
                ("service_cidrs", "services"),
                ("data_cidrs", "data"),
            )
            for index, network in enumerate(getattr(self, field))
        ]

    @property
    def gpu_count(self) -> int:
        """GPUs the baseline owns: its GPU nodes times their GPUs."""
        return self.gpu_nodes.node_count * self.gpu_nodes.gpus_per_node

    @property
    def owned_servers(self) -> int:
        """Servers the cost model amortises: ``hardware.count``, else one per GPU node."""
        if self.hardware is not None and self.hardware.count is not None:
            return self.hardware.count
        return self.gpu_nodes.node_count

    @property
    def scaler_namespace(self) -> str:
        scaler = self.queue_scaler
        if scaler is not None and scaler.namespace is not None:
            return scaler.namespace
        return next(iter(self.namespaces))


class MetricsScrapers(_Model):
    """Who may reach the DCGM exporter's metrics port, the one port the baseline's daemons open (every other
    connection to them is denied by their NetworkPolicies): the pods of ``namespace``, only those carrying
    every label of ``pod_labels`` when it is given."""

    namespace: str = Field(default="monitoring", description="the namespace the metrics scraper runs in")
    pod_labels: dict[str, str] = Field(
        default_factory=dict,
        description="labels the scraper's pods carry (default: any pod of the namespace)",
    )

    @field_validator("namespace")
    @classmethod
    def _namespace_name(cls, value: str) -> str:
        return _checked_name(value, "namespace names")

    @field_validator("pod_labels")
    @classmethod
    def _label_selector(cls, value: dict[str, str]) -> dict[str, str]:
        if len(value) > MAX_LABELS:
            raise ValueError(f"must hold at most {MAX_LABELS} labels, got {len(value)}")
        for key, label in value.items():
            if len(key) > _SUBDOMAIN_MAX + 64 or not _LABEL_KEY_RE.match(key):
                raise ValueError(f"label key {_show(key)} is not a Kubernetes label key")
            if not _LABEL_VALUE_RE.match(label):
                raise ValueError(f"label {limits.quote(key, 60)} has value {_show(label)}, not a label value")
        return value


# OnPrem names MetricsScrapers before it is defined (kept last in the module): resolve it now.
OnPrem.model_rebuild()

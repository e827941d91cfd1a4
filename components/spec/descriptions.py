"""What each spec field means, for the fields whose model declares no `description=` of its own.

`gpufleet.schema` writes these into the stack file's JSON Schema (what an editor shows on hover), keyed
`<Model>.<field>` as the schema's `$defs` name the models. A field that has its own description keeps
it; a test fails when any property of the schema has none, or when an entry here names a field that
does not exist or describes itself.
"""

from __future__ import annotations

from collections.abc import Mapping

from gpufleet.components.clouds import ACCOUNT_CLOUD, CLOUD_NAMES, CLOUDS, cloud_parts, part_merged, profile

# The entries naming one cloud's own fields are that cloud's ``FIELD_DESCRIPTIONS`` (``spec/<cloud>.py``);
# the rest name the clouds through the registry: the home (the account's cloud, AWS) and the others.
_PARTS = cloud_parts("gpufleet.components.spec")
_HOME = profile(ACCOUNT_CLOUD)
_OTHERS = " and ".join(CLOUD_NAMES[cloud] for cloud in CLOUDS if cloud != ACCOUNT_CLOUD)
_KEYED = " and ".join(CLOUD_NAMES[cloud] for cloud in _PARTS if hasattr(_PARTS[cloud], "AUTOSCALER_KEY"))
_QUEUE_SOURCES = [*(part.KEDA_QUEUE_SOURCE for part in _PARTS.values() if hasattr(part, "KEDA_QUEUE_SOURCE"))]
_QUEUE_SOURCES += ["redis", "rabbitmq"]

FIELD_DESCRIPTIONS: Mapping[str, str] = {
    # FleetSpec: gpufleet:fleet
    "FleetSpec.environment": "dev, staging or prod: the env cost tag every resource carries",
    "FleetSpec.tags": (
        "cost tags on every resource: project, team and cost-center (env comes from environment)"
    ),
    "FleetSpec.budget": "the fleet's monthly budget and its alert; must hold the fleet's monthly estimate",
    "FleetSpec.storage": "the checkpoint bucket and the prefixes the instances read and write",
    "FleetSpec.access": "how people reach instances: Session Manager only, never SSH",
    "FleetSpec.audit": "the audit trail and how long its logs are kept",
    "FleetSpec.network": "the VPC of each site: its range, zones, existing subnets and route out",
    "FleetSpec.account": (
        f"where the account's once-only resources live ({_HOME.name}): this stack or the account stack"
    ),
    "FleetSpec.pools": "the GPU pools, keyed by name: each an autoscaling group on one cloud",
    "FleetSpec.onprem": "the on-prem Kubernetes baseline the cloud pools burst from; none: cloud only",
    # AccountBaselineSpec: gpufleet:account
    "AccountBaselineSpec.tags": (
        "cost tags on every resource of the account stack: project, team, cost-center"
    ),
    "AccountBaselineSpec.budget": "the account stack's monthly budget and its alert",
    "AccountBaselineSpec.audit": "the account's audit trail and how long its logs are kept",
    "AccountBaselineSpec.service_linked_roles": (
        "the Auto Scaling service-linked role: create (this stack makes it) or existing (the account has it)"
    ),
    # Budget, Storage, Access, Audit
    "Budget.currency": "the currency of monthly: USD or CNY",
    "Storage.checkpoints": "the checkpoint bucket: encryption, classification, lifecycle and replica",
    "Storage.data_prefix": "the bucket prefix instances may read datasets from",
    "Storage.checkpoint_prefix": "the bucket prefix instances may read and write checkpoints under",
    "BucketSpec.encryption": "sse-kms: a customer-managed KMS key; byok: key material you import",
    "BucketSpec.classification": (
        "the data's classification; restricted and confidential data get stricter rules"
    ),
    "Access.session_manager": "always true: instances are reached through Session Manager, never SSH",
    "Audit.trail": "build the account's audit trail (CloudTrail, ActionTrail, CloudAudit) in this stack",
    "Account.baseline": (
        "in-stack: this fleet creates the account's once-only resources; "
        "separate: the account-baseline stack does"
    ),
    # Network
    "Network.vpc_cidr": (
        f"the {_HOME.name} home region's VPC range ({_HOME.region_key}); {_OTHERS} home sites without "
        "an entry in regions get the first free /16 of 10.0.0.0/8"
    ),
    "Network.availability_zones": f"how many zones the {_HOME.name} home VPC spans (1-6)",
    "RegionNetwork.vpc_cidr": "the site's VPC range; must overlap no other site's or the on-prem ranges",
    "RegionNetwork.availability_zones": "how many zones the site's VPC spans (1-6)",
    # Pool
    "Pool.cloud": f"the cloud the pool runs on: {', '.join(CLOUDS[:-1])} or {CLOUDS[-1]}",
    "Pool.instance_types": "GPU instance types of the catalogue, in the order the pool prefers them",
    "Pool.size": "the pool's size range, in instances",
    "Pool.spot_percent": "percent of the capacity above on_demand_base that runs on spot",
    "Pool.on_demand_base": "instances that always run on demand, before any spot",
    "Pool.scaling": "when the pool scales out and in: GPU utilisation, queue depth and their windows",
    "Pool.off_hours": "a daily window (and weekends) with no capacity; none: always on",
    "Pool.usage": "how much the pool runs, for the monthly estimate",
    "Pool.disk_gib": "the root volume of each instance, GiB (20-16384)",
    "Pool.transfer": "data the pool moves a month that the cloud bills by the GiB, for the estimate",
    "Pool.queue": "the queue the pool takes work from and scales out on",
    "PoolWorkload.container": "the container the pool's instances run, with every GPU",
    "Size.min": "the fewest instances; 0 lets the pool sleep",
    "Size.max": "the most instances",
    "Scaling.out_for": (
        "how long utilisation or the queue must stay above its mark before scaling out, whole minutes"
    ),
    "Scaling.in_for": "how long utilisation must stay below gpu_util_in before scaling in, whole minutes",
    "Scaling.cooldown": "the least time between two scaling actions",
    "OffHours.timezone": "the IANA time zone the window is in, like America/New_York",
    "OffHours.weekends": "also no capacity on Saturday and Sunday",
    # On-prem
    "OnPrem.cluster": "how Pulumi reaches the on-prem cluster",
    "OnPrem.gpu_nodes": "the cluster's GPU nodes: which they are and how many GPUs each has",
    "OnPrem.queue_scaler": "the KEDA ScaledObject that scales the job workers on their queue",
    "OnPrem.priorities": "PriorityClass values of baseline and burst work",
    "OnPrem.images": "the cluster daemons the baseline runs, each pinned by digest",
    "OnPrem.hardware": "the servers behind the GPU nodes, for the cost model",
    "GpuNodes.gpus_per_node": "GPUs in each node (1-16)",
    "Images.device_plugin": "the NVIDIA device plugin image, pinned by @sha256: digest",
    "Images.dcgm_exporter": "the DCGM exporter image (GPU metrics), pinned by @sha256: digest",
    "OwnedHardware.hosting_per_server_month": (
        "rack space and networking of one server a month; none: the catalogue's"
    ),
    "OwnedHardware.maintenance_percent_per_year": (
        "support contract, percent of the price a year; none: the catalogue's"
    ),
    "OwnedHardware.staff_per_server_month": (
        "operations staff cost of one server a month; none: the catalogue's"
    ),
    "Priorities.baseline": "the priority of baseline work; must be above burst",
    "Priorities.burst": "the priority of burst work",
    "QueueScaler.source": f"the queue KEDA reads: {', '.join(_QUEUE_SOURCES[:-1])} or {_QUEUE_SOURCES[-1]}",
    "QueueScaler.cooldown": "how long after the queue was last active the workers scale back to min_replicas",
    "QueueScaler.polling_interval": "how often KEDA reads the queue",
    "QueueScaler.min_replicas": "the fewest workers",
    "QueueScaler.max_replicas": "the most workers",
    "Signal.interval": "how often the exporter publishes the burst signal",
    "Endpoint.protocol": "tcp or udp",
    "Link.kind": "vpn: an IPsec VPN to the on-prem gateway; dedicated: an existing private line",
    # Scheduler
    "Scheduler.engine": "the batch scheduler: kueue",
    "Scheduler.cpus_per_node": (
        "CPUs of an on-prem GPU node, for its Kueue flavor's quota; none: the hardware.server's"
    ),
    "Scheduler.memory_gib_per_node": (
        "memory of an on-prem GPU node in GiB, for its Kueue flavor's quota; none: the hardware.server's"
    ),
    "Scheduler.expander": "how cluster-autoscaler picks a node group to grow",
    "Scheduler.serving": "serving Deployments KEDA scales on their pods' GPU utilisation",
    "Scheduler.credentials": (f"the Kubernetes Secrets holding the autoscalers' {_KEYED} keys"),
    "Serving.deployment": "the serving Deployment KEDA scales",
    "Serving.namespace": "its namespace",
    "Serving.min_replicas": "the fewest replicas",
    "Serving.max_replicas": "the most replicas",
    **part_merged(_PARTS, "FIELD_DESCRIPTIONS"),
}

"""The spec's ``onprem`` section: what it accepts, its defaults, and every error naming field and values."""

from __future__ import annotations

import copy
import ipaddress
from typing import Any

import pytest

from gpufleet.components.spec import CONFIG_KEY, FleetSpec, SpecError, parse_fleet
from gpufleet.components.spec.onprem import DCGM_EXPORTER_IMAGE, DEVICE_PLUGIN_IMAGE
from gpufleet.components.spec.onprem_checks import gpu_models, purchase_models

SOURCE = "stacks/Pulumi.hybrid.yaml"
SQS = "https://sqs.us-east-1.amazonaws.com/123456789012/gpu-jobs"


def onprem() -> dict[str, Any]:
    return {
        "cluster": {"kubeconfig_context": "lab-admin"},
        "node_cidrs": ["192.168.16.0/20"],
        "pod_cidrs": ["10.244.0.0/16"],
        "service_cidrs": ["10.96.0.0/16"],
        "gpu_nodes": {"names": ["gpu-01", "gpu-02"], "gpus_per_node": 8, "gpu_model": "A100"},
        "namespaces": {"training": {"gpus": 12}, "inference": {"gpus": 4}},
        "queue_scaler": {"queue": SQS},
        "hardware": {"server": "dgx_a100"},
    }


def fleet(section: dict[str, Any] | None = None, **network: Any) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "environment": "prod",
        "tags": {"project": "vision", "team": "ml-platform", "cost-center": "cc-042"},
        "budget": {"monthly": 20000},
        "pools": {
            "burst": {
                "instance_types": ["p4d.24xlarge"],
                "size": {"max": 4},
                "workload": {"image_reads_queue": True},
            }
        },
        "onprem": onprem() if section is None else section,
    }
    if network:
        spec["network"] = network
    return spec


def errors_of(raw: dict[str, Any]) -> list[str]:
    with pytest.raises(SpecError) as raised:
        parse_fleet(raw, source=SOURCE)
    return str(raised.value).splitlines()


def changed(path: list[str], value: Any) -> dict[str, Any]:
    section = copy.deepcopy(onprem())
    node = section
    for key in path[:-1]:
        node = node.setdefault(key, {})
    if value is _DELETE:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return fleet(section)


_DELETE = object()


def test_a_full_section_parses_with_safe_defaults() -> None:
    spec = parse_fleet(fleet())
    section = spec.onprem
    assert section is not None
    assert section.cluster.kubeconfig_context == "lab-admin"
    assert section.cluster.config_key is None
    assert section.node_cidrs == [ipaddress.IPv4Network("192.168.16.0/20")]
    assert section.gpu_nodes.node_count == 2
    assert section.gpu_count == 16
    assert section.owned_servers == 2
    assert section.scaler_namespace == "training"
    scaler = section.queue_scaler
    assert scaler is not None
    assert (scaler.deployment, scaler.source, scaler.region) == ("gpu-worker", "aws-sqs-queue", "us-east-1")
    assert (scaler.queue_threshold, scaler.cooldown, scaler.polling_interval) == (10, "300s", "30s")
    assert (scaler.min_replicas, scaler.max_replicas) == (0, 10)
    assert (section.priorities.baseline, section.priorities.burst) == (100_000, 1_000)
    assert section.priorities.burst_preemption == "Never"
    assert section.gpu_daemons == "build"
    assert section.images.device_plugin == DEVICE_PLUGIN_IMAGE
    assert section.images.dcgm_exporter == DCGM_EXPORTER_IMAGE
    assert section.hardware is not None
    assert (section.hardware.server, section.hardware.count, section.hardware.amortisation_months) == (
        "dgx_a100",
        None,
        36,
    )


def test_defaults_pin_published_digests() -> None:
    assert DEVICE_PLUGIN_IMAGE.startswith("nvcr.io/nvidia/k8s-device-plugin:v0.17.0@sha256:")
    assert DCGM_EXPORTER_IMAGE.startswith("nvcr.io/nvidia/k8s/dcgm-exporter:3.3.7-3.5.0-ubuntu22.04@sha256:")
    for image in (DEVICE_PLUGIN_IMAGE, DCGM_EXPORTER_IMAGE):
        assert len(image.rsplit("@sha256:", 1)[1]) == 64


def test_no_onprem_section_is_a_cloud_only_fleet() -> None:
    raw = fleet()
    del raw["onprem"]
    assert parse_fleet(raw).onprem is None


def test_secret_kubeconfig_single_range_strings_and_a_selector() -> None:
    section = onprem()
    section["cluster"] = {"kubeconfig_secret": "onpremKubeconfig"}
    section["node_cidrs"] = "192.168.16.0/20"
    section["pod_cidrs"] = ["10.244.0.0/17", "10.244.128.0/17"]
    section["gpu_nodes"] = {"selector": {"gpu": "a100"}, "count": 3, "gpus_per_node": 4, "gpu_model": "A100"}
    spec = parse_fleet(fleet(section))
    assert spec.onprem is not None
    assert spec.onprem.cluster.config_key == "gpufleet:onpremKubeconfig"
    assert [str(n) for n in spec.onprem.pod_cidrs] == ["10.244.0.0/17", "10.244.128.0/17"]
    assert spec.onprem.gpu_count == 12


def test_queue_sources_other_than_sqs() -> None:
    section = onprem()
    section["queue_scaler"] = {
        "source": "redis",
        "queue": "jobs",
        "host": "redis.queue:6379",
        "namespace": "inference",
    }
    spec = parse_fleet(fleet(section))
    assert spec.onprem is not None
    assert spec.onprem.scaler_namespace == "inference"
    section["queue_scaler"] = {"source": "rabbitmq", "queue": "jobs", "authentication": "rabbit-auth"}
    assert parse_fleet(fleet(section)).onprem is not None


def test_the_catalogue_lists_what_the_section_accepts() -> None:
    assert {"dgx_a100", "dgx_h100"} <= set(purchase_models())
    assert {"A100", "H100", "L4", "T4"} <= set(gpu_models())


P = f"{SOURCE}: {CONFIG_KEY}.onprem"


@pytest.mark.parametrize(
    ("path", "value", "expected"),
    [
        (["cluster"], {},
         f"{P}.cluster: give exactly one of kubeconfig_context (a context of the operator's kubeconfig) or "
         "kubeconfig_secret (the stack config key of a secret kubeconfig), got neither"),
        (["cluster"], {"kubeconfig_context": "lab", "kubeconfig_secret": "kc"},
         f"{P}.cluster: give exactly one of kubeconfig_context (a context of the operator's kubeconfig) or "
         "kubeconfig_secret (the stack config key of a secret kubeconfig), got kubeconfig_context and "
         "kubeconfig_secret"),
        (["cluster"], {"kubeconfig_secret": "apiVersion: v1\nclusters: []"},
         f"{P}.cluster.kubeconfig_secret: must name a stack config key like gpufleet:onpremKubeconfig (the "
         "kubeconfig itself never goes in the spec), got 'apiVersion: v1\\nclusters: []'"),
        (["cluster"], {"kubeconfig_context": "lab\x00"},
         f"{P}.cluster.kubeconfig_context: must be a kubeconfig context name (1 to 253 printable "
         "characters), got 'lab\\x00'"),
        (["node_cidrs"], [], f"{P}.node_cidrs: must have at least 1 entry, got none"),
        (["pod_cidrs"], ["10.244.0.0/33"],
         f"{P}.pod_cidrs[0]: must be an IPv4 network like 10.40.0.0/16, got '10.244.0.0/33' "
         "('33' is not a valid netmask)"),
        (["service_cidrs"], ["10.244.8.0/22"],
         f"{P}: service_cidrs[0]: 10.244.8.0/22 (onprem services) overlaps 10.244.0.0/16 (onprem pods); "
         "every on-prem and site range must be disjoint, since the links route between them"),
        (["pod_cidrs"], ["10.244.0.0/16", "10.244.0.0/16"],
         f"{P}: pod_cidrs[1]: 10.244.0.0/16 (onprem pods) overlaps 10.244.0.0/16 (onprem pods); "
         "every on-prem and site range must be disjoint, since the links route between them"),
        (["gpu_nodes", "gpu_model"], "B300",
         f"{P}.gpu_nodes.gpu_model: must be one of {', '.join(gpu_models())}, got 'B300'"),
        (["gpu_nodes", "gpus_per_node"], 0, f"{P}.gpu_nodes.gpus_per_node: must be >= 1, got 0"),
        (["gpu_nodes", "names"], ["gpu-01", "GPU_02"],
         f"{P}.gpu_nodes.names: node names must be lower-case letters, digits and '-' (a Kubernetes name, "
         "at most 253 characters, starting and ending with a letter or digit), got 'GPU_02'"),
        (["gpu_nodes", "names"], ["gpu-01", "gpu-01"], f"{P}.gpu_nodes.names: must not name a node twice"),
        (["gpu_nodes", "count"], 3, f"{P}.gpu_nodes: count must equal the 2 names given, got 3"),
        (["gpu_nodes", "selector"], {"gpu": "a100"},
         f"{P}.gpu_nodes: give exactly one of names (the GPU nodes by name) or selector (their labels)"),
        (["gpu_nodes", "names"], _DELETE,
         f"{P}.gpu_nodes: give exactly one of names (the GPU nodes by name) or selector (their labels)"),
        (["namespaces"], {}, f"{P}.namespaces: must have at least 1 entry, got none"),
        (["namespaces"], {"kube-system": {"gpus": 4}},
         f"{P}.namespaces: kube-system is Kubernetes' own namespace; GPU work needs a namespace of its own "
         "(not kube-system, kube-public, kube-node-lease, default)"),
        (["namespaces"], {"Training": {"gpus": 4}},
         f"{P}.namespaces: namespace names must be lower-case letters, digits and '-' (a Kubernetes name, "
         "at most 63 characters, starting and ending with a letter or digit), got 'Training'"),
        (["namespaces", "training", "gpus"], -1, f"{P}.namespaces.training.gpus: must be >= 0, got -1"),
        (["queue_scaler", "queue"], "gpu-jobs",
         f"{P}.queue_scaler: queue: must be an SQS queue URL like "
         "https://sqs.us-east-1.amazonaws.com/123456789012/jobs, got 'gpu-jobs'"),
        (["queue_scaler", "max_replicas"], 0, f"{P}.queue_scaler.max_replicas: must be >= 1, got 0"),
        (["queue_scaler", "min_replicas"], 11,
         f"{P}.queue_scaler: max_replicas: must be >= min_replicas (11), got 10"),
        (["queue_scaler", "cooldown"], "10s",
         f"{P}.queue_scaler.cooldown: must be between 60s and 1 day (86400 s): it is also the warm-up of a "
         "new instance, and a GPU instance takes minutes to boot; got 10s (10 s)"),
        (["queue_scaler", "namespace"], "batch",
         f"{P}: queue_scaler.namespace: must be one of the GPU namespaces (training, inference), "
         "got 'batch'"),
        (["queue_scaler", "source"], "kafka",
         f"{P}.queue_scaler.source: must be one of aws-sqs-queue, redis, rabbitmq, got 'kafka'"),
        (["queue_scaler"], {"source": "redis", "queue": "jobs"},
         f"{P}.queue_scaler: host: must be host:port of the Redis server with source redis, got null"),
        (["queue_scaler"], {"source": "rabbitmq", "queue": "jobs"},
         f"{P}.queue_scaler: authentication: is required with source rabbitmq: name the "
         "TriggerAuthentication that holds its host URL"),
        (["queue_scaler", "host"], "redis:6379",
         f"{P}.queue_scaler: host: is for source redis only; source is aws-sqs-queue"),
        (["priorities"], {"baseline": 10, "burst": 10},
         f"{P}.priorities: baseline must be > burst (10), got 10"),
        (["priorities", "baseline"], 2_000_000_000,
         f"{P}.priorities.baseline: must be <= 1000000000, got 2000000000"),
        (["priorities", "burst_preemption"], "Always",
         f"{P}.priorities.burst_preemption: must be one of Never, PreemptLowerPriority, got 'Always'"),
        (["images", "device_plugin"], "nvcr.io/nvidia/k8s-device-plugin:v0.17.0",
         f"{P}.images.device_plugin: must be an image pinned by digest, like registry/name:tag@sha256:<64 "
         "hex digits>, got 'nvcr.io/nvidia/k8s-device-plugin:v0.17.0'"),
        (["images", "dcgm_exporter"], "nvcr.io/nvidia/k8s/dcgm-exporter@sha256:abc",
         f"{P}.images.dcgm_exporter: must be an image pinned by digest, like registry/name:tag@sha256:<64 "
         "hex digits>, got 'nvcr.io/nvidia/k8s/dcgm-exporter@sha256:abc'"),
        (["hardware", "server"], "dgx-a100",
         f"{P}.hardware.server: must be one of dgx_a100, dgx_h100, got 'dgx-a100'"),
        (["hardware", "amortisation_months"], 0, f"{P}.hardware.amortisation_months: must be >= 1, got 0"),
        (["gpu_daemons"], "operator",
         f"{P}.gpu_daemons: must be one of build, existing, got 'operator'"),
        (["gpus"], 8,
         f"{P}: unknown field 'gpus'; did you mean 'gpu_nodes'? allowed: cluster, node_cidrs, pod_cidrs, "
         "service_cidrs, gpu_nodes, "
         "namespaces, queue_scaler, priorities, gpu_daemons, images, hardware, metrics_scrapers, data_cidrs, "
         "reachable, signal, scheduler"),
    ],
)  # fmt: skip
def test_errors_name_the_field_and_what_is_allowed(path: list[str], value: Any, expected: str) -> None:
    assert errors_of(changed(path, value)) == [expected]


@pytest.mark.parametrize(
    ("path", "value", "expected"),
    [
        (["pod_cidrs"], [f"10.{i}.0.0/16" for i in range(65)],
         f"{P}.pod_cidrs: must list at most 64 ranges, got 65"),
        (["gpu_nodes", "names"], [f"gpu-{i}" for i in range(10_001)],
         f"{P}.gpu_nodes.names: must list at most 10000 nodes, got 10001"),
        (["namespaces"], {f"ns-{i}": {"gpus": 1} for i in range(257)},
         f"{P}.namespaces: must name at most 256 namespaces, got 257"),
        (["pod_cidrs"], 5, f"{P}.pod_cidrs: must be a list, got 5"),
        (["namespaces"], {"training": 4}, f"{P}.namespaces.training: must be a mapping of settings, got 4"),
        (["queue_scaler", "queue"], None, f"{P}.queue_scaler.queue: must be a string, got null"),
    ],
)  # fmt: skip
def test_hostile_sizes_and_shapes(path: list[str], value: Any, expected: str) -> None:
    assert errors_of(changed(path, value)) == [expected]


def test_selector_needs_a_count() -> None:
    section = onprem()
    section["gpu_nodes"] = {"selector": {"gpu": "a100"}, "gpus_per_node": 8, "gpu_model": "A100"}
    assert errors_of(fleet(section)) == [
        f"{P}.gpu_nodes: count is required with a selector: how many nodes it picks"
    ]


# ----------------------------------------------------------------------------------- the address plan


def test_an_on_prem_range_inside_the_home_vpc_names_both() -> None:
    section = onprem()
    section["pod_cidrs"] = ["10.40.128.0/17"]
    assert errors_of(fleet(section)) == [
        f"{SOURCE}: {CONFIG_KEY}: network.vpc_cidr: 10.40.0.0/16 (aws home region) overlaps 10.40.128.0/17 "
        "(onprem pods); every on-prem and site range must be disjoint, since the links route between them"
    ]


def test_an_on_prem_range_overlapping_another_region_names_its_site() -> None:
    raw = fleet(regions={"us-west-2": {"vpc_cidr": "10.96.0.0/16"}})
    assert errors_of(raw) == [
        f"{SOURCE}: {CONFIG_KEY}: network.regions.us-west-2.vpc_cidr: 10.96.0.0/16 (aws:us-west-2) overlaps "
        "10.96.0.0/16 (onprem services); every on-prem and site range must be disjoint, since the links "
        "route between them"
    ]


def test_existing_subnets_leave_the_home_range_out_of_the_plan() -> None:
    section = onprem()
    section["pod_cidrs"] = ["10.40.0.0/16"]
    raw = fleet(section, subnet_ids=["subnet-0a1b2c3d4e5f60718", "subnet-0a1b2c3d4e5f60719"])
    spec = parse_fleet(raw)
    assert spec.onprem is not None


def test_a_disjoint_plan_parses_and_the_model_checks_it_on_construction() -> None:
    spec = parse_fleet(fleet(regions={"us-west-2": {"vpc_cidr": "10.41.0.0/16"}}))
    data = spec.model_dump(mode="json")
    data["onprem"]["node_cidrs"] = ["10.41.10.0/24"]
    with pytest.raises(
        ValueError, match=r"network.regions.us-west-2.vpc_cidr: 10.41.0.0/16 \(aws:us-west-2\)"
    ):
        FleetSpec.model_validate(data)

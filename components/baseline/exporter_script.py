"""The baseline exporter: publishes the burst order's signal from the on-prem cluster.

This file is shipped as it is in a ConfigMap and run by ``python3`` in the exporter's container
(:mod:`components.baseline.exporter`); it imports nothing but the standard library (boto3 only when it
publishes), so the same code is unit-tested in-process.

Every ``interval_seconds`` it reads the cluster's nodes and pods through the API server (the pod's
projected service-account token), computes the baseline's free GPUs and publishes, for each AWS site of
the burst order, ``gpufleet/Baseline`` ``FreeGpusAhead`` with dimension ``Site=<cloud:region>`` into that
site's region (an alarm reads metrics of its own region only). After each publish it touches a
heartbeat file, which the liveness and readiness probes check (``--check``).

Free GPUs: on each GPU node (the baseline's node selector; allocatable ``nvidia.com/gpu`` above 0; not
cordoned; Ready), allocatable less the GPU requests of its pods that have not terminated, never below 0.
A pod's request is the larger of its containers' total (restartable init containers, sidecars, count
with them) and its largest init container; an extended resource's request equals its limit, so a
limit alone counts. A reading that fails publishes nothing: the gated alarms read a missing datapoint as
nothing free ahead (``FILL(ahead, 0)``), so a broken exporter never holds the burst back.

The sites ahead of a site add their pools' free headroom (``free_gpus_ahead``, the same function as
``components.pools.burst.free_gpus_ahead``). This exporter reads no cloud's scaling groups: a site ahead
is passed no headroom, so it counts as full.
"""

from __future__ import annotations

import argparse
import json
import os
import ssl
import sys
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

GPU_RESOURCE = "nvidia.com/gpu"
SIGNAL_NAMESPACE = "gpufleet/Baseline"
SIGNAL_METRIC = "FreeGpusAhead"
SITE_DIMENSION = "Site"
TERMINATED_PHASES = ("Succeeded", "Failed")
SERVICE_ACCOUNT_DIR = "/var/run/secrets/kubernetes.io/serviceaccount"
PAGE_SIZE = 500
_MAX_GPUS = 1_000_000  # no node or pod holds more: a larger figure is a bad reading


# ------------------------------------------------------------------------------------- computation


def gpu_quantity(value: Any) -> int:
    """A GPU count as Kubernetes writes it ("8", or 8); anything else (fractions, suffixes, garbage,
    negative) is 0 GPUs: extended resources are whole numbers."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return value if 0 <= value <= _MAX_GPUS else 0
    if isinstance(value, str) and value.isdigit() and len(value) <= 7:
        number = int(value)
        return number if number <= _MAX_GPUS else 0
    return 0


def _mapping(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _container_gpus(container: Any) -> int:
    resources = _mapping(_mapping(container).get("resources"))
    requests = _mapping(resources.get("requests"))
    if GPU_RESOURCE in requests:
        return gpu_quantity(requests[GPU_RESOURCE])
    return gpu_quantity(_mapping(resources.get("limits")).get(GPU_RESOURCE))


def pod_gpus(pod: Any) -> int:
    """The GPUs a pod holds: its containers' total (with restartable init containers), or its largest
    one-shot init container when that is larger."""
    spec = _mapping(_mapping(pod).get("spec"))
    total = sum(_container_gpus(c) for c in _list(spec.get("containers")))
    init_max = 0
    for container in _list(spec.get("initContainers")):
        if _mapping(container).get("restartPolicy") == "Always":
            total += _container_gpus(container)
        else:
            init_max = max(init_max, _container_gpus(container))
    return max(total, init_max)


def _matches(labels: Mapping[str, Any], selector: Mapping[str, str]) -> bool:
    return all(labels.get(key) == value for key, value in selector.items())


def _ready(node: Mapping[str, Any]) -> bool:
    conditions = _list(_mapping(node.get("status")).get("conditions"))
    return any(_mapping(c).get("type") == "Ready" and _mapping(c).get("status") == "True" for c in conditions)


def node_gpus(node: Any, selector: Mapping[str, str]) -> int:
    """GPUs a node offers the baseline: its allocatable ``nvidia.com/gpu`` when it is one of the
    baseline's GPU nodes, schedulable and Ready; else 0."""
    node = _mapping(node)
    metadata = _mapping(node.get("metadata"))
    if not _matches(_mapping(metadata.get("labels")), selector):
        return 0
    if _mapping(node.get("spec")).get("unschedulable") is True or not _ready(node):
        return 0
    return gpu_quantity(_mapping(_mapping(node.get("status")).get("allocatable")).get(GPU_RESOURCE))


def baseline_free(nodes: Iterable[Any], pods: Iterable[Any], selector: Mapping[str, str]) -> int:
    """The baseline's free GPUs: per GPU node, allocatable less the requests of its pods that have not
    terminated, never below 0; summed."""
    offered: dict[str, int] = {}
    for node in nodes:
        gpus = node_gpus(node, selector)
        name = _mapping(_mapping(node).get("metadata")).get("name")
        if gpus > 0 and isinstance(name, str):
            offered[name] = gpus
    requested = dict.fromkeys(offered, 0)
    for pod in pods:
        spec = _mapping(_mapping(pod).get("spec"))
        phase = _mapping(_mapping(pod).get("status")).get("phase")
        node_name = spec.get("nodeName")
        if node_name in requested and phase not in TERMINATED_PHASES:
            requested[node_name] += pod_gpus(pod)
    return sum(max(0, offered[name] - requested[name]) for name in offered)


@dataclass(frozen=True)
class Headroom:
    """One pool ahead as read from its cloud: instances in service, its maximum, GPUs an instance."""

    site: str
    in_service: int
    max_size: int
    gpus_per_instance: int

    @property
    def free_gpus(self) -> int:
        return max(0, self.max_size - self.in_service) * self.gpus_per_instance


def free_gpus_ahead(ahead: Sequence[str], free: int, pools: Sequence[Headroom]) -> int:
    """The value published for a site: the baseline's free GPUs (never below 0) plus the free headroom
    of every pool at a site ahead of it. A site ahead that was not read counts as full."""
    sites = set(ahead)
    return max(0, free) + sum(p.free_gpus for p in pools if p.site in sites)


def metric_data(config: Mapping[str, Any], free: int, pools: Sequence[Headroom] = ()) -> dict[str, list[Any]]:
    """The PutMetricData entries by AWS region: one ``FreeGpusAhead`` datapoint per site of the config."""
    by_region: dict[str, list[Any]] = {}
    for site in config["sites"]:
        value = free_gpus_ahead(site["ahead"], free, pools)
        by_region.setdefault(site["region"], []).append(
            {
                "MetricName": config.get("metric", SIGNAL_METRIC),
                "Dimensions": [{"Name": config.get("dimension", SITE_DIMENSION), "Value": site["site"]}],
                "Value": float(value),
                "Unit": "Count",
                "StorageResolution": 60,
            }
        )
    return by_region


# -------------------------------------------------------------------------------------- the cluster


def _kube_list(path: str, sa_dir: str = SERVICE_ACCOUNT_DIR) -> list[Any]:
    """Every item of a list call, page by page, with the pod's (rotating) service-account token."""
    host = os.environ["KUBERNETES_SERVICE_HOST"]
    port = os.environ.get("KUBERNETES_SERVICE_PORT", "443")
    context = ssl.create_default_context(cafile=str(Path(sa_dir) / "ca.crt"))
    items: list[Any] = []
    token_continue = ""
    while True:
        query = {"limit": str(PAGE_SIZE)}
        if token_continue:
            query["continue"] = token_continue
        token = (Path(sa_dir) / "token").read_text(encoding="utf-8").strip()
        request = urllib.request.Request(
            f"https://{host}:{port}{path}?{urllib.parse.urlencode(query)}",
            headers={"Authorization": f"Bearer {token}", "Accept": "application/json"},
        )
        with urllib.request.urlopen(request, context=context, timeout=30) as response:
            body = json.load(response)
        items.extend(_list(body.get("items")))
        token_continue = _mapping(body.get("metadata")).get("continue") or ""
        if not token_continue:
            return items


def read_cluster() -> tuple[list[Any], list[Any]]:
    return _kube_list("/api/v1/nodes"), _kube_list("/api/v1/pods")


def put_metrics(by_region: Mapping[str, list[Any]], namespace: str) -> None:
    import boto3  # the image's; credentials from AWS_CONFIG_FILE's credential_process

    for region, data in by_region.items():
        boto3.client("cloudwatch", region_name=region).put_metric_data(Namespace=namespace, MetricData=data)


def run_once(
    config: Mapping[str, Any],
    read: Callable[[], tuple[list[Any], list[Any]]] = read_cluster,
    put: Callable[[Mapping[str, list[Any]], str], None] = put_metrics,
) -> dict[str, list[Any]]:
    nodes, pods = read()
    free = baseline_free(nodes, pods, config.get("node_selector") or {})
    data = metric_data(config, free)
    put(data, config.get("namespace", SIGNAL_NAMESPACE))
    return data


def heartbeat_fresh(path: str, max_age: float, now: float | None = None) -> bool:
    try:
        modified = Path(path).stat().st_mtime
    except OSError:
        return False
    return (time.time() if now is None else now) - modified <= max_age


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="gpufleet baseline exporter")
    parser.add_argument("--config", required=True)
    parser.add_argument("--heartbeat", default="/tmp/heartbeat")
    parser.add_argument("--check", action="store_true", help="exit 0 when the last publish is recent")
    args = parser.parse_args(argv)
    config = json.loads(Path(args.config).read_text(encoding="utf-8"))
    interval = int(config.get("interval_seconds", 60))
    if args.check:
        return 0 if heartbeat_fresh(args.heartbeat, 3 * interval) else 1
    while True:
        started = time.time()
        try:
            data = run_once(config)
        except Exception as error:  # any failure: publish nothing this round, retry
            print(f"gpufleet exporter: {type(error).__name__}: {error}", file=sys.stderr, flush=True)
        else:
            Path(args.heartbeat).write_text(json.dumps(data), encoding="utf-8")
            print(f"gpufleet exporter: published {json.dumps(data)}", flush=True)
        time.sleep(max(1.0, interval - (time.time() - started)))


if __name__ == "__main__":
    sys.exit(main())

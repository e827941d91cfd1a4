"""The baseline exporter: publishes the burst order's signal from the on-prem cluster.

This file is shipped as it is in a ConfigMap and run by ``python3`` in the exporter's container
(:mod:`components.baseline.exporter`); it imports nothing but the standard library (boto3 only when it
publishes to AWS), so the same code is unit-tested in-process.

Every ``interval_seconds`` it reads the cluster's nodes and pods through the API server (the pod's
projected service-account token), computes the baseline's free GPUs and publishes:

- AWS: for each AWS site of the burst order, ``gpufleet/Baseline`` ``FreeGpusAhead`` with dimension
  ``Site=<cloud:region>`` into that site's region (an alarm reads metrics of its own region only),
  through boto3 with IAM Roles Anywhere credentials;
- Alibaba Cloud (``config.json``'s ``alicloud``): for each Alibaba site, CloudMonitor custom metrics
  (PutCustomMetric): ``FreeGpusAhead`` for the site and, for each gated pool, ``GatedBacklog``, the
  pool's MNS queue backlog while no GPU is free ahead of the site, else 0
  (``gpufleet.components.pools.burst_custom``). The backlog is CloudMonitor's ``acs_mns_new``
  ``NumberOfMessagesVisible`` for the queue (DescribeMetricLast): MNS is retiring GetQueueAttributes'
  ``ActiveMessages`` (it "will then return a default value of 0") and names that metric as its
  replacement. Credentials: STS ``AssumeRoleWithOIDC`` with the pod's second projected token
  (audience: the RAM OIDC provider's client id), refreshed before they expire; no AccessKey exists.
  Requests are signed here (RPC signature v1).

A failure on one cloud never stops the other's publishing: it is logged, and the round counts as
published when at least one cloud took its datapoints. After such a round it writes the heartbeat file
(what each cloud was sent, and each failure), which the liveness and readiness probes check
(``--check``); a round where nothing was published leaves it alone.

Free GPUs: on each GPU node (the baseline's node selector; allocatable ``nvidia.com/gpu`` above 0; not
cordoned; Ready), allocatable less the GPU requests of its pods that have not terminated, never below 0.
A pod's request is the larger of its containers' total (restartable init containers, sidecars, count
with them) and its largest init container; an extended resource's request equals its limit, so a
limit alone counts. A reading that fails publishes nothing: the gated alarms read a missing datapoint as
nothing free ahead (``FILL(ahead, 0)``; on Alibaba the pool's raw queue alarm takes over after its
fallback window), so a broken exporter never holds the burst back.

The sites ahead of a site add their pools' free headroom (``free_gpus_ahead``, the same function as
``components.pools.burst.free_gpus_ahead``). This exporter reads no cloud's scaling groups: a site ahead
is passed no headroom, so it counts as full.
"""

from __future__ import annotations

import argparse
import base64
import calendar
import hashlib
import hmac
import json
import math
import os
import ssl
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
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


# ---------------------------------------------------------------------------- Alibaba Cloud: values

GATED_METRIC = "GatedBacklog"
POOL_DIMENSION = "Pool"
PUBLISH_PERIOD_S = 60
ALICLOUD_GROUP_ID = "0"  # PutCustomMetric: no application group
ALICLOUD_RAW_TYPE = "0"  # PutCustomMetric Type 0: raw values
STS_VERSION = "2015-04-01"
CMS_VERSION = "2019-01-01"
# The queue backlog: GetQueueAttributes' ``ActiveMessages`` is being retired ("These fields will then
# return a default value of 0"; https://www.alibabacloud.com/help/en/mns/developer-reference/api-mns-open-2022-01-19-getqueueattributes),
# whose replacement is the CloudMonitor metric ``NumberOfMessagesVisible``, read here with
# DescribeMetricLast (https://www.alibabacloud.com/help/doc-detail/51939.html) in the namespace and with
# the dimensions of the pools' own queue alarm (components.pools.alicloud QUEUE_PROJECT, QUEUE_METRIC).
QUEUE_NAMESPACE = "acs_mns_new"
QUEUE_METRIC = "NumberOfMessagesVisible"
REFRESH_MARGIN_S = 300  # renew STS credentials this long before they expire
SESSION_SECONDS = 3600


def gated_backlog(backlog: float | None, free_ahead: float | None) -> float | None:
    """``GatedBacklog``: the queue's backlog while no GPU is free ahead, else 0; None (publish nothing)
    when the queue could not be read. The same function as ``gpufleet.components.pools.burst_custom``'s."""
    if backlog is None:
        return None
    if math.isnan(backlog) or backlog < 0:
        raise ValueError(f"backlog: {backlog!r} is not a message count")
    if free_ahead is not None and not math.isnan(free_ahead) and free_ahead >= 1:
        return 0.0
    return float(backlog)


def alicloud_item(metric: str, dimensions: Mapping[str, str], value: float, time_ms: int) -> dict[str, str]:
    """One ``MetricList`` item of PutCustomMetric (as ``gpufleet.components.pools.burst_custom``'s)."""
    return {
        "MetricName": metric,
        "Dimensions": json.dumps(dict(dimensions), sort_keys=True),
        "GroupId": ALICLOUD_GROUP_ID,
        "Type": ALICLOUD_RAW_TYPE,
        "Period": str(PUBLISH_PERIOD_S),
        "Time": str(time_ms),
        "Values": json.dumps({"value": value}),
    }


def alicloud_datapoints(
    site: str, backlogs: Mapping[str, float | None], *, free_ahead: float | None, time_ms: int
) -> list[dict[str, str]]:
    """One site's ``MetricList``: ``FreeGpusAhead`` once, then ``GatedBacklog`` per pool whose queue
    was read, in pool-name order (as ``gpufleet.components.pools.burst_custom``'s)."""
    items: list[dict[str, str]] = []
    if free_ahead is not None:
        free = max(0.0, float(free_ahead))
        items.append(alicloud_item(SIGNAL_METRIC, {SITE_DIMENSION: site}, free, time_ms))
    for pool in sorted(backlogs):
        gated = gated_backlog(backlogs[pool], free_ahead)
        if gated is not None:
            items.append(
                alicloud_item(GATED_METRIC, {POOL_DIMENSION: pool, SITE_DIMENSION: site}, gated, time_ms)
            )
    return items


# ------------------------------------------------------------------------- Alibaba Cloud: signing


def percent_encode(value: str) -> str:
    """RPC signature encoding: UTF-8, everything but ``A-Za-z0-9-_.~`` as ``%XY``."""
    return urllib.parse.quote(value, safe="-_.~")


def rpc_string_to_sign(method: str, params: Mapping[str, str]) -> str:
    canonical = "&".join(f"{percent_encode(k)}={percent_encode(params[k])}" for k in sorted(params))
    return f"{method}&{percent_encode('/')}&{percent_encode(canonical)}"


def rpc_signature(method: str, params: Mapping[str, str], secret: str) -> str:
    """RPC signature v1: base64 of HMAC-SHA1, keyed ``secret + "&"``, over the string to sign."""
    digest = hmac.new(f"{secret}&".encode(), rpc_string_to_sign(method, params).encode(), hashlib.sha1)
    return base64.b64encode(digest.digest()).decode("ascii")


# ------------------------------------------------------------------------- Alibaba Cloud: clients

# An HTTP exchange: (method, url, headers, body) -> (status, body). Tests pass a fake.
Send = Callable[[str, str, Mapping[str, str], bytes], tuple[int, bytes]]


def https_send(method: str, url: str, headers: Mapping[str, str], body: bytes) -> tuple[int, bytes]:
    request = urllib.request.Request(url, data=body or None, headers=dict(headers), method=method)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return int(response.status), bytes(response.read())
    except urllib.error.HTTPError as error:
        return int(error.code), bytes(error.read())


def _timestamp(now: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(now))


@dataclass(frozen=True)
class Credentials:
    access_key_id: str
    access_key_secret: str
    security_token: str
    expires: float  # epoch seconds


def _expiry(text: str) -> float:
    return float(calendar.timegm(time.strptime(text, "%Y-%m-%dT%H:%M:%SZ")))


class OidcCredentials:
    """STS ``AssumeRoleWithOIDC`` with the projected token, cached until ``REFRESH_MARGIN_S`` before
    expiry. The token file is read at every exchange: the kubelet rotates it."""

    def __init__(
        self,
        *,
        role_arn: str,
        provider_arn: str,
        token_file: str,
        session_name: str,
        endpoint: str,
        send: Send = https_send,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.role_arn, self.provider_arn, self.token_file = role_arn, provider_arn, token_file
        self.session_name, self.endpoint, self.send, self.clock = session_name, endpoint, send, clock
        self._cached: Credentials | None = None

    def get(self) -> Credentials:
        now = self.clock()
        if self._cached is None or self._cached.expires - REFRESH_MARGIN_S <= now:
            self._cached = self._assume(now)
        return self._cached

    def _assume(self, now: float) -> Credentials:
        token = Path(self.token_file).read_text(encoding="utf-8").strip()
        params = {
            "Action": "AssumeRoleWithOIDC",
            "Format": "JSON",
            "Version": STS_VERSION,
            "Timestamp": _timestamp(now),
            "RoleArn": self.role_arn,
            "OIDCProviderArn": self.provider_arn,
            "OIDCToken": token,
            "RoleSessionName": self.session_name,
            "DurationSeconds": str(SESSION_SECONDS),
        }
        body = urllib.parse.urlencode(params).encode()
        headers = {"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"}
        status, answer = self.send("POST", f"https://{self.endpoint}/", headers, body)
        if status != 200:
            raise RuntimeError(f"sts AssumeRoleWithOIDC: HTTP {status}: {answer[:300]!r}")
        found = _mapping(_mapping(json.loads(answer)).get("Credentials"))
        return Credentials(
            access_key_id=str(found["AccessKeyId"]),
            access_key_secret=str(found["AccessKeySecret"]),
            security_token=str(found["SecurityToken"]),
            expires=_expiry(str(found["Expiration"])),
        )


class AlicloudClient:
    """Reads a queue's backlog and puts custom metrics (both CloudMonitor) with STS credentials."""

    def __init__(
        self,
        *,
        account_id: str,
        credentials: OidcCredentials,
        send: Send = https_send,
        clock: Callable[[], float] = time.time,
        nonce: Callable[[], str] = lambda: uuid.uuid4().hex,
    ) -> None:
        self.account_id, self.credentials = account_id, credentials
        self.send, self.clock, self.nonce = send, clock, nonce

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> AlicloudClient:
        return cls(
            account_id=str(config["account_id"]),
            credentials=OidcCredentials(
                role_arn=str(config["role_arn"]),
                provider_arn=str(config["oidc_provider_arn"]),
                token_file=str(config["token_file"]),
                session_name=str(config.get("session_name", "gpufleet-exporter")),
                endpoint=str(config.get("sts_endpoint", "sts.aliyuncs.com")),
            ),
        )

    def _rpc(self, region: str, action: str, extra: Mapping[str, str]) -> Mapping[str, Any]:
        """One CloudMonitor RPC call (``metrics.<region>.aliyuncs.com``), signed with the STS credentials
        (RPC signature v1, POST form); the JSON answer, or RuntimeError unless its ``Code`` is 200."""
        creds = self.credentials.get()
        params = {
            "Action": action,
            "Format": "JSON",
            "Version": CMS_VERSION,
            "AccessKeyId": creds.access_key_id,
            "SecurityToken": creds.security_token,
            "SignatureMethod": "HMAC-SHA1",
            "SignatureVersion": "1.0",
            "SignatureNonce": self.nonce(),
            "Timestamp": _timestamp(self.clock()),
            **extra,
        }
        params["Signature"] = rpc_signature("POST", params, creds.access_key_secret)
        headers = {"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/json"}
        body = urllib.parse.urlencode(params).encode()
        status, answer = self.send("POST", f"https://metrics.{region}.aliyuncs.com/", headers, body)
        found = _mapping(json.loads(answer)) if status == 200 else {}
        if str(found.get("Code")) != "200":
            raise RuntimeError(f"cms {action}: HTTP {status}: {answer[:300]!r}")
        return found

    def backlog(self, region: str, queue: str) -> int:
        """The queue's visible messages: the newest ``acs_mns_new`` ``NumberOfMessagesVisible`` datapoint
        (its ``Maximum``, as the queue alarm reads it). No datapoint is a failure, not 0: the pool is
        left out and its fallback alarm decides."""
        dimensions = json.dumps([{"queue": queue, "region": region}], sort_keys=True)
        found = self._rpc(
            region,
            "DescribeMetricLast",
            {"Namespace": QUEUE_NAMESPACE, "MetricName": QUEUE_METRIC, "Dimensions": dimensions},
        )
        raw = found.get("Datapoints") or "[]"
        points = [_mapping(p) for p in _list(json.loads(raw) if isinstance(raw, str) else raw)]
        points = [p for p in points if p.get("queue", queue) == queue]
        if not points:
            raise RuntimeError(f"cms DescribeMetricLast {QUEUE_METRIC} {queue}: no datapoint")
        newest = max(points, key=lambda p: float(p.get("timestamp") or 0))
        for statistic in ("Maximum", "Value", "Average"):
            value = newest.get(statistic)
            if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
                return int(value)
        raise RuntimeError(f"cms DescribeMetricLast {QUEUE_METRIC} {queue}: no count in {newest!r}")

    def put(self, region: str, items: Sequence[Mapping[str, str]]) -> None:
        """PutCustomMetric, signed with the STS credentials (RPC signature v1, POST form)."""
        metric_list: dict[str, str] = {}
        for index, item in enumerate(items, start=1):
            for field, value in item.items():
                metric_list[f"MetricList.{index}.{field}"] = value
        self._rpc(region, "PutCustomMetric", metric_list)


def publish_alicloud(
    config: Mapping[str, Any], free: int, client: Any, *, time_ms: int, log: Callable[[str], None]
) -> dict[str, list[dict[str, str]]]:
    """One PutCustomMetric per Alibaba site; a queue that cannot be read leaves its pool out (its
    fallback alarm decides), a site that fails does not stop the next. Raises when no site was put."""
    sent: dict[str, list[dict[str, str]]] = {}
    failures: list[str] = []
    for site in config["sites"]:
        backlogs: dict[str, float | None] = {}
        for pool in site["pools"]:
            try:
                backlogs[pool["pool"]] = float(client.backlog(site["region"], pool["queue"]))
            except Exception as error:
                backlogs[pool["pool"]] = None
                log(f"alicloud {site['site']} {pool['pool']}: {type(error).__name__}: {error}")
        free_ahead = free_gpus_ahead(site["ahead"], free, ())
        items = alicloud_datapoints(site["site"], backlogs, free_ahead=free_ahead, time_ms=time_ms)
        try:
            client.put(site["region"], items)
        except Exception as error:
            failures.append(f"{site['site']}: {type(error).__name__}: {error}")
            continue
        sent[site["site"]] = items
    if failures and not sent:
        raise RuntimeError("; ".join(failures))
    for failure in failures:
        log(f"alicloud {failure}")
    return sent


# ----------------------------------------------------------------------------------------- a round


def _log(message: str) -> None:
    print(f"gpufleet exporter: {message}", file=sys.stderr, flush=True)


class NothingPublished(RuntimeError):
    """No cloud took its datapoints this round."""


def run_once(
    config: Mapping[str, Any],
    read: Callable[[], tuple[list[Any], list[Any]]] = read_cluster,
    put: Callable[[Mapping[str, list[Any]], str], None] = put_metrics,
    alicloud: Any = None,
    *,
    clock: Callable[[], float] = time.time,
    log: Callable[[str], None] = _log,
) -> dict[str, Any]:
    """Read the cluster once, then publish to each configured cloud; one cloud's failure is logged and
    the other still publishes. Returns ``{"aws": by region, "alicloud": by site, "failed": by cloud}``
    with the clouds that published; raises when the reading failed or nothing was published."""
    nodes, pods = read()
    free = baseline_free(nodes, pods, config.get("node_selector") or {})
    result: dict[str, Any] = {"failed": {}}
    if config.get("sites"):
        data = metric_data(config, free)
        try:
            put(data, config.get("namespace", SIGNAL_NAMESPACE))
        except Exception as error:
            result["failed"]["aws"] = f"{type(error).__name__}: {error}"
            log(f"aws: {result['failed']['aws']}")
        else:
            result["aws"] = data
    settings = config.get("alicloud")
    if settings:
        try:
            client = alicloud if alicloud is not None else AlicloudClient.from_config(settings)
            result["alicloud"] = publish_alicloud(
                settings, free, client, time_ms=int(clock() * 1000), log=log
            )
        except Exception as error:
            result["failed"]["alicloud"] = f"{type(error).__name__}: {error}"
            log(f"alicloud: {result['failed']['alicloud']}")
    if "aws" not in result and "alicloud" not in result:
        raise NothingPublished("; ".join(f"{k}: {v}" for k, v in result["failed"].items()) or "no site")
    return result


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
    settings = config.get("alicloud")
    alicloud = AlicloudClient.from_config(settings) if settings else None  # keeps its credentials
    while True:
        started = time.time()
        try:
            data = run_once(config, alicloud=alicloud)
        except Exception as error:  # any failure: publish nothing this round, retry
            print(f"gpufleet exporter: {type(error).__name__}: {error}", file=sys.stderr, flush=True)
        else:
            Path(args.heartbeat).write_text(json.dumps(data), encoding="utf-8")
            print(f"gpufleet exporter: published {json.dumps(data)}", flush=True)
        time.sleep(max(1.0, interval - (time.time() - started)))


if __name__ == "__main__":
    sys.exit(main())

"""``onprem.data_cidrs`` and ``onprem.reachable``: what burst nodes may open on-prem, and nothing else.

A burst node in a cloud runs the team's queue workers, or (with ``onprem.scheduler``) joins the on-prem
cluster as a node: it reads data (NFS, an object store, an image registry) and pushes results and
checkpoints back. Either way it gets egress to named on-prem endpoints only, each a list of ranges
(inside the on-prem node, pod, service or data ranges), ports and a protocol; never every port, never
the cluster's API server or kubelets unless the spec names them. Without ``reachable`` the fleet opens:

- ``baseline``: TCP 443 on the node ranges (the cluster's ingress, where results and checkpoints go);
- ``data``: TCP 443 (object store, registry) and 2049 (NFSv4) on the data ranges, when there are any.

With ``onprem.scheduler`` burst nodes are cluster members (docs/hybrid.md): the fleet adds the endpoint
``kube-apiserver`` (TCP ``scheduler.api_server``'s port on its address) to the spec's, and each site's
security group admits the kubelet port (TCP 10250) from ``scheduler.control_plane_cidrs`` only
(:func:`kubelet_sources`).

A link routes the node and data ranges, plus a pod or service range only when an endpoint lies in it
(:func:`link_ranges`); each site's security group gets one rule per endpoint, port range and protocol
to exactly the endpoint's ranges that its link routes (:func:`site_egress`).
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import AfterValidator, BeforeValidator, Field, field_validator

from gpufleet.components.network.onprem import MAX_PORT_SPAN, EgressRule
from gpufleet.components.spec.values import _Model, _show

if TYPE_CHECKING:
    from gpufleet.components.spec.onprem import OnPrem

IPv4Network = ipaddress.IPv4Network
# A name in an endpoint's cidrs stands for the whole of that on-prem field.
NAMED_RANGES = {"nodes": "node_cidrs", "pods": "pod_cidrs", "services": "service_cidrs", "data": "data_cidrs"}
MAX_ENDPOINTS = 32
MAX_PORTS = 16
# Security-group rules a site may get for on-prem (AWS allows 60 egress rules a group by default, and
# the group holds a few of its own; Tencent and Alibaba give one rule per range as well).
MAX_EGRESS_RULES = 48
HTTPS = 443
NFS = 2049
API_SERVER_ENDPOINT = "kube-apiserver"
_NAME_RE = re.compile(r"^[a-z0-9]([a-z0-9-]{0,30}[a-z0-9])?$")
_PORTS_RE = re.compile(r"^(\d{1,5})(?:-(\d{1,5}))?$")


def _cidr(value: str) -> str:
    if value in NAMED_RANGES:
        return value
    try:
        return str(IPv4Network(value.strip()))
    except ValueError:
        raise ValueError(
            f"must be an IPv4 network like 192.168.16.0/24 or one of {', '.join(NAMED_RANGES)} (that whole "
            f"on-prem field), got {_show(value)}"
        ) from None


def _ports(value: object) -> str:
    if isinstance(value, bool) or not isinstance(value, int | str):
        shown = repr(value) if isinstance(value, float) else _show(value)
        raise ValueError(f"must be a whole-number port like 443 or a range like 30000-32767, got {shown}")
    match = _PORTS_RE.match(str(value).strip())
    low, high = (int(match.group(1)), int(match.group(2) or match.group(1))) if match else (0, 0)
    if not match or not 1 <= low <= high <= 65535 or high - low >= MAX_PORT_SPAN:
        raise ValueError(
            f"must be a port (1-65535) like 443 or a range like 30000-32767 spanning at most {MAX_PORT_SPAN} "
            f"ports, got {_show(value)}: egress to on-prem names its ports, never all of them"
        )
    return str(low) if low == high else f"{low}-{high}"


def data_ranges(value: list[IPv4Network]) -> list[IPv4Network]:
    """``onprem.data_cidrs``: each /8 or narrower (a link routes them, and routes nothing wider)."""
    for net in value:
        if net.prefixlen < 8:
            raise ValueError(f"must name ranges of /8 or smaller, got {net}: links route these ranges only")
    return value


def port_span(ports: int | str) -> tuple[int, int]:
    """``443`` -> (443, 443); ``30000-32767`` -> (30000, 32767) (ports as the spec has checked them)."""
    low, _, high = str(ports).partition("-")
    return int(low), int(high or low)


class Endpoint(_Model):
    """One on-prem endpoint burst nodes may open: its ranges, ports and protocol."""

    name: str = Field(description="a name for the endpoint (lower-case letters, digits, '-'), like registry")
    cidrs: list[Annotated[str, AfterValidator(_cidr)]] = Field(
        min_length=1,
        max_length=16,
        description=(
            "ranges inside the on-prem node, pod, service or data ranges, or nodes, pods, services, data "
            "for the whole field"
        ),
    )
    ports: list[Annotated[int | str, BeforeValidator(_ports)]] = Field(
        min_length=1, max_length=MAX_PORTS, description="ports like 443, or ranges like 30000-32767"
    )
    protocol: Literal["tcp", "udp"] = "tcp"

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if not _NAME_RE.match(value):
            raise ValueError(
                "must be lower-case letters, digits and '-' (at most 32, starting and ending with a letter "
                f"or digit), got {_show(value)}"
            )
        return value


def default_endpoints(onprem: OnPrem) -> list[Endpoint]:
    """What burst nodes reach when the spec names nothing: the cluster's ingress on its nodes, and the
    data ranges' object store, registry and NFS."""
    found = [Endpoint(name="baseline", cidrs=["nodes"], ports=[HTTPS])]
    if onprem.data_cidrs:
        found.append(Endpoint(name="data", cidrs=["data"], ports=[HTTPS, NFS]))
    return found


def endpoints(onprem: OnPrem) -> list[Endpoint]:
    """The spec's endpoints (or the defaults), and, when burst nodes join the cluster, its API server."""
    found = list(onprem.reachable) if onprem.reachable is not None else default_endpoints(onprem)
    scheduler = onprem.scheduler
    if scheduler is not None:
        found.append(
            Endpoint(
                name=API_SERVER_ENDPOINT,
                cidrs=[f"{scheduler.api_server_address}/32"],
                ports=[scheduler.api_server_port],
            )
        )
    return found


def kubelet_sources(onprem: OnPrem) -> tuple[str, ...]:
    """The on-prem ranges a burst node's kubelet port admits (none unless burst nodes join)."""
    if onprem.scheduler is None:
        return ()
    return tuple(str(net) for net in onprem.scheduler.control_plane())


def _join_problems(onprem: OnPrem) -> list[tuple[str, str]]:
    """The API server and the control plane live in the node ranges, and no endpoint takes the name the
    fleet gives the API server's."""
    scheduler = onprem.scheduler
    if scheduler is None:
        return []
    nodes = ", ".join(map(str, onprem.node_cidrs))
    found: list[tuple[str, str]] = []
    if not any(scheduler.api_server_address in net for net in onprem.node_cidrs):
        found.append(
            (
                "scheduler.api_server",
                f"{scheduler.api_server_address} is not inside onprem.node_cidrs ({nodes}): the links route "
                "the node ranges, and burst nodes join the API server through them",
            )
        )
    for index, net in enumerate(scheduler.control_plane_cidrs):
        if not any(net.subnet_of(node) for node in onprem.node_cidrs):
            found.append(
                (
                    f"scheduler.control_plane_cidrs[{index}]",
                    f"{net} is not inside onprem.node_cidrs ({nodes}): the control plane runs on the "
                    "cluster's nodes",
                )
            )
    for index, endpoint in enumerate(onprem.reachable or []):
        if endpoint.name == API_SERVER_ENDPOINT:
            found.append(
                (
                    f"reachable[{index}].name",
                    f"{API_SERVER_ENDPOINT} is the endpoint the fleet opens for scheduler.api_server: "
                    "name yours otherwise",
                )
            )
    return found


def _fields(onprem: OnPrem) -> dict[str, list[IPv4Network]]:
    return {name: list(getattr(onprem, field) or ()) for name, field in NAMED_RANGES.items()}


def endpoint_ranges(onprem: OnPrem, endpoint: Endpoint) -> list[IPv4Network]:
    """The endpoint's ranges, each name replaced by that field's ranges, each range once."""
    fields = _fields(onprem)
    found: list[IPv4Network] = []
    for entry in endpoint.cidrs:
        for net in fields[entry] if entry in fields else [IPv4Network(entry)]:
            if net not in found:
                found.append(net)
    return found


def reach_problems(onprem: OnPrem) -> list[tuple[str, str]]:
    """Endpoints outside the on-prem ranges, names given twice, a data name without data ranges, and
    more rules than a security group holds; each as (field under onprem, message)."""
    fields = _fields(onprem)
    shown = "; ".join(f"{name} {', '.join(map(str, nets))}" for name, nets in fields.items() if nets)
    found: list[tuple[str, str]] = _join_problems(onprem)
    given = onprem.reachable or []
    if len(given) > MAX_ENDPOINTS:
        found.append(("reachable", f"must list at most {MAX_ENDPOINTS} endpoints, got {len(given)}"))
    seen: set[str] = set()
    for index, endpoint in enumerate(given):
        path = f"reachable[{index}]"
        if endpoint.name in seen:
            found.append((f"{path}.name", f"{endpoint.name} is named twice: give each endpoint its own name"))
        seen.add(endpoint.name)
        for position, entry in enumerate(endpoint.cidrs):
            at = f"{path}.cidrs[{position}]"
            if entry in fields:
                if not fields[entry]:
                    found.append((at, f"names {entry}, but onprem.{NAMED_RANGES[entry]} is empty"))
                continue
            net = IPv4Network(entry)
            if not any(net.subnet_of(other) for nets in fields.values() for other in nets):
                found.append(
                    (
                        at,
                        f"{net} is not inside an on-prem range ({shown}): burst nodes reach on-prem ranges "
                        "only; add the range to data_cidrs if it holds data",
                    )
                )
        if len(set(endpoint.ports)) != len(endpoint.ports):
            found.append((f"{path}.ports", "lists a port twice"))
    if found:
        return found
    # The defaults count too: many node or data ranges make many rules.
    rules = sum(len(e.ports) * len(endpoint_ranges(onprem, e)) for e in endpoints(onprem))
    if rules > MAX_EGRESS_RULES:
        found.append(
            (
                "reachable",
                f"opens {rules} (port, range) pairs, more than the {MAX_EGRESS_RULES} a site's security "
                "group is given: name fewer ports or wider ranges",
            )
        )
    return found


def link_ranges(onprem: OnPrem) -> list[IPv4Network]:
    """What a link routes when it names no ranges: the node and data ranges, and each pod or service
    range that holds an endpoint (nothing of the cluster's pods or services otherwise)."""
    used = [net for endpoint in endpoints(onprem) for net in endpoint_ranges(onprem, endpoint)]
    fields = _fields(onprem)
    found: list[IPv4Network] = []
    for name in ("nodes", "pods", "services", "data"):
        for net in fields[name]:
            if name in ("nodes", "data") or any(u.subnet_of(net) for u in used):
                found.append(net)
    return found


def site_egress(onprem: OnPrem, routed: Sequence[IPv4Network]) -> tuple[EgressRule, ...]:
    """One rule per endpoint, port range and protocol, to the endpoint's ranges that ``routed`` (the
    site's link) carries: a range inside a routed range as it is, a routed range inside it as that."""
    rules: list[EgressRule] = []
    for endpoint in endpoints(onprem):
        cidrs: list[str] = []
        for net in endpoint_ranges(onprem, endpoint):
            for route in routed:
                part = net if net.subnet_of(route) else route if route.subnet_of(net) else None
                if part is not None and str(part) not in cidrs:
                    cidrs.append(str(part))
        if not cidrs:
            continue
        for ports in endpoint.ports:
            low, high = port_span(ports)
            rules.append(
                EgressRule(
                    endpoint=endpoint.name,
                    protocol=endpoint.protocol,
                    from_port=low,
                    to_port=high,
                    cidrs=tuple(cidrs),
                )
            )
    return tuple(rules)
